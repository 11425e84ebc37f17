package io.stagecoach.core.network.internal.layers;

import io.stagecoach.core.coap.BlockOption;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.ReliableTransportOptions;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.internal.ExchangeStore;
import io.stagecoach.core.network.stack.AbstractLayer;
import io.stagecoach.core.network.stack.LayerContext;
import io.stagecoach.elements.config.Configuration;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * RFC 7959 block-wise transfers, transparent to both upper stages: resources see one request with
 * the whole body and answer with the whole representation; client listeners get one response.
 *
 * <p>The work is split by role:
 * <ul>
 *   <li>{@link Block1Assembler}: server uploads (2.31 Continue per block, 4.08, 4.13, 5.03);</li>
 *   <li>{@link Block2Responder} with {@link Block2Slicer}: server downloads (slicing, cache,
 *       random access, early and late negotiation, Size2);</li>
 *   <li>{@link BlockwiseClient}: client uploads and downloads on one exchange;</li>
 *   <li>{@link BlockwiseStatusStore}: the bounded, expiring server state shared by the first two.</li>
 * </ul>
 *
 * <p>Where state lives: server transfers span several exchanges (one per block), so their state is
 * in the status store, keyed by {@link TransferKey}, capped per peer and in total, and expired by
 * one periodic sweep. A client transfer is one exchange, so its state is an {@link Exchange.Slot}
 * and dies with the exchange. A server exchange that delivered a reassembled upload remembers the
 * Block1 value its final response must echo in {@link ServerState}.
 *
 * <p>Settings (CoapConfig): BLOCKWISE_MAX_MESSAGE_SIZE decides when a payload travels block-wise,
 * BLOCKWISE_PREFERRED_BLOCK_SIZE the block size, BLOCKWISE_MAX_RESOURCE_BODY_SIZE the largest body
 * reassembled in either direction, BLOCKWISE_STATUS_LIFETIME, BLOCKWISE_MAX_TRANSFERS_PER_SOURCE and
 * BLOCKWISE_MAX_TRANSFERS bound the server state.
 *
 * <p><b>BERT</b> (RFC 8323 §6), over reliable transports only: the endpoint tells per peer
 * ({@link #BERT_OFF}, {@link #BERT_RECEIVE_ONLY}, or how many 1024-byte blocks one message to the
 * peer may carry). Received Block options with SZX 7 are then accepted (uploads of k × 1024 bytes,
 * downloads asked in BERT), and uploads and downloads to a peer whose CSM allows it go in BERT
 * blocks of that many kilobytes.
 */
public final class BlockwiseLayer extends AbstractLayer {

    /** Per-exchange server state: the Block1 value to echo in the final response (§2.3). */
    static final class ServerState {
        BlockOption block1Echo;
    }

    static final Exchange.Slot<ServerState> SERVER = new Exchange.Slot<>("blockwise-server", ServerState.class);

    private final BlockwiseStatusStore statuses;
    private final Block1Assembler uploads;
    private final Block2Responder downloads;
    private final BlockwiseClient client;
    private final ToIntFunction<Exchange> bert;

    /** {@link #bert} of a peer over UDP: no BERT. */
    public static final int BERT_OFF = -1;
    /** {@link #bert} of a peer whose CSM does not allow BERT: received BERT options are still accepted. */
    public static final int BERT_RECEIVE_ONLY = 0;

    /**
     * @param store the endpoint's exchange store: a client transfer unregisters the MID of each
     *        block it moves past
     */
    public BlockwiseLayer(Configuration config, ExchangeStore store) {
        this(config, store, exchange -> BERT_OFF);
    }

    /**
     * @param bert per exchange, for its peer: {@link #BERT_OFF}, {@link #BERT_RECEIVE_ONLY}, or the
     *        number of 1024-byte blocks a BERT message to the peer carries (RFC 8323 §6); given the
     *        exchange rather than its peer so that the transport can find its connection without a
     *        lookup by address
     */
    public BlockwiseLayer(Configuration config, ExchangeStore store, ToIntFunction<Exchange> bert) {
        BlockwiseSettings settings = BlockwiseSettings.from(config);
        this.bert = bert;
        this.statuses = new BlockwiseStatusStore(settings);
        this.uploads = new Block1Assembler(settings, statuses);
        this.downloads = new Block2Responder(settings, statuses, this);
        this.client = new BlockwiseClient(settings, store, this);
    }

    /** BERT with the peer of {@code exchange}: {@link #BERT_OFF}, {@link #BERT_RECEIVE_ONLY} or kilobytes per message. */
    int bert(Exchange exchange) {
        return bert.applyAsInt(exchange);
    }

    /** Block1 of {@code options}; with BERT on, SZX 7 is legal. */
    static BlockOption block1(io.stagecoach.core.coap.OptionSet options, int bert) {
        return bert >= 0 ? ReliableTransportOptions.block1(options) : options.block1();
    }

    /** Block2 of {@code options}; with BERT on, SZX 7 is legal. */
    static BlockOption block2(io.stagecoach.core.coap.OptionSet options, int bert) {
        return bert >= 0 ? ReliableTransportOptions.block2(options) : options.block2();
    }

    /** Transfers holding state: server uploads and cached downloads plus client transfers in progress. */
    public int transfers() {
        return statuses.size() + client.active();
    }

    /** Block1, Block2 (critical) and Size1, Size2 (RFC 7959 §2.2, §4). */
    @Override
    public Set<OptionNumber> options() {
        return Set.of(OptionNumber.BLOCK1, OptionNumber.BLOCK2, OptionNumber.SIZE1, OptionNumber.SIZE2);
    }

    /** Registers the gauge {@code blockwise_transfers} ({@link #transfers()}). */
    @Override
    public void start(LayerContext ctx) {
        ctx.services().counters().register(EndpointCounters.Gauge.BLOCKWISE_TRANSFERS, this::transfers);
    }

    // ---------------------------------------------------------------- server side

    @Override
    public void receiveRequest(LayerContext ctx, Exchange exchange, Request request) {
        int b = bert(exchange);
        BlockOption block1 = block1(request.options(), b);
        BlockOption block2 = block2(request.options(), b);
        if (block1 != null) {
            uploads.receive(ctx, exchange, request, block1);
        } else if (block2 != null) {
            downloads.receive(ctx, exchange, request, block2);
        } else {
            ctx.receiveRequest(exchange, request);
        }
    }

    @Override
    public void sendResponse(LayerContext ctx, Exchange exchange, Response response) {
        if (exchange.isLocal()) {
            ctx.sendResponse(exchange, response);
            return;
        }
        Response r = response;
        ServerState s = exchange.get(SERVER);
        if (s != null && s.block1Echo != null && !r.options().has(OptionNumber.BLOCK1)) {
            Response.Builder b = r.newBuilder();
            b.options().block1(s.block1Echo);
            r = b.build();
        }
        downloads.send(ctx, exchange, r);
    }

    // ---------------------------------------------------------------- client side

    @Override
    public void sendRequest(LayerContext ctx, Exchange exchange, Request request) {
        client.send(ctx, exchange, request);
    }

    @Override
    public void receiveResponse(LayerContext ctx, Exchange exchange, Response response) {
        client.receive(ctx, exchange, response);
    }

    /** Forgets every server transfer: the exchanges that would continue them end with the endpoint. */
    @Override
    public void stop(LayerContext ctx) {
        statuses.clear();
    }

    // ---------------------------------------------------------------- shared helpers

    static ServerState serverState(Exchange exchange) {
        ServerState s = exchange.get(SERVER);
        if (s == null) {
            s = new ServerState();
            exchange.set(SERVER, s);
        }
        return s;
    }

    /** A response with a diagnostic payload (RFC 7252 §5.5.2), Content-Format text/plain. */
    static Response.Builder diagnostic(Request request, Code code, String text) {
        Response.Builder b = Response.forRequest(request, code).payload(text);
        b.options().contentFormat(0);
        return b;
    }

    /** Holds exchanges only through its slot state, completion hooks and the store (which hooks). */
    @Override
    public boolean keepsExchanges() {
        return false;
    }
}
