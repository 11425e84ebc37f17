package io.stagecoach.examples.cli;

import io.stagecoach.core.coap.BlockOption;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Option;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Token;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * The command line of {@code ./stagecoach client}: libcoap {@code coap-client}'s short flags with
 * aiocoap-client's long names as aliases. Parsing validates every value, so a bad one ends the
 * command with a one-line reason before anything is sent.
 */
final class ClientOptions {

    /** libcoap's default wait (its {@code -B} default is 90 s). */
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(90);

    String uri;
    Code method = Code.GET;
    byte[] payload;
    String payloadFile;
    int contentFormat = -1;
    int accept = -1;
    Duration observe;
    int blockSize = -1;
    boolean non;
    final List<Option> options = new ArrayList<>();
    Token token;
    Duration timeout = DEFAULT_TIMEOUT;
    /** {@code -G}: how often the request is sent, a second apart (libcoap's repeat count). */
    int repeat = 1;
    /** {@code --rebind}: a new local port before each repeat. */
    boolean rebind;
    boolean verbose;
    Path output;
    boolean help;
    /** {@code -C}/{@code --ca}: trusted issuers of the server's certificate. */
    Path ca;
    /** {@code -c}/{@code --cert}: this client's certificate chain. */
    Path cert;
    /** {@code -j}/{@code --key}: the PKCS#8 private key of {@link #cert}. */
    Path key;
    /** {@code -u}: PSK identity (coaps). */
    String pskIdentity;
    /** {@code -k}: PSK secret (coaps): UTF-8 text, or bytes when written {@code 0x...}. */
    byte[] pskKey;

    static String usage() {
        return String.join("\n",
                "usage: ./stagecoach client [options] URI",
                "  -m, --method METHOD         get, post, put, delete, fetch, patch, ipatch (default get)",
                "  -e, --payload TEXT          request payload",
                "  -f, --payload-file FILE     request payload from FILE ('-' = stdin)",
                "  -t, --content-format CF     number or name: text, link, xml, octet, json, cbor",
                "  -A, --accept CF             Accept option, number or name",
                "  -s, --observe SECONDS       observe the resource for SECONDS, printing each notification",
                "  -b, --block-size BYTES      block size 16..1024 (power of two) for Block1 and Block2",
                "  -N, --non                   send a NON request (default CON)",
                "  -O, --option NUM,VALUE      add option NUM (repeatable); VALUE 0x.. = hex bytes,",
                "                              a number for uint options, else UTF-8 text",
                "  -T, --token HEX             request token (0..8 bytes)",
                "  -B, --timeout SECONDS       give up after SECONDS (default 90)",
                "  -G COUNT                    send the request COUNT times (1..255), a second apart, printing each",
                "                              answer (libcoap's -G); exit status: the worst of them",
                "  --rebind                    coap, coaps: move to a new local port before each repeat of -G, as a",
                "                              NAT rebinding does; a DTLS session and its Connection ID are kept",
                "  -v, --verbose               show the messages on the wire (stderr), code and options",
                "  -o, --output FILE           write the payload to FILE instead of stdout",
                "  -u IDENTITY                 coaps: PSK identity (with -k)",
                "  -k KEY                      coaps: pre-shared key, UTF-8 text or 0x-prefixed hex (with -u)",
                "  -C, --ca FILE               coaps, coaps+tcp, coaps+ws: PEM certificates to trust for the server's",
                "                              certificate (coaps+tcp/ws default: the JDK's; coaps: no default)",
                "  -c, --cert FILE             coaps, coaps+tcp, coaps+ws: this client's PEM certificate chain, leaf first",
                "  -j, --key FILE              the PKCS#8 PEM private key of -c (default: a PRIVATE KEY block in -c's file)",
                "coaps (DTLS) needs -u and -k, or -C (and optionally -c, -j), or both",
                "URI schemes: coap, coaps (DTLS), coap+tcp, coaps+tcp, coap+ws, coaps+ws (RFC 8323)",
                "exit status: 0 on 2.xx, 1 on 4.xx/5.xx, 2 on timeout or error (reason on stderr)",
                "");
    }

