package io.stagecoach.core.server;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.link.LinkAttributes;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * The usual {@link Resource}: dispatches each request to {@code handleGET}, {@code handlePOST} ...
 * by method (RFC 7252 §5.8, RFC 8132 for FETCH/PATCH/iPATCH), each answering 4.05 Method Not
 * Allowed unless overridden or given a handler with {@code onGet(...)} etc.
 *
 * <pre>{@code
 * CoapResource hello = CoapResource.named("hello").title("Greeting").onGet(ex -> ex.respond("world"));
 * server.add(new CoapResource("sensors").add(new TempResource(), new HumidityResource()));
 * }</pre>
 *
 * <p>Children live in a concurrent sorted map, so they may be added and removed while requests
 * are served; every change invalidates the tree's lookup cache through {@link #treeChanged()}.
 * Fluent setters are meant for construction but are thread-safe.
 */
public class CoapResource implements Resource {

    private final String name;
    private final Map<String, Resource> children = new ConcurrentSkipListMap<>();
    /** The handlers given with {@code onGet(..)} etc., by method code (0.01..0.31, RFC 7252 §12.1.1). */
    private final AtomicReferenceArray<Consumer<CoapExchange>> handlers = new AtomicReferenceArray<>(32);
    private final LinkAttributes attributes = new LinkAttributes();
    private volatile Resource parent;
    private volatile Executor executor;
    private volatile boolean visible = true;
    private volatile boolean observable;
    private volatile Type observeType = Type.CON;
    private final ObserverSet observers = new ObserverSet(this);
    private volatile int[] declaredFormats;
    private final RecentText recentText = new RecentText();

