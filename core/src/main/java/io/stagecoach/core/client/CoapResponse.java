package io.stagecoach.core.client;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.Response;
import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link CoapClient} call got back: the response code, options and payload, and the
 * round-trip time. Any code counts as an answer (4.04 is a response, not a failure); calls that
 * get no response fail with an exception instead.
 */
public final class CoapResponse {

    private final Response response;
    private final Duration rtt;

    public CoapResponse(Response response, Duration rtt) {
        this.response = Objects.requireNonNull(response, "response");
        this.rtt = Objects.requireNonNull(rtt, "rtt");
    }

    public Code code() {
        return response.code();
    }

    /** Whether the code is of class 2 (RFC 7252 §5.9.1). */
    public boolean isSuccess() {
        return response.code().isSuccess();
    }

    public OptionSet options() {
        return response.options();
    }

    /** A copy of the payload; empty when there is none. */
    public byte[] payload() {
        return response.payload();
    }

    /** The payload decoded as UTF-8. */
    public String payloadText() {
        return response.payloadString();
    }

    /** Content-Format of the payload (RFC 7252 §5.10.3), or {@code null} when the response has none. */
    public ContentFormat contentFormat() {
        int number = response.options().contentFormat();
        return number < 0 ? null : ContentFormat.valueOf(number);
    }

    /** Location-Path and Location-Query as a relative URI, e.g. {@code /items/7?v=1}; "" when absent (RFC 7252 §5.10.7). */
    public String location() {
        OptionSet o = response.options();
        if (o.locationPath().isEmpty() && o.locationQuery().isEmpty()) {
            return "";
        }
        String path = "/" + String.join("/", o.locationPath());
        return o.locationQuery().isEmpty() ? path : path + "?" + String.join("&", o.locationQuery());
    }

    /** Time from sending the request to receiving this response, on the endpoint's clock. */
    public Duration rtt() {
        return rtt;
    }

    /** The raw response message (type, MID, token, peer), for experts. */
    public Response advanced() {
        return response;
    }

    @Override
    public String toString() {
        return response.code().toDigits() + " " + response.code().name()
                + (response.payloadLength() > 0 ? " \"" + response.payloadString() + "\"" : "");
    }
}
