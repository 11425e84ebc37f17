/*
 * coap-block: block-wise download goodput (RFC 7959 Block2), in C, neutral to the servers it
 * measures (it shares no code with any of them). One client, one connected UDP socket, one
 * request outstanding: GET block 0 with Block2 (NUM 0, M 0, --szx) so that the block size is
 * negotiated early (RFC 7959 §2.4), then block NUM+1 while the answer says M=1. The same token
 * serves one body; each body gets a new one. A server that answers with a smaller SZX is followed
 * at the byte offset reached (§2.4: the client continues in the smaller size). An Echo option
 * (RFC 9175 §2.2) in an answer is returned with the next request, as the amplification limit of
 * a server may ask (RFC 9175 §2.4). A request unanswered after --rto seconds is sent again with
 * the same MID (RFC 7252 §4.2), at most 4 times.
 *
 * Output: "body MS BYTES BLOCKS" per measured body, then "result key=value ...": goodput is the
 * measured bodies' bytes over the sum of their times.
 *
 * Benchmark tool only: built on demand by NativeTool with gcc, never part of the product or CI.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "coap-tool.h"

#define MAX_DATAGRAM 65536
#define MAX_BODIES 100000

static int sock;
static uint8_t path[512];
static int path_len;
static uint16_t mid;
static uint8_t echo[40];
static int echo_len;
static long retransmissions, echoes, stray;

/* one option after the previous number `*last`: header, extended delta/length, value */
static int put_option(uint8_t *b, int pos, int *last, int number, const uint8_t *v, int len) {
    int delta = number - *last;
    *last = number;
    int dn = delta < 13 ? delta : delta < 269 ? 13 : 14;
    int ln = len < 13 ? len : 13;
    b[pos++] = (uint8_t) (dn << 4 | ln);
    if (dn == 13) b[pos++] = (uint8_t) (delta - 13);
    if (dn == 14) {
        b[pos++] = (uint8_t) ((delta - 269) >> 8);
        b[pos++] = (uint8_t) (delta - 269);
    }
    if (ln == 13) b[pos++] = (uint8_t) (len - 13);
    memcpy(b + pos, v, (size_t) len);
    return pos + len;
}

/* CON GET token TOKEN, Uri-Path (11), Block2 (23) NUM/M=0/SZX, Echo (252) if the server gave one */
static int build(uint8_t *b, uint32_t token, uint32_t num, int szx) {
    mid++;
    b[0] = 0x44;
    b[1] = 0x01;
    b[2] = (uint8_t) (mid >> 8);
    b[3] = (uint8_t) mid;
    b[4] = (uint8_t) (token >> 24);
    b[5] = (uint8_t) (token >> 16);
    b[6] = (uint8_t) (token >> 8);
    b[7] = (uint8_t) token;
    int pos = 8, last = 0;
    memcpy(b + pos, path, (size_t) path_len); /* Uri-Path options, first delta 11 */
    pos += path_len;
    last = path_len > 0 ? 11 : 0;
    uint32_t v = num << 4 | (uint32_t) szx;
    uint8_t bv[3];
    int bl = v < 0x100 ? (v == 0 ? 0 : 1) : v < 0x10000 ? 2 : 3;
    for (int i = 0; i < bl; i++) bv[i] = (uint8_t) (v >> (8 * (bl - 1 - i)));
    pos = put_option(b, pos, &last, 23, bv, bl);
    if (echo_len > 0) {
        pos = put_option(b, pos, &last, 252, echo, echo_len);
        echo_len = 0; /* an Echo value goes back once, with the next request (RFC 9175 §2.3) */
    }
    return pos;
}

typedef struct {
    int code, type, has_block2, m, szx;
    uint32_t num;
    const uint8_t *payload;
    int payload_len;
} answer_t;