    /**
     * @param name the Uri-Path segment; IllegalArgumentException if empty or containing '/'
     */
    public CoapResource(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("resource name must not be empty");
        }
        if (name.indexOf('/') >= 0) {
            throw new IllegalArgumentException("resource name '" + name
                    + "' must be a single path segment without '/'; nest resources with add()");
        }
        this.name = name;
    }

    /** The root: empty name, invisible. */
    CoapResource() {
        this.name = "";
        this.visible = false;
    }

    /** A resource with {@code name} for lambda-style handlers: {@code named("x").onGet(...)}. */
    public static CoapResource named(String name) {
        return new CoapResource(name);
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public Resource parent() {
        return parent;
    }

    @Override
    public void setParent(Resource parent) {
        this.parent = parent;
    }

    // --- children -----------------------------------------------------------------------------

    @Override
    public Resource child(String childName) {
        return children.get(childName);
    }

    @Override
    public Collection<Resource> children() {
        return List.copyOf(children.values());
    }

    @Override
    public void addChild(Resource child) {
        Objects.requireNonNull(child, "child");
        if (child == this) {
            throw new IllegalArgumentException("a resource cannot be its own child: " + name);
        }
        for (Resource a = parent; a != null; a = a.parent()) {
            if (a == child) {
                throw new IllegalArgumentException("adding " + child.name() + " below " + uri() + " would make a cycle");
            }
        }
        Resource old = child.parent();
        if (old != null && old != this) {
            old.removeChild(child);
        }
        child.setParent(this);
        Resource replaced = children.put(child.name(), child);
        if (replaced != null && replaced != child) {
            replaced.setParent(null);
            removed(replaced);
        }
        treeChanged();
    }

    @Override
    public boolean removeChild(Resource child) {
        if (child == null || !children.remove(child.name(), child)) {
            return false;
        }
        child.setParent(null);
        treeChanged();
        removed(child);
        return true;
    }

    /** A resource taken out of the tree is gone for its observers: 4.04 to each (RFC 7641 §3.2). */
    private static void removed(Resource gone) {
        if (gone instanceof CoapResource c) {
            c.clearAndNotifyObservers(Code.NOT_FOUND);
            for (Resource child : c.children()) {
                removed(child);
            }
        }
    }

    /** Adds each resource as a child (see {@link #addChild(Resource)}); returns this. */
    public CoapResource add(Resource... resources) {
        for (Resource r : resources) {
            addChild(r);
        }
        return this;
    }

    /** Removes this resource from its parent; {@code false} if it had none. */
    public boolean delete() {
        Resource p = parent;
        return p != null && p.removeChild(this);
    }

    // --- request handling -----------------------------------------------------------------------

    @Override
    public void handleRequest(CoapExchange exchange) {
        Code method = exchange.method();
        if (method.equals(Code.GET)) {
            handleGET(exchange);
        } else if (method.equals(Code.POST)) {
            handlePOST(exchange);
        } else if (method.equals(Code.PUT)) {
            handlePUT(exchange);
        } else if (method.equals(Code.DELETE)) {
            handleDELETE(exchange);
        } else if (method.equals(Code.FETCH)) {
            handleFETCH(exchange);
        } else if (method.equals(Code.PATCH)) {
            handlePATCH(exchange);
        } else if (method.equals(Code.IPATCH)) {
            handleIPATCH(exchange);
        } else {
            // RFC 7252 §5.8: an unrecognized method code is answered 4.05
            exchange.respond(Code.METHOD_NOT_ALLOWED);
        }
    }

    public void handleGET(CoapExchange exchange) {
        dispatch(Code.GET, exchange);
    }

    public void handlePOST(CoapExchange exchange) {
        dispatch(Code.POST, exchange);
    }

    public void handlePUT(CoapExchange exchange) {
        dispatch(Code.PUT, exchange);
    }

    public void handleDELETE(CoapExchange exchange) {
        dispatch(Code.DELETE, exchange);
    }

    public void handleFETCH(CoapExchange exchange) {
        dispatch(Code.FETCH, exchange);
    }

    public void handlePATCH(CoapExchange exchange) {
        dispatch(Code.PATCH, exchange);
    }

    public void handleIPATCH(CoapExchange exchange) {
        dispatch(Code.IPATCH, exchange);
    }

    /**
     * A handler serves {@code method}: one given with {@code onGet(..)} etc., or a
     * {@code handleGET}... this class's subclass overrides (found once per class).
     */
    @Override
    public boolean allowsMethod(Code method) {
        if (method.isRequest() && handlers.get(method.value()) != null) {
            return true;
        }
        String name = HANDLER_NAMES.get(method);
        return name != null && OVERRIDDEN.get(getClass()).contains(name);
    }

    private static final Map<Code, String> HANDLER_NAMES = Map.of(Code.GET, "handleGET", Code.POST, "handlePOST",
            Code.PUT, "handlePUT", Code.DELETE, "handleDELETE", Code.FETCH, "handleFETCH",
            Code.PATCH, "handlePATCH", Code.IPATCH, "handleIPATCH");

    /** The {@code handleX} methods (and {@code handleRequest}) a class overrides, by name. */
    private static final ClassValue<Set<String>> OVERRIDDEN = new ClassValue<>() {
        @Override
        protected Set<String> computeValue(Class<?> type) {
            Set<String> names = new HashSet<>();
            for (Class<?> c = type; c != CoapResource.class && c != null; c = c.getSuperclass()) {
                for (Method m : c.getDeclaredMethods()) {
                    if (m.getName().startsWith("handle") && m.getParameterCount() == 1
                            && m.getParameterTypes()[0] == CoapExchange.class) {
                        names.add(m.getName());
                    }
                }
            }
            if (names.contains("handleRequest")) {
                names.addAll(HANDLER_NAMES.values()); // dispatches itself: any method may be served
            }
            return Set.copyOf(names);
        }
    };

    private void dispatch(Code method, CoapExchange exchange) {
        Consumer<CoapExchange> h = handlers.get(method.value());
        if (h == null) {
            exchange.respond(Code.METHOD_NOT_ALLOWED);
        } else {
            h.accept(exchange);
        }
    }

    /** Handles GET with {@code handler} (used unless {@link #handleGET} is overridden). */
    public CoapResource onGet(Consumer<CoapExchange> handler) {
        return on(Code.GET, handler);
    }

    public CoapResource onPost(Consumer<CoapExchange> handler) {
        return on(Code.POST, handler);
    }

    public CoapResource onPut(Consumer<CoapExchange> handler) {
        return on(Code.PUT, handler);
    }

    public CoapResource onDelete(Consumer<CoapExchange> handler) {
        return on(Code.DELETE, handler);
    }

    public CoapResource onFetch(Consumer<CoapExchange> handler) {
        return on(Code.FETCH, handler);
    }

    public CoapResource onPatch(Consumer<CoapExchange> handler) {
        return on(Code.PATCH, handler);
    }

    public CoapResource onIpatch(Consumer<CoapExchange> handler) {
        return on(Code.IPATCH, handler);
    }

    private CoapResource on(Code method, Consumer<CoapExchange> handler) {
        handlers.set(method.value(), Objects.requireNonNull(handler, "handler"));
        return this;
    }

    // --- executor -------------------------------------------------------------------------------

    @Override
    public Executor executor() {
        return executor;
    }

    /**
     * Runs this resource's handlers, and those of descendants without their own, on
     * {@code executor}; {@code null} inherits again. Prefer a bounded executor
     * ({@link BoundedExecutors}): when it rejects, the request is answered 5.03. The resource
     * does not own the executor; whoever created it shuts it down.
     */
    public CoapResource setExecutor(Executor executor) {
        this.executor = executor;
        return this;
    }

    // --- discovery ------------------------------------------------------------------------------

    @Override
    public LinkAttributes attributes() {
        return attributes;
    }

    /** Sets {@code title} (RFC 6690 §3). */
    public CoapResource title(String title) {
        attributes.set(LinkAttributes.TITLE, title);
        return this;
    }

    /** Sets {@code rt}, Resource Type (RFC 6690 §3.1); several values are space-separated on the wire. */
    public CoapResource resourceType(String... types) {
        attributes.set(LinkAttributes.RESOURCE_TYPE, types);
        return this;
    }

    /** Sets {@code if}, Interface Description (RFC 6690 §3.2). */
    public CoapResource interfaceDescription(String... interfaces) {
        attributes.set(LinkAttributes.INTERFACE, interfaces);
        return this;
    }

    /** Sets {@code sz}, Maximum Size Estimate in bytes (RFC 6690 §3.3). */
    public CoapResource maxSizeEstimate(long bytes) {
        attributes.set(LinkAttributes.MAX_SIZE, Long.toString(bytes));
        return this;
    }

    /**
     * Advertises {@code ct} (RFC 7252 §7.2.1) and declares these the only formats the resource
     * serves: a request whose Accept is none of them is answered 4.06 before the handler runs.
     * To advertise without enforcing, use {@link #advertiseContentFormats(ContentFormat...)}.
     */
    public CoapResource contentFormats(ContentFormat... formats) {
        advertiseContentFormats(formats);
        declareFormats(formats);
        return this;
    }

    /** Advertises {@code ct} only; Accept is not checked. */
    public CoapResource advertiseContentFormats(ContentFormat... formats) {
        List<String> values = new ArrayList<>(formats.length);
        for (ContentFormat f : formats) {
            values.add(Integer.toString(f.number()));
        }
        attributes.set(LinkAttributes.CONTENT_TYPE, values);
        return this;
    }

    /** Declares the served formats for the Accept check without advertising them; none clears it. */
    public CoapResource declareFormats(ContentFormat... formats) {
        int[] numbers = new int[formats.length];
        for (int i = 0; i < formats.length; i++) {
            numbers[i] = formats[i].number();
        }
        declaredFormats = formats.length == 0 ? null : numbers;
        return this;
    }

    /** Sets any link attribute; no values makes it a flag. */
    public CoapResource attribute(String attributeName, String... values) {
        attributes.set(attributeName, values);
        return this;
    }

    @Override
    public boolean isAcceptable(int accept) {
        int[] declared = declaredFormats;
        if (declared == null || accept < 0) {
            return true;
        }
        for (int f : declared) {
            if (f == accept) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean isVisible() {
        return visible;
    }

    /** Hides the resource from discovery (it is still served), or shows it again. */
    public CoapResource setVisible(boolean visible) {
        this.visible = visible;
        return this;
    }

    @Override
    public boolean isObservable() {
        return observable;
    }

    // --- observe (RFC 7641) ---------------------------------------------------------------------

    /**
     * Notifies every observer: runs the GET (or FETCH) handler once per observe relation, and its
     * 2.xx answer goes to that observer as a notification carrying the next sequence number.
     * Numbers are assigned here, in the order of {@code changed()} calls (RFC 7641 §4.4). An
     * answer other than 2.xx ends the relation after a final CON notification without Observe.
     * {@link CoapExchange#isNotification()} tells a handler which kind of run it is in.
     */
    public void changed() {
        observers.changed();
    }

    /** Observe relations of this resource. */
    public int observerCount() {
        return observers.size();
    }

    /**
     * Message type of notifications: CON (the default) or NON. NON notifications still go CON every
     * OBSERVE_MAX_NON NON notifications, every OBSERVE_CON_INTERVAL, and to observers whose
     * address is not verified (RFC 7641 §4.5, RFC 7252 §11.3).
     */
    public CoapResource setObserveType(Type type) {
        if (type != Type.CON && type != Type.NON) {
            throw new IllegalArgumentException("notifications are CON or NON, not " + type);
        }
        this.observeType = type;
        return this;
    }

    public Type getObserveType() {
        return observeType;
    }

    /**
     * Sends every observer a final CON notification with {@code code} and no Observe, and forgets
     * them (RFC 7641 §3.2), e.g. {@code NOT_FOUND} when the resource goes away (done by removal
     * from the tree) or {@code NOT_ACCEPTABLE} when its Content-Format changed.
     */
    public void clearAndNotifyObservers(Code code) {
        if (code.isSuccess()) {
            throw new IllegalArgumentException("a final notification has an error code, not " + code);
        }
        observers.clearAndNotify(code);
    }

    /** Forgets every observer without telling it; it learns on re-registration (plugtest TD_COAP_OBS_04). */
    public void clearObservers() {
        observers.clear();
    }

    ObserverSet observers() {
        return observers;
    }

    /** Marks the resource observable and advertises the {@code obs} flag (RFC 7641 §6). */
    public CoapResource setObservable(boolean observable) {
        this.observable = observable;
        if (observable) {
            attributes.set(LinkAttributes.OBSERVABLE);
        } else {
            attributes.remove(LinkAttributes.OBSERVABLE);
        }
        return this;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + (parent == null && name.isEmpty() ? "/" : uri()) + "]";
    }

    /** The text this resource's handlers answered with lately, kept encoded. */
    RecentText recentText() {
        return recentText;
    }
}
