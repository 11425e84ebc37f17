/*
 * coap-tcp-load: a neutral closed-loop load generator for CoAP over TCP (RFC 8323), and the
 * trivial answering server that measures the generator's own ceiling. Benchmark-only; built on
 * demand by `stagecoach bench` (gcc -O2), never linked into Stagecoach.
 *
 *   coap-tcp-load load --port P [--host 127.0.0.1] [--path benchmark] --connections N
 *                      [--warmup S] [--duration S] [--timeout S] [--io epoll|uring]
 *   coap-tcp-load echo --port P [--host 127.0.0.1] [--io epoll|uring]   (P 0: any; the line on stderr says which)
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
 *
 * --io uring (both modes; epoll is the default): the same work through one io_uring instead of
 * one system call per receive and per send. Each connection has one multishot receive armed
 * (its data lands in buffers of a registered buffer ring), sends are ring entries, and all that
 * one pass over the completions queued is submitted by the one io_uring_enter that also waits
 * for the next completions (single issuer, deferred task work: the receives run in this thread
 * when it enters). Raw system calls and the kernel's <linux/io_uring.h>; no liburing. Where the
 * kernel (or its headers at build time) lacks what this needs (Linux 6.0: multishot receive,
 * buffer rings), the program prints "io_uring unavailable: ..." on stderr and exits with 3.
 *
 * This file is over 500 lines because the two modes share the frame handling and the histogram;
 * the io_uring part is the section so named.
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
#include <sys/syscall.h>
#if defined(__has_include)
#if __has_include(<linux/io_uring.h>)
#include <linux/io_uring.h>
#endif
#endif
#if defined(IORING_RECV_MULTISHOT) && defined(__NR_io_uring_setup) /* Linux 6.0 headers */
#define HAVE_URING 1
#include <sys/mman.h>
#endif

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

