/**
 * The network stage of Stagecoach: connectors that move datagrams and know nothing of CoAP (JDK
 * UDP, Netty UDP, an in-memory network), the clock and scheduler abstraction, and typed
 * configuration. Netty and BouncyCastle are optional: {@code io.stagecoach.elements.netty} needs
 * Netty, {@code io.stagecoach.elements.tcp} Netty's handler (and codec-http for
 * WebSockets), and {@code io.stagecoach.elements.dtls} BouncyCastle on the module or class path,
 * nothing else does.
 */
module io.stagecoach.elements {
    requires org.slf4j;
    requires static io.netty.buffer;
    requires static io.netty.common;
    requires static io.netty.transport;
    requires static io.netty.handler;
    requires static io.netty.codec;
    requires static io.netty.codec.http;
    requires static io.netty.transport.classes.epoll;
    requires static io.netty.transport.classes.io_uring;
    requires static io.netty.transport.unix.common;
    requires static org.bouncycastle.provider;
    requires static org.bouncycastle.tls;

    exports io.stagecoach.elements;
    exports io.stagecoach.elements.concurrent;
    exports io.stagecoach.elements.config;
    exports io.stagecoach.elements.dtls;
    exports io.stagecoach.elements.netty;
    exports io.stagecoach.elements.sim;
    exports io.stagecoach.elements.tcp;
    exports io.stagecoach.elements.time;
    exports io.stagecoach.elements.udp;
}
