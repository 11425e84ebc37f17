package io.stagecoach.elements.dtls;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The established sessions, found by peer address and by connection ID, and kept in order of
 * last activity for eviction and expiry. Lookups are lock-free; the order is a doubly linked list
 * under one lock, updated at most once per second per session ({@value #RELIST_NANOS} ns), so the
 * order is exact to within a second and an active session costs one list move per second, not one
 * per record. The least recently active session is evicted when a new one would exceed the
 * capacity (O(1)); expiry and cooling walk from the idle end and stop at the first recent session.
 */
final class SessionTable {

    static final long RELIST_NANOS = 1_000_000_000L;

    private final int capacity;
    private final ConcurrentHashMap<InetSocketAddress, Session> byAddress = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<CidKey, Session> byCid = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    private Session oldest;
    private Session newest;
    private int size;

    public SessionTable(int capacity) {
        this.capacity = capacity;
    }

    public Session get(InetSocketAddress peer) {
        return byAddress.get(peer);
    }

    public Session byCid(CidKey cid) {
        return byCid.get(cid);
    }

    public boolean cidInUse(CidKey cid) {
        return byCid.containsKey(cid);
    }

    public int size() {
        return byAddress.size();
    }

    public Collection<Session> all() {
        return byAddress.values();
    }

    /**
     * Adds an established session. Returns the session it replaces at the same address (RFC 6347
     * §4.2.8: a new handshake from an address replaces that address's session), or {@code null};
     * the least recently active sessions beyond the capacity leave the table into {@code evicted}.
     */
    public Session add(Session s, long nowNanos, List<Session> evicted) {
        synchronized (lock) {
            Session old = byAddress.put(s.peer(), s);
            if (old != null && old != s) {
                unlink(old);
                if (old.cid() != null) {
                    byCid.remove(old.cid(), old);
                }
            } else {
                old = null;
            }
            if (s.cid() != null) {
                byCid.put(s.cid(), s);
            }
            s.listedNanos = nowNanos;
            append(s);
            while (size > capacity && oldest != null && oldest != s) {
                Session victim = oldest;
                removeLocked(victim);
                evicted.add(victim);
            }
            return old;
        }
    }

    /** Forgets {@code s} (closed, expired, failed); false if it was not (or no longer) in the table. */
    public boolean remove(Session s) {
        synchronized (lock) {
            if (!s.listed) {
                return false;
            }
            removeLocked(s);
            return true;
        }
    }

    private void removeLocked(Session s) {
        unlink(s);
        byAddress.remove(s.peer(), s);
        if (s.cid() != null) {
            byCid.remove(s.cid(), s);
        }
    }

    /** Moves {@code s} to the recent end if it was last placed over a second ago; cheap otherwise. */
    public void touched(Session s, long nowNanos) {
        s.touch(nowNanos);
        if (nowNanos - s.listedNanos < RELIST_NANOS) {
            return;
        }
        synchronized (lock) {
            if (s.listed) {
                unlink(s);
                s.listedNanos = nowNanos;
                append(s);
            }
        }
    }

    /** RFC 9146 §6: the session continues at {@code to}. */
    public void move(Session s, InetSocketAddress to) {
        synchronized (lock) {
            if (!s.listed) {
                return;
            }
            InetSocketAddress from = s.peer();
            byAddress.remove(from, s);
            s.setPeer(to);
            Session displaced = byAddress.put(to, s);
            if (displaced != null && displaced != s) {
                removeLocked(displaced);
                byAddress.put(to, s);
            }
        }
    }

    /**
     * Walks from the least recently active session: sessions idle longer than {@code idleNanos}
     * leave the table into {@code expired}; those idle longer than {@code coolNanos} are
     * {@linkplain Session#cool cooled}, and forget their final handshake flight once established
     * longer than {@code flightNanos}. Stops at the first session active within {@code coolNanos},
     * so an active table costs nothing here.
     */
    public void sweep(long nowNanos, long idleNanos, long coolNanos, long flightNanos, List<Session> expired) {
        synchronized (lock) {
            Session s = oldest;
            while (s != null && nowNanos - s.listedNanos > coolNanos) {
                Session next = s.newer;
                long idle = nowNanos - s.lastActiveNanos();
                if (idle > idleNanos) {
                    removeLocked(s);
                    expired.add(s);
                } else if (idle > coolNanos) {
                    s.cool();
                    if (nowNanos - s.establishedNanos() > flightNanos) {
                        s.confirmed();
                    }
                }
                s = next;
            }
        }
    }

    /** Empties the table, returning what it held. */
    public List<Session> clear() {
        synchronized (lock) {
            List<Session> all = new ArrayList<>(byAddress.values());
            byAddress.clear();
            byCid.clear();
            for (Session s = oldest; s != null; ) {
                Session next = s.newer;
                s.older = null;
                s.newer = null;
                s.listed = false;
                s = next;
            }
            oldest = null;
            newest = null;
            size = 0;
            return all;
        }
    }

    private void append(Session s) {
        s.older = newest;
        s.newer = null;
        if (newest != null) {
            newest.newer = s;
        } else {
            oldest = s;
        }
        newest = s;
        s.listed = true;
        size++;
    }

    private void unlink(Session s) {
        if (!s.listed) {
            return;
        }
        if (s.older != null) {
            s.older.newer = s.newer;
        } else {
            oldest = s.newer;
        }
        if (s.newer != null) {
            s.newer.older = s.older;
        } else {
            newest = s.older;
        }
        s.older = null;
        s.newer = null;
        s.listed = false;
        size--;
    }
}
