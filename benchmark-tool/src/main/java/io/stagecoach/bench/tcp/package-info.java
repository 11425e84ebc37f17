/**
 * CoAP over TCP (RFC 8323) for CoAPBench: the C generator and answering server
 * {@link io.stagecoach.bench.tcp.CoapTcpLoad}, built on demand.
 */
package io.stagecoach.bench.tcp;
