package io.stagecoach.core.fuzz;

import io.stagecoach.core.codec.UdpMessageSerializer;
import io.stagecoach.core.coap.BlockOption;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.testutil.TestVectors;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * The seed corpus of {@link EndpointFuzzTest}: every shared test vector as a one-datagram input,
 * plus short conversations that reach state a single datagram cannot (a Block2 download, a Block1
 * upload, an observe registration, a separate response, a deep path, many options).
 * {@link SeedCorpusTest} checks the files on disk equal these and rewrites them with
 * {@code -Dstagecoach.updateSeeds=true}.
 */
final class EndpointFuzzSeeds {

    private static final UdpMessageSerializer SERIALIZER = new UdpMessageSerializer();

    private EndpointFuzzSeeds() {
    }

    static Map<String, byte[]> all() {
        Map<String, byte[]> seeds = new TreeMap<>();
        for (String section : new String[] {"valid", "malformed", "ignored"}) {
            for (Map<String, Object> v : TestVectors.section(section)) {
                byte[] datagram = TestVectors.hex((String) v.get("hex"));
                seeds.put(section + "-" + v.get("name"), new FuzzInput.Writer().add(0, 1, datagram).toBytes());
            }
        }
        seeds.put("conv-hello-con-non", new FuzzInput.Writer()
                .add(0, 1, get(Type.CON, 1, "hello", 0))
                .add(0, 1, get(Type.CON, 1, "hello", 0)) // duplicate
                .add(1, 2, get(Type.NON, 2, "hello", 0)).toBytes());
        FuzzInput.Writer download = new FuzzInput.Writer();
        for (int num = 0; num < 3; num++) {
            Request.Builder b = Request.get().type(Type.CON).mid(10 + num).token(Token.fromHex("b2"));
            b.options().uriPath("big").block2(BlockOption.of(num, false, 6));
            download.add(0, 1, SERIALIZER.serialize(b.build()));
        }
        seeds.put("conv-block2-download", download.toBytes());
        FuzzInput.Writer upload = new FuzzInput.Writer();
        for (int num = 0; num < 3; num++) {
            byte[] chunk = new byte[num < 2 ? 512 : 100];
            Arrays.fill(chunk, (byte) ('0' + num));
            Request.Builder b = Request.put().type(Type.CON).mid(20 + num).token(Token.fromHex("b1")).payload(chunk);
            b.options().uriPath("echo").block1(BlockOption.of(num, num < 2, 5));
            upload.add(2, 1, SERIALIZER.serialize(b.build()));
        }
        seeds.put("conv-block1-upload", upload.toBytes());
        Request.Builder observe = Request.get().type(Type.CON).mid(30).token(Token.fromHex("0b5e"));
        observe.options().uriPath("obs").observe(0);
        Request.Builder cancel = Request.get().type(Type.CON).mid(31).token(Token.fromHex("0b5e"));
        cancel.options().uriPath("obs").observe(1);
        seeds.put("conv-observe-register-cancel", new FuzzInput.Writer()
                .add(3, 3, SERIALIZER.serialize(observe.build()))
                .add(3, 3, SERIALIZER.serialize(cancel.build())).toBytes());
        seeds.put("conv-separate-response", new FuzzInput.Writer()
                .add(1, 4, get(Type.CON, 40, "slow", 0)).toBytes());
        seeds.put("conv-deep-path", new FuzzInput.Writer().add(0, 0, get(Type.CON, 50, "a/b/c", 0))
                .add(0, 0, get(Type.CON, 51, "a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s", 0)).toBytes());
        seeds.put("conv-many-queries", new FuzzInput.Writer().add(0, 0, get(Type.CON, 60, "hello", 40)).toBytes());
        return seeds;
    }

    private static byte[] get(Type type, int mid, String path, int queries) {
        Request.Builder b = Request.get().type(type).mid(mid).token(Token.fromHex("0a"));
        b.options().uriPath(path);
        for (int i = 0; i < queries; i++) {
            b.options().addUriQuery("q" + i);
        }
        return SERIALIZER.serialize(b.build());
    }
}
