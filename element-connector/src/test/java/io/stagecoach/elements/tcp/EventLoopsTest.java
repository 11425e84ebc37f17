package io.stagecoach.elements.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.stagecoach.elements.tcp.EventLoops.Kind;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** The choice of the Netty transport and its fallback where the wanted one is not available. */
class EventLoopsTest {

    private static final BooleanSupplier YES = () -> true;
    private static final BooleanSupplier NO = () -> false;
    /** Stands for a transport whose classes must not be loaded: asking for it fails the test. */
    private static final BooleanSupplier NOT_ASKED = () -> {
        throw new AssertionError("availability asked for a transport that is not wanted");
    };

    @Test
    void ioUringWhereWantedAndAvailable() {
        assertEquals(Kind.IO_URING, EventLoops.choose(true, true, YES, NOT_ASKED));
    }

    @Test
    void ioUringUnavailableFallsBackToEpollThenNio() {
        assertEquals(Kind.EPOLL, EventLoops.choose(true, true, NO, YES));
        assertEquals(Kind.NIO, EventLoops.choose(true, true, NO, NO));
    }

    @Test
    void epollUnlessIoUringIsWanted() {
        assertEquals(Kind.EPOLL, EventLoops.choose(true, false, NOT_ASKED, YES));
        assertEquals(Kind.NIO, EventLoops.choose(true, false, NOT_ASKED, NO));
    }

    @Test
    void noNativeTransportMeansNioWhateverElseIsAskedFor() {
        assertEquals(Kind.NIO, EventLoops.choose(false, true, NOT_ASKED, NOT_ASKED));
        assertEquals(Kind.NIO, EventLoops.choose(false, false, NOT_ASKED, NOT_ASKED));
    }

    /** The settings' defaults: io_uring where it loads, else epoll (chosen by measurement). */
    @Test
    void theDefaultIsIoUringThenEpoll() {
        TcpConnectorConfig config = TcpConnectorConfig.builder().buildConfig();
        assertEquals(Kind.IO_URING, EventLoops.choose(config.nativeTransport(), config.ioUring(), YES, NOT_ASKED));
        assertEquals(Kind.EPOLL, EventLoops.choose(config.nativeTransport(), config.ioUring(), NO, YES));
    }
}
