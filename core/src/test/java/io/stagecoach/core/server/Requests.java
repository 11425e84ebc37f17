package io.stagecoach.core.server;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.elements.EndpointContext;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/** Builds server-side exchanges as the endpoint would hand them to the deliverer. */
final class Requests {

    static final InetSocketAddress PEER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 40123);
    static final Token TOKEN = Token.fromHex("c0ffee");

    private Requests() {
    }

    static Request.Builder request(Code method, String path) {
        Request.Builder b = Request.builder(method).type(Type.CON).mid(4711).token(TOKEN)
                .peer(EndpointContext.of(PEER));
        b.options().uriPath(path);
        return b;
    }

    static Exchange exchange(Request request) {
        return new Exchange(Exchange.Origin.REMOTE, request, EndpointContext.of(PEER), 0L, null);
    }

    static Exchange exchange(Code method, String path) {
        return exchange(request(method, path).build());
    }
}
