package io.stagecoach.core.server;

import io.stagecoach.core.coap.Code;

import io.stagecoach.core.link.LinkAttributes;
import java.util.Collection;
import java.util.concurrent.Executor;

/**
 * A node of the server's resource tree (RFC 7252 §5.7.2, Lanter thesis §5.4): it has a name (one
 * Uri-Path segment), a parent, children, link attributes for discovery (RFC 6690) and handles the
 * requests addressed to it. Children may be added and removed while the server runs; every change
 * calls {@link #treeChanged()} so that lookup caches above it are invalidated.
 *
 * <p>Threading: {@link #handleRequest(CoapExchange)} runs on {@link #effectiveExecutor()}, or inline
 * on the protocol thread when there is none; a handler that blocks on an inline path blocks the
 * endpoint, so give such resources an executor (see {@link BoundedExecutors}).
 *
 * <p>{@link CoapResource} is the usual implementation.
 */
public interface Resource {

    /** The Uri-Path segment this resource answers to; empty only for the root. */
    String name();

    /**
     * The path from the root, e.g. {@code /seg1/seg2}; the root's is the empty string (a detached
     * resource reports the path from the top of its subtree).
     */
    default String uri() {
        Resource p = parent();
        if (p == null) {
            return name().isEmpty() ? "" : "/" + name();
        }
        return p.uri() + "/" + name();
    }

    /** The parent, or {@code null} for the root and for a resource not in a tree. */
    Resource parent();

    /**
     * Called by the parent's {@link #addChild(Resource)} / {@link #removeChild(Resource)} only;
     * applications add and remove children instead.
     */
    void setParent(Resource parent);

    /** The child named {@code name}, or {@code null}. */
    Resource child(String name);

    /** A snapshot of the children in name order. */
    Collection<Resource> children();

    /**
     * Adds {@code child}, replacing a child of the same name and detaching {@code child} from a
     * previous parent.
     */
    void addChild(Resource child);

    /** Removes {@code child}; {@code false} if it was not a child of this resource. */
    boolean removeChild(Resource child);

    /**
     * Handles a request for this resource. Exceptions are caught by the deliverer and answered
     * 5.00 (RFC 7252 §5.9.3.1).
     */
    void handleRequest(CoapExchange exchange);

    /** This resource's own executor, or {@code null} to inherit the parent's. */
    Executor executor();

    /**
     * The executor handlers of this resource run on: its own, else the nearest ancestor's, else
     * {@code null}, meaning inline on the protocol thread.
     */
    default Executor effectiveExecutor() {
        for (Resource r = this; r != null; r = r.parent()) {
            Executor e = r.executor();
            if (e != null) {
                return e;
            }
        }
        return null;
    }

    /** The attributes advertised in {@code /.well-known/core}. */
    LinkAttributes attributes();

    /** Whether discovery lists this resource (its children are listed on their own terms). */
    boolean isVisible();

    /** Whether the resource accepts Observe registrations (RFC 7641). */
    boolean isObservable();

    /**
     * Whether a handler serves {@code method} here (else it is answered 4.05); the server keeps
     * state for a multi-message request, such as a block-wise upload, only when this holds.
     * Default: {@code true}.
     */
    default boolean allowsMethod(Code method) {
        return true;
    }

    /**
     * Whether a request with this Accept value (-1 = none) may reach the handler; when not, the
     * deliverer answers 4.06 Not Acceptable (RFC 7252 §5.10.4).
     */
    default boolean isAcceptable(int accept) {
        return true;
    }

    /** Propagates a change of the tree below this resource up to the root. */
    default void treeChanged() {
        Resource p = parent();
        if (p != null) {
            p.treeChanged();
        }
    }
}
