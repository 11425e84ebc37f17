/*
 * coap-tcp-load: a neutral closed-loop load generator for CoAP over TCP (RFC 8323), and the
 * trivial answering server that measures the generator's own ceiling. Benchmark-only; built on
 * demand by `stagecoach bench` (gcc -O2), never linked into Stagecoach.
 *
 *   coap-tcp-load load --port P [--host 127.0.0.1] [--path benchmark] --connections N
 *                      [--warmup S] [--duration S] [--timeout S]
 *   coap-tcp-load echo --port P [--host 127.0.0.1]
 *
 * load: N non-blocking connections on one thread and one epoll set (edge-triggered: a ready
 * connection is read until a short read and reported again only when more arrives). Each connection sends its
 * CSM (7.01, no options; RFC 8323 5.3.1) and then one GET at a time (4-byte token, the
 * connection's request counter), the next as soon as the answer arrives. A Ping is answered
 * with a Pong (5.4); other signals are skipped; Release or Abort or a close ends that
 * connection (counted as "closed"). Round-trip times of 2.xx answers received in the measured
 * window go into a log-linear histogram (1 us resolution below 2048 us, 1/1024 relative above);
 * a request unanswered for --timeout counts as a timeout and the connection sends the next one.
 * The first requests are spread over min(warmup / 2, 1 s).
 *
 * Output (stdout): "key value" lines (completed, timeouts, errors, closed, duration_s, rps,
 * p50_us, p99_us, max_us), then "H value_us count" for every non-empty histogram bucket.
 *
 * echo: accepts connections, sends a CSM on each, answers every request frame with 2.05
 * "hello world" carrying the request's token, skips signals. The answers of one read are
 * written with one send; edge-triggered as load. It runs until killed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RX_CAP 4096
#define MAX_EVENTS 1024
#define SUB_BITS 10
#define SUB (1 << SUB_BITS)          /* 1024 sub-buckets per power of two above 2 * SUB us */
#define EXPONENTS 24                  /* up to 2^(SUB_BITS + EXPONENTS) us, about 4.8 hours */
#define BUCKETS (2 * SUB + EXPONENTS * SUB)

static uint64_t hist[BUCKETS];

static int bucket_of(uint64_t v) {
    if (v < 2 * SUB) return (int) v;
    int e = 63 - __builtin_clzll(v) - SUB_BITS; /* v >> e is in [SUB, 2 * SUB) */
    if (e > EXPONENTS) return BUCKETS - 1;
    return 2 * SUB + (e - 1) * SUB + (int) ((v >> e) - SUB);
}

/* The highest value of a bucket, so that percentiles are never understated. */
static uint64_t value_of(int b) {
    if (b < 2 * SUB) return (uint64_t) b;
    int e = (b - 2 * SUB) / SUB + 1;
    uint64_t m = (uint64_t) ((b - 2 * SUB) % SUB + SUB);
    return ((m + 1) << e) - 1;
}

static uint64_t percentile(double p, uint64_t total) {
    if (total == 0) return 0;
    uint64_t want = (uint64_t) (p / 100.0 * (double) total + 0.5);
    if (want < 1) want = 1;
    uint64_t seen = 0;
    for (int b = 0; b < BUCKETS; b++) {
        seen += hist[b];
        if (seen >= want) return value_of(b);
    }
    return value_of(BUCKETS - 1);
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t) t.tv_sec * 1000000000ull + (uint64_t) t.tv_nsec;
}

static void die(const char *what) {
    perror(what);
    exit(2);
}

static const char *opt(int argc, char **argv, const char *name, const char *dflt) {
    for (int i = 2; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0) return argv[i + 1];
    return dflt;
}