static int set_nodelay(int fd) {
    int one = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static int set_nodelay_nonblock(int fd) {
    set_nodelay(fd);
    return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* --io: 0 epoll, 1 io_uring */
static int io_mode(int argc, char **argv) {
    const char *io = opt(argc, argv, "--io", "epoll");
    if (strcmp(io, "epoll") == 0) return 0;
    if (strcmp(io, "uring") == 0 || strcmp(io, "io_uring") == 0) return 1;
    fprintf(stderr, "--io must be epoll or uring, got '%s'\n", io);
    exit(2);
}

static _Noreturn void uring_unavailable(const char *what, int err) {
    fprintf(stderr, "io_uring unavailable: %s: %s\n", what, strerror(err));
    exit(3);
}

/* ------------------------------------------------------------------------------ io_uring */

#ifdef HAVE_URING
#ifndef IORING_SETUP_SUBMIT_ALL
#define IORING_SETUP_SUBMIT_ALL (1U << 7)
#endif
#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER (1U << 12)
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN (1U << 13)
#endif

#define BUF_SIZE 512 /* a provided receive buffer: many answers; a longer read continues in the next */

/* Low two bits of a completion's user_data: what it completes (the rest names the connection). */
enum { OP_ACCEPT = 0, OP_CONNECT = 1, OP_RECV = 2, OP_SEND = 3 };

static struct {
    int fd;
    unsigned *sq_head, *sq_tail, sq_mask, sq_entries, tail;
    unsigned *cq_head, *cq_tail, cq_mask;
    struct io_uring_sqe *sqes;
    struct io_uring_cqe *cqes;
    struct io_uring_buf_ring *br;   /* receive buffers the kernel picks from (group 0) */
    uint8_t *bufs;
    unsigned buf_mask, buf_tail;
} R;

static void *ring_map(size_t len, off_t what) {
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, R.fd, what);
    if (p == MAP_FAILED) uring_unavailable("mmap", errno);
    return p;
}

/*
 * One ring of sq_entries submissions (a completion queue 4x that) and nbufs receive buffers of
 * BUF_SIZE bytes. Single issuer with deferred task work where the kernel has them (6.1): the
 * work a completion needs (a receive's copy) runs when this thread enters, not as an interrupt
 * of whatever it is doing.
 */
static void ring_init(unsigned sq_entries, unsigned nbufs) {
    struct io_uring_params p;
    unsigned flags[] = {IORING_SETUP_CQSIZE | IORING_SETUP_SUBMIT_ALL | IORING_SETUP_SINGLE_ISSUER
                                | IORING_SETUP_DEFER_TASKRUN,
                        IORING_SETUP_CQSIZE};
    R.fd = -1;
    for (int i = 0; i < 2 && R.fd < 0; i++) {
        memset(&p, 0, sizeof p);
        p.flags = flags[i];
        p.cq_entries = 4 * sq_entries;
        R.fd = (int) syscall(__NR_io_uring_setup, sq_entries, &p);
        if (R.fd < 0 && errno != EINVAL) break;
    }
    if (R.fd < 0) uring_unavailable("io_uring_setup", errno);
    if (!(p.features & IORING_FEAT_EXT_ARG)) uring_unavailable("no IORING_FEAT_EXT_ARG (Linux 5.11)", ENOSYS);
    size_t sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
    size_t cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
    if (p.features & IORING_FEAT_SINGLE_MMAP) sq_len = cq_len = sq_len > cq_len ? sq_len : cq_len;
    uint8_t *sq = ring_map(sq_len, IORING_OFF_SQ_RING);
    uint8_t *cq = (p.features & IORING_FEAT_SINGLE_MMAP) ? sq : ring_map(cq_len, IORING_OFF_CQ_RING);
    R.sqes = ring_map(p.sq_entries * sizeof(struct io_uring_sqe), IORING_OFF_SQES);
    R.sq_head = (unsigned *) (sq + p.sq_off.head);
    R.sq_tail = (unsigned *) (sq + p.sq_off.tail);
    R.sq_mask = *(unsigned *) (sq + p.sq_off.ring_mask);
    R.sq_entries = p.sq_entries;
    unsigned *array = (unsigned *) (sq + p.sq_off.array);
    for (unsigned i = 0; i < p.sq_entries; i++) array[i] = i; /* entry i is always slot i */
    R.tail = *R.sq_tail;
    R.cq_head = (unsigned *) (cq + p.cq_off.head);
    R.cq_tail = (unsigned *) (cq + p.cq_off.tail);
    R.cq_mask = *(unsigned *) (cq + p.cq_off.ring_mask);
    R.cqes = (struct io_uring_cqe *) (cq + p.cq_off.cqes);

    R.br = mmap(NULL, nbufs * sizeof(struct io_uring_buf), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    R.bufs = mmap(NULL, (size_t) nbufs * BUF_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (R.br == MAP_FAILED || R.bufs == MAP_FAILED) die("mmap");
    struct io_uring_buf_reg reg;
    memset(&reg, 0, sizeof reg);
    reg.ring_addr = (uint64_t) (uintptr_t) R.br;
    reg.ring_entries = nbufs;
    reg.bgid = 0;
    if (syscall(__NR_io_uring_register, R.fd, IORING_REGISTER_PBUF_RING, &reg, 1) < 0)
        uring_unavailable("IORING_REGISTER_PBUF_RING (Linux 5.19)", errno);
    R.buf_mask = nbufs - 1;
    R.buf_tail = 0;
    for (unsigned b = 0; b < nbufs; b++) {
        struct io_uring_buf *e = &R.br->bufs[R.buf_tail++ & R.buf_mask];
        e->addr = (uint64_t) (uintptr_t) (R.bufs + (size_t) b * BUF_SIZE);
        e->len = BUF_SIZE;
        e->bid = (uint16_t) b;
    }
    __atomic_store_n(&R.br->tail, (uint16_t) R.buf_tail, __ATOMIC_RELEASE);
}

/* Gives buffer bid back to the kernel (published with the next ring_enter). */
static void buf_return(unsigned bid) {
    struct io_uring_buf *e = &R.br->bufs[R.buf_tail++ & R.buf_mask];
    e->addr = (uint64_t) (uintptr_t) (R.bufs + (size_t) bid * BUF_SIZE);
    e->len = BUF_SIZE;
    e->bid = (uint16_t) bid;
}

/*
 * Submits what is queued and, with wait_ns > 0, waits up to wait_ns for at least one completion
 * (deferred task work runs here). Returns without error on a timeout or a signal.
 */
static void ring_enter(uint64_t wait_ns) {
    __atomic_store_n(R.sq_tail, R.tail, __ATOMIC_RELEASE);
    __atomic_store_n(&R.br->tail, (uint16_t) R.buf_tail, __ATOMIC_RELEASE);
    unsigned submit = R.tail - __atomic_load_n(R.sq_head, __ATOMIC_ACQUIRE);
    struct __kernel_timespec ts = {.tv_sec = (long long) (wait_ns / 1000000000ull),
                                   .tv_nsec = (long long) (wait_ns % 1000000000ull)};
    struct io_uring_getevents_arg arg = {.sigmask = 0, .sigmask_sz = _NSIG / 8, .ts = (uint64_t) (uintptr_t) &ts};
    unsigned flags = wait_ns > 0 ? IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG : 0;
    if (submit == 0 && wait_ns == 0) return;
    long r = syscall(__NR_io_uring_enter, R.fd, submit, wait_ns > 0 ? 1 : 0, flags,
                     wait_ns > 0 ? &arg : NULL, wait_ns > 0 ? sizeof arg : 0);
    if (r < 0 && errno != ETIME && errno != EINTR && errno != EBUSY && errno != EAGAIN) die("io_uring_enter");
}

/* A zeroed submission entry; when the queue is full, what is in it is submitted first. */
static struct io_uring_sqe *sqe_get(void) {
    if (R.tail - __atomic_load_n(R.sq_head, __ATOMIC_ACQUIRE) >= R.sq_entries) ring_enter(0);
    struct io_uring_sqe *s = &R.sqes[R.tail++ & R.sq_mask];
    memset(s, 0, sizeof *s);
    return s;
}

/* A multishot receive on fd into the ring's buffers: completions until it ends (no CQE_F_MORE). */
static void sqe_recv(int fd, uint64_t ud) {
    struct io_uring_sqe *s = sqe_get();
    s->opcode = IORING_OP_RECV;
    s->fd = fd;
    s->ioprio = IORING_RECV_MULTISHOT;
    s->flags = IOSQE_BUFFER_SELECT;
    s->buf_group = 0;
    s->user_data = ud;
}

/* b must stay unchanged until the send's completion. */
static void sqe_send(int fd, const void *b, size_t n, uint64_t ud) {
    struct io_uring_sqe *s = sqe_get();
    s->opcode = IORING_OP_SEND;
    s->fd = fd;
    s->addr = (uint64_t) (uintptr_t) b;
    s->len = (uint32_t) n;
    s->msg_flags = MSG_NOSIGNAL;
    s->user_data = ud;
}

/* Calls f for every completion there is; f may queue submissions. */
static void ring_reap(void (*f)(const struct io_uring_cqe *, uint64_t), uint64_t now) {
    unsigned head = *R.cq_head;
    for (;;) {
        unsigned tail = __atomic_load_n(R.cq_tail, __ATOMIC_ACQUIRE);
        if (head == tail) break;
        while (head != tail) {
            struct io_uring_cqe cqe = R.cqes[head & R.cq_mask];
            head++;
            __atomic_store_n(R.cq_head, head, __ATOMIC_RELEASE);
            f(&cqe, now);
        }
    }
}

/* The received bytes of a completion, or NULL (none, or no buffer). */
static const uint8_t *cqe_data(const struct io_uring_cqe *cqe, unsigned *bid) {
    if (!(cqe->flags & IORING_CQE_F_BUFFER)) return NULL;
    *bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
    return R.bufs + (size_t) *bid * BUF_SIZE;
}
#endif

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
    /* io_uring only: the request being sent (its CSM first on a new connection), kept until the
       send completes */
    uint8_t tx_len, tx_off, tx_busy;
    uint8_t tx[24];
} conn_t;

static uint8_t rxbuf[RX_CAP];
static int use_uring;
static conn_t *conns;

static uint8_t request[64];
static size_t request_len;
static size_t token_at;
static const uint8_t CSM[] = {0x00, 0xE1};

enum { WARMUP, MEASURE, DONE };
static int phase = WARMUP;
static uint64_t completed, timeouts, errors, closed_conns, stray;

static int send_all(int fd, const uint8_t *b, size_t n) {
    while (n > 0) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL | MSG_DONTWAIT);
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
#ifdef HAVE_URING
    /* The ring sends from c->tx; while an earlier send is still in flight (not at one request
       per round trip with frames this small) the request goes out at once instead. */
    if (use_uring && !c->tx_busy) {
        memcpy(c->tx, out, n);
        c->tx_len = (uint8_t) n;
        c->tx_off = 0;
        c->tx_busy = 1;
        sqe_send(c->fd, c->tx, n, (uint64_t) (c - conns) << 2 | OP_SEND);
        return;
    }
#endif
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
    /* A receive armed in the ring holds the socket: shutdown ends it and tells the peer */
    if (use_uring) shutdown(c->fd, SHUT_RDWR);
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

/* The n bytes at rxbuf (what c kept from its last read first): whole frames to on_frame, an
   incomplete one kept in c->rx, the rest of an oversize frame skipped. */
static void take(conn_t *c, size_t n, uint64_t now) {
    size_t at = 0;
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
        take(c, kept + (size_t) r, now);
        if (c->state == 2) return;
        if ((size_t) r < RX_CAP - kept) return; /* short read: drained */
    }
}

/* The run's schedule and target, shared by the epoll and the io_uring loop. */
static struct sockaddr_in to;
static int nconns, started;
static uint64_t begin, ramp, measure_at, end_at, timeout_ns, measure_begin, measure_end, next_scan;

/* Connections due by now (spread over the ramp); the loop's own after_batch steps the phases. */
static int due(uint64_t now) {
    uint64_t d = ramp == 0 ? (uint64_t) nconns : (now - begin) * (uint64_t) nconns / ramp + 1;
    return d > (uint64_t) nconns ? nconns : (int) d;
}

static int open_socket(int nonblocking) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) die("socket (raise ulimit -n)");
    if (nonblocking) set_nodelay_nonblock(fd);
    else set_nodelay(fd);
    return fd;
}

