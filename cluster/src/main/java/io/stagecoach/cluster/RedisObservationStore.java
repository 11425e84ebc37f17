package io.stagecoach.cluster;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.netty.util.HashedWheelTimer;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.observe.Observation;
import io.stagecoach.core.observe.ObservationStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * An {@link ObservationStore} in a Redis server (standalone, or a primary behind Sentinel as
 * {@link RedisURI} names it), shared by every node of a cluster, through Lettuce (docs/cluster.md).
 *
 * <p>Layout, under the key prefix {@code P} (default {@code stagecoach:observe}):
 * <ul>
 *   <li>{@code P:obs:TOKENHEX}: a hash with {@code node} (the node that stored it) and
 *       {@code obs} ({@link Observation#encode()});</li>
 *   <li>{@code P:node:NODE}: the set of token hex strings stored by that node, read by
 *       {@link #restore()}.</li>
 * </ul>
 * {@link #put} and {@link #remove} run as Lua scripts, so the hash and the sets change together
 * (a token put by another node moves to that node's set). The scripts name the set keys from an
 * argument, which Redis Cluster does not allow: this store is for one Redis (with replicas).
 *
 * <p>Bounded: each command times out after {@link Builder#timeout} (default 2 s) and at most
 * {@link Builder#maxQueuedCommands} (default 10,000) wait while the connection is down; beyond,
 * a command fails at once. A failed stage is what the endpoint counts as a store error: the
 * notification is dropped without a RST, so a Redis outage does not end observations (RFC 7641
 * §3.6); CON notifications come back with their retransmissions.
 *
 * <p>Owns its Lettuce client and threads (named {@code stagecoach-redis-*}); {@link #close()}
 * releases them. An endpoint does not close its store.
 */
public final class RedisObservationStore implements ObservationStore, AutoCloseable {

    private static final Pattern NODE = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final String HASH_NODE = "node";
    private static final String HASH_OBS = "obs";

    /** KEYS: the observation's hash, the new node's set. ARGV: node, encoded, token hex, set prefix. */
    private static final String PUT = """
            local old = redis.call('HGET', KEYS[1], 'node')
            if old and old ~= ARGV[1] then redis.call('SREM', ARGV[4] .. old, ARGV[3]) end
            redis.call('HSET', KEYS[1], 'node', ARGV[1], 'obs', ARGV[2])
            redis.call('SADD', KEYS[2], ARGV[3])
            return 1
            """;

    /** KEYS: the observation's hash. ARGV: token hex, set prefix. */
    private static final String REMOVE = """
            local old = redis.call('HGET', KEYS[1], 'node')
            if old then redis.call('SREM', ARGV[2] .. old, ARGV[1]) end
            return redis.call('DEL', KEYS[1])
            """;

    /** KEYS: the node's set. ARGV: hash prefix. Entries whose hash is gone leave the set. */
    private static final String RESTORE = """
            local out = {}
            for _, t in ipairs(redis.call('SMEMBERS', KEYS[1])) do
              local o = redis.call('HGET', ARGV[1] .. t, 'obs')
              if o then table.insert(out, o) else redis.call('SREM', KEYS[1], t) end
            end
            return out
            """;

    private final String node;
    private final String hashPrefix;
    private final String setPrefix;
    private final HashedWheelTimer timer;
    private final ClientResources resources;
    private final RedisClient client;
    private final StatefulRedisConnection<byte[], byte[]> connection;
    private final RedisAsyncCommands<byte[], byte[]> commands;
    private final AtomicBoolean closed = new AtomicBoolean();

    private RedisObservationStore(Builder b) {
        this.node = b.node;
        this.hashPrefix = b.keyPrefix + ":obs:";
        this.setPrefix = b.keyPrefix + ":node:";
        ThreadFactory threads = new NamedThreads("stagecoach-redis");
        this.timer = new HashedWheelTimer(threads);
        this.resources = DefaultClientResources.builder().ioThreadPoolSize(1).computationThreadPoolSize(1)
                .threadFactoryProvider(pool -> new NamedThreads("stagecoach-redis-" + pool)).timer(timer).build();
        RedisURI uri = RedisURI.create(b.uri);
        uri.setTimeout(b.timeout);
        this.client = RedisClient.create(resources, uri);
        client.setOptions(ClientOptions.builder().requestQueueSize(b.maxQueuedCommands)
                .timeoutOptions(TimeoutOptions.enabled(b.timeout)).build());
        try {
            this.connection = client.connect(ByteArrayCodec.INSTANCE);
        } catch (RuntimeException e) {
            release();
            throw e;
        }
        this.commands = connection.async();
    }

    /** A store in the Redis at {@code uri} (e.g. {@code redis://127.0.0.1:6379}), for the node named {@code node}. */
    public static Builder builder(String uri, String node) {
        return new Builder(uri, node);
    }

    /** The node this store keeps observations for in {@link #restore()}. */
    public String node() {
        return node;
    }

    @Override
    public CompletionStage<Void> put(Observation observation) {
        String hex = observation.token().toHex();
        return commands.<Long>eval(PUT, ScriptOutputType.INTEGER,
                new byte[][] {bytes(hashPrefix + hex), bytes(setPrefix + node)},
                bytes(node), observation.encode(), bytes(hex), bytes(setPrefix)).thenApply(n -> null);
    }

    @Override
    public CompletionStage<Observation> get(Token token) {
        return commands.hget(bytes(hashPrefix + token.toHex()), bytes(HASH_OBS))
                .thenApply(encoded -> encoded == null ? null : Observation.decode(encoded));
    }

    @Override
    public CompletionStage<Void> remove(Token token) {
        String hex = token.toHex();
        return commands.<Long>eval(REMOVE, ScriptOutputType.INTEGER, new byte[][] {bytes(hashPrefix + hex)},
                bytes(hex), bytes(setPrefix)).thenApply(n -> null);
    }

    @Override
    public CompletionStage<List<Observation>> restore() {
        return commands.<List<Object>>eval(RESTORE, ScriptOutputType.MULTI, new byte[][] {bytes(setPrefix + node)},
                bytes(hashPrefix)).thenApply(list -> {
                    List<Observation> out = new ArrayList<>(list.size());
                    for (Object o : list) {
                        out.add(Observation.decode((byte[]) o));
                    }
                    return out;
                });
    }

    /** The node that stored the observation of {@code token}, or {@code null}; for tools and tests. */
    public CompletionStage<String> nodeOf(Token token) {
        return commands.hget(bytes(hashPrefix + token.toHex()), bytes(HASH_NODE))
                .thenApply(n -> n == null ? null : new String(n, StandardCharsets.UTF_8));
    }

    /** Closes the connection and stops the Lettuce threads. The observations stay in Redis. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            connection.close();
            release();
        }
    }

    private void release() {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
        timer.stop();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "RedisObservationStore[node=" + node + " keys=" + hashPrefix + "*]";
    }

    /** Daemon threads named {@code prefix-N}, so the suite's thread-leak check sees them. */
    private static final class NamedThreads implements ThreadFactory {
        private final String prefix;
        private final AtomicInteger n = new AtomicInteger();

        NamedThreads(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        }
    }

    /** Settings of a {@link RedisObservationStore}; {@link #build()} connects. */
    public static final class Builder {
        private final String uri;
        private final String node;
        private String keyPrefix = "stagecoach:observe";
        private Duration timeout = Duration.ofSeconds(2);
        private int maxQueuedCommands = 10_000;

        private Builder(String uri, String node) {
            this.uri = Objects.requireNonNull(uri, "uri");
            this.node = Objects.requireNonNull(node, "node");
            if (!NODE.matcher(node).matches()) {
                throw new IllegalArgumentException("a node name is 1 to 64 of A-Z a-z 0-9 . _ - (it is part of a"
                        + " key), got '" + node + "'");
            }
        }

        /** The prefix of every key; nodes of one cluster use the same one. */
        public Builder keyPrefix(String prefix) {
            if (Objects.requireNonNull(prefix, "prefix").isEmpty()) {
                throw new IllegalArgumentException("an empty key prefix");
            }
            this.keyPrefix = prefix;
            return this;
        }

        /** How long one command may take before its stage fails (default 2 s). */
        public Builder timeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("a timeout above zero, got " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /** Commands that may wait while the connection is down (default 10,000); beyond, they fail at once. */
        public Builder maxQueuedCommands(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("at least 1 queued command, got " + max);
            }
            this.maxQueuedCommands = max;
            return this;
        }

        /**
         * Connects to Redis.
         *
         * @throws io.lettuce.core.RedisConnectionException when Redis cannot be reached
         */
        public RedisObservationStore build() {
            return new RedisObservationStore(this);
        }
    }
}
