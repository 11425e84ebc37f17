/*
 * coap-observe: the observer side of the observe fan-out benchmark, in C, neutral to the servers
 * it measures (it shares no code with any of them). One thread, one UDP socket.
 *
 * N observers of one resource. RFC 7641 §3 identifies an observation by the client endpoint and
 * the token, and servers budget relations per source address (Stagecoach: 100 per IPv4 address
 * by default), so each observer is its own endpoint: observer i sends from its own loopback
 * address (127.2.0.0 + 1 + i, IP_PKTINFO) on the socket's one port, with token i. Registrations
 * leave in sendmmsg(2) batches at --register-rate; notifications arrive by recvmmsg(2).
 *
 * The server changes the resource at its own fixed pace; each representation is the ASCII text
 * "SEQ NANOS": the change's sequence number and the server's System.nanoTime() when it called
 * changed(). On Linux that is CLOCK_MONOTONIC, the clock read here, so on the same host the time
 * from changed() to each notification's arrival is measured without a clock offset.
 *
 * Rounds: round 1 is the first change after every registration was answered and --warmup-rounds
 * (default 3) more changes that warm the server up. A round ends when
 * every registered observer has a value at least that new (a newer value supersedes an older
 * one, RFC 7641 §4.5.2) or --timeout seconds after the change. Per round: the time from
 * changed() to the first and to the last observer's notification, and notifications per second
 * over that span. A confirmable notification is acknowledged at once (RFC 7641 §4.5), and an
 * Empty CON (a CoAP ping, RFC 7252 §4.3) is answered with RST, as every CoAP endpoint must: the
 * observer it is for is the one whose address it was sent to (IP_PKTINFO on receive).
 *
 * Output: "register ..." once, "round ..." per round, then "result key=value ...".
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

#define BATCH 64
#define MAX_DATAGRAM 2048
#define MAX_OBSERVERS 65536
#define MAX_ROUNDS 10000

enum { IDLE, AWAITING, REGISTERED, REFUSED };

typedef struct {
    uint32_t source;   /* network order */
    uint16_t mid;
    uint8_t state;
    uint8_t tries;
    uint64_t sent_ns;
    int64_t last_seq;  /* newest value seen, -1 none */
} observer_t;

typedef struct {
    int64_t seq;
    uint64_t change_ns;  /* server's nanoTime at changed() */
    uint64_t first_ns, last_ns;
    long done;           /* observers with a value at least this new */
    long delivered;      /* notifications carrying exactly this value */
    int closed, complete;
} round_t;

static observer_t *obs;
static int nobs;
static int sock;
static struct sockaddr_in server;
static uint8_t path[256];
static int path_len;
static round_t rounds[MAX_ROUNDS];
static int nrounds = 10;
static int64_t first_seq = -1; /* seq of round 1, once registration is over */
static long registered, refused, notifications, con_notes, non_notes, stale, no_observe, errors, stray, pings;
static uint32_t base_address; /* host order: observer i sends from base_address + 1 + i */
static long window_notes;

/* ------------------------------------------------------------------ sending, batched */

static uint8_t txbuf[BATCH][MAX_DATAGRAM];
static struct iovec tx_iov[BATCH];
static struct mmsghdr tx[BATCH];
static char tx_ctl[BATCH][CMSG_SPACE(sizeof(struct in_pktinfo))];
static int tx_count;

static void flush_tx(void) {
    int done = 0;
    while (done < tx_count) {
        int k = sendmmsg(sock, tx + done, (unsigned) (tx_count - done), 0);
        if (k < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == ENOBUFS) {
                struct pollfd p = {.fd = sock, .events = POLLOUT};
                poll(&p, 1, 1);
                continue;
            }
            done++; /* lost: a registration is retried, a lost ACK makes the server retransmit */
            continue;
        }
        done += k;
    }
    tx_count = 0;
}