/* The measured window's phases, and every 10 ms the requests unanswered for --timeout. */
static void after_batch(uint64_t now) {
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
            if (c->state == 1 && c->awaiting && !c->tx_busy && now - c->sent_ns >= timeout_ns) {
                if (phase == MEASURE) timeouts++;
                send_request(c, now, 0);
            }
        }
    }
}

static void run_epoll(void) {
    int ep = epoll_create1(0);
    if (ep < 0) die("epoll_create1");
    struct epoll_event events[MAX_EVENTS];
    while (phase != DONE) {
        uint64_t now = now_ns();
        for (int d = due(now); started < d; started++) {
            conn_t *c = &conns[started];
            c->fd = open_socket(1);
            if (connect(c->fd, (struct sockaddr *) &to, sizeof to) < 0 && errno != EINPROGRESS) die("connect");
            struct epoll_event e = {.events = EPOLLOUT, .data.ptr = c};
            if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &e) < 0) die("epoll_ctl");
        }
        int k = epoll_wait(ep, events, MAX_EVENTS, started < nconns ? 1 : 5);
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
        after_batch(now);
    }
}

#ifdef HAVE_URING
/* One completion of the load ring: a connect, a receive (data, or the end of the multishot) or a send. */
static void load_cqe(const struct io_uring_cqe *cqe, uint64_t now) {
    conn_t *c = &conns[cqe->user_data >> 2];
    int res = cqe->res;
    switch (cqe->user_data & 3) {
    case OP_CONNECT:
        if (c->state == 2) return;
        if (res < 0) { close_conn(c); return; }
        c->state = 1;
        sqe_recv(c->fd, (uint64_t) (c - conns) << 2 | OP_RECV);
        send_request(c, now, 1);
        return;
    case OP_SEND:
        c->tx_busy = 0;
        if (c->state == 2) return;
        if (res < 0) { c->awaiting = 0; close_conn(c); return; }
        c->tx_off = (uint8_t) (c->tx_off + res);
        if (c->tx_off < c->tx_len) { /* a short send: the rest */
            c->tx_busy = 1;
            sqe_send(c->fd, c->tx + c->tx_off, (size_t) (c->tx_len - c->tx_off), cqe->user_data);
        }
        return;
    case OP_RECV: {
        unsigned bid;
        const uint8_t *d = cqe_data(cqe, &bid);
        if (d != NULL) {
            if (c->state == 1 && res > 0) {
                size_t r = (size_t) res;
                while (r > 0 && c->state == 1) { /* in pieces of what rxbuf takes after the kept bytes */
                    size_t kept = c->rx_len;
                    if (kept > 0) memcpy(rxbuf, c->rx, kept);
                    size_t part = r < RX_CAP - kept ? r : RX_CAP - kept;
                    memcpy(rxbuf + kept, d, part);
                    take(c, kept + part, now);
                    d += part;
                    r -= part;
                }
            }
            buf_return(bid);
        }
        if (c->state != 1 || (cqe->flags & IORING_CQE_F_MORE)) return;
        if (res > 0 || res == -ENOBUFS) sqe_recv(c->fd, cqe->user_data); /* ended, not closed: again */
        else close_conn(c);                                              /* the peer closed, or an error */
        return;
    }
    }
}

