/**
 * The CoAP message model (RFC 7252 §3, §5): immutable {@link io.stagecoach.core.coap.Message}s
 * ({@link io.stagecoach.core.coap.Request}, {@link io.stagecoach.core.coap.Response},
 * {@link io.stagecoach.core.coap.EmptyMessage}) built by validating builders, and the open
 * value types they are made of ({@link io.stagecoach.core.coap.Code},
 * {@link io.stagecoach.core.coap.OptionNumber}, {@link io.stagecoach.core.coap.ContentFormat})
 * that keep numbers this version does not know.
 *
 * <p>Nothing here does I/O; the wire format lives in {@code io.stagecoach.core.codec}.
 */
package io.stagecoach.core.coap;