static int parse(const uint8_t *d, int n, uint32_t token, answer_t *a) {
    if (n < 8 || (d[0] & 0xC0) != 0x40 || (d[0] & 0x0F) != 4) return 0;
    uint32_t t = (uint32_t) d[4] << 24 | (uint32_t) d[5] << 16 | (uint32_t) d[6] << 8 | d[7];
    if (t != token || d[1] == 0) return 0;
    memset(a, 0, sizeof *a);
    a->type = (d[0] >> 4) & 3;
    a->code = d[1];
    int pos = 8, num = 0;
    while (pos < n) {
        if (d[pos] == 0xFF) {
            a->payload = d + pos + 1;
            a->payload_len = n - pos - 1;
            break;
        }
        int delta = d[pos] >> 4, len = d[pos] & 0x0F;
        pos++;
        if (delta == 13) delta = 13 + d[pos++];
        else if (delta == 14) { delta = 269 + (d[pos] << 8 | d[pos + 1]); pos += 2; }
        if (len == 13) len = 13 + d[pos++];
        else if (len == 14) { len = 269 + (d[pos] << 8 | d[pos + 1]); pos += 2; }
        num += delta;
        if (pos + len > n) return 0;
        if (num == 23) {
            uint32_t v = 0;
            for (int i = 0; i < len; i++) v = v << 8 | d[pos + i];
            a->has_block2 = 1;
            a->num = v >> 4;
            a->m = (v >> 3) & 1;
            a->szx = (int) (v & 7);
        } else if (num == 252 && len <= (int) sizeof echo) {
            memcpy(echo, d + pos, (size_t) len); /* returned with the next request */
            echo_len = len;
            echoes++;
        }
        pos += len;
    }
    return 1;
}

/* sends `req` and waits for the answer with `token` (piggybacked or separate); 0 on success */
static int exchange(const uint8_t *req, int len, uint32_t token, double rto, uint8_t *rx, answer_t *a) {
    for (int attempt = 0; attempt <= 4; attempt++) {
        if (attempt > 0) retransmissions++;
        if (send(sock, req, (size_t) len, 0) < 0) return -1;
        uint64_t deadline = now_ns() + (uint64_t) (rto * 1e9 * (1 << attempt));
        for (;;) {
            uint64_t now = now_ns();
            if (now >= deadline) break;
            struct pollfd p = {.fd = sock, .events = POLLIN};
            int ms = (int) ((deadline - now) / 1000000) + 1;
            if (poll(&p, 1, ms) <= 0) continue;
            ssize_t n = recv(sock, rx, MAX_DATAGRAM, MSG_DONTWAIT);
            if (n < 4) continue;
            if (((rx[0] >> 4) & 3) == 0) { /* a CON separate response: acknowledge it */
                uint8_t ack[4] = {0x60, 0, rx[2], rx[3]};
                send(sock, ack, 4, 0);
            }
            if (parse(rx, (int) n, token, a)) return 0;
            stray++; /* an empty ACK (a separate response follows), or a late duplicate */
        }
    }
    return -1;
}

static void usage(void) {
    fprintf(stderr, "usage: coap-block --server IP:PORT --path SEG[/SEG..] [--szx 0..6] [--bodies N] [--warmup N]\n"
                    "       [--expect BYTES] [--rto S] [--watch-pid PID]\n");
    exit(2);
}