static void run_uring(void) {
    unsigned nbufs = 256;
    while (nbufs < 2 * (unsigned) nconns && nbufs < 32768) nbufs <<= 1;
    unsigned sq = 256;
    while (sq < (unsigned) nconns && sq < 8192) sq <<= 1;
    ring_init(sq, nbufs);
    while (phase != DONE) {
        uint64_t now = now_ns();
        for (int d = due(now); started < d; started++) {
            conn_t *c = &conns[started];
            c->fd = open_socket(0); /* the ring waits for it; its sends and receives never block this thread */
            struct io_uring_sqe *s = sqe_get();
            s->opcode = IORING_OP_CONNECT;
            s->fd = c->fd;
            s->addr = (uint64_t) (uintptr_t) &to;
            s->off = sizeof to; /* addr2: the address length */
            s->user_data = (uint64_t) started << 2 | OP_CONNECT;
        }
        ring_enter(started < nconns ? 1000000ull : 5000000ull);
        now = now_ns();
        ring_reap(load_cqe, now);
        after_batch(now);
    }
}
#endif

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
    use_uring = io_mode(argc, argv);
#ifndef HAVE_URING
    if (use_uring) uring_unavailable("built without <linux/io_uring.h> of Linux 6.0 or later", ENOSYS);
#endif

    to.sin_family = AF_INET;
    to.sin_port = htons((uint16_t) port);
    if (inet_pton(AF_INET, host, &to.sin_addr) != 1) { fprintf(stderr, "bad IPv4 address %s\n", host); return 2; }
    conns = calloc((size_t) n, sizeof(conn_t));
    if (!conns) die("calloc");
    nconns = n;
    begin = now_ns();
    ramp = (uint64_t) (warmup / 2 * 1e9);
    if (ramp > 1000000000ull) ramp = 1000000000ull;
    measure_at = begin + (uint64_t) (warmup * 1e9);
    end_at = measure_at + (uint64_t) (duration * 1e9);
    timeout_ns = (uint64_t) (timeout * 1e9);
    next_scan = begin + 10000000ull;
    if (use_uring) {
#ifdef HAVE_URING
        run_uring();
#endif
    } else {
        run_epoll();
    }
    for (int i = 0; i < started; i++)
        if (conns[i].state != 2) close(conns[i].fd);
    double secs = (double) (measure_end - measure_begin) / 1e9;
    uint64_t max = 0;
    for (int b = BUCKETS - 1; b >= 0; b--) if (hist[b]) { max = value_of(b); break; }
    printf("io %s\n", use_uring ? "uring" : "epoll");
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
    /* io_uring only: answers go out from tx, two halves of TX_CAP: while one is being sent, the
       next answers gather in the other */
    uint8_t *tx;
    uint32_t acc_len, fl_off, fl_len;
    uint8_t acc, sending, receiving, closing;
} peer_t;

