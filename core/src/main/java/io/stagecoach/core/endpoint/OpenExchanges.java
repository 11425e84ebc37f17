package io.stagecoach.core.endpoint;

import io.stagecoach.core.network.Exchange;
import java.util.ArrayList;
import java.util.List;

/**
 * The exchanges still open on one connection, which its close fails (RFC 8323 §5.5, §5.6): an
 * intrusive doubly linked list under this object's monitor. Added once per request and removed
 * when the exchange completes, each in constant time and without hashing: a concurrent hash set
 * here cost an identity hash, a node and a CAS per request (9 % of the I/O thread's Java time at
 * 70k requests/s). The monitor is almost always taken by the connection's own I/O thread alone.
 */
final class OpenExchanges {

    /**
     * One exchange's place in the list; what {@link #remove} takes. A subclass may carry more
     * (the transport's hook and connection), so that one object per request does it all.
     */
    static class Entry {
        final Exchange exchange;
        Entry prev;
        Entry next;
        boolean linked;

        Entry(Exchange exchange) {
            this.exchange = exchange;
        }
    }

    private Entry head;
    private int size;

    /** Adds {@code exchange}; the entry removes it again. */
    Entry add(Exchange exchange) {
        Entry e = new Entry(exchange);
        add(e);
        return e;
    }

    /** Adds the exchange of {@code e}, an entry not in any list; {@link #remove} removes it again. */
    synchronized void add(Entry e) {
        if (e.linked) {
            throw new IllegalStateException("entry of " + e.exchange + " is in a list already");
        }
        e.next = head;
        if (head != null) {
            head.prev = e;
        }
        head = e;
        e.linked = true;
        size++;
    }

    /** Removes the exchange of {@code e}; nothing if it was removed before. */
    synchronized void remove(Entry e) {
        if (!e.linked) {
            return;
        }
        e.linked = false;
        if (e.prev != null) {
            e.prev.next = e.next;
        } else {
            head = e.next;
        }
        if (e.next != null) {
            e.next.prev = e.prev;
        }
        e.prev = null;
        e.next = null;
        size--;
    }

    synchronized boolean isEmpty() {
        return size == 0;
    }

    synchronized int size() {
        return size;
    }

    /** The open exchanges now, newest first: a copy, to act on outside the monitor. */
    synchronized List<Exchange> snapshot() {
        List<Exchange> all = new ArrayList<>(size);
        for (Entry e = head; e != null; e = e.next) {
            all.add(e.exchange);
        }
        return all;
    }
}
