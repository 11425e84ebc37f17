/*
 * coap-load: a closed-loop CoAP load generator in C, neutral to the servers it measures (it
 * shares no code with any of them). N virtual clients, each with one request outstanding: an
 * answer immediately triggers that client's next request. One thread.
 *
 * Two ways to give each client its own address (the server sees N peers either way):
 *   --mode sockets  one connected UDP socket per client on 127.0.0.1 (its own port), epoll;
 *                   one send and one receive system call per request, as CoAPBench's Java loop.
 *   --mode sources  one socket for all clients; client i sends from its own loopback address
 *                   (127.1.0.0 + 1 + i, IP_PKTINFO) and the same port, so that up to BATCH
 *                   requests leave in one sendmmsg(2) and answers arrive by recvmmsg(2). Costs the
 *                   generator less per request than any server, so it measures the server.
 *
 * The request is given encoded (--request HEX: MID at bytes 2..3, a 4-byte token at 4..7); each
 * send patches the client's next MID and token (client index << 16 | sequence). Matching follows
 * RFC 7252 sections 4.2 and 5.3.2 as CoAPBench does: a piggybacked ACK must match MID and token,
 * a separate response is matched by token (a CON one is acknowledged), an empty ACK means
 * "keep waiting", a RST with the MID is an error; 2.xx is completed, anything else an error.
 *
 * Phases: the first requests are spread over the ramp, then warm-up (not counted), the measured
 * window, then cool-down (no new requests, late answers drain).
 *
 * --rate R offers at most R requests per second in all (a client whose answer came waits for the
 * next free slot): the load for CPU-per-request measurements. --watch-pid P reads the CPU time of
 * process P (the server) from /proc at the start and end of the window.
 *
 * Output, one line each: "result key=value ..." (counts, seconds of CPU of the generator and of
 * the watched process in the window), then "hist MICROS COUNT" for each non-empty bucket of a
 * log-linear histogram (precision 1/128) of the window's round-trip times, which the Java side
 * records into an HdrHistogram.
 *
 * Benchmark tool only: built on demand by NativeTools with gcc, never part of the product or CI.
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
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "coap-tool.h"

#define MAX_BATCH 256
#define MAX_DATAGRAM 2048
#define MAX_CLIENTS 65536
#define HIST_BUCKETS (256 + 48 * 128)

typedef struct {
    int fd;              /* sockets mode */
    uint32_t source;     /* sources mode, network order */
    uint16_t mid;
    uint16_t seq;
    uint32_t token;
    uint64_t sent_ns;
    int awaiting;
} client_t;

static client_t *clients;
static int nclients;
static uint8_t request[MAX_DATAGRAM];
static int request_len;
static struct sockaddr_in server;
static int sources_mode;
static int batch = 64;
static int ident = 0; /* --ip-ident 1: the kernel's default IP ID (the generator before DF was set) */
static uint64_t timeout_ns;
static uint64_t hist[HIST_BUCKETS];
/* --per-second 1: each second of the window on stderr (completed, p50, p99, max), to tell a steady
 * tail from slow seconds; off by default */
static int per_second;
static uint64_t sec_hist[HIST_BUCKETS];
static long sec_completed;

/* phase flags */
static int issuing = 1;     /* new requests are sent */
static int measuring = 0;   /* completions and timeouts are counted */
static long completed, timeouts, errors, unavailable, stray, sent_total, in_flight;

/* --rate: clients ready to send wait in a FIFO for the next slot */
static uint64_t rate_interval_ns; /* 0: closed loop without pacing */
static uint64_t next_slot_ns;
static int *ready;
static int ready_head, ready_len;

static int bucket_of(uint64_t v) {
    if (v < 256) {
        return (int) v;
    }
    int msb = 63 - __builtin_clzll(v);
    int shift = msb - 7;
    int idx = 256 + (shift - 1) * 128 + (int) ((v >> shift) - 128);
    return idx < HIST_BUCKETS ? idx : HIST_BUCKETS - 1;
}

