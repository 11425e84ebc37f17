/**
 * Benchmarks beyond GET (CoAPBench): observe fan-out ({@code bench observe}: many observers of
 * one resource, RFC 7641) and block-wise goodput ({@code bench blockwise}: a large body over
 * RFC 7959 Block2). The client sides are the C tools {@code coap-observe} and {@code coap-block},
 * neutral to every server; this package starts the servers, runs the tools and reads their output.
 */
package io.stagecoach.bench.beyond;