/* Length of the frame starting at p, or 0 when its header is not complete (RFC 8323 3.3). */
static size_t frame_length(const uint8_t *p, size_t n, size_t *header) {
    if (n < 2) return 0;
    unsigned len = p[0] >> 4, tkl = p[0] & 0x0F;
    size_t ext = len == 13 ? 1 : len == 14 ? 2 : len == 15 ? 4 : 0;
    if (n < 1 + ext + 1) return 0;
    size_t body = len;
    if (len == 13) body = 13 + (size_t) p[1];
    else if (len == 14) body = 269 + ((size_t) p[1] << 8 | p[2]);
    else if (len == 15) body = 65805 + ((size_t) p[1] << 24 | (size_t) p[2] << 16 | (size_t) p[3] << 8 | p[4]);
    *header = 1 + ext + 1 + tkl;
    return *header + body;
}

static int set_nodelay_nonblock(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* ------------------------------------------------------------------------------ load */

/*
 * A connection's state is kept small (one cache line): what arrives is read into one shared
 * buffer, and only the rare incomplete frame left at the end of a read is kept per connection,
 * in a buffer allocated on first need. With the receive buffer inline (4 KiB a connection) the
 * 1000 connections' states spread over 4 MiB, a page each, and the generator's own cache and
 * TLB misses grew with the connection count.
 */
typedef struct {
    int fd;
    uint8_t state;      /* 0 connecting, 1 open, 2 closed */
    uint8_t awaiting;
    uint16_t rx_len;    /* bytes of an incomplete frame kept in rx */
    uint32_t token;
    uint32_t skip;      /* bytes of an oversize frame still to discard */
    uint64_t sent_ns;
    uint8_t *rx;        /* RX_CAP bytes, allocated when first needed */
} conn_t;

static uint8_t rxbuf[RX_CAP];

static uint8_t request[64];
static size_t request_len;
static size_t token_at;
static const uint8_t CSM[] = {0x00, 0xE1};

enum { WARMUP, MEASURE, DONE };
static int phase = WARMUP;
static uint64_t completed, timeouts, errors, closed_conns, stray;

static int send_all(int fd, const uint8_t *b, size_t n) {
    while (n > 0) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1; /* EAGAIN with a few bytes in flight does not happen at one request per RTT */
        }
        b += w;
        n -= (size_t) w;
    }
    return 0;
}

static void send_request(conn_t *c, uint64_t now, int with_csm) {
    uint8_t out[80];
    size_t n = 0;
    if (with_csm) {
        memcpy(out, CSM, sizeof CSM);
        n = sizeof CSM;
    }
    c->token++;
    memcpy(out + n, request, request_len);
    out[n + token_at] = (uint8_t) (c->token >> 24);
    out[n + token_at + 1] = (uint8_t) (c->token >> 16);
    out[n + token_at + 2] = (uint8_t) (c->token >> 8);
    out[n + token_at + 3] = (uint8_t) c->token;
    n += request_len;
    c->awaiting = 1;
    c->sent_ns = now;
    if (send_all(c->fd, out, n) < 0) {
        c->awaiting = 0;
        c->state = 2;
        closed_conns++;
        close(c->fd);
    }
}

static void close_conn(conn_t *c) {
    if (c->state == 2) return;
    c->state = 2;
    closed_conns++;
    close(c->fd);
}

/* One whole frame (or the first RX_CAP bytes of an oversize one) from c. */
static void on_frame(conn_t *c, const uint8_t *p, size_t header, uint64_t now) {
    unsigned tkl = p[0] & 0x0F;
    uint8_t code = p[header - tkl - 1];
    const uint8_t *token = p + header - tkl;
    if ((code >> 5) == 7) {
        if (code == 0xE2) { /* Ping: Pong with the same token, no Custody (RFC 8323 5.4) */
            uint8_t pong[10] = {(uint8_t) tkl, 0xE3};
            memcpy(pong + 2, token, tkl);
            send_all(c->fd, pong, 2 + tkl);
        } else if (code == 0xE4 || code == 0xE5) { /* Release, Abort */
            close_conn(c);
        }
        return;
    }
    if (code == 0 || (code >> 5) == 0) { stray++; return; }
    uint32_t t = tkl == 4 ? (uint32_t) token[0] << 24 | (uint32_t) token[1] << 16 | (uint32_t) token[2] << 8 | token[3] : 0;
    if (!c->awaiting || tkl != 4 || t != c->token) { stray++; return; }
    c->awaiting = 0;
    if (phase == MEASURE) {
        if ((code >> 5) == 2) {
            uint64_t us = (now - c->sent_ns) / 1000;
            hist[bucket_of(us < 1 ? 1 : us)]++;
            completed++;
        } else {
            errors++;
        }
    }
    if (phase != DONE) send_request(c, now, 0);
}

