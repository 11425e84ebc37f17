package io.stagecoach.core.endpoint;

import io.stagecoach.core.coap.OptionNumber;
import java.util.BitSet;
import java.util.Set;

/**
 * The critical options an endpoint processes (RFC 7252 §5.4.1): those of RFC 7252 the endpoint
 * and the resource stage act on themselves, plus every option a layer of its stack names in
 * {@code Layer.options()}. A request with any other critical option is answered 4.02 Bad Option.
 * Immutable; one lookup per critical option of a request.
 */
final class RecognizedOptions {

    /**
     * Handled outside the layers: Uri-Host, Uri-Port, Uri-Path, Uri-Query (resource lookup,
     * §6.4), Accept (§5.10.4), If-Match, If-None-Match (handlers, §5.10.8), Proxy-Uri,
     * Proxy-Scheme (the resource stage, §5.7.2).
     */
    static final Set<OptionNumber> ENDPOINT = Set.of(OptionNumber.URI_HOST, OptionNumber.URI_PORT,
            OptionNumber.URI_PATH, OptionNumber.URI_QUERY, OptionNumber.ACCEPT, OptionNumber.IF_MATCH,
            OptionNumber.IF_NONE_MATCH, OptionNumber.PROXY_URI, OptionNumber.PROXY_SCHEME);

    private final BitSet numbers = new BitSet();

    private RecognizedOptions(Set<OptionNumber> fromLayers) {
        ENDPOINT.forEach(n -> numbers.set(n.number()));
        fromLayers.forEach(n -> numbers.set(n.number()));
    }

    /** The endpoint's own options plus {@code fromLayers}. */
    static RecognizedOptions of(Set<OptionNumber> fromLayers) {
        return new RecognizedOptions(fromLayers);
    }

    boolean contains(int number) {
        return numbers.get(number);
    }
}