#define TX_CAP 2048

static void drop(peer_t *p) {
    close(p->fd);
    free(p->rx);
    free(p->tx);
    free(p);
}

/*
 * The answers (2.05 "hello world", the request's token) to the request frames among the n bytes
 * at in, written to out up to cap (answers beyond it are dropped); *used is set to the bytes of
 * the whole frames. Returns the bytes written.
 */
static size_t answer(const uint8_t *in, size_t n, size_t *used, uint8_t *out, size_t cap) {
    static const uint8_t body[] = {0xC0, 0xFF, 'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'};
    size_t pos = 0, o = 0;
    for (;;) {
        size_t header, len = frame_length(in + pos, n - pos, &header);
        if (len == 0 || len > n - pos) break;
        unsigned tkl = in[pos] & 0x0F;
        uint8_t code = in[pos + header - tkl - 1];
        if ((code >> 5) == 0 && code != 0 && o + 3 + tkl + sizeof body <= cap) {
            out[o++] = (uint8_t) (13 << 4 | tkl); /* Len 13 + 0: Content-Format 0, payload */
            out[o++] = 0;
            out[o++] = 0x45;                      /* 2.05 */
            memcpy(out + o, in + pos + header - tkl, tkl);
            o += tkl;
            memcpy(out + o, body, sizeof body);
            o += sizeof body;
        }
        pos += len;
    }
    *used = pos;
    return o;
}

