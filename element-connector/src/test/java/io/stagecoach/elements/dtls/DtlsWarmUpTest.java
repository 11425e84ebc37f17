package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The start-up warm-up: real PSK handshakes over loopback against a throwaway server, which is gone
 * afterwards (the suite's thread-leak check covers its threads; the counts here cover the rest).
 */
class DtlsWarmUpTest {

    private static DtlsConnectorConfig server(DtlsCipherSuite... suites) {
        DtlsConnectorConfig.Builder b = DtlsConnector.builder(DtlsConnectorConfig.Role.SERVER)
                .bindAddress(DtlsTestSupport.LOOPBACK).pskStore(PskStore.of("device", "secret"))
                .maxHandshakesPerSource(1).maxHelloRatePerSource(1);
        if (suites.length > 0) {
            b.cipherSuites(suites);
        }
        return b.buildConfig();
    }

    @Test
    void completesEveryHandshakeFromSeveralClientsDespiteTheServersPerSourceLimits() throws Exception {
        // the real server allows one handshake and one hello a second per source; the warm-up's
        // clients share 127.0.0.1, so the throwaway server must lift those limits or stall
        DtlsWarmUp.Result r = DtlsWarmUp.of(server(), 12, 3, Duration.ofSeconds(DtlsTestSupport.TIMEOUT_S)).run();

        assertEquals(12, r.completed());
        assertEquals(0, r.failed());
    }

    @Test
    void zeroHandshakesDoNothing() throws Exception {
        DtlsWarmUp.Result r = DtlsWarmUp.of(server(), 0, 1, Duration.ofSeconds(1)).run();

        assertEquals(new DtlsWarmUp.Result(0, 0, Duration.ZERO), r);
    }

    @Test
    void aServerWithCertificateSuitesToo_warmsItsPskSuite() throws Exception {
        DtlsConnectorConfig mixed = DtlsConnector.builder(DtlsConnectorConfig.Role.SERVER)
                .bindAddress(DtlsTestSupport.LOOPBACK).pskStore(PskStore.of("device", "secret"))
                .certificateCredentials(DtlsTestSupport.pki("CN=server").credentials())
                .cipherSuites(DtlsCipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8, DtlsCipherSuite.TLS_PSK_WITH_AES_128_CCM_8)
                .buildConfig();

        DtlsWarmUp.Result r = DtlsWarmUp.of(mixed, 2, 1, Duration.ofSeconds(DtlsTestSupport.TIMEOUT_S)).run();

        assertEquals(2, r.completed());
    }

    @Test
    void rejectsAClientsConfigurationAndOneWithoutPsk() throws Exception {
        DtlsConnectorConfig client = DtlsConnector.builder(DtlsConnectorConfig.Role.CLIENT)
                .pskCredentials(PskCredentials.of("device", "secret")).buildConfig();
        DtlsConnectorConfig certificatesOnly = DtlsConnector.builder(DtlsConnectorConfig.Role.SERVER)
                .bindAddress(new InetSocketAddress(0))
                .certificateCredentials(DtlsTestSupport.pki("CN=server").credentials()).buildConfig();

        assertThrows(IllegalArgumentException.class, () -> DtlsWarmUp.of(client, 1, 1, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> DtlsWarmUp.of(certificatesOnly, 1, 1, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> DtlsWarmUp.of(server(), -1, 1, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> DtlsWarmUp.of(server(), 1, 0, Duration.ofSeconds(1)));
    }
}