/* middle of the bucket's range */
static uint64_t value_of(int idx) {
    if (idx < 256) {
        return (uint64_t) idx;
    }
    int shift = (idx - 256) / 128 + 1;
    uint64_t low = (uint64_t) ((idx - 256) % 128 + 128) << shift;
    return low + ((1ull << shift) >> 1);
}

/* ------------------------------------------------------------------ sending */

/* sources mode: requests queued for the next sendmmsg */
static int sock = -1;
static uint8_t txbuf[MAX_BATCH][MAX_DATAGRAM];
static struct iovec tx_iov[MAX_BATCH];
static struct mmsghdr tx[MAX_BATCH];
static char tx_ctl[MAX_BATCH][CMSG_SPACE(sizeof(struct in_pktinfo))];
static client_t *tx_client[MAX_BATCH]; /* the client whose request it is, NULL for an empty message */
static int tx_count;

static void flush_tx(void) {
    if (tx_count == 0) {
        return;
    }
    /* a request's round trip starts when it leaves, not when it was queued */
    uint64_t t = now_ns();
    for (int i = 0; i < tx_count; i++) {
        if (tx_client[i] != NULL) {
            tx_client[i]->sent_ns = t;
        }
    }
    int done = 0;
    while (done < tx_count) {
        int k = sendmmsg(sock, tx + done, (unsigned) (tx_count - done), 0);
        if (k < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN || errno == ENOBUFS) {
                struct pollfd p = {.fd = sock, .events = POLLOUT};
                poll(&p, 1, 1);
                continue;
            }
            done++; /* that request is lost: it will time out */
            continue;
        }
        done += k;
    }
    tx_count = 0;
}

static void queue_datagram(client_t *c, const uint8_t *data, int len, int is_request) {
    if (tx_count == batch) {
        flush_tx();
    }
    int i = tx_count++;
    tx_client[i] = is_request ? c : NULL;
    memcpy(txbuf[i], data, (size_t) len);
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
    pi->ipi_spec_dst.s_addr = c->source;
}

static void send_datagram(client_t *c, const uint8_t *data, int len, int is_request) {
    if (sources_mode) {
        queue_datagram(c, data, len, is_request);
    } else if (send(c->fd, data, (size_t) len, 0) < 0 && errno == EAGAIN) {
        /* a full socket buffer: the request is lost and will time out */
    }
}

static void send_request(client_t *c, uint64_t now) {
    int idx = (int) (c - clients);
    c->mid++;
    c->seq++;
    c->token = (uint32_t) idx << 16 | c->seq;
    uint8_t buf[MAX_DATAGRAM];
    memcpy(buf, request, (size_t) request_len);
    buf[2] = (uint8_t) (c->mid >> 8);
    buf[3] = (uint8_t) c->mid;
    buf[4] = (uint8_t) (c->token >> 24);
    buf[5] = (uint8_t) (c->token >> 16);
    buf[6] = (uint8_t) (c->token >> 8);
    buf[7] = (uint8_t) c->token;
    c->awaiting = 1;
    c->sent_ns = now;
    in_flight++;
    sent_total++;
    send_datagram(c, buf, request_len, 1);
}

/* the client may send its next request: now, or in its slot when paced */
static void next_request(client_t *c, uint64_t now) {
    if (!issuing) {
        return;
    }
    if (rate_interval_ns == 0) {
        send_request(c, now);
        return;
    }
    ready[(ready_head + ready_len++) % nclients] = (int) (c - clients);
}

/* paced mode: sends what is due; returns the ns until the next slot (0: nothing waits) */
static uint64_t release_due(uint64_t now) {
    if (rate_interval_ns == 0 || ready_len == 0 || !issuing) {
        return 0;
    }
    if (now > next_slot_ns + 10000000ull) {
        next_slot_ns = now; /* behind by more than 10 ms (the server is slower): no burst to catch up */
    }
    while (ready_len > 0 && next_slot_ns <= now) {
        client_t *c = &clients[ready[ready_head]];
        ready_head = (ready_head + 1) % nclients;
        ready_len--;
        send_request(c, now);
        next_slot_ns += rate_interval_ns;
    }
    return ready_len > 0 ? next_slot_ns - now : 0;
}

