package io.stagecoach.core.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.OptionSet;
import java.util.List;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

class ResourceTreeTest {

    private final ResourceTree tree = new ResourceTree();

    @Test
    void namesAreSingleNonEmptySegments() {
        assertThrows(IllegalArgumentException.class, () -> new CoapResource(""));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new CoapResource("a/b"));
        assertTrue(e.getMessage().contains("a/b"), e.getMessage());
        assertThrows(NullPointerException.class, () -> new CoapResource(null));
    }

    @Test
    void findWalksThePathAndReportsUris() {
        CoapResource c = CoapResource.named("c");
        tree.add(CoapResource.named("a").add(CoapResource.named("b").add(c)));
        assertSame(c, tree.find(List.of("a", "b", "c")));
        assertSame(c, tree.find("/a/b/c"));
        assertEquals("/a/b/c", c.uri());
        assertSame(tree.root(), tree.find(List.of()));
        assertNull(tree.find("/a/x"));
        assertNull(tree.find(List.of("a/b", "c")), "a segment with '/' never matches");
        assertNull(tree.find(List.of("a", "")), "trailing empty segment");
    }

    @Test
    void cacheIsInvalidatedByChangesAnywhereBelowTheRoot() {
        CoapResource a = CoapResource.named("a");
        CoapResource b = CoapResource.named("b");
        a.add(b);
        tree.add(a);
        assertSame(b, tree.find("/a/b"));
        assertEquals(1, tree.cachedPaths(), "hit cached");
        long v = tree.version();

        CoapResource b2 = CoapResource.named("b");
        a.add(b2); // replaces b two levels down
        assertTrue(tree.version() > v, "version bumped by a change below the root");
        assertSame(b2, tree.find("/a/b"), "replacement found, not the cached one");
        assertNull(b.parent(), "replaced child detached");

        assertTrue(a.removeChild(b2));
        assertNull(tree.find("/a/b"), "removed");
        assertFalse(a.removeChild(b2), "second remove");
        assertEquals(0, tree.cachedPaths(), "misses are not cached");
    }

    @Test
    void movingAResourceDetachesItFromItsOldParent() {
        CoapResource x = CoapResource.named("x");
        CoapResource p1 = CoapResource.named("p1").add(x);
        CoapResource p2 = CoapResource.named("p2");
        tree.add(p1, p2);
        assertSame(x, tree.find("/p1/x"));
        p2.add(x);
        assertNull(tree.find("/p1/x"));
        assertSame(x, tree.find("/p2/x"));
        assertSame(p2, x.parent());
    }

    @Test
    void cyclesAreRefused() {
        CoapResource a = CoapResource.named("a");
        CoapResource b = CoapResource.named("b");
        a.add(b);
        assertThrows(IllegalArgumentException.class, () -> b.add(a));
        assertThrows(IllegalArgumentException.class, () -> a.add(a));
    }

    @Test
    void effectiveExecutorWalksUpTheParents() {
        Executor e = Runnable::run;
        CoapResource leaf = CoapResource.named("leaf");
        CoapResource mid = CoapResource.named("mid").add(leaf);
        tree.add(mid);
        assertNull(leaf.effectiveExecutor(), "none anywhere: inline");
        tree.root().setExecutor(e);
        assertSame(e, leaf.effectiveExecutor(), "inherited from the root");
        Executor own = Runnable::run;
        leaf.setExecutor(own);
        assertSame(own, leaf.effectiveExecutor());
        tree.root().setExecutor(null);
    }

    @Test
    void childrenAreListedInNameOrder() {
        tree.add(CoapResource.named("c"), CoapResource.named("a"), CoapResource.named("b"));
        assertEquals(List.of("a", "b", "c"), tree.root().children().stream().map(Resource::name).toList());
    }

    @Test
    void observableFlagIsAdvertised() {
        CoapResource r = CoapResource.named("o").setObservable(true);
        assertTrue(r.isObservable());
        assertTrue(r.attributes().has("obs"));
        r.setObservable(false);
        assertFalse(r.attributes().has("obs"));
    }

    private static OptionSet path(String... segments) {
        return OptionSet.builder().uriPath(List.of(segments)).accept(0).build();
    }

    @Test
    void findByOptionsAgreesWithFindByListAndIsCachedByBytes() {
        CoapResource c = CoapResource.named("c");
        CoapResource a = CoapResource.named("a").add(CoapResource.named("b").add(c));
        tree.add(a, CoapResource.named("été"));

        assertSame(c, tree.find(path("a", "b", "c")), "decoding lookup on the first request");
        assertSame(c, tree.find(path("a", "b", "c")), "cached by bytes on the second");
        assertSame(tree.find(List.of("été")), tree.find(path("été")), "UTF-8 segment");
        assertSame(tree.root(), tree.find(OptionSet.builder().accept(0).build()), "no Uri-Path: the root");
        assertSame(a.child("b"), tree.find(path("a", "b")), "a prefix finds the parent resource");
        assertNull(tree.find(path("a", "b", "c", "d")), "one segment too many");
        assertNull(tree.find(path("a", "b", "x")), "same depth, other last segment");
        assertNull(tree.find(path("a/b", "c")), "a segment with '/' never matches");
        assertNull(tree.find(path("a", "b", "c", "")), "trailing empty segment");
    }

    @Test
    void findByOptionsNeverReturnsARemovedResourceFromItsCache() {
        CoapResource a = CoapResource.named("a");
        tree.add(a);
        assertSame(a, tree.find(path("a")));
        assertSame(a, tree.find(path("a")), "cached");

        tree.root().removeChild(a);
        assertNull(tree.find(path("a")), "removed: the byte-keyed hit is stale");
        CoapResource a2 = CoapResource.named("a");
        tree.add(a2);
        assertSame(a2, tree.find(path("a")), "the replacement, not the cached original");
    }

    @Test
    void findByOptionsKnowsTheSetOfTheLastLookupUntilTheTreeChanges() {
        CoapResource a = CoapResource.named("a");
        CoapResource b = CoapResource.named("b");
        tree.add(a, b);
        OptionSet shared = path("a"); // as the parser shares one set among requests encoded alike
        assertSame(a, tree.find(shared), "decoded");
        assertSame(a, tree.find(shared), "found by bytes");
        assertSame(a, tree.find(shared), "the same set again");
        assertSame(b, tree.find(path("b")), "another set between");
        assertSame(a, tree.find(shared));

        tree.root().removeChild(a);
        assertNull(tree.find(shared), "removed: the set of the last lookup is stale");
        CoapResource a2 = CoapResource.named("a");
        tree.add(a2);
        assertSame(a2, tree.find(shared));
        assertSame(a2, tree.find(shared), "the replacement, not the original");
    }

    @Test
    void findByOptionsHandlesMorePathsThanCacheSlots() {
        for (int i = 0; i < 3 * ResourceTree.WIRE_SLOTS; i++) {
            tree.add(CoapResource.named("r" + i));
        }
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 3 * ResourceTree.WIRE_SLOTS; i++) {
                Resource r = tree.find(path("r" + i));
                assertEquals("r" + i, r == null ? null : r.name(), "round " + round + ", path /r" + i);
            }
        }
    }

    @Test
    void findByOptionsLeavesAnInvalidUriPathToTheDecodingLookup() {
        tree.add(CoapResource.named("a"));
        byte[] wire = new byte[1 + 256];
        wire[0] = 'a';
        // Uri-Path "a" then a 256-byte Uri-Path, longer than 255: invalid, read as absent (RFC 7252 5.4.3)
        OptionSet set = OptionSet.fromWire(wire, new int[] {11, 0, 1, 11, 1, 256}, 2);
        assertEquals(List.of("a"), set.uriPath());
        assertSame(tree.find(List.of("a")), tree.find(set));
    }
}
