package io.stagecoach.elements;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class RawDataTest {

    private static final EndpointContext PEER = EndpointContext.of(new InetSocketAddress("127.0.0.1", 5683));

    @Test
    void bytesIsACopyAndSharedBytesIsTheArrayTheFactoryTook() {
        byte[] datagram = {0x40, 0x01, 0x12, 0x34};
        RawData raw = RawData.inbound(datagram, PEER, 7);

        byte[] copy = raw.bytes();
        copy[0] = 0;

        assertNotSame(datagram, copy, "bytes() must hand out a copy");
        assertSame(datagram, raw.sharedBytes(), "sharedBytes() must not copy");
        assertArrayEquals(new byte[] {0x40, 0x01, 0x12, 0x34}, raw.sharedBytes(), "changing the copy left the data alone");
        assertEquals(4, raw.size());
        assertEquals(7, raw.receiveNanos());
    }
}
