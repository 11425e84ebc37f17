package io.stagecoach.core.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.stagecoach.elements.time.VirtualClock;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The ban log against a remote party that wants to flood it, multiply its lines or steer its
 * text: per-source and global limits on the virtual clock, IPv6 sources per /64, escaped reasons,
 * and the fail2ban filter of docs/security.md applied to lines rendered with the patterns it was
 * written for.
 */
class BanLogTest {

    private final VirtualClock clock = new VirtualClock();
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    @BeforeEach
    void attach() {
        lines.start();
        ((Logger) LoggerFactory.getLogger(BanLog.LOGGER)).addAppender(lines);
    }

    @AfterEach
    void detach() {
        ((Logger) LoggerFactory.getLogger(BanLog.LOGGER)).detachAppender(lines);
    }

    private List<String> messages() {
        return lines.list.stream().map(ILoggingEvent::getFormattedMessage).collect(Collectors.toList());
    }

    private static InetSocketAddress peer(String address, int port) {
        return new InetSocketAddress(address, port);
    }

    // --- what a flood gets through ------------------------------------------------------------

    /**
     * 1000 sources (one datagram each) against a global limit of 3 lines a minute: 3 lines. A
     * minute later the next line says how many lines the limit held back.
     */
    @Test
    void aFloodFromManySourcesGivesAtMostTheGlobalLimit() {
        BanLog log = new BanLog(clock, Duration.ofMinutes(1), 4096, 3);
        for (int i = 0; i < 1000; i++) {
            log.malformed(peer("10.1." + (i >> 8) + "." + (i & 0xFF), 5683), "TKL 9 is reserved (RFC 7252 3)");
        }
        assertEquals(3, messages().size(), String.join("\n", messages()));
        clock.advance(Duration.ofSeconds(59));
        log.limitExceeded(peer("10.9.9.9", 1), "65 options, more than 64");
        assertEquals(3, messages().size(), "the limit counts both kinds, and the window is a minute");
        clock.advance(Duration.ofSeconds(1));
        log.malformed(peer("10.9.9.8", 1), "Empty NON message (RFC 7252 4.1)");
        assertEquals("malformed CoAP from 10.9.9.8:1: Empty NON message (RFC 7252 4.1) (998 other lines over the global limit)",
                messages().get(3));
    }

    /** Held back by its source and by the global limit: both counts, in one suffix. */
    @Test
    void bothCountsInOneSuffix() {
        assertEquals("", BanLog.suffix(0, 0));
        assertEquals(" (2 more since)", BanLog.suffix(2, 0));
        assertEquals(" (2 more since; 7 other lines over the global limit)", BanLog.suffix(2, 7));
    }

    /**
     * One IPv6 /64: different host bits and ports count as one source (one line; the next after a
     * minute says 3 more). Another /64 of the same /48 is another source.
     */
    @Test
    void ipv6SourcesAreCountedPerSlash64() {
        BanLog log = new BanLog(clock);
        log.malformed(peer("2001:db8:0:1::1", 5683), "r");
        log.malformed(peer("2001:db8:0:1::2", 40000), "r");
        log.malformed(peer("2001:db8:0:1:ffff:ffff:ffff:ffff", 1), "r");
        log.malformed(peer("2001:db8:0:1:1234::9", 2), "r");
        log.malformed(peer("2001:db8:0:2::1", 5683), "r");
        assertEquals(List.of("malformed CoAP from [2001:db8:0:1:0:0:0:1]:5683: r",
                "malformed CoAP from [2001:db8:0:2:0:0:0:1]:5683: r"), messages());
        clock.advance(BanLog.PERIOD);
        log.malformed(peer("2001:db8:0:1::77", 9), "r");
        assertEquals("malformed CoAP from [2001:db8:0:1:0:0:0:77]:9: r (3 more since)", messages().get(2));
    }

    /** IPv4: one source per address, whatever the port. */
    @Test
    void ipv4PortsDoNotMultiplyLines() {
        BanLog log = new BanLog(clock);
        for (int port = 1; port <= 500; port++) {
            log.limitExceeded(peer("192.0.2.7", port), "17 Uri-Path segments, more than 16");
        }
        log.limitExceeded(peer("192.0.2.8", 1), "17 Uri-Path segments, more than 16");
        assertEquals(2, messages().size(), String.join("\n", messages()));
    }

    // --- what a reason can carry ---------------------------------------------------------------

