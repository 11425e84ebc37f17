package io.stagecoach.elements;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class RawDataReceiverTest {

    /**
     * A receiver that implements only {@code receiveData} gets a lent datagram as a {@link RawData}
     * of its own: the bytes of the lent range, copied, so the connector's reuse of its buffer does
     * not change what the receiver keeps.
     */
    @Test
    void theDefaultCopiesTheLentRangeIntoARawDataOfItsOwn() {
        List<RawData> got = new ArrayList<>();
        RawDataReceiver receiver = got::add;
        byte[] buffer = "xxhelloyy".getBytes(StandardCharsets.US_ASCII);
        EndpointContext sender = EndpointContext.of(new InetSocketAddress("127.0.0.1", 5683));

        receiver.receiveDatagram(buffer, 2, 5, sender, 77L);
        Arrays.fill(buffer, (byte) 0);

        assertEquals(1, got.size());
        assertArrayEquals("hello".getBytes(StandardCharsets.US_ASCII), got.get(0).bytes());
        assertEquals(sender, got.get(0).context());
        assertEquals(77L, got.get(0).receiveNanos());
    }
}