static void queue(const observer_t *o, const uint8_t *d, int len) {
    if (tx_count == BATCH) flush_tx();
    int i = tx_count++;
    memcpy(txbuf[i], d, (size_t) len);
    tx_iov[i].iov_base = txbuf[i];
    tx_iov[i].iov_len = (size_t) len;
    struct msghdr *h = &tx[i].msg_hdr;
    h->msg_name = &server;
    h->msg_namelen = sizeof server;
    h->msg_iov = &tx_iov[i];
    h->msg_iovlen = 1;
    h->msg_control = tx_ctl[i];
    h->msg_controllen = sizeof tx_ctl[i];
    struct cmsghdr *cm = CMSG_FIRSTHDR(h);
    cm->cmsg_level = IPPROTO_IP;
    cm->cmsg_type = IP_PKTINFO;
    cm->cmsg_len = CMSG_LEN(sizeof(struct in_pktinfo));
    struct in_pktinfo *pi = (struct in_pktinfo *) CMSG_DATA(cm);
    memset(pi, 0, sizeof *pi);
    pi->ipi_spec_dst.s_addr = o->source;
}

/* CON GET, token = index (4 bytes), Observe 0 (zero-length value), then the Uri-Path options */
static void send_register(observer_t *o, uint64_t now) {
    uint32_t idx = (uint32_t) (o - obs);
    uint8_t b[MAX_DATAGRAM];
    o->mid++;
    b[0] = 0x44;
    b[1] = 0x01;
    b[2] = (uint8_t) (o->mid >> 8);
    b[3] = (uint8_t) o->mid;
    b[4] = (uint8_t) (idx >> 24);
    b[5] = (uint8_t) (idx >> 16);
    b[6] = (uint8_t) (idx >> 8);
    b[7] = (uint8_t) idx;
    b[8] = 0x60; /* Observe (6), length 0 = value 0 */
    memcpy(b + 9, path, (size_t) path_len);
    o->state = AWAITING;
    o->tries++;
    o->sent_ns = now;
    queue(o, b, 9 + path_len);
}

static void send_empty(const observer_t *o, int first_byte, int mid) {
    uint8_t b[4] = {(uint8_t) first_byte, 0, (uint8_t) (mid >> 8), (uint8_t) mid};
    queue(o, b, 4);
}

/* ------------------------------------------------------------------ receiving */

static round_t *round_of(int64_t seq) {
    if (first_seq < 0 || seq < first_seq || seq >= first_seq + nrounds) return NULL;
    return &rounds[seq - first_seq];
}

/* observer o now holds value seq (newer than its last): the rounds up to seq are done for it */
static void advance(observer_t *o, int64_t seq, uint64_t change_ns, uint64_t now) {
    int64_t from = o->last_seq + 1;
    if (first_seq >= 0 && from < first_seq) from = first_seq;
    for (int64_t s = from; s <= seq; s++) {
        round_t *r = round_of(s);
        if (r == NULL) {
            if (s >= first_seq + nrounds) break;
            continue;
        }
        if (s == seq) {
            if (r->change_ns == 0) r->change_ns = change_ns;
            r->delivered++;
            if (r->first_ns == 0) r->first_ns = now;
        }
        if (!r->closed) {
            r->done++;
            r->last_ns = now;
            if (r->done >= registered) {
                r->closed = 1;
                r->complete = 1;
            }
        }
    }
    o->last_seq = seq;
}

static int parse_value(const uint8_t *p, int n, int64_t *seq, uint64_t *nanos) {
    char text[64];
    if (n <= 0 || n >= (int) sizeof text) return 0;
    memcpy(text, p, (size_t) n);
    text[n] = 0;
    long long s;
    unsigned long long t;
    if (sscanf(text, "%lld %llu", &s, &t) != 2) return 0;
    *seq = s;
    *nanos = t;
    return 1;
}