/* Keeps the incomplete frame left at rxbuf + pos (n bytes in all); 0 when p must be dropped. */
static int keep_rest(peer_t *p, size_t n, size_t pos) {
    if (n - pos == RX_CAP) return 0; /* a frame larger than we read */
    p->rx_len = (uint16_t) (n - pos);
    if (p->rx_len > 0) {
        if (p->rx == NULL && (p->rx = malloc(RX_CAP)) == NULL) die("malloc");
        memcpy(p->rx, rxbuf + pos, p->rx_len);
    }
    return 1;
}

/* Answers every request frame of what p has to read; 0 when p was closed. */
static int serve(peer_t *p) {
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
        size_t n = kept + (size_t) r, pos;
        size_t o = answer(rxbuf, n, &pos, out, sizeof out);
        if (!keep_rest(p, n, pos)) { drop(p); return 0; }
        if (o > 0) send_all(p->fd, out, o);
        if ((size_t) r < RX_CAP - kept) return 1; /* short read: drained */
    }
}

static int listen_on(const char *host, int port) {
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in at = {.sin_family = AF_INET, .sin_port = htons((uint16_t) port)};
    inet_pton(AF_INET, host, &at.sin_addr);
    if (bind(ls, (struct sockaddr *) &at, sizeof at) < 0) die("bind");
    if (listen(ls, 4096) < 0) die("listen");
    return ls;
}