static void send_empty(client_t *c, int first_byte, int mid) {
    uint8_t b[4] = {(uint8_t) first_byte, 0, (uint8_t) (mid >> 8), (uint8_t) mid};
    send_datagram(c, b, 4, 0);
}

static void finish(client_t *c, int success, uint64_t now) {
    c->awaiting = 0;
    in_flight--;
    if (measuring) {
        if (success) {
            completed++;
            int b = bucket_of(now > c->sent_ns ? now - c->sent_ns : 0);
            hist[b]++;
            if (per_second) {
                sec_hist[b]++;
                sec_completed++;
            }
        } else {
            errors++;
        }
    }
    next_request(c, now);
}

/* ------------------------------------------------------------------ receiving */

static void on_datagram(client_t *c, const uint8_t *d, int n, uint64_t now) {
    if (n < 4 || (d[0] & 0xC0) != 0x40) {
        stray++;
        return;
    }
    int type = (d[0] >> 4) & 0x3;
    int tkl = d[0] & 0x0F;
    int code = d[1];
    int mid = d[2] << 8 | d[3];
    int mid_matches = c != NULL && c->awaiting && mid == c->mid;
    if (code == 0) {
        if (type == 3 && mid_matches) {
            finish(c, 0, now);
        } else if (!(type == 2 && mid_matches)) {
            stray++; /* an empty ACK that matches: a separate response follows, keep waiting */
        }
        return;
    }
    if ((code >> 5) == 0) {
        stray++;
        return;
    }
    uint32_t token = tkl == 4 && n >= 8
            ? (uint32_t) d[4] << 24 | (uint32_t) d[5] << 16 | (uint32_t) d[6] << 8 | d[7] : 0;
    int matches = c != NULL && c->awaiting && tkl == 4 && n >= 8 && token == c->token
            && (type != 2 || mid_matches);
    if (type == 0 && c != NULL) {
        send_empty(c, matches ? 0x60 : 0x70, mid); /* ACK a CON separate response, else RST */
    }
    if (!matches) {
        stray++;
        return;
    }
    if ((code >> 5) != 2 && code == (5 << 5 | 3) && measuring) {
        unavailable++;
    }
    finish(c, (code >> 5) == 2, now);
}

static void scan_timeouts(uint64_t now) {
    for (int i = 0; i < nclients; i++) {
        client_t *c = &clients[i];
        /* signed: a request sent after `now` was read (flush_tx stamps it) is not 2^64 ns old */
        if (c->awaiting && (int64_t) (now - c->sent_ns) >= (int64_t) timeout_ns) {
            c->awaiting = 0;
            in_flight--;
            if (measuring) {
                timeouts++;
            }
            next_request(c, now);
        }
    }
}

static uint8_t rxbuf[MAX_BATCH][MAX_DATAGRAM];
static struct iovec rx_iov[MAX_BATCH];
static struct mmsghdr rx[MAX_BATCH];

static void wait_readable(int fd, uint64_t wait_ns) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    struct timespec ts = {.tv_sec = (time_t) (wait_ns / 1000000000ull), .tv_nsec = (long) (wait_ns % 1000000000ull)};
    ppoll(&p, 1, &ts, NULL);
}

/* sources mode: one pass; returns datagrams handled */
static int poll_sources(uint64_t wait_ns) {
    int n = recvmmsg(sock, rx, (unsigned) batch, MSG_DONTWAIT, NULL);
    if (n <= 0) {
        flush_tx();
        if (wait_ns > 0) {
            wait_readable(sock, wait_ns);
        }
        return 0;
    }
    uint64_t now = now_ns();
    for (int i = 0; i < n; i++) {
        const uint8_t *d = rxbuf[i];
        int len = (int) rx[i].msg_len;
        client_t *c = NULL;
        if (len >= 8 && (d[0] & 0x0F) == 4) {
            unsigned idx = (unsigned) d[4] << 8 | d[5];
            if (idx < (unsigned) nclients) {
                c = &clients[idx];
            }
        } else if (len >= 4 && d[1] == 0) {
            /* an empty message has no token: find the client by the address it was sent to */
            /* (rare here: only RST answers; matched by MID across clients would be ambiguous) */
        }
        on_datagram(c, d, len, now);
    }
    flush_tx();
    return n;
}

