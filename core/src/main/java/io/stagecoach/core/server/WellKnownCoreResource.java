package io.stagecoach.core.server;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.link.LinkAttributes;
import io.stagecoach.core.link.LinkFormat;
import io.stagecoach.core.link.LinkQuery;
import io.stagecoach.core.link.WebLink;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * {@code /.well-known/core}, CoRE resource discovery (RFC 6690 §4, RFC 7252 §7.2): GET answers
 * 2.05 with Content-Format 40 and a link for every visible resource of the tree, depth-first in
 * name order, each with its {@link LinkAttributes}. The Uri-Query filters the links as described in
 * {@link LinkQuery} (several arguments are ANDed, a Stagecoach extension). Other methods: 4.05;
 * an Accept other than 40: 4.06.
 *
 * <p>The resource itself and its {@code .well-known} parent are invisible. An invisible resource's
 * visible descendants are still listed (the root is invisible too).
 */
final class WellKnownCoreResource extends CoapResource {

    private final Resource root;

    /** @param root the resource whose descendants are listed (the tree's root) */
    WellKnownCoreResource(Resource root) {
        super("core");
        this.root = Objects.requireNonNull(root, "root");
        setVisible(false);
        declareFormats(ContentFormat.LINK_FORMAT);
    }

    /**
     * Adds {@code /.well-known/core} below {@code root}, reusing an existing {@code .well-known}
     * child, and returns the discovery resource.
     */
    static WellKnownCoreResource install(Resource root) {
        Resource wellKnown = root.child(".well-known");
        if (wellKnown == null) {
            wellKnown = new CoapResource(".well-known").setVisible(false);
            root.addChild(wellKnown);
        }
        WellKnownCoreResource core = new WellKnownCoreResource(root);
        wellKnown.addChild(core);
        return core;
    }

    @Override
    public void handleGET(CoapExchange exchange) {
        String body = LinkFormat.serialize(links(root, LinkQuery.of(exchange.options().uriQuery())));
        exchange.respond(Code.CONTENT, body.getBytes(StandardCharsets.UTF_8), ContentFormat.LINK_FORMAT);
    }

    /** The visible resources below {@code root} that satisfy {@code query}, depth-first in name order. */
    public static List<WebLink> links(Resource root, LinkQuery query) {
        List<WebLink> out = new ArrayList<>();
        collect(root, query, out);
        return out;
    }

    private static void collect(Resource r, LinkQuery query, List<WebLink> out) {
        for (Resource child : r.children()) {
            if (child.isVisible()) {
                WebLink link = new WebLink(child.uri(), child.attributes().asMap());
                if (query.matches(link)) {
                    out.add(link);
                }
            }
            collect(child, query, out);
        }
    }
}