int main(int argc, char **argv) {
    const char *server_arg = NULL, *path_arg = "";
    int szx = 6, bodies = 20, warmup = 3;
    long expect = -1, watch_pid = 0;
    double rto = 2;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage();
        const char *k = argv[i], *v = argv[++i];
        if (!strcmp(k, "--server")) server_arg = v;
        else if (!strcmp(k, "--path")) path_arg = v;
        else if (!strcmp(k, "--szx")) szx = atoi(v);
        else if (!strcmp(k, "--bodies")) bodies = atoi(v);
        else if (!strcmp(k, "--warmup")) warmup = atoi(v);
        else if (!strcmp(k, "--expect")) expect = atol(v);
        else if (!strcmp(k, "--rto")) rto = atof(v);
        else if (!strcmp(k, "--watch-pid")) watch_pid = atol(v);
        else usage();
    }
    if (!server_arg || szx < 0 || szx > 6 || bodies < 1 || bodies > MAX_BODIES || warmup < 0 || rto <= 0) usage();
    char host[64];
    const char *colon = strrchr(server_arg, ':');
    if (!colon || colon - server_arg >= (long) sizeof host) usage();
    memcpy(host, server_arg, (size_t) (colon - server_arg));
    host[colon - server_arg] = 0;
    struct sockaddr_in server = {.sin_family = AF_INET, .sin_port = htons((uint16_t) atoi(colon + 1))};
    if (inet_pton(AF_INET, host, &server.sin_addr) != 1) {
        fprintf(stderr, "coap-block: bad server address %s (IPv4 only)\n", host);
        return 2;
    }
    const char *seg = path_arg;
    int first = 1;
    while (*seg) {
        const char *end = strchr(seg, '/');
        int len = end ? (int) (end - seg) : (int) strlen(seg);
        if (len > 12 || path_len + 1 + len > (int) sizeof path) usage();
        if (len > 0) {
            path[path_len++] = (uint8_t) ((first ? 11 : 0) << 4 | len);
            memcpy(path + path_len, seg, (size_t) len);
            path_len += len;
            first = 0;
        }
        seg += len + (end ? 1 : 0);
    }
    sock = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in local = {.sin_family = AF_INET};
    inet_pton(AF_INET, "127.0.0.1", &local.sin_addr);
    if (bind(sock, (struct sockaddr *) &local, sizeof local) < 0 || connect(sock, (struct sockaddr *) &server, sizeof server) < 0) {
        perror("bind/connect");
        return 1;
    }
    uint32_t seed = (uint32_t) now_ns() ^ (uint32_t) getpid();
    mid = (uint16_t) seed;
    static uint8_t req[2048], rx[MAX_DATAGRAM];
    uint64_t *times = calloc((size_t) bodies, sizeof(uint64_t));
    long bytes_total = 0, blocks_total = 0, failures = 0;
    uint64_t time_total = 0;
    double server_cpu0 = 0, self_cpu0 = 0;
    for (int b = -warmup; b < bodies; b++) {
        if (b == 0) {
            server_cpu0 = process_cpu_s(watch_pid);
            self_cpu0 = self_cpu_s();
        }
        uint32_t token = seed + (uint32_t) (b + warmup) * 0x9E3779B9u;
        long offset = 0, blocks = 0;
        int size_exp = szx, ok = 1;
        uint64_t t = now_ns();
        for (;;) {
            uint32_t num = (uint32_t) (offset >> (size_exp + 4));
            int len = build(req, token, num, size_exp);
            answer_t a;
            if (exchange(req, len, token, rto, rx, &a) != 0) {
                fprintf(stderr, "coap-block: no answer for block %u\n", num);
                ok = 0;
                break;
            }
            if ((a.code >> 5) != 2) {
                fprintf(stderr, "coap-block: answer %d.%02d for block %u\n", a.code >> 5, a.code & 31, num);
                ok = 0;
                break;
            }
            blocks++;
            if (!a.has_block2) { /* the whole body in one answer */
                offset += a.payload_len;
                break;
            }
            long at = (long) a.num << (a.szx + 4);
            if (at != offset) {
                fprintf(stderr, "coap-block: block %u (szx %d) does not continue at byte %ld\n", a.num, a.szx, offset);
                ok = 0;
                break;
            }
            offset += a.payload_len;
            size_exp = a.szx < size_exp ? a.szx : size_exp;
            if (!a.m) break;
        }
        uint64_t dt = now_ns() - t;
        if (ok && expect >= 0 && offset != expect) {
            fprintf(stderr, "coap-block: body of %ld bytes, expected %ld\n", offset, expect);
            ok = 0;
        }
        if (b < 0) {
            if (!ok) return 1;
            continue;
        }
        if (!ok) {
            failures++;
            continue;
        }
        times[b - failures] = dt;
        time_total += dt;
        bytes_total += offset;
        blocks_total += blocks;
        printf("body %.3f %ld %ld\n", dt / 1e6, offset, blocks);
    }
    double server_cpu1 = process_cpu_s(watch_pid), self_cpu1 = self_cpu_s();
    int measured = bodies - (int) failures;
    qsort(times, (size_t) measured, sizeof times[0], cmp_u64);
    double secs = time_total / 1e9;
    double scpu = server_cpu0 < 0 || server_cpu1 < 0 ? -1.0 : server_cpu1 - server_cpu0;
    printf("result bodies=%d failures=%ld bytes=%ld blocks=%ld block_size=%d seconds=%.3f goodput_MBps=%.3f"
           " median_body_ms=%.3f min_body_ms=%.3f max_body_ms=%.3f us_per_block=%.2f retransmissions=%ld"
           " echo_options=%ld stray=%ld server_cpu_s=%.3f server_cpu_us_per_block=%.2f generator_cpu_s=%.3f\n",
           measured, failures, bytes_total, blocks_total, 16 << szx, secs,
           secs > 0 ? bytes_total / 1048576.0 / secs : 0.0, measured ? times[measured / 2] / 1e6 : -1.0,
           measured ? times[0] / 1e6 : -1.0, measured ? times[measured - 1] / 1e6 : -1.0,
           blocks_total ? time_total / 1e3 / blocks_total : -1.0, retransmissions, echoes, stray, scpu,
           scpu >= 0 && blocks_total > 0 ? scpu * 1e6 / blocks_total : -1.0, self_cpu1 - self_cpu0);
    return failures > 0 ? 1 : 0;
}