static int epfd = -1;

static int poll_sockets(uint64_t wait_ns) {
    struct epoll_event ev[256];
    int n = epoll_wait(epfd, ev, 256, 0);
    if (n == 0 && wait_ns > 0) {
        wait_readable(epfd, wait_ns);
        n = epoll_wait(epfd, ev, 256, 0);
    }
    if (n <= 0) {
        return 0;
    }
    int handled = 0;
    for (int i = 0; i < n; i++) {
        client_t *c = &clients[ev[i].data.u32];
        for (;;) {
            ssize_t len = recv(c->fd, rxbuf[0], MAX_DATAGRAM, MSG_DONTWAIT);
            if (len < 0) {
                break; /* EAGAIN, or an ICMP error: the request will time out */
            }
            /* read per datagram: the next request is sent right away and timed from here */
            on_datagram(c, rxbuf[0], (int) len, now_ns());
            handled++;
        }
    }
    return handled;
}

/* ------------------------------------------------------------------ setup and phases */

static int hexval(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

static void usage(void) {
    fprintf(stderr, "usage: coap-load --server IP:PORT --request HEX --clients N [--mode sockets|sources]\n"
                    "       [--warmup S] [--duration S] [--cooldown S] [--timeout S] [--batch 1..%d]\n"
                    "       [--rate REQ_PER_S] [--watch-pid PID] [--ip-ident 0|1] [--per-second 0|1]\n", MAX_BATCH);
    exit(2);
}

static uint64_t sec_quantile(double q) {
    long want = (long) (q * (double) sec_completed), seen = 0;
    for (int i = 0; i < HIST_BUCKETS; i++) {
        seen += (long) sec_hist[i];
        if (sec_hist[i] && seen > want) {
            return value_of(i) / 1000;
        }
    }
    return 0;
}

static void report_second(int index) {
    uint64_t max = 0;
    for (int i = HIST_BUCKETS - 1; i >= 0; i--) {
        if (sec_hist[i]) {
            max = value_of(i) / 1000;
            break;
        }
    }
    fprintf(stderr, "second %d completed=%ld p50_us=%llu p99_us=%llu max_us=%llu timeouts_so_far=%ld\n", index,
            sec_completed, (unsigned long long) sec_quantile(0.5), (unsigned long long) sec_quantile(0.99),
            (unsigned long long) max, timeouts);
    memset(sec_hist, 0, sizeof sec_hist);
    sec_completed = 0;
}

static uint64_t next_second_ns;
static int second_index;

static void run_until(uint64_t until, uint64_t *next_scan, uint64_t scan_ns, int *started, uint64_t ramp_start,
                      uint64_t ramp_ns) {
    for (;;) {
        uint64_t now = now_ns();
        if (now >= until) {
            return;
        }
        if (!issuing && in_flight == 0) {
            return;
        }
        if (per_second && measuring && now >= next_second_ns) {
            report_second(++second_index);
            next_second_ns += 1000000000ull;
        }
        if (*started < nclients && issuing && rate_interval_ns > 0) {
            for (; *started < nclients; (*started)++) {
                next_request(&clients[*started], now); /* paced from the start: no ramp needed */
            }
        }
        if (*started < nclients && issuing) {
            int due = ramp_ns == 0 ? nclients
                    : (int) ((double) (now - ramp_start) / (double) ramp_ns * nclients) + 1;
            if (due > nclients) due = nclients;
            for (; *started < due; (*started)++) {
                send_request(&clients[*started], now);
            }
            if (sources_mode) flush_tx();
        }
        if (now >= *next_scan) {
            scan_timeouts(now);
            if (sources_mode) flush_tx();
            *next_scan = now + scan_ns;
        }
        uint64_t wait = 1000000; /* 1 ms: the phases and the timeout scan are checked at least that often */
        uint64_t due = release_due(now);
        if (sources_mode) {
            flush_tx();
        }
        if (due > 0 && due < wait) {
            wait = due;
        }
        if (sources_mode) {
            poll_sources(wait);
        } else {
            poll_sockets(wait);
        }
    }
}

int main(int argc, char **argv) {
    const char *server_arg = NULL, *hex = NULL, *mode = "sources";
    double warmup = 5, duration = 20, cooldown = 2, timeout = 10, rate = 0;
    long watch_pid = 0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage();
        const char *k = argv[i], *v = argv[++i];
        if (!strcmp(k, "--server")) server_arg = v;
        else if (!strcmp(k, "--request")) hex = v;
        else if (!strcmp(k, "--clients")) nclients = atoi(v);
        else if (!strcmp(k, "--mode")) mode = v;
        else if (!strcmp(k, "--warmup")) warmup = atof(v);
        else if (!strcmp(k, "--duration")) duration = atof(v);
        else if (!strcmp(k, "--cooldown")) cooldown = atof(v);
        else if (!strcmp(k, "--timeout")) timeout = atof(v);
        else if (!strcmp(k, "--batch")) batch = atoi(v);
        else if (!strcmp(k, "--rate")) rate = atof(v);
        else if (!strcmp(k, "--watch-pid")) watch_pid = atol(v);
        else if (!strcmp(k, "--ip-ident")) ident = atoi(v);
        else if (!strcmp(k, "--per-second")) per_second = atoi(v);
        else usage();
    }
    if (!server_arg || !hex || nclients < 1 || nclients > MAX_CLIENTS || batch < 1 || batch > MAX_BATCH
        || duration <= 0 || timeout <= 0) {
        usage();
    }
    sources_mode = !strcmp(mode, "sources");
    if (!sources_mode && strcmp(mode, "sockets")) usage();
    size_t hl = strlen(hex);
    if (hl % 2 || hl / 2 < 8 || hl / 2 > MAX_DATAGRAM) {
        fprintf(stderr, "coap-load: --request must be 8..%d bytes of hex with a 4-byte token\n", MAX_DATAGRAM);
        return 2;
    }
    request_len = (int) (hl / 2);
    for (int i = 0; i < request_len; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) usage();
        request[i] = (uint8_t) (hi << 4 | lo);
    }
    if ((request[0] & 0x0F) != 4) {
        fprintf(stderr, "coap-load: the request needs a 4-byte token\n");
        return 2;
    }
    char host[64];
    const char *colon = strrchr(server_arg, ':');
    if (!colon || colon - server_arg >= (long) sizeof host) usage();
    memcpy(host, server_arg, (size_t) (colon - server_arg));
    host[colon - server_arg] = 0;
    server.sin_family = AF_INET;
    server.sin_port = htons((uint16_t) atoi(colon + 1));
    if (inet_pton(AF_INET, host, &server.sin_addr) != 1) {
        fprintf(stderr, "coap-load: bad server address %s (IPv4 only)\n", host);
        return 2;
    }
    timeout_ns = (uint64_t) (timeout * 1e9);
    clients = calloc((size_t) nclients, sizeof(client_t));
    ready = calloc((size_t) nclients, sizeof(int));
    if (rate > 0) {
        rate_interval_ns = (uint64_t) (1e9 / rate);
        if (rate_interval_ns == 0) rate_interval_ns = 1;
    }
    uint32_t seed = (uint32_t) now_ns() ^ (uint32_t) getpid();
    for (int i = 0; i < nclients; i++) {
        seed = seed * 1103515245u + 12345u;
        clients[i].mid = (uint16_t) (seed >> 8);
        clients[i].seq = (uint16_t) (seed >> 16);
    }
    int bufsize = 4 << 20;
    if (sources_mode) {
        sock = socket(AF_INET, SOCK_DGRAM, 0);
        setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &bufsize, sizeof bufsize);
        setsockopt(sock, SOL_SOCKET, SO_SNDBUF, &bufsize, sizeof bufsize);
        if (!ident) {
            /* DF on the (small) requests: an unconnected socket then sends IP ID 0 (RFC 6864 section 4.1
             * allows it for atomic datagrams) instead of drawing it from the kernel's shared ID table,
             * an atomic on cache lines the server's CPU writes too (5% of the generator's CPU) */
            int pmtu = IP_PMTUDISC_DO;
            setsockopt(sock, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof pmtu);
        }
        struct sockaddr_in any = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
        if (bind(sock, (struct sockaddr *) &any, sizeof any) < 0) {
            perror("bind");
            return 1;
        }
        uint32_t base = ntohl(inet_addr("127.1.0.0"));
        for (int i = 0; i < nclients; i++) {
            clients[i].source = htonl(base + 1 + (uint32_t) i);
        }
        for (int i = 0; i < MAX_BATCH; i++) {
            rx_iov[i].iov_base = rxbuf[i];
            rx_iov[i].iov_len = MAX_DATAGRAM;
            rx[i].msg_hdr.msg_iov = &rx_iov[i];
            rx[i].msg_hdr.msg_iovlen = 1;
        }
    } else {
        epfd = epoll_create1(0);
        struct sockaddr_in local = {.sin_family = AF_INET};
        inet_pton(AF_INET, "127.0.0.1", &local.sin_addr);
        for (int i = 0; i < nclients; i++) {
            int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
            if (fd < 0) {
                perror("socket (raise ulimit -n)");
                return 1;
            }
            if (bind(fd, (struct sockaddr *) &local, sizeof local) < 0
                || connect(fd, (struct sockaddr *) &server, sizeof server) < 0) {
                perror("bind/connect");
                return 1;
            }
            struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t) i};
            epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
            clients[i].fd = fd;
        }
    }

    uint64_t scan_ns = timeout_ns / 20;
    if (scan_ns < 1000000) scan_ns = 1000000;
    if (scan_ns > 100000000) scan_ns = 100000000;
    uint64_t start = now_ns();
    uint64_t ramp_ns = (uint64_t) (warmup / 2 * 1e9);
    if (ramp_ns > 1000000000ull) ramp_ns = 1000000000ull;
    int started = 0;
    uint64_t next_scan = start + scan_ns;
    run_until(start + (uint64_t) (warmup * 1e9), &next_scan, scan_ns, &started, start, ramp_ns);
    measuring = 1;
    double server_cpu0 = process_cpu_s(watch_pid), self_cpu0 = self_cpu_s();
    uint64_t window_start = now_ns();
    next_second_ns = window_start + 1000000000ull;
    run_until(window_start + (uint64_t) (duration * 1e9), &next_scan, scan_ns, &started, start, ramp_ns);
    uint64_t window_end = now_ns();
    double server_cpu1 = process_cpu_s(watch_pid), self_cpu1 = self_cpu_s();
    issuing = 0;
    long measured_completed = completed;
    /* answers arriving in the cool-down are not counted (the window is over) */
    measuring = 0;
    run_until(window_end + (uint64_t) (cooldown * 1e9), &next_scan, scan_ns, &started, start, ramp_ns);

    double secs = (double) (window_end - window_start) / 1e9;
    printf("result clients=%d mode=%s duration_s=%.3f completed=%ld timeouts=%ld errors=%ld unavailable=%ld"
           " stray=%ld sent=%ld throughput_rps=%.1f generator_cpu_s=%.3f server_cpu_s=%.3f\n",
           nclients, mode, secs, measured_completed, timeouts, errors, unavailable, stray, sent_total,
           measured_completed / secs, self_cpu1 - self_cpu0,
           server_cpu0 < 0 || server_cpu1 < 0 ? -1.0 : server_cpu1 - server_cpu0);
    for (int i = 0; i < HIST_BUCKETS; i++) {
        if (hist[i]) {
            uint64_t us = (value_of(i) + 500) / 1000;
            printf("hist %llu %llu\n", (unsigned long long) (us ? us : 1), (unsigned long long) hist[i]);
        }
    }
    return 0;
}
