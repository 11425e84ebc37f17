/**
 * Lockstep tests: a scripted CoAP peer that talks to the endpoint under test datagram by
 * datagram, over the in-memory {@code SimulatedNetwork} on a {@code VirtualClock} (after
 * Californium's {@code LockstepEndpoint}). Shipped in core's test-jar for the other modules.
 *
 * <h2>Writing a lockstep test</h2>
 * <ol>
 *   <li>Create a {@code VirtualClock}, a {@code SimulatedNetwork(clock, seed)}, start the endpoint
 *       under test on a {@code SimulatedConnector} of that network, and
 *       {@link io.stagecoach.core.test.lockstep.LockstepPeer#attach attach} a peer.
 *   <li>Write the exchange as the RFC 7252 message-flow figures do, one line per datagram:
 *       {@code peer.con().get().mid(..).token(..).path(..).to(server).go()} for what the peer
 *       sends, {@code peer.expect().type(..).code(..).mid(..)...} for what must come back.
 *       {@code expect()} runs the clock's due tasks first, so zero-delay answers are seen at once.
 *   <li>Move time explicitly: {@code peer.advance(d)}, {@code peer.expectNothingFor(d)}
 *       (nothing may arrive within {@code d}), {@code peer.expectWithin(d)} (the next datagram
 *       within {@code d}). Check timing with {@code .at(t, tolerance)}, {@code .between(min, max)}
 *       (from the peer's time origin, reset by {@code markTime()}) or {@code .sincePrevious(min, max)}.
 *   <li>Capture what the endpoint chose with {@code .storeMid("name")} / {@code .storeToken("name")}
 *       and reuse it: {@code peer.ack(peer.mid("name")).go()}.
 *   <li>End with {@code peer.expectNothing()} so stray datagrams fail the test, and close the peer.
 * </ol>
 * <pre>{@code
 * //  Client (peer)                          Server (endpoint under test)
 * //     | CON GET /slow MID=0x1234 T=0a --------->|
 * //     |<---------------------- ACK MID=0x1234  |  (empty: separate response follows)
 * //     |<---- CON 2.05 MID=? T=0a "done"        |
 * //     | ACK MID=? ------------------------------>|
 * peer.con().get().mid(0x1234).token("0a").path("slow").to(server).go();
 * peer.expect().emptyAck(0x1234);
 * peer.expectWithin(ofSeconds(5)).type(Type.CON).code(Code.CONTENT).token("0a").payload("done").storeMid("sep");
 * peer.ack(peer.mid("sep")).to(server).go();
 * peer.expectNothingFor(ofSeconds(100)); // no retransmission after the ACK
 * }</pre>
 *
 * <p>Negative tests: the builder does not validate options and accepts any type/code pairing
 * (see {@link io.stagecoach.core.test.lockstep.OutgoingMessage}); byte-level breakage goes through
 * {@link io.stagecoach.core.test.lockstep.LockstepPeer#send(byte[], java.net.InetSocketAddress)}.
 * Received datagrams that do not parse make {@code expect()} fail with "malformed: reason";
 * {@code expectRaw()} returns them as bytes.
 */
package io.stagecoach.core.test.lockstep;
