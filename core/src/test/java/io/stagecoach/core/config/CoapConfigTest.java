package io.stagecoach.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.config.ConfigurationException;
import io.stagecoach.elements.config.Definition;
import io.stagecoach.elements.config.UdpConfig;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class CoapConfigTest {

    @Test
    void groupListsEveryPublicDefinitionConstant() throws IllegalAccessException {
        List<Definition<?>> constants = new ArrayList<>();
        for (Field f : CoapConfig.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == Definition.class) {
                constants.add((Definition<?>) f.get(null));
            }
        }
        assertEquals(constants.size(), CoapConfig.DEFINITIONS.definitions().size(),
                "a Definition constant is missing from CoapConfig.DEFINITIONS");
        assertTrue(CoapConfig.DEFINITIONS.definitions().containsAll(constants));
        for (Definition<?> d : constants) {
            assertTrue(d.name().startsWith("coap."), d.name());
            assertRoundTrip(d);
        }
    }

    private static <T> void assertRoundTrip(Definition<T> d) {
        assertEquals(d.defaultValue(), d.parse(d.format(d.defaultValue()), null), d.name());
    }

    @Test
    void defaultsAreThoseOfRfc7252AndRfc7641() {
        Configuration config = Configuration.defaults(CoapConfig.DEFINITIONS);
        assertEquals(Duration.ofSeconds(2), config.get(CoapConfig.ACK_TIMEOUT));
        assertEquals(1.5, config.get(CoapConfig.ACK_RANDOM_FACTOR));
        assertEquals(4, config.get(CoapConfig.MAX_RETRANSMIT));
        assertEquals(1, config.get(CoapConfig.NSTART));
        assertEquals(Duration.ofSeconds(247), config.get(CoapConfig.EXCHANGE_LIFETIME));
        assertEquals(Duration.ofSeconds(145), config.get(CoapConfig.NON_LIFETIME));
        assertEquals(Duration.ofHours(24), config.get(CoapConfig.OBSERVE_CON_INTERVAL));
        assertEquals(DeduplicationMode.IDEMPOTENT_RELAXED, config.get(CoapConfig.DEDUPLICATION_MODE));
        assertEquals(CongestionControlMode.DEFAULT, config.get(CoapConfig.CONGESTION_CONTROL));
        assertEquals(CoapConfig.defaultProtocolThreads(Runtime.getRuntime().availableProcessors()),
                config.get(CoapConfig.PROTOCOL_THREADS));
    }

    @Test
    void exchangeLifetimeDefaultMatchesTheRfcDerivation() {
        // RFC 7252 §4.8.2: MAX_TRANSMIT_SPAN = ACK_TIMEOUT * (2^MAX_RETRANSMIT - 1) * ACK_RANDOM_FACTOR,
        // EXCHANGE_LIFETIME = span + 2 * MAX_LATENCY (100 s) + PROCESSING_DELAY (ACK_TIMEOUT),
        // NON_LIFETIME = span + MAX_LATENCY.
        double span = 2.0 * ((1 << CoapConfig.MAX_RETRANSMIT.defaultValue()) - 1)
                * CoapConfig.ACK_RANDOM_FACTOR.defaultValue();
        assertEquals(45.0, span);
        assertEquals(CoapConfig.EXCHANGE_LIFETIME.defaultValue(), Duration.ofSeconds((long) span + 200 + 2));
        assertEquals(CoapConfig.NON_LIFETIME.defaultValue(), Duration.ofSeconds((long) span + 100));
        // MAX_TRANSMIT_WAIT = ACK_TIMEOUT * (2^(MAX_RETRANSMIT + 1) - 1) * ACK_RANDOM_FACTOR = 93 s.
        assertEquals(CoapConfig.CLIENT_TIMEOUT.defaultValue(), Duration.ofSeconds((long) (2.0 * 31 * 1.5)));
    }

    @Test
    void tokenLengthAboveEightIsRejectedNamingTheBound() {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> Configuration.builder(CoapConfig.DEFINITIONS).set(CoapConfig.TOKEN_LENGTH, 9));
        assertEquals("Invalid configuration value for 'coap.token-length': \"9\"; expected at most 8 (allowed 0 .. 8)",
                e.getMessage());
    }

    @Test
    void blockSizeMustBeAPowerOfTwoBetween16And1024() {
        Properties p = new Properties();
        p.setProperty("coap.blockwise.preferred-block-size", "768");
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> Configuration.builder(CoapConfig.DEFINITIONS).load(p));
        assertEquals("a power of two", e.expected());
        p.setProperty("coap.blockwise.preferred-block-size", "1KiB");
        assertEquals(1024, Configuration.builder(CoapConfig.DEFINITIONS).load(p).build()
                .get(CoapConfig.BLOCKWISE_PREFERRED_BLOCK_SIZE));
    }

    @Test
    void enumsParseCaseInsensitivelyFromFiles() {
        Properties p = new Properties();
        p.setProperty("coap.dedup.mode", "strict");
        p.setProperty("coap.congestion-control", "Cocoa_Full_Backoff_2");
        p.setProperty("udp.receive-buffer", "8MiB");
        Configuration config = CoapConfig.builder().load(p).build();
        assertEquals(DeduplicationMode.STRICT, config.get(CoapConfig.DEDUPLICATION_MODE));
        assertEquals(CongestionControlMode.COCOA_FULL_BACKOFF_2, config.get(CoapConfig.CONGESTION_CONTROL));
        assertEquals(8 * 1024 * 1024, config.get(UdpConfig.RECEIVE_BUFFER));
    }

    @Test
    void systemPropertyOverridesAckTimeout() {
        Properties system = new Properties();
        system.setProperty("stagecoach.coap.ack-timeout", "3s");
        Configuration config = CoapConfig.builder().applySystemProperties(system).build();
        assertEquals(Duration.ofSeconds(3), config.get(CoapConfig.ACK_TIMEOUT));
    }

    /** The STRICT store of a -Xmx256m server holds enough for 7,000 new requests/s over 247 s. */
    @Test
    void dedupCapIsHalfTheHeapAt72BytesPerEntryClamped() {
        long mib = 1024L * 1024;
        assertEquals(1_864_135, CoapConfig.dedupEntriesForHalfTheHeap(256 * mib));
        assertTrue(CoapConfig.dedupEntriesForHalfTheHeap(256 * mib) / 247.0 >= 7_000);
        assertEquals(10_000, CoapConfig.dedupEntriesForHalfTheHeap(mib), "floor for tiny heaps");
        assertEquals(100_000_000, CoapConfig.dedupEntriesForHalfTheHeap(64L * 1024 * mib), "ceiling for huge heaps");
        assertEquals(CoapConfig.dedupEntriesForHalfTheHeap(Runtime.getRuntime().maxMemory()),
                Configuration.builder(CoapConfig.DEFINITIONS).build().get(CoapConfig.DEDUP_MAX_ENTRIES),
                "the default follows this JVM's -Xmx");
    }

    @Test
    void protocolStageRunsInlineOnOneCoreAndOnAPoolOfOneThreadPerCoreOtherwise() {
        assertEquals(0, CoapConfig.defaultProtocolThreads(1));
        assertEquals(2, CoapConfig.defaultProtocolThreads(2));
        assertEquals(16, CoapConfig.defaultProtocolThreads(16));
    }
}