    /** A reason with CR/LF, ESC and non-ASCII: one line of printable ASCII. */
    @Test
    void reasonsAreEscapedToOnePrintableLine() {
        BanLog log = new BanLog(clock);
        log.malformed(peer("10.0.0.9", 40001), "bad\r\nINFO io.stagecoach.ban - malformed CoAP from 6.6.6.6:1: x\u001b[2Jé");
        String m = messages().get(0);
        assertEquals("malformed CoAP from 10.0.0.9:40001: bad\\x0d\\x0aINFO io.stagecoach.ban - malformed CoAP from"
                + " 6.6.6.6:1: x\\x1b[2J\\xe9", m);
        assertTrue(m.chars().allMatch(c -> c >= 0x20 && c < 0x7F), m);
    }

    /** A reason of 100 kB gives a line of a few hundred characters. */
    @Test
    void reasonsAreCapped() {
        BanLog log = new BanLog(clock);
        log.limitExceeded(peer("10.0.0.9", 1), "a".repeat(100_000));
        String m = messages().get(0);
        assertTrue(m.length() < 300, m.length() + ": " + m);
        assertTrue(m.endsWith("...(100000 chars)"), m);
    }

    /** Addresses from their bytes: no host name, no slash, no IPv6 scope (an interface name). */
    @Test
    void addressesAreFormattedFromTheirBytes() throws Exception {
        assertEquals("[fd00:0:0:0:0:0:0:1]:5683", BanLog.format(peer("fd00::1", 5683)));
        assertEquals("10.0.0.9:40001", BanLog.format(peer("10.0.0.9", 40001)));
        byte[] linkLocal = InetAddress.getByName("fe80::1").getAddress();
        InetSocketAddress scoped = new InetSocketAddress(Inet6Address.getByAddress(null, linkLocal, 3), 5683);
        assertTrue(scoped.getAddress().getHostAddress().contains("%"), "the JDK prints the scope");
        assertEquals("[fe80:0:0:0:0:0:0:1]:5683", BanLog.format(scoped));
    }

    // --- the fail2ban filter of docs/security.md -----------------------------------------------

    /** fail2ban's {@code <ADDR>} (fail2ban/server/failregex.py and ipdns.py), in Java syntax. */
    static final String ADDR = "\\[?(?:(?:::f{4,6}:)?(?<ip4>(?:\\d{1,3}\\.){3}\\d{1,3})"
            + "|(?<ip6>(?:[0-9a-fA-F]{1,4}::?|::){1,7}(?:[0-9a-fA-F]{1,4}|(?<=:):)))\\]?";