    static ClientOptions parse(String[] args) throws UsageException {
        ClientOptions o = new ClientOptions();
        ArgCursor c = new ArgCursor(args);
        while (c.hasNext()) {
            String flag = c.nextFlag();
            switch (flag) {
                case "-h", "--help" -> o.help = true;
                case "-C", "--ca" -> o.ca = Path.of(c.value());
                case "-c", "--cert" -> o.cert = Path.of(c.value());
                case "-j", "--key" -> o.key = Path.of(c.value());
                case "-u" -> {
                    o.pskIdentity = c.value();
                    if (o.pskIdentity.isEmpty()) {
                        throw new UsageException("-u: the PSK identity must not be empty");
                    }
                }
                case "-k" -> o.pskKey = secret("-k", c.value());
                case "-m", "--method" -> o.method = method(c.value());
                case "-e", "--payload" -> o.payload = c.value().getBytes(StandardCharsets.UTF_8);
                case "-f", "--payload-file" -> o.payloadFile = c.value();
                case "-t", "--content-format" -> o.contentFormat = format(flag, c.value());
                case "-A", "--accept" -> o.accept = format(flag, c.value());
                case "-s", "--observe" -> o.observe = seconds(c.decimalValue(0.001));
                case "-b", "--block-size" -> {
                    o.blockSize = c.intValue(16, 1024);
                    if (Integer.bitCount(o.blockSize) != 1) {
                        throw new UsageException(flag + " must be a power of two 16..1024, got " + o.blockSize);
                    }
                }
                case "-N", "--non" -> o.non = true;
                case "-O", "--option" -> o.options.add(option(c.value()));
                case "-T", "--token" -> o.token = token(c.value());
                case "-B", "--timeout" -> o.timeout = seconds(c.decimalValue(0.001));
                case "-G" -> o.repeat = c.intValue(1, 255);
                case "--rebind" -> o.rebind = true;
                case "-v", "--verbose" -> o.verbose = true;
                case "-o", "--output" -> o.output = Path.of(c.value());
                default -> {
                    if (flag.startsWith("-") && flag.length() > 1) {
                        throw new UsageException("unknown option '" + flag + "'; try './stagecoach client --help'");
                    }
                    if (o.uri != null) {
                        throw new UsageException("one URI only, got '" + o.uri + "' and '" + flag + "'");
                    }
                    o.uri = flag;
                }
            }
        }
        if (o.uri == null && !o.help) {
            throw new UsageException("a coap:// (or coaps://, coap+tcp://, coaps+tcp://, coap+ws://, coaps+ws://)"
                    + " URI is required; try './stagecoach client --help'");
        }
        if ((o.pskIdentity == null) != (o.pskKey == null)) {
            throw new UsageException("PSK needs both -u IDENTITY and -k KEY");
        }
        if (o.key != null && o.cert == null) {
            throw new UsageException("-j/--key needs -c/--cert, the certificate chain it belongs to");
        }
        if (o.payload != null && o.payloadFile != null) {
            throw new UsageException("give -e/--payload or -f/--payload-file, not both");
        }
        if (o.observe != null && (o.repeat > 1 || o.rebind)) {
            throw new UsageException("-s/--observe observes once: no -G or --rebind with it");
        }
        if (o.rebind && o.uri != null && !o.uri.startsWith("coap://") && !o.uri.startsWith("coaps://")) {
            throw new UsageException("--rebind moves a datagram socket: coap:// or coaps:// URIs only");
        }
        return o;
    }

    /**
     * A pre-shared key as libcoap's {@code -k} and {@code --psk} of the server take it: the UTF-8
     * bytes of {@code text}, or the bytes of the hex digits after a {@code 0x} prefix.
     */
    static byte[] secret(String flag, String text) throws UsageException {
        if (text.isEmpty()) {
            throw new UsageException(flag + ": the key must not be empty");
        }
        if (text.startsWith("0x") || text.startsWith("0X")) {
            try {
                byte[] bytes = HexFormat.of().parseHex(text.substring(2));
                if (bytes.length == 0) {
                    throw new UsageException(flag + ": no hex digits after 0x");
                }
                return bytes;
            } catch (IllegalArgumentException e) {
                throw new UsageException(flag + ": bad hex key '" + text + "'");
            }
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** The Block2/Block1 option that asks for {@link #blockSize} (RFC 7959 §2.2), or null. */
    BlockOption block(int num) {
        return blockSize < 0 ? null : BlockOption.of(num, false, BlockOption.szxOf(blockSize));
    }

    private static Code method(String name) throws UsageException {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "get" -> Code.GET;
            case "post" -> Code.POST;
            case "put" -> Code.PUT;
            case "delete" -> Code.DELETE;
            case "fetch" -> Code.FETCH;
            case "patch" -> Code.PATCH;
            case "ipatch" -> Code.IPATCH;
            default -> throw new UsageException("unknown method '" + name + "'; use get, post, put, delete, fetch, patch or ipatch");
        };
    }

    private static int format(String flag, String text) throws UsageException {
        try {
            return ContentFormat.parse(text).number();
        } catch (IllegalArgumentException e) {
            throw new UsageException(flag + ": " + e.getMessage());
        }
    }

    private static Duration seconds(double seconds) {
        return Duration.ofNanos(Math.round(seconds * 1e9));
    }

    private static Token token(String hex) throws UsageException {
        try {
            return Token.fromHex(hex);
        } catch (IllegalArgumentException e) {
            throw new UsageException("-T/--token: " + e.getMessage());
        }
    }

    /** {@code NUM,VALUE}: 0x-prefixed hex, a decimal number for uint options, else UTF-8 text. */
    static Option option(String spec) throws UsageException {
        int comma = spec.indexOf(',');
        if (comma < 1) {
            throw new UsageException("-O/--option needs NUM,VALUE, got '" + spec + "'");
        }
        int number;
        try {
            number = Integer.parseInt(spec.substring(0, comma).trim());
        } catch (NumberFormatException e) {
            throw new UsageException("-O/--option: option number must be decimal, got '" + spec.substring(0, comma) + "'");
        }
        if (number < 0 || number > OptionNumber.MAX_NUMBER) {
            throw new UsageException("-O/--option: option number must be 0..65535, got " + number);
        }
        String value = spec.substring(comma + 1);
        try {
            OptionNumber on = OptionNumber.valueOf(number);
            if (value.startsWith("0x") || value.startsWith("0X")) {
                return Option.of(number, HexFormat.of().parseHex(value.substring(2)));
            }
            if (on.format() == OptionNumber.Format.UINT && value.matches("\\d{1,10}")) {
                return Option.ofUint(on, Long.parseLong(value));
            }
            return Option.of(number, value.getBytes(StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new UsageException("-O/--option " + spec + ": " + e.getMessage());
        }
    }
}
