package io.stagecoach.elements.sim;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;

/**
 * The path a packet takes through a {@link SimulatedNetwork}: the links it crosses in order.
 * Links are shared objects, so every packet routed over the same {@link BottleneckLink} competes
 * for its capacity and buffer.
 */
@FunctionalInterface
public interface Route {

    /**
     * @return the links from {@code src} to {@code dst}, or {@code null} to fall back to the
     *         network's per-pair or default conditions
     */
    List<Link> path(InetSocketAddress src, InetSocketAddress dst);

    /**
     * A star around one server: clients send over {@code toServer}, the server answers over
     * {@code fromServer}; other pairs fall back. For the congestion set-up
     * (clients - router - server) pass e.g. {@code [uplinkBottleneck, routerToServer]} and
     * {@code [serverToRouter, downlinkBottleneck]}.
     */
    static Route star(InetSocketAddress server, List<Link> toServer, List<Link> fromServer) {
        Objects.requireNonNull(server, "server");
        List<Link> up = List.copyOf(toServer);
        List<Link> down = List.copyOf(fromServer);
        return (src, dst) -> dst.equals(server) ? up : src.equals(server) ? down : null;
    }
}
