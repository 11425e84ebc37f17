package io.stagecoach.core.endpoint;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.elements.config.Configuration;

/**
 * What one peer may ask of a server, from {@link CoapConfig}: options per request and their total
 * size, Uri-Path depth, and observe relations per peer. A request over a limit is refused with the
 * answer RFC 7252 gives for it, counted as {@link EndpointCounters.Counter#LIMIT_EXCEEDED} and
 * logged (rate-limited) on the {@code io.stagecoach.ban} logger.
 *
 * <table>
 *   <caption>Limits and answers</caption>
 *   <tr><th>limit</th><th>answer</th><th>why</th></tr>
 *   <tr><td>options per request</td><td>4.00</td><td>the request is unacceptable as sent
 *       (§5.9.2.1); 4.13 is about the payload (§5.9.2.9), not options</td></tr>
 *   <tr><td>total option bytes</td><td>4.00</td><td>the same</td></tr>
 *   <tr><td>Uri-Path segments</td><td>4.04</td><td>no resource is that deep (§5.9.2.5): the
 *       answer the resource tree would give, without walking it</td></tr>
 *   <tr><td>observe relations per peer</td><td>the response without Observe</td><td>RFC 7641
 *       §4.1: a server that cannot add an observer serves the GET once</td></tr>
 * </table>
 *
 * <p>Token length needs no limit here: the codec refuses TKL above 8 (RFC 7252 §3). Block-wise
 * body size and transfers per peer are the blockwise layer's (4.13 and 5.03, RFC 7959 §2.9.3).
 */
public final class RequestLimits {

    /** Why a request is refused and with which code. */
    public record Refusal(Code code, String reason) {
    }

    private final int maxOptions;
    private final int maxOptionBytes;
    private final int maxUriPathSegments;

    private RequestLimits(int maxOptions, int maxOptionBytes, int maxUriPathSegments) {
        this.maxOptions = maxOptions;
        this.maxOptionBytes = maxOptionBytes;
        this.maxUriPathSegments = maxUriPathSegments;
    }

    /** The limits set in {@code config}. */
    public static RequestLimits from(Configuration config) {
        return new RequestLimits(config.get(CoapConfig.LIMIT_MAX_OPTIONS), config.get(CoapConfig.LIMIT_MAX_OPTION_BYTES),
                config.get(CoapConfig.LIMIT_MAX_URI_PATH_SEGMENTS));
    }

    /** The first limit {@code request} exceeds, or {@code null} when it is within all of them. */
    public Refusal check(Request request) {
        OptionSet options = request.options();
        int count = options.size();
        int bytes = 0;
        int segments = 0;
        for (int i = 0; i < count; i++) { // by position: an iterator copies every option (~100 B per request)
            bytes += options.valueLength(i);
            if (options.number(i) == OptionNumber.URI_PATH.number()) {
                segments++;
            }
        }
        if (count > maxOptions) {
            return new Refusal(Code.BAD_REQUEST, count + " options, more than " + maxOptions);
        }
        if (bytes > maxOptionBytes) {
            return new Refusal(Code.BAD_REQUEST, bytes + " bytes of options, more than " + maxOptionBytes);
        }
        if (segments > maxUriPathSegments) {
            return new Refusal(Code.NOT_FOUND, segments + " Uri-Path segments, more than " + maxUriPathSegments);
        }
        return null;
    }
}
