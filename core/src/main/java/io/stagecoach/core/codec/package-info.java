/**
 * The CoAP-over-UDP wire format (RFC 7252 §3): {@link io.stagecoach.core.codec.UdpMessageParser}
 * turns a datagram into a {@link io.stagecoach.core.coap.Message} or a
 * {@link io.stagecoach.core.codec.MessageFormatException}, and
 * {@link io.stagecoach.core.codec.UdpMessageSerializer} turns a message into a datagram.
 * Both are stateless and thread-safe.
 */
package io.stagecoach.core.codec;
