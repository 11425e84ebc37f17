/**
 * Observations a client keeps beyond one process (RFC 7641 §3, client side), for a backend of
 * several nodes behind a load balancer that observes devices, as an LwM2M server does
 * (docs/cluster.md).
 *
 * <p>An {@link io.stagecoach.core.observe.ObservationStore} holds every established observation
 * by its token: an endpoint built with one ({@code CoapEndpointBuilder.observationStore}) stores
 * the observations its {@code CoapObserveRelation}s establish, looks up the token of a
 * notification that matches no exchange of its own, and from then on delivers that observation's
 * notifications to its {@link io.stagecoach.core.observe.NotificationListener}s; after a restart
 * it restores its observations from the store. Implementations live elsewhere (the
 * {@code stagecoach-cluster} module's Redis store); {@link io.stagecoach.core.observe.Observation}
 * has the encoding they share.
 */
package io.stagecoach.core.observe;