/*
 * Reads until a short read: the connection is edge-triggered (EPOLLET), so the kernel reports it
 * again only when more data arrives, and a ready connection is looked at once per epoll_wait
 * (level-triggered, epoll would poll every connection it reported again on the next wait).
 */
static void on_readable(conn_t *c, uint64_t now) {
    for (;;) {
        size_t kept = c->rx_len;
        if (kept > 0) memcpy(rxbuf, c->rx, kept);
        ssize_t r = recv(c->fd, rxbuf + kept, RX_CAP - kept, 0);
        if (r == 0) { close_conn(c); return; }
        if (r < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            if (errno == EINTR) continue;
            close_conn(c);
            return;
        }
        size_t n = kept + (size_t) r, at = 0;
        if (c->skip > 0) {
            size_t s = c->skip < n ? c->skip : n;
            c->skip -= (uint32_t) s;
            at = s;
        }
        while (at < n) {
            size_t header;
            size_t len = frame_length(rxbuf + at, n - at, &header);
            if (len == 0 || (len > n - at && len <= RX_CAP)) break; /* wait for more */
            if (len > n - at) {                                   /* oversize: header now, skip the rest */
                if (header > n - at) break;
                on_frame(c, rxbuf + at, header, now);
                c->skip = (uint32_t) (len - (n - at));
                at = n;
                break;
            }
            on_frame(c, rxbuf + at, header, now);
            if (c->state == 2) return;
            at += len;
        }
        c->rx_len = (uint16_t) (n - at);
        if (c->rx_len > 0) {
            if (c->rx == NULL && (c->rx = malloc(RX_CAP)) == NULL) die("malloc");
            memcpy(c->rx, rxbuf + at, c->rx_len);
        }
        if ((size_t) r < RX_CAP - kept) return; /* short read: drained */
    }
}

