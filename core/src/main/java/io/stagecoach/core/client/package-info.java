/**
 * The novice client API: {@link io.stagecoach.core.client.CoapClient} bound to a URI, with
 * synchronous, {@code CompletableFuture} and {@link io.stagecoach.core.client.CoapHandler} forms of
 * every method, returning {@link io.stagecoach.core.client.CoapResponse}. Failures are
 * {@link io.stagecoach.core.client.CoapException}s ({@code CoapTimeoutException},
 * {@code CoapRejectedException}, {@code CoapClientException}), never {@code null}.
 */
package io.stagecoach.core.client;
