/**
 * Stagecoach's CoAP (RFC 7252) protocol: the message model and codecs, the endpoint with its
 * layer stack, the server with its resource tree, and the client.
 *
 * <p>Exported packages are the API; the {@code ...internal} packages (exchange and
 * deduplication stores, message IDs, tokens, congestion state, the standard layers, the server's
 * observer bookkeeping) are not, and may change in any release.
 */
module io.stagecoach.core {
    requires transitive io.stagecoach.elements;
    requires org.slf4j;

    exports io.stagecoach.core;
    exports io.stagecoach.core.client;
    exports io.stagecoach.core.coap;
    exports io.stagecoach.core.codec;
    exports io.stagecoach.core.config;
    exports io.stagecoach.core.endpoint;
    exports io.stagecoach.core.link;
    exports io.stagecoach.core.network;
    exports io.stagecoach.core.network.stack;
    exports io.stagecoach.core.observe;
    exports io.stagecoach.core.server;
}
