package io.stagecoach.core.server;

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
 */
public final class ResourceTree {

    private record Cached(long version, Resource resource) {
    }

    private final AtomicLong version = new AtomicLong();
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();
    private final Root root = new Root();

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
        }

        @Override
        public void setParent(Resource parent) {
            throw new UnsupportedOperationException("the root of a resource tree has no parent");
        }
    }
}
