package io.stagecoach.elements.dtls;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ConnectorCounters;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import io.stagecoach.elements.udp.UdpConnector;
import java.io.IOException;
import java.net.InetSocketAddress;

/** A UDP connector whose socket a test can move to a new port, as a NAT rebinding would. */
final class RebindableConnector implements Connector {

    private volatile Connector current = newUdp();
    private volatile RawDataReceiver receiver = d -> { };

    private static Connector newUdp() {
        return UdpConnector.builder().bindAddress(DtlsTestSupport.LOOPBACK).build();
    }

    /** Closes the socket and opens another on a fresh port; the DTLS layer above is not told. */
    void rebind() throws IOException {
        Connector old = current;
        Connector next = newUdp();
        next.setRawDataReceiver(receiver);
        next.start();
        current = next;
        old.destroy();
    }

    @Override
    public void start() throws IOException {
        current.start();
    }

    @Override
    public void stop() {
        current.stop();
    }

    @Override
    public void destroy() {
        current.destroy();
    }

    @Override
    public void send(RawData data) {
        current.send(data);
    }

    @Override
    public void setRawDataReceiver(RawDataReceiver r) {
        receiver = r;
        current.setRawDataReceiver(r);
    }

    @Override
    public InetSocketAddress getAddress() {
        return current.getAddress();
    }

    @Override
    public String getProtocol() {
        return "UDP";
    }

    @Override
    public ConnectorCounters counters() {
        return current.counters();
    }
}