static _Noreturn void echo_epoll(int ls) {
    fcntl(ls, F_SETFL, O_NONBLOCK);
    int ep = epoll_create1(0);
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(ep, EPOLL_CTL_ADD, ls, &e);
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

#ifdef HAVE_URING
static int listener;

/* Sends what gathered in p's other half, if p is not sending already. */
static void peer_flush(peer_t *p) {
    if (p->sending || p->acc_len == 0 || p->closing) return;
    p->fl_off = 0;
    p->fl_len = p->acc_len;
    p->acc ^= 1;
    p->acc_len = 0;
    p->sending = 1;
    sqe_send(p->fd, p->tx + (size_t) (p->acc ^ 1) * TX_CAP, p->fl_len, (uint64_t) (uintptr_t) p | OP_SEND);
}

/* Closes p once nothing in the ring refers to it any more (shutdown ends its receive). */
static void peer_close(peer_t *p) {
    if (!p->closing) {
        p->closing = 1;
        shutdown(p->fd, SHUT_RDWR);
    }
    if (!p->sending && !p->receiving) drop(p);
}

static void echo_cqe(const struct io_uring_cqe *cqe, uint64_t now) {
    (void) now;
    int res = cqe->res;
    peer_t *p = (peer_t *) (uintptr_t) (cqe->user_data & ~(uint64_t) 3);
    switch (cqe->user_data & 3) {
    case OP_ACCEPT:
        if (!(cqe->flags & IORING_CQE_F_MORE)) { /* the multishot accept ended: again */
            struct io_uring_sqe *s = sqe_get();
            s->opcode = IORING_OP_ACCEPT;
            s->fd = listener;
            s->ioprio = IORING_ACCEPT_MULTISHOT;
            s->user_data = OP_ACCEPT;
        }
        if (res < 0) return;
        set_nodelay(res);
        p = calloc(1, sizeof(peer_t));
        if (p == NULL || (p->tx = malloc(2 * TX_CAP)) == NULL) die("malloc");
        p->fd = res;
        memcpy(p->tx, CSM, sizeof CSM);
        p->acc_len = sizeof CSM;
        p->receiving = 1;
        sqe_recv(p->fd, (uint64_t) (uintptr_t) p | OP_RECV);
        peer_flush(p);
        return;
    case OP_SEND:
        p->sending = 0;
        if (p->closing) { peer_close(p); return; }
        if (res < 0) { peer_close(p); return; }
        p->fl_off += (uint32_t) res;
        if (p->fl_off < p->fl_len) { /* a short send: the rest */
            p->sending = 1;
            sqe_send(p->fd, p->tx + (size_t) (p->acc ^ 1) * TX_CAP + p->fl_off, p->fl_len - p->fl_off,
                     cqe->user_data);
            return;
        }
        peer_flush(p);
        return;
    case OP_RECV: {
        unsigned bid;
        const uint8_t *d = cqe_data(cqe, &bid);
        if (d != NULL) {
            size_t r = res > 0 ? (size_t) res : 0;
            while (r > 0 && !p->closing) {
                size_t kept = p->rx_len;
                if (kept > 0) memcpy(rxbuf, p->rx, kept);
                size_t part = r < RX_CAP - kept ? r : RX_CAP - kept, n = kept + part, pos;
                memcpy(rxbuf + kept, d, part);
                p->acc_len += (uint32_t) answer(rxbuf, n, &pos, p->tx + (size_t) p->acc * TX_CAP + p->acc_len,
                                                TX_CAP - p->acc_len);
                if (!keep_rest(p, n, pos)) {
                    p->closing = 1;
                    shutdown(p->fd, SHUT_RDWR);
                }
                d += part;
                r -= part;
            }
            buf_return(bid);
        }
        if (!(cqe->flags & IORING_CQE_F_MORE)) {
            if (!p->closing && (res > 0 || res == -ENOBUFS)) {
                sqe_recv(p->fd, cqe->user_data); /* ended, not closed: again */
            } else {
                p->receiving = 0;
                peer_close(p);
                return;
            }
        }
        if (p->closing) peer_close(p);
        else peer_flush(p);
        return;
    }
    }
}

/* ring_init first (the listening line says the ring is there) */
static _Noreturn void echo_uring(int ls) {
    listener = ls;
    struct io_uring_sqe *s = sqe_get();
    s->opcode = IORING_OP_ACCEPT;
    s->fd = ls;
    s->ioprio = IORING_ACCEPT_MULTISHOT;
    s->user_data = OP_ACCEPT;
    for (;;) {
        ring_enter(1000000000ull);
        ring_reap(echo_cqe, 0);
    }
}
#endif

static _Noreturn void echo(int argc, char **argv) {
    const char *host = opt(argc, argv, "--host", "127.0.0.1");
    int port = atoi(opt(argc, argv, "--port", "5683"));
    int uring = io_mode(argc, argv);
    signal(SIGPIPE, SIG_IGN);
#ifndef HAVE_URING
    if (uring) uring_unavailable("built without <linux/io_uring.h> of Linux 6.0 or later", ENOSYS);
#endif
    int ls = listen_on(host, port);
    struct sockaddr_in bound;
    socklen_t bl = sizeof bound;
    if (getsockname(ls, (struct sockaddr *) &bound, &bl) == 0) port = ntohs(bound.sin_port); /* --port 0 */
#ifdef HAVE_URING
    if (uring) ring_init(4096, 4096);
#endif
    fprintf(stderr, "coap-tcp-load echo listening on coap+tcp://%s:%d (%s)\n", host, port, uring ? "io_uring" : "epoll");
#ifdef HAVE_URING
    if (uring) echo_uring(ls);
#endif
    echo_epoll(ls);
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "load") == 0) return load(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "echo") == 0) echo(argc, argv);
    fprintf(stderr, "usage: coap-tcp-load load --port P [--host A] [--path SEG] --connections N"
                    " [--warmup S] [--duration S] [--timeout S] [--io epoll|uring]\n"
                    "       coap-tcp-load echo --port P [--host A] [--io epoll|uring]\n");
    return 2;
}
