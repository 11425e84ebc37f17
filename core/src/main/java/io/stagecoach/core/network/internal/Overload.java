package io.stagecoach.core.network.internal;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.elements.config.Configuration;

/**
 * The one answer to overload: 5.03 Service Unavailable with a Max-Age telling the client when to
 * come back (RFC 7252 §5.9.3.4), sent when a queue, store or executor is full. Every part of the
 * endpoint and server that refuses work for lack of room answers through here.
 */
public final class Overload {

    private Overload() {
    }

    /** OVERLOAD_MAX_AGE of {@code config} in seconds: the Max-Age of every 5.03 for overload. */
    public static long maxAgeSeconds(Configuration config) {
        return config.get(CoapConfig.OVERLOAD_MAX_AGE).toSeconds();
    }

    /**
     * 5.03 answering {@code request} (its token and peer) with Max-Age {@code maxAgeSeconds};
     * type and MID are left to the caller or the stack.
     */
    public static Response.Builder serviceUnavailable(Request request, long maxAgeSeconds) {
        Response.Builder b = Response.forRequest(request, Code.SERVICE_UNAVAILABLE);
        b.options().maxAge(maxAgeSeconds);
        return b;
    }
}
