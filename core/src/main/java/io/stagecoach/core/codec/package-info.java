/**
 * The CoAP wire formats. Over UDP (RFC 7252 §3): {@link io.stagecoach.core.codec.UdpMessageParser}
 * turns a datagram into a {@link io.stagecoach.core.coap.Message} or a
 * {@link io.stagecoach.core.codec.MessageFormatException}, and
 * {@link io.stagecoach.core.codec.UdpMessageSerializer} turns a message into a datagram. Over TCP,
 * TLS and WebSockets (RFC 8323 §3.2, §4.2): {@link io.stagecoach.core.codec.TcpFrameSplitter} cuts
 * a TCP stream into frames, {@link io.stagecoach.core.codec.TcpMessageParser} and
 * {@link io.stagecoach.core.codec.TcpMessageSerializer} convert frames and messages or
 * {@link io.stagecoach.core.coap.SignalingMessage}s. Parsers and serializers are stateless and
 * thread-safe; each error carries the {@link io.stagecoach.core.codec.MessageFormatException.Verdict}
 * the endpoint must act on.
 */
package io.stagecoach.core.codec;
