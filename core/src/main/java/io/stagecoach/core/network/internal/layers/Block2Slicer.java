package io.stagecoach.core.network.internal.layers;

import io.stagecoach.core.coap.BlockOption;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;

/**
 * Cuts one Block2 slice out of a whole response (RFC 7959 §2.4). The slice keeps every option of
 * the whole (Content-Format, ETag, Max-Age, Location-*, Observe when the caller leaves it), so
 * all blocks describe the same representation; it adds Block2 and, when asked, Size2 (§4).
 */
final class Block2Slicer {

    private Block2Slicer() {
    }

    /** Block size and number to serve for a request asking {@code asked} (or nothing), server preferring {@code szx}. */
    static BlockOption target(BlockOption asked, int szx) {
        return target(asked, szx, 0);
    }

    /**
     * As {@link #target(BlockOption, int)}; with {@code bertBlocks} &gt; 0 (RFC 8323 §6) a request
     * asking BERT, or none, gets a BERT block (SZX 7, NUM in 1024-byte units).
     */
    static BlockOption target(BlockOption asked, int szx, int bertBlocks) {
        if (bertBlocks > 0 && (asked == null || asked.isBert())) {
            return BlockOption.of(asked == null ? 0 : asked.num(), false, 7, true);
        }
        if (asked == null) {
            return BlockOption.of(0, false, szx);
        }
        // Late negotiation (§2.4): the server may answer with a smaller block than asked; NUM
        // then counts in the smaller size, so the byte offset stays the one the client asked for.
        int size = Math.min(asked.szx(), szx);
        long num = asked.offset() >> (size + 4);
        return BlockOption.of((int) Math.min(num, BlockOption.MAX_NUM), false, size);
    }

    /** Whether block {@code target} starts inside {@code length} bytes (block 0 always exists). */
    static boolean inRange(BlockOption target, int length) {
        return target.num() == 0 || target.offset() < length;
    }

    /**
     * Block {@code target.num()} of {@code whole} in blocks of {@code target.size()} bytes, with M
     * set unless it is the last.
     *
     * @param size2 whether to carry Size2 with the whole length (asked with Size2 in the request)
     */
    static Response slice(Response whole, BlockOption target, boolean size2) {
        return slice(whole, target, size2, 1);
    }

    /** As {@link #slice(Response, BlockOption, boolean)}; a BERT target carries {@code bertBlocks} × 1024 bytes. */
    static Response slice(Response whole, BlockOption target, boolean size2, int bertBlocks) {
        // the whole body is not copied per block: a 1 MiB representation cost 2 MiB of garbage
        // per 1 KiB block when it was (docs/benchmarks/observe-blockwise.md)
        int length = whole.payloadLength();
        int from = (int) Math.min(target.offset(), length);
        long bytes = target.isBert() ? (long) target.size() * Math.max(1, bertBlocks) : target.size();
        int to = (int) Math.min((long) from + bytes, length);
        boolean more = to < length;
        Response.Builder b = whole.newBuilder().payload(whole, from, to - from);
        b.options().block2(BlockOption.of(target.num(), more, target.szx(), true));
        if (size2) {
            b.options().size2(length);
        }
        return b.build();
    }

    /** 4.02 for a Block2 NUM past the end of the representation (§2.4: no such block). */
    static Response outOfRange(Request request, BlockOption target, int length) {
        return BlockwiseLayer.diagnostic(request, Code.BAD_OPTION,
                "Block2 " + target + " starts past the end of " + length + " bytes").build();
    }
}