static int load(int argc, char **argv) {
    const char *host = opt(argc, argv, "--host", "127.0.0.1");
    int port = atoi(opt(argc, argv, "--port", "5683"));
    const char *path = opt(argc, argv, "--path", "benchmark");
    int n = atoi(opt(argc, argv, "--connections", "100"));
    double warmup = atof(opt(argc, argv, "--warmup", "5"));
    double duration = atof(opt(argc, argv, "--duration", "20"));
    double timeout = atof(opt(argc, argv, "--timeout", "10"));
    size_t plen = strlen(path);
    if (n < 1 || plen > 12 || duration <= 0) {
        fprintf(stderr, "need --connections >= 1, a path segment of at most 12 bytes, --duration > 0\n");
        return 2;
    }
    /* GET, Len = options (one Uri-Path, delta 11), TKL 4; no extended length below 13 bytes */
    size_t opts = plen > 0 ? 1 + plen : 0;
    request[0] = (uint8_t) (opts << 4 | 4);
    request[1] = 0x01;
    token_at = 2;
    request_len = 6;
    if (plen > 0) {
        request[request_len++] = (uint8_t) (11 << 4 | plen);
        memcpy(request + request_len, path, plen);
        request_len += plen;
    }
    signal(SIGPIPE, SIG_IGN);

    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t) port)};
    if (inet_pton(AF_INET, host, &to.sin_addr) != 1) { fprintf(stderr, "bad IPv4 address %s\n", host); return 2; }
    int ep = epoll_create1(0);
    if (ep < 0) die("epoll_create1");
    conn_t *conns = calloc((size_t) n, sizeof(conn_t));
    if (!conns) die("calloc");

    uint64_t begin = now_ns();
    uint64_t ramp = (uint64_t) (warmup / 2 * 1e9);
    if (ramp > 1000000000ull) ramp = 1000000000ull;
    uint64_t measure_at = begin + (uint64_t) (warmup * 1e9);
    uint64_t end_at = measure_at + (uint64_t) (duration * 1e9);
    uint64_t timeout_ns = (uint64_t) (timeout * 1e9);
    uint64_t measure_begin = 0, measure_end = 0, next_scan = begin + 10000000ull;
    int started = 0;
    struct epoll_event events[MAX_EVENTS];

    while (phase != DONE) {
        uint64_t now = now_ns();
        uint64_t due = ramp == 0 ? (uint64_t) n : (now - begin) * (uint64_t) n / ramp + 1;
        for (; started < n && (uint64_t) started < due; started++) {
            conn_t *c = &conns[started];
            c->fd = socket(AF_INET, SOCK_STREAM, 0);
            if (c->fd < 0) die("socket (raise ulimit -n)");
            set_nodelay_nonblock(c->fd);
            if (connect(c->fd, (struct sockaddr *) &to, sizeof to) < 0 && errno != EINPROGRESS) die("connect");
            struct epoll_event e = {.events = EPOLLOUT, .data.ptr = c};
            if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &e) < 0) die("epoll_ctl");
        }
        int k = epoll_wait(ep, events, MAX_EVENTS, started < n ? 1 : 5);
        if (k < 0 && errno != EINTR) die("epoll_wait");
        now = now_ns();
        for (int i = 0; i < k; i++) {
            conn_t *c = events[i].data.ptr;
            if (c->state == 2) continue;
            if (c->state == 0) {
                int err = 0;
                socklen_t el = sizeof err;
                getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &el);
                if (err != 0) { close_conn(c); continue; }
                c->state = 1;
                struct epoll_event e = {.events = EPOLLIN | EPOLLET, .data.ptr = c};
                epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &e);
                send_request(c, now, 1);
                continue;
            }
            if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) on_readable(c, now);
        }
        if (phase == WARMUP && now >= measure_at) {
            phase = MEASURE;
            measure_begin = now;
        } else if (phase == MEASURE && now >= end_at) {
            phase = DONE;
            measure_end = now;
        }
        if (now >= next_scan) {
            next_scan = now + 10000000ull;
            for (int i = 0; i < started; i++) {
                conn_t *c = &conns[i];
                if (c->state == 1 && c->awaiting && now - c->sent_ns >= timeout_ns) {
                    if (phase == MEASURE) timeouts++;
                    send_request(c, now, 0);
                }
            }
        }
    }
    for (int i = 0; i < started; i++)
        if (conns[i].state != 2) close(conns[i].fd);
    double secs = (double) (measure_end - measure_begin) / 1e9;
    uint64_t max = 0;
    for (int b = BUCKETS - 1; b >= 0; b--) if (hist[b]) { max = value_of(b); break; }
    printf("connections %d\ncompleted %llu\ntimeouts %llu\nerrors %llu\nclosed %llu\nstray %llu\n", n,
           (unsigned long long) completed, (unsigned long long) timeouts, (unsigned long long) errors,
           (unsigned long long) closed_conns, (unsigned long long) stray);
    printf("duration_s %.3f\nrps %.0f\np50_us %llu\np99_us %llu\nmax_us %llu\n", secs, completed / secs,
           (unsigned long long) percentile(50, completed), (unsigned long long) percentile(99, completed),
           (unsigned long long) max);
    for (int b = 0; b < BUCKETS; b++)
        if (hist[b]) printf("H %llu %llu\n", (unsigned long long) value_of(b), (unsigned long long) hist[b]);
    return 0;
}

/* ------------------------------------------------------------------------------ echo */

/* As in load: small per-connection state, one shared read buffer, edge-triggered. */
typedef struct {
    int fd;
    uint16_t rx_len;
    uint8_t *rx;        /* RX_CAP bytes, allocated when first needed */
} peer_t;