/* dst: the address the datagram was sent to (network order), 0 if unknown */
static void on_datagram(const uint8_t *d, int n, uint32_t dst, uint64_t now) {
    if (n < 4 || (d[0] & 0xC0) != 0x40) {
        stray++;
        return;
    }
    int type = (d[0] >> 4) & 0x3;
    int tkl = d[0] & 0x0F;
    int code = d[1];
    int mid = d[2] << 8 | d[3];
    if (type == 0 && code == 0 && tkl == 0 && n == 4) {
        uint32_t i = ntohl(dst) - base_address - 1;
        if (dst != 0 && i < (uint32_t) nobs) {
            pings++;
            send_empty(&obs[i], 0x70, mid); /* CoAP ping: RST from the address it was sent to */
        } else {
            stray++;
        }
        return;
    }
    if (code == 0 || tkl != 4 || n < 8) {
        stray++; /* an empty ACK (a separate response follows) or a message we did not ask for */
        return;
    }
    uint32_t idx = (uint32_t) d[4] << 24 | (uint32_t) d[5] << 16 | (uint32_t) d[6] << 8 | d[7];
    if (idx >= (uint32_t) nobs) {
        stray++;
        return;
    }
    observer_t *o = &obs[idx];
    /* options: is Observe (6) present; where does the payload start */
    int pos = 8, num = 0, has_observe = 0, payload = -1;
    while (pos < n) {
        if (d[pos] == 0xFF) {
            payload = pos + 1;
            break;
        }
        int delta = d[pos] >> 4, len = d[pos] & 0x0F;
        pos++;
        if (delta == 13) delta = 13 + d[pos++];
        else if (delta == 14) { delta = 269 + (d[pos] << 8 | d[pos + 1]); pos += 2; }
        if (len == 13) len = 13 + d[pos++];
        else if (len == 14) { len = 269 + (d[pos] << 8 | d[pos + 1]); pos += 2; }
        num += delta;
        if (num == 6) has_observe = 1;
        pos += len;
    }
    if (type == 0) {
        send_empty(o, 0x60, mid); /* ACK every confirmable message of ours (RFC 7641 §4.5) */
    }
    if ((code >> 5) != 2) {
        errors++;
        if (o->state == AWAITING) o->state = REFUSED, refused++;
        return;
    }
    int64_t seq;
    uint64_t nanos;
    if (payload < 0 || !parse_value(d + payload, n - payload, &seq, &nanos)) {
        errors++;
        return;
    }
    if (o->state == AWAITING) {
        if (has_observe) {
            o->state = REGISTERED;
            registered++;
        } else {
            o->state = REFUSED; /* served as a plain GET: no relation (RFC 7641 §4.1) */
            refused++;
            return;
        }
    } else if (o->state != REGISTERED) {
        stray++;
        return;
    } else {
        notifications++;
        if (type == 0) con_notes++; else non_notes++;
        if (!has_observe) no_observe++;
        if (first_seq >= 0) window_notes++;
    }
    if (seq > o->last_seq) {
        advance(o, seq, nanos, now);
    } else {
        stale++; /* a duplicate, a retransmission or an older value arriving late */
    }
}

static uint8_t rxbuf[BATCH][MAX_DATAGRAM];
static struct iovec rx_iov[BATCH];
static struct mmsghdr rx[BATCH];
static char rx_ctl[BATCH][CMSG_SPACE(sizeof(struct in_pktinfo))];

static uint32_t destination_of(struct msghdr *h) {
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(h); cm != NULL; cm = CMSG_NXTHDR(h, cm)) {
        if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_PKTINFO) {
            return ((struct in_pktinfo *) CMSG_DATA(cm))->ipi_addr.s_addr;
        }
    }
    return 0;
}

static void poll_once(uint64_t wait_ns) {
    for (int i = 0; i < BATCH; i++) rx[i].msg_hdr.msg_controllen = sizeof rx_ctl[i]; /* the kernel shrinks it */
    int n = recvmmsg(sock, rx, BATCH, MSG_DONTWAIT, NULL);
    if (n <= 0) {
        flush_tx();
        struct pollfd p = {.fd = sock, .events = POLLIN};
        struct timespec ts = {.tv_sec = (time_t) (wait_ns / 1000000000ull), .tv_nsec = (long) (wait_ns % 1000000000ull)};
        ppoll(&p, 1, &ts, NULL);
        return;
    }
    uint64_t now = now_ns();
    for (int i = 0; i < n; i++) {
        on_datagram(rxbuf[i], (int) rx[i].msg_len, destination_of(&rx[i].msg_hdr), now);
    }
    flush_tx();
}

/* ------------------------------------------------------------------ setup, phases, report */

static void usage(void) {
    fprintf(stderr, "usage: coap-observe --server IP:PORT [--path SEG[/SEG..]] [--observers N] [--rounds R]\n"
                    "       [--warmup-rounds W] [--register-rate PER_S] [--timeout S] [--watch-pid PID]\n");
    exit(2);
}

