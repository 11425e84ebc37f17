package io.stagecoach.core.network.internal.layers;

import io.stagecoach.core.coap.BlockOption;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.elements.config.Configuration;
import java.time.Duration;

/**
 * The block-wise settings of one endpoint, read once from {@link CoapConfig}.
 *
 * @param szx             SZX of the preferred block size, never larger than the maximum message
 *                        size allows (a block must fit in one message)
 * @param maxMessageSize  payloads larger than this travel block-wise (RFC 7959 §2)
 * @param maxBodySize     largest body this endpoint reassembles, in either direction
 * @param lifetime        idle time after which a server transfer is forgotten
 * @param maxPerSource    server transfers per source (IPv4 address, IPv6 /64)
 * @param maxTotal        server transfers over all sources
 * @param maxBytes        bytes of bodies the server transfers may hold in all
 * @param sweepInterval   period of the expiry sweep
 */
record BlockwiseSettings(int szx, int maxMessageSize, int maxBodySize, Duration lifetime, int maxPerSource,
        int maxTotal, long maxBytes, Duration sweepInterval) {

    static BlockwiseSettings from(Configuration config) {
        int maxMessage = config.get(CoapConfig.BLOCKWISE_MAX_MESSAGE_SIZE);
        int preferred = config.get(CoapConfig.BLOCKWISE_PREFERRED_BLOCK_SIZE);
        // A block must fit in one message: 16 <= block <= max message size.
        int block = Math.min(preferred, Integer.highestOneBit(Math.max(16, maxMessage)));
        Duration lifetime = config.get(CoapConfig.BLOCKWISE_STATUS_LIFETIME);
        Duration sweep = config.get(CoapConfig.DEDUP_SWEEP_INTERVAL);
        return new BlockwiseSettings(BlockOption.szxOf(block), maxMessage,
                config.get(CoapConfig.BLOCKWISE_MAX_RESOURCE_BODY_SIZE), lifetime,
                config.get(CoapConfig.BLOCKWISE_MAX_TRANSFERS_PER_SOURCE), config.get(CoapConfig.BLOCKWISE_MAX_TRANSFERS),
                config.get(CoapConfig.BLOCKWISE_MAX_BYTES), sweep.compareTo(lifetime) < 0 ? sweep : lifetime);
    }

    /** The preferred block size in bytes. */
    int blockSize() {
        return 1 << (szx + 4);
    }

    /** The SZX of the largest block size not above {@code bytes} (at least 16 bytes: SZX 0). */
    static int szxAtMost(long bytes) {
        if (bytes < 32) {
            return 0;
        }
        return Math.min(6, 63 - Long.numberOfLeadingZeros(bytes) - 4);
    }
}
