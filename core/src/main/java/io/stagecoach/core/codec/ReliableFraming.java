package io.stagecoach.core.codec;

/**
 * The two message framings of CoAP over reliable transports (RFC 8323). Both put the same
 * options and payload as CoAP over UDP behind a header without version, type and message ID;
 * they differ in how the message length is carried.
 */
public enum ReliableFraming {

    /**
     * TCP and TLS (RFC 8323 §3.2): the header's Len nibble, with 1, 2 or 4 extended length bytes
     * for Len 13, 14, 15, gives the length of options and payload, which delimits the message in
     * the byte stream ({@link TcpFrameSplitter}).
     */
    TCP,

    /**
     * WebSockets (RFC 8323 §4.2): the same header with Len always 0 and no extended length; the
     * WebSocket binary message delimits the CoAP message.
     */
    WEBSOCKET
}