static void drop(peer_t *p) {
    close(p->fd);
    free(p->rx);
    free(p);
}

/* Answers every request frame of what p has to read; 0 when p was closed. */
static int serve(peer_t *p) {
    static const uint8_t body[] = {0xC0, 0xFF, 'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'};
    static uint8_t out[65536];
    for (;;) {
        size_t kept = p->rx_len;
        if (kept > 0) memcpy(rxbuf, p->rx, kept);
        ssize_t r = recv(p->fd, rxbuf + kept, RX_CAP - kept, 0);
        if (r <= 0) {
            if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 1;
            if (r < 0 && errno == EINTR) continue;
            drop(p);
            return 0;
        }
        size_t n = kept + (size_t) r, pos = 0, o = 0;
        for (;;) {
            size_t header, len = frame_length(rxbuf + pos, n - pos, &header);
            if (len == 0 || len > n - pos) break;
            unsigned tkl = rxbuf[pos] & 0x0F;
            uint8_t code = rxbuf[pos + header - tkl - 1];
            if ((code >> 5) == 0 && code != 0 && o + 3 + tkl + sizeof body <= sizeof out) {
                out[o++] = (uint8_t) (13 << 4 | tkl); /* Len 13 + 0: Content-Format 0, payload */
                out[o++] = 0;
                out[o++] = 0x45;                      /* 2.05 */
                memcpy(out + o, rxbuf + pos + header - tkl, tkl);
                o += tkl;
                memcpy(out + o, body, sizeof body);
                o += sizeof body;
            }
            pos += len;
        }
        if (n - pos == RX_CAP) { drop(p); return 0; } /* a frame larger than we read */
        p->rx_len = (uint16_t) (n - pos);
        if (p->rx_len > 0) {
            if (p->rx == NULL && (p->rx = malloc(RX_CAP)) == NULL) die("malloc");
            memcpy(p->rx, rxbuf + pos, p->rx_len);
        }
        if (o > 0) send_all(p->fd, out, o);
        if ((size_t) r < RX_CAP - kept) return 1; /* short read: drained */
    }
}

static _Noreturn void echo(int argc, char **argv) {
    const char *host = opt(argc, argv, "--host", "127.0.0.1");
    int port = atoi(opt(argc, argv, "--port", "5683"));
    signal(SIGPIPE, SIG_IGN);
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in at = {.sin_family = AF_INET, .sin_port = htons((uint16_t) port)};
    inet_pton(AF_INET, host, &at.sin_addr);
    if (bind(ls, (struct sockaddr *) &at, sizeof at) < 0) die("bind");
    if (listen(ls, 4096) < 0) die("listen");
    fcntl(ls, F_SETFL, O_NONBLOCK);
    int ep = epoll_create1(0);
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(ep, EPOLL_CTL_ADD, ls, &e);
    fprintf(stderr, "coap-tcp-load echo listening on coap+tcp://%s:%d\n", host, port);
    struct epoll_event events[MAX_EVENTS];
    for (;;) {
        int k = epoll_wait(ep, events, MAX_EVENTS, -1);
        for (int i = 0; i < k; i++) {
            peer_t *p = events[i].data.ptr;
            if (p == NULL) {
                int fd;
                while ((fd = accept(ls, NULL, NULL)) >= 0) {
                    set_nodelay_nonblock(fd);
                    peer_t *np = calloc(1, sizeof(peer_t));
                    if (np == NULL) die("calloc");
                    np->fd = fd;
                    struct epoll_event pe = {.events = EPOLLIN | EPOLLET, .data.ptr = np};
                    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &pe);
                    send_all(fd, CSM, sizeof CSM);
                }
                continue;
            }
            serve(p);
        }
    }
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "load") == 0) return load(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "echo") == 0) echo(argc, argv);
    fprintf(stderr, "usage: coap-tcp-load load --port P [--host A] [--path SEG] --connections N"
                    " [--warmup S] [--duration S] [--timeout S]\n"
                    "       coap-tcp-load echo --port P [--host A]\n");
    return 2;
}