    /** The failregex for the dedicated ban-log file, as in docs/security.md. */
    static final String FILE_FAILREGEX =
            "^\\s*io\\.stagecoach\\.ban (?:malformed CoAP|CoAP limit exceeded) from <ADDR>:\\d+: ";
    static final String FILE_PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS} %logger %msg%n";
    static final String FILE_DATE = "^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{3}";

    /** The failregex for the console pattern of examples/src/main/resources/logback.xml. */
    static final String CONSOLE_FAILREGEX =
            "^\\s*INFO\\s+\\[[^\\]]*\\] io\\.stagecoach\\.ban - (?:malformed CoAP|CoAP limit exceeded) from <ADDR>:\\d+: ";
    static final String CONSOLE_PATTERN = "%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n";
    static final String CONSOLE_DATE = "^\\d{2}:\\d{2}:\\d{2}\\.\\d{3}";

    /** An unanchored filter like {@code ^.*io\.stagecoach\.ban.* from <ADDR>}: what not to use. */
    static final String GREEDY_FAILREGEX = "^.*io\\.stagecoach\\.ban.* from <ADDR>(?::\\d+)?: ";

    /** The lines as a logback layout with {@code pattern} writes them, one per event. */
    private List<String> rendered(String pattern) {
        PatternLayout layout = new PatternLayout();
        layout.setContext((LoggerContext) LoggerFactory.getILoggerFactory());
        layout.setPattern(pattern);
        layout.start();
        return lines.list.stream().map(layout::doLayout).collect(Collectors.toList());
    }

    /**
     * What fail2ban does with one line: cut the date its datepattern finds, search the failregex
     * ({@code re.search}), return the address matched, or null.
     */
    static String ban(String failregex, String datePattern, String line) {
        String rest = line.replaceFirst(datePattern, "");
        Matcher m = Pattern.compile(failregex.replace("<ADDR>", ADDR)).matcher(rest);
        if (!m.find()) {
            return null;
        }
        return m.group("ip4") != null ? m.group("ip4") : m.group("ip6");
    }

    private void logSamples() {
        BanLog log = new BanLog(clock);
        log.malformed(peer("10.0.0.9", 40001), "TKL 9 is reserved (RFC 7252 3)");
        log.limitExceeded(peer("fd00::1", 5683), "70 options, more than 64");
        log.malformed(peer("192.0.2.1", 5683), "x from 6.6.6.6:1: y");
        log.limitExceeded(peer("2001:db8::5", 7), "a\nio.stagecoach.ban malformed CoAP from 6.6.6.6:1: b");
        clock.advance(BanLog.PERIOD);
        log.malformed(peer("10.0.0.9", 40002), "TKL 9 is reserved (RFC 7252 3)");
    }

    /** The file pattern: each line bans the datagram's source, never an address in the reason. */
    @Test
    void fileFailregexMatchesIpv4AndBracketedIpv6AndNothingInTheReason() {
        logSamples();
        List<String> file = rendered(FILE_PATTERN);
        assertEquals(5, file.size(), String.join("", file));
        List<String> banned = file.stream().map(l -> ban(FILE_FAILREGEX, FILE_DATE, l)).collect(Collectors.toList());
        assertEquals(List.of("10.0.0.9", "fd00:0:0:0:0:0:0:1", "192.0.2.1", "2001:db8:0:0:0:0:0:5", "10.0.0.9"), banned,
                String.join("", file));
        assertTrue(file.stream().allMatch(l -> l.indexOf('\n') == l.length() - 1), "one line per event");
    }

    /** The console pattern of the example server: the same addresses. */
    @Test
    void consoleFailregexMatchesTheSameLines() {
        logSamples();
        List<String> console = rendered(CONSOLE_PATTERN);
        List<String> banned = console.stream().map(l -> ban(CONSOLE_FAILREGEX, CONSOLE_DATE, l)).collect(Collectors.toList());
        assertEquals(List.of("10.0.0.9", "fd00:0:0:0:0:0:0:1", "192.0.2.1", "2001:db8:0:0:0:0:0:5", "10.0.0.9"), banned,
                String.join("", console));
    }

    /** Why anchoring matters: a greedy filter bans the address a peer wrote into the reason. */
    @Test
    void aGreedyFilterWouldBanTheAddressInTheReason() {
        logSamples();
        String line = rendered(FILE_PATTERN).get(2);
        assertEquals("6.6.6.6", ban(GREEDY_FAILREGEX, FILE_DATE, line), line);
        assertEquals("192.0.2.1", ban(FILE_FAILREGEX, FILE_DATE, line), line);
    }

    /** The logback safety net docs/security.md gives for loggers that do not escape yet. */
    @Test
    void logbackReplaceNeutralisesControlsInAMessage() {
        PatternLayout layout = new PatternLayout();
        layout.setContext((LoggerContext) LoggerFactory.getILoggerFactory());
        layout.setPattern("%logger - %replace(%msg){'[\\p{Cc}\\p{Cf}]', '?'}%n");
        layout.start();
        Logger other = (Logger) LoggerFactory.getLogger("io.stagecoach.test.other");
        ListAppender<ILoggingEvent> seen = new ListAppender<>();
        seen.start();
        other.addAppender(seen);
        try {
            other.warn("a layer threw on {}", "GET /x\r\nINFO forged\u001b[2J\u202e");
        } finally {
            other.detachAppender(seen);
        }
        assertEquals("io.stagecoach.test.other - a layer threw on GET /x??INFO forged?[2J?\n", layout.doLayout(seen.list.get(0)));
    }

    /** Other loggers' lines and other messages do not match. */
    @Test
    void otherLinesDoNotMatch() {
        String[] others = {
            "2026-01-01 12:00:00.000 io.stagecoach.core.endpoint.Inbound a layer threw on x from 6.6.6.6:1: y",
            "2026-01-01 12:00:00.000 io.stagecoach.ban something else from 6.6.6.6:1: y",
            "2026-01-01 12:00:00.000 io.stagecoach.bans malformed CoAP from 6.6.6.6:1: y",
        };
        for (String line : others) {
            assertEquals(null, ban(FILE_FAILREGEX, FILE_DATE, line), line);
        }
        assertFalse(Pattern.compile(FILE_FAILREGEX.replace("<ADDR>", ADDR)).matcher("").find());
    }
}
