package io.stagecoach.core.server;

import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.OptionSet;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server's resources under an invisible root, with a path lookup cache.
 *
 * <p>{@link #find(List)} walks the tree segment by segment and caches hits by path. Every add or
 * remove anywhere below the root bumps {@link #version()} and clears the cache; an entry computed
 * under an older version is never returned, so a lookup racing with a change cannot resurrect a
 * removed resource from the cache. Misses are not cached: random paths cannot grow the cache
 * beyond the number of resources.
 *
 * <p>{@link #find(OptionSet)}, the lookup of the request path, has a second cache keyed by the
 * Uri-Path bytes as received: a hit compares the option values in place, without decoding them
 * into {@code String}s in a new list (~150 B per request). It is direct-mapped with
 * {@value #WIRE_SLOTS} slots, so it never grows; colliding paths just take the decoding lookup.
 * Before hashing the path it tries the set of the last lookup: the parser hands requests whose
 * options are encoded alike one shared, immutable {@link OptionSet}, so a server asked for one
 * resource again and again finds it by one reference comparison.
 */
public final class ResourceTree {

    /** A tree holding only its root. */
    public ResourceTree() {
    }

    private record Cached(long version, Resource resource) {
    }

    /**
     * A hit of the byte-keyed cache: the Uri-Path values (segments) as received. {@code lastSet}
     * is the set it matched last, written without locks: any set stored there has these segments,
     * and an {@link OptionSet} is immutable, so a reader sees a set that matches or a stale one.
     */
    private static final class WireHit {
        final long version;
        final byte[][] segments;
        final Resource resource;
        OptionSet lastSet;

        WireHit(long version, byte[][] segments, Resource resource) {
            this.version = version;
            this.segments = segments;
            this.resource = resource;
        }
    }

    static final int WIRE_SLOTS = 256;
    private static final int URI_PATH = OptionNumber.URI_PATH.number();

    private final AtomicLong version = new AtomicLong();
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();
    private final Root root = new Root();
    // Racy reads and writes are fine: a WireHit is immutable (final fields) and carries its version.
    private final WireHit[] wireCache = new WireHit[WIRE_SLOTS];
    /** The hit of the last lookup through {@link #wireCache} (racy as the cache itself). */
    private WireHit lastHit;

    /** The root resource; requests with an empty Uri-Path reach it (4.05 by default). */
    public CoapResource root() {
        return root;
    }

    /** Adds resources below the root; returns this. */
    public ResourceTree add(Resource... resources) {
        root.add(resources);
        return this;
    }

    /**
     * The resource at {@code path} (Uri-Path segments, RFC 7252 §6.4), the root for an empty path,
     * or {@code null}.
     */
    public Resource find(List<String> path) {
        if (path.isEmpty()) {
            return root;
        }
        String key = cacheKey(path);
        long v = version.get();
        if (key != null) {
            Cached c = cache.get(key);
            if (c != null && c.version == v) {
                return c.resource;
            }
        }
        Resource r = root;
        for (String segment : path) {
            r = r.child(segment);
            if (r == null) {
                return null;
            }
        }
        if (key != null) {
            cache.put(key, new Cached(v, r));
        }
        return r;
    }

    /**
     * The resource at the Uri-Path of {@code options}, as {@code find(options.uriPath())} but
     * without decoding the path when it was looked up before (see the class comment).
     */
    public Resource find(OptionSet options) {
        long v = version.get();
        WireHit last = lastHit;
        if (last != null && last.lastSet == options && last.version == v) {
            return last.resource; // the very set of the last lookup: same path, nothing to compare
        }
        int hash = 1;
        int segments = 0;
        for (int i = 0; i < options.size(); i++) {
            if (options.number(i) == URI_PATH) {
                if (!options.isValid(i)) {
                    return find(options.uriPath()); // uriPath() skips invalid values: let it decide
                }
                hash = 31 * hash + options.valueHashCode(i);
                segments++;
            }
        }
        if (segments == 0) {
            return root;
        }
        int slot = (hash ^ (hash >>> 16)) & (WIRE_SLOTS - 1);
        WireHit hit = wireCache[slot];
        if (hit != null && hit.version == v && sameSegments(hit.segments, options)) {
            hit.lastSet = options;
            lastHit = hit;
            return hit.resource;
        }
        Resource r = find(options.uriPath());
        if (r != null) {
            wireCache[slot] = new WireHit(v, copySegments(options, segments), r);
        }
        return r;
    }

    private static boolean sameSegments(byte[][] segments, OptionSet options) {
        int k = 0;
        for (int i = 0; i < options.size(); i++) {
            if (options.number(i) == URI_PATH) {
                if (k == segments.length || !options.valueEquals(i, segments[k++])) {
                    return false;
                }
            }
        }
        return k == segments.length;
    }

    private static byte[][] copySegments(OptionSet options, int count) {
        byte[][] out = new byte[count][];
        int k = 0;
        for (int i = 0; i < options.size(); i++) {
            if (options.number(i) == URI_PATH) {
                out[k] = new byte[options.valueLength(i)];
                options.copyValue(i, out[k++], 0);
            }
        }
        return out;
    }

    /** As {@link #find(List)} for a '/'-separated path, e.g. {@code "seg1/seg2"} or {@code "/seg1"}. */
    public Resource find(String path) {
        String p = path.startsWith("/") ? path.substring(1) : path;
        return find(p.isEmpty() ? List.of() : List.of(p.split("/", -1)));
    }

    /** Incremented by every change of the tree. */
    public long version() {
        return version.get();
    }

    /** Number of cached paths (for tests and diagnostics). */
    public int cachedPaths() {
        return cache.size();
    }

    // A segment holding '/' can never name a resource; keep it out of the cache so that
    // ["a/b"] and ["a", "b"] never share a key.
    private static String cacheKey(List<String> path) {
        for (String s : path) {
            if (s.indexOf('/') >= 0) {
                return null;
            }
        }
        return path.size() == 1 ? path.get(0) : String.join("/", path);
    }

    private final class Root extends CoapResource {
        @Override
        public void treeChanged() {
            version.incrementAndGet();
            cache.clear();
            Arrays.fill(wireCache, null); // stale entries would never match; this frees them
            lastHit = null;
        }

        @Override
        public void setParent(Resource parent) {
            throw new UnsupportedOperationException("the root of a resource tree has no parent");
        }
    }
}