int main(int argc, char **argv) {
    const char *server_arg = NULL, *path_arg = "obs";
    double register_rate = 20000, timeout = 10;
    int warmup_rounds = 3;
    long watch_pid = 0;
    nobs = 10000;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage();
        const char *k = argv[i], *v = argv[++i];
        if (!strcmp(k, "--server")) server_arg = v;
        else if (!strcmp(k, "--path")) path_arg = v;
        else if (!strcmp(k, "--observers")) nobs = atoi(v);
        else if (!strcmp(k, "--rounds")) nrounds = atoi(v);
        else if (!strcmp(k, "--warmup-rounds")) warmup_rounds = atoi(v);
        else if (!strcmp(k, "--register-rate")) register_rate = atof(v);
        else if (!strcmp(k, "--timeout")) timeout = atof(v);
        else if (!strcmp(k, "--watch-pid")) watch_pid = atol(v);
        else usage();
    }
    if (!server_arg || nobs < 1 || nobs > MAX_OBSERVERS || nrounds < 1 || nrounds > MAX_ROUNDS
        || register_rate <= 0 || timeout <= 0 || warmup_rounds < 0) {
        usage();
    }
    char host[64];
    const char *colon = strrchr(server_arg, ':');
    if (!colon || colon - server_arg >= (long) sizeof host) usage();
    memcpy(host, server_arg, (size_t) (colon - server_arg));
    host[colon - server_arg] = 0;
    server.sin_family = AF_INET;
    server.sin_port = htons((uint16_t) atoi(colon + 1));
    if (inet_pton(AF_INET, host, &server.sin_addr) != 1) {
        fprintf(stderr, "coap-observe: bad server address %s (IPv4 only)\n", host);
        return 2;
    }
    /* Uri-Path options: the first has delta 5 after Observe (6 -> 11), the others delta 0 */
    const char *seg = path_arg;
    int first = 1;
    while (*seg) {
        const char *end = strchr(seg, '/');
        int len = end ? (int) (end - seg) : (int) strlen(seg);
        if (len > 12 || path_len + 1 + len > (int) sizeof path) usage();
        if (len > 0) {
            path[path_len++] = (uint8_t) ((first ? 5 : 0) << 4 | len);
            memcpy(path + path_len, seg, (size_t) len);
            path_len += len;
            first = 0;
        }
        seg += len + (end ? 1 : 0);
    }
    obs = calloc((size_t) nobs, sizeof(observer_t));
    uint32_t base = ntohl(inet_addr("127.2.0.0"));
    base_address = base;
    uint32_t seed = (uint32_t) now_ns() ^ (uint32_t) getpid();
    for (int i = 0; i < nobs; i++) {
        seed = seed * 1103515245u + 12345u;
        obs[i].source = htonl(base + 1 + (uint32_t) i);
        obs[i].mid = (uint16_t) (seed >> 8);
        obs[i].last_seq = -1;
    }
    sock = socket(AF_INET, SOCK_DGRAM, 0);
    int bufsize = 8 << 20; /* Linux caps it at net.core.rmem_max */
    setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &bufsize, sizeof bufsize);
    setsockopt(sock, SOL_SOCKET, SO_SNDBUF, &bufsize, sizeof bufsize);
    int one = 1;
    setsockopt(sock, IPPROTO_IP, IP_PKTINFO, &one, sizeof one); /* which observer a ping is for */
    struct sockaddr_in any = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    if (bind(sock, (struct sockaddr *) &any, sizeof any) < 0) {
        perror("bind");
        return 1;
    }
    for (int i = 0; i < BATCH; i++) {
        rx_iov[i].iov_base = rxbuf[i];
        rx_iov[i].iov_len = MAX_DATAGRAM;
        rx[i].msg_hdr.msg_iov = &rx_iov[i];
        rx[i].msg_hdr.msg_iovlen = 1;
        rx[i].msg_hdr.msg_control = rx_ctl[i];
    }

    /* registration: paced, each retried after 2 s, at most 4 tries */
    uint64_t t0 = now_ns(), interval = (uint64_t) (1e9 / register_rate), next_slot = t0, next_scan = t0;
    int started = 0;
    long gave_up = 0;
    for (;;) {
        uint64_t now = now_ns();
        while (started < nobs && next_slot <= now) {
            send_register(&obs[started++], now);
            next_slot += interval;
        }
        if (now >= next_scan) {
            next_scan = now + 100000000ull;
            for (int i = 0; i < started; i++) {
                observer_t *o = &obs[i];
                if (o->state == AWAITING && now - o->sent_ns > 2000000000ull) {
                    if (o->tries >= 4) {
                        o->state = IDLE; /* given up: no answer to four registrations */
                        gave_up++;
                    } else {
                        send_register(o, now);
                    }
                }
            }
        }
        if (started == nobs && registered + refused + gave_up >= nobs) break;
        if (now - t0 > (uint64_t) ((nobs / register_rate + 4 * 2 + timeout) * 1e9)) break;
        flush_tx();
        poll_once(1000000);
    }
    uint64_t reg_end = now_ns();
    printf("register observers=%d registered=%ld refused=%ld unanswered=%ld seconds=%.3f\n", nobs, registered, refused, gave_up,
           (double) (reg_end - t0) / 1e9);
    fflush(stdout);
    if (registered == 0) {
        fprintf(stderr, "coap-observe: no observation was registered\n");
        return 3;
    }
    int64_t newest = -1;
    for (int i = 0; i < nobs; i++) {
        if (obs[i].state == REGISTERED && obs[i].last_seq > newest) newest = obs[i].last_seq;
    }
    first_seq = newest + 1 + warmup_rounds; /* the changes before it warm the server up, unmeasured */
    for (int r = 0; r < nrounds; r++) rounds[r].seq = first_seq + r;

    /* rounds: run until every round closed (complete, or its timeout passed) */
    double server_cpu0 = process_cpu_s(watch_pid), self_cpu0 = self_cpu_s();
    uint64_t window_start = now_ns(), give_up = window_start + (uint64_t) ((nrounds + 1) * (timeout + 60) * 1e9);
    for (;;) {
        uint64_t now = now_ns();
        int open = 0;
        for (int r = 0; r < nrounds; r++) {
            round_t *x = &rounds[r];
            if (!x->closed && x->change_ns != 0 && now > x->change_ns + (uint64_t) (timeout * 1e9)) x->closed = 1;
            open += !x->closed;
        }
        if (open == 0 || now > give_up) break;
        poll_once(1000000);
    }
    uint64_t window_end = now_ns();
    double server_cpu1 = process_cpu_s(watch_pid), self_cpu1 = self_cpu_s();

    uint64_t spans[MAX_ROUNDS];
    int complete = 0;
    double rate_sum = 0;
    for (int r = 0; r < nrounds; r++) {
        round_t *x = &rounds[r];
        uint64_t to_last = x->last_ns > x->change_ns ? x->last_ns - x->change_ns : 0;
        uint64_t to_first = x->first_ns > x->change_ns ? x->first_ns - x->change_ns : 0;
        double rate = to_last > 0 ? x->delivered / (to_last / 1e9) : 0;
        printf("round seq=%lld complete=%d change_to_first_ms=%.3f change_to_last_ms=%.3f delivered=%ld"
               " superseded=%ld missing=%ld notifications_per_s=%.0f\n",
               (long long) x->seq, x->complete, to_first / 1e6, to_last / 1e6, x->delivered,
               x->done - x->delivered, registered - x->done, rate);
        if (x->complete) {
            spans[complete++] = to_last;
            rate_sum += rate;
        }
    }
    qsort(spans, (size_t) complete, sizeof spans[0], cmp_u64);
    long silent = 0; /* registered, but no value of any measured round */
    for (int i = 0; i < nobs; i++) {
        if (obs[i].state == REGISTERED && obs[i].last_seq < first_seq) silent++;
    }
    double secs = (double) (window_end - window_start) / 1e9;
    double scpu = server_cpu0 < 0 || server_cpu1 < 0 ? -1.0 : server_cpu1 - server_cpu0;
    printf("result observers=%d registered=%ld refused=%ld rounds=%d complete_rounds=%d"
           " median_change_to_last_ms=%.3f max_change_to_last_ms=%.3f min_change_to_last_ms=%.3f"
           " mean_notifications_per_s=%.0f notifications=%ld con=%ld non=%ld stale=%ld without_observe=%ld"
           " errors=%ld stray=%ld window_s=%.3f window_notifications=%ld server_cpu_s=%.3f"
           " server_cpu_us_per_notification=%.2f generator_cpu_s=%.3f silent=%ld pings=%ld\n",
           nobs, registered, refused, nrounds, complete, complete ? spans[complete / 2] / 1e6 : -1.0,
           complete ? spans[complete - 1] / 1e6 : -1.0, complete ? spans[0] / 1e6 : -1.0,
           complete ? rate_sum / complete : 0.0, notifications, con_notes, non_notes, stale, no_observe, errors,
           stray, secs, window_notes, scpu, scpu >= 0 && window_notes > 0 ? scpu * 1e6 / window_notes : -1.0,
           self_cpu1 - self_cpu0, silent, pings);
    return 0;
}
