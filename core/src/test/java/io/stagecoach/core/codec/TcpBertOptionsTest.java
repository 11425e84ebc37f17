package io.stagecoach.core.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.BlockOption;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Option;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.ReliableTransportOptions;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.testutil.TestVectors;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * BERT (RFC 8323 §6): SZX 7 in Block1/Block2 is legal over reliable transports, still invalid
 * over UDP (RFC 7959 §2.2).
 */
class TcpBertOptionsTest {

    @Test
    void blockOptionTakesSzx7OnlyWhenAllowed() {
        assertThrows(IllegalArgumentException.class, () -> BlockOption.of(3, true, 7));
        assertThrows(IllegalArgumentException.class, () -> BlockOption.of(3, true, 7, false));
        assertThrows(IllegalArgumentException.class, () -> BlockOption.decode(new byte[] {0x3f}));
        assertThrows(IllegalArgumentException.class, () -> BlockOption.of(3, true, 8, true));
        BlockOption bert = BlockOption.of(3, true, 7, true);
        assertTrue(bert.isBert());
        assertEquals(1024, bert.size(), "a BERT block number counts 1024-byte blocks");
        assertEquals(3 * 1024L, bert.offset());
        assertEquals("3/M/BERT", bert.toString());
        assertEquals(bert, BlockOption.decode(bert.encode(), true));
        assertEquals("3f", TestVectors.hex(bert.encode()));
        assertFalse(BlockOption.of(3, true, 6, true).isBert());
    }

    @Test
    void bertResponseOverTcpReadsItsBlock2() throws MessageFormatException {
        // RFC 8323 Figure 13: 2.05 Content, 2:0/1/BERT(3072)
        OptionSet options = OptionSet.fromWire(new byte[] {0x0f}, new int[] {OptionNumber.BLOCK2.number(), 0, 1}, 1);
        Response r = Response.builder(Code.CONTENT).token(Token.fromHex("01")).options(options)
                .payload(new byte[3072]).build();
        TcpMessageSerializer tcp = new TcpMessageSerializer(ReliableFraming.TCP);
        Message back = new TcpMessageParser(ReliableFraming.TCP, 4096).parseMessage(tcp.serialize(r));

        BlockOption block2 = ReliableTransportOptions.block2(back.options());
        assertEquals(BlockOption.of(0, true, 7, true), block2);
        assertTrue(ReliableTransportOptions.invalidOptions(back.options()).isEmpty());
        assertTrue(ReliableTransportOptions.isValid(back.options(), 0));
        // the UDP view of the same options is unchanged: SZX 7 is invalid there
        assertNull(back.options().block2());
        assertEquals(1, back.options().invalidOptions().size());
    }

    @Test
    void udpStillRefusesBert() throws MessageFormatException {
        OptionSet options = OptionSet.fromWire(new byte[] {0x17}, new int[] {OptionNumber.BLOCK1.number(), 0, 1}, 1);
        Response r = Response.builder(Code.CONTINUE).type(Type.ACK).mid(1).options(options).build();
        Message back = new UdpMessageParser().parse(new UdpMessageSerializer().serialize(r));
        assertNull(back.options().block1());
        assertEquals(List.of(Option.of(OptionNumber.BLOCK1, new byte[] {0x17})), back.options().invalidOptions());
    }

    @Test
    void otherInvalidBlockOptionsStayInvalidOverTcp() {
        // a 4-byte Block2, and a second Block1 after a valid one
        OptionSet options = OptionSet.fromWire(new byte[] {1, 2, 3, 4, 0x0f, 0x1f}, new int[] {23, 0, 4, 27, 4, 1, 27, 5, 1}, 3);
        assertNull(ReliableTransportOptions.block2(options));
        assertEquals(BlockOption.of(0, true, 7, true), ReliableTransportOptions.block1(options));
        assertEquals(2, ReliableTransportOptions.invalidOptions(options).size());
        assertFalse(ReliableTransportOptions.isValid(options, 0));
        assertTrue(ReliableTransportOptions.isValid(options, 1));
        assertFalse(ReliableTransportOptions.isValid(options, 2));
    }
}
