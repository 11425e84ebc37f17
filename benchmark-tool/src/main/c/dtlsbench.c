/*
 * dtlsbench: a neutral CoAP-over-DTLS 1.2 load generator on OpenSSL (no Stagecoach code), for
 * docs/benchmarks/dtls.md. Benchmark-only: built on demand by build.sh, not by Maven or CI.
 *
 *   dtlsbench load       closed loop: C virtual clients, each with its own UDP socket and an
 *                        established DTLS session (PSK), sends CON GET /PATH, waits for the
 *                        answer, sends the next; warm-up, then the measured window
 *   dtlsbench handshakes C slots, each: fresh socket (new source port), full PSK handshake with
 *                        cookie exchange, close_notify, again; counts finished handshakes
 *   dtlsbench echo       a trivial OpenSSL DTLS server answering every CoAP request 2.05
 *                        "hello world": the generator's counterpart for its ceiling
 *
 * A ClientHello flood can run inside load (--flood-rate): ClientHellos from --flood-sources
 * source ports, or with --flood-spoof from random 127.0.0.0/8 source addresses over a raw
 * socket (needs CAP_NET_RAW; loopback only).
 *
 * With --flood-batch N the flood's datagrams are built once (N of them) and sent N at a time with
 * sendmmsg, only the bytes that must vary rewritten per datagram (client random; with
 * --flood-spoof source address and port): the flood then costs the generator's core little
 * besides the kernel's own per-datagram work, which any sender pays.
 *
 * With --rate R, load runs open loop: R requests per second spread round-robin over the sessions
 * (up to OPEN_WINDOW outstanding per session) whatever the answers do, so a flood cannot slow the
 * offered load through the generator's closed loop; it reports offered, sent and answered rates.
 *
 * The generator's own CPU use (getrusage) is printed with every result, the flood's part of it
 * (its thread CPU time around sending) and, with --server-pid, the server process's CPU use over
 * the same measured window (/proc/PID/stat): whichever is near 100 % of a core is the limit.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ options */

static const char *opt_host = "127.0.0.1";
static int opt_port = 5684;
static const char *opt_identity = "bench";
static unsigned char opt_key[64];
static int opt_key_len = 0;
static const char *opt_cipher = "PSK-AES128-CCM8";
static const char *opt_path = "benchmark";
static int opt_clients = 100;
static double opt_warmup = 5, opt_duration = 20, opt_timeout = 10;
static int opt_parallel_handshakes = 32;
static double opt_flood_rate = 0;
static int opt_flood_sources = 1000;
static int opt_flood_spoof = 0;
static int opt_flood_batch = 1;
static const char *opt_phases = NULL;
static double opt_rate = 0;
static int opt_server_pid = 0;
static int opt_no_close = 0;
static int opt_get_after_handshake = 0;
static const char *opt_label = "";
static int opt_source_ips = 0;
static long opt_max_handshakes = 0;

static struct sockaddr_in server_addr;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static void die(const char *what) {
    fprintf(stderr, "dtlsbench: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void die_ssl(const char *what) {
    fprintf(stderr, "dtlsbench: %s\n", what);
    ERR_print_errors_fp(stderr);
    exit(1);
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static void parse_key(const char *hex) {
    size_t n = strlen(hex);
    if (n % 2 != 0 || n / 2 > sizeof opt_key) {
        fprintf(stderr, "dtlsbench: --psk-key needs an even number of hex digits (at most 128)\n");
        exit(2);
    }
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            fprintf(stderr, "dtlsbench: --psk-key: not hex: %s\n", hex);
            exit(2);
        }
        opt_key[i] = (unsigned char) (hi << 4 | lo);
    }
    opt_key_len = (int) (n / 2);
}

/* ------------------------------------------------------------------ latency histogram (µs) */

/* Exact below 128 µs, then 64 buckets per power of two (error < 1.6 %), up to 2^40 µs. */
#define HBUCKETS (128 + 34 * 64)
typedef struct { uint64_t count[HBUCKETS]; uint64_t total; uint64_t max; } histogram;

static int h_index(uint64_t v) {
    if (v < 128) return (int) v;
    int e = 63 - __builtin_clzll(v);
    if (e > 40) e = 40, v = (1ull << 41) - 1;
    int shift = e - 6;
    return 128 + (e - 7) * 64 + (int) ((v >> shift) - 64);
}

static uint64_t h_value(int i) {
    if (i < 128) return (uint64_t) i;
    int e = (i - 128) / 64 + 7, m = (i - 128) % 64 + 64, shift = e - 6;
    return ((uint64_t) (m + 1) << shift) - 1; /* upper end of the bucket */
}

static void h_record(histogram *h, uint64_t micros) {
    if (micros < 1) micros = 1;
    h->count[h_index(micros)]++;
    h->total++;
    if (micros > h->max) h->max = micros;
}

static double h_percentile(const histogram *h, double p) {
    if (h->total == 0) return 0;
    uint64_t want = (uint64_t) (p / 100.0 * (double) h->total + 0.5);
    if (want < 1) want = 1;
    uint64_t seen = 0;
    for (int i = 0; i < HBUCKETS; i++) {
        seen += h->count[i];
        if (seen >= want) {
            uint64_t v = h_value(i);
            return (double) (v > h->max ? h->max : v) / 1000.0;
        }
    }
    return (double) h->max / 1000.0;
}

/* ------------------------------------------------------------------ CoAP */

#define TOKEN_LEN 4

static unsigned char request_template[256];
static int request_len;

/* CON GET with a 4-byte token and the Uri-Path segments of opt_path (RFC 7252 §3, §5.10.1). */
static void build_request(void) {
    unsigned char *p = request_template;
    *p++ = 0x40 | TOKEN_LEN; /* ver 1, CON */
    *p++ = 0x01;             /* GET */
    p += 2 + TOKEN_LEN;      /* MID, token: per request */
    int last = 0;
    char path[200];
    snprintf(path, sizeof path, "%s", opt_path);
    for (char *seg = strtok(path, "/"); seg; seg = strtok(NULL, "/")) {
        int len = (int) strlen(seg), delta = 11 - last;
        last = 11;
        if (len > 200) { fprintf(stderr, "dtlsbench: path segment too long\n"); exit(2); }
        if (len < 13) {
            *p++ = (unsigned char) (delta << 4 | len);
        } else {
            *p++ = (unsigned char) (delta << 4 | 13);
            *p++ = (unsigned char) (len - 13);
        }
        memcpy(p, seg, len);
        p += len;
    }
    request_len = (int) (p - request_template);
}

static void write_request(unsigned char *out, uint16_t mid, uint32_t token) {
    memcpy(out, request_template, request_len);
    out[2] = (unsigned char) (mid >> 8);
    out[3] = (unsigned char) mid;
    memcpy(out + 4, &token, TOKEN_LEN);
}

/* ------------------------------------------------------------------ OpenSSL */

static unsigned int psk_client_cb(SSL *ssl, const char *hint, char *identity, unsigned int max_identity_len,
        unsigned char *psk, unsigned int max_psk_len) {
    (void) ssl; (void) hint;
    snprintf(identity, max_identity_len, "%s", opt_identity);
    if ((unsigned int) opt_key_len > max_psk_len) return 0;
    memcpy(psk, opt_key, opt_key_len);
    return (unsigned int) opt_key_len;
}

static unsigned int psk_server_cb(SSL *ssl, const char *identity, unsigned char *psk, unsigned int max_psk_len) {
    (void) ssl;
    if (identity == NULL || strcmp(identity, opt_identity) != 0 || (unsigned int) opt_key_len > max_psk_len) return 0;
    memcpy(psk, opt_key, opt_key_len);
    return (unsigned int) opt_key_len;
}

static SSL_CTX *client_ctx(void) {
    SSL_CTX *ctx = SSL_CTX_new(DTLS_client_method());
    if (!ctx) die_ssl("SSL_CTX_new");
    SSL_CTX_set_min_proto_version(ctx, DTLS1_2_VERSION);
    SSL_CTX_set_max_proto_version(ctx, DTLS1_2_VERSION);
    if (SSL_CTX_set_cipher_list(ctx, opt_cipher) != 1) die_ssl("cipher list");
    SSL_CTX_set_psk_client_callback(ctx, psk_client_cb);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF); /* every handshake is a full one */
    SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET | SSL_OP_NO_QUERY_MTU);
    return ctx;
}

/* A client socket connected to the server; with --source-ips N bound to 127.0.0.2 .. 127.0.0.N+1 in
   turn, so that clients come from N addresses (loopback only) instead of one. */
static int udp_socket_to(int spread, const struct sockaddr_in *dst) {
    static unsigned counter;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket");
    if (spread && opt_source_ips > 0) {
        struct sockaddr_in local;
        memset(&local, 0, sizeof local);
        local.sin_family = AF_INET;
        local.sin_addr.s_addr = htonl(0x7F000002u + (counter++ % (unsigned) opt_source_ips));
        if (bind(fd, (struct sockaddr *) &local, sizeof local) < 0) die("bind to a 127/8 source");
    }
    if (connect(fd, (struct sockaddr *) dst, sizeof *dst) < 0) die("connect");
    return fd;
}

static int udp_socket_from(int spread) {
    return udp_socket_to(spread, &server_addr);
}

static int udp_socket_connected(void) {
    return udp_socket_from(1);
}

static SSL *new_client_ssl(SSL_CTX *ctx, int fd) {
    SSL *ssl = SSL_new(ctx);
    if (!ssl) die_ssl("SSL_new");
    BIO *bio = BIO_new_dgram(fd, BIO_NOCLOSE);
    BIO_ctrl(bio, BIO_CTRL_DGRAM_SET_CONNECTED, 0, &server_addr);
    SSL_set_bio(ssl, bio, bio);
    SSL_set_mtu(ssl, 1280);
    DTLS_set_link_mtu(ssl, 1280);
    SSL_set_connect_state(ssl);
    return ssl;
}

/* ------------------------------------------------------------------ direct record layer */

/*
 * After OpenSSL's handshake, application records can be sealed and opened here instead of by
 * SSL_write/SSL_read, with the same keys (RFC 5246 §6.3 key block from OpenSSL's master secret
 * and randoms through OpenSSL's TLS1-PRF) and OpenSSL's AEAD (EVP). The record format is RFC
 * 6347 §4.1 with the RFC 5288/6655 nonce (4-byte salt from the key block, 8-byte explicit part =
 * epoch and sequence number). It takes most of OpenSSL's per-record overhead out of the
 * generator, so that it can drive servers faster than SSL_read/SSL_write allow. AES-128 CCM_8,
 * CCM and GCM suites only; no connection IDs (OpenSSL 3.0 has none).
 */
typedef struct {
    EVP_CIPHER_CTX *enc, *dec;
    unsigned char wsalt[4], rsalt[4];
    uint64_t wseq;
    int tag;
    int ccm;
} direct_rl;

static int opt_direct = 1;

static int rl_init(direct_rl *rl, SSL *ssl, int server) {
    const SSL_CIPHER *c = SSL_get_current_cipher(ssl);
    const char *name = c ? SSL_CIPHER_get_name(c) : "";
    const EVP_CIPHER *cipher;
    if (strstr(name, "AES128-CCM8")) cipher = EVP_aes_128_ccm(), rl->tag = 8, rl->ccm = 1;
    else if (strstr(name, "AES128-CCM")) cipher = EVP_aes_128_ccm(), rl->tag = 16, rl->ccm = 1;
    else if (strstr(name, "AES128-GCM")) cipher = EVP_aes_128_gcm(), rl->tag = 16, rl->ccm = 0;
    else {
        fprintf(stderr, "dtlsbench: direct record layer: unsupported suite %s (use --record-layer openssl)\n", name);
        return 0;
    }
    unsigned char master[48], seed[13 + 64], block[40];
    size_t mlen = SSL_SESSION_get_master_key(SSL_get_session(ssl), master, sizeof master);
    memcpy(seed, "key expansion", 13);
    SSL_get_server_random(ssl, seed + 13, 32);
    SSL_get_client_random(ssl, seed + 45, 32);
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "TLS1-PRF", NULL);
    EVP_KDF_CTX *k = EVP_KDF_CTX_new(kdf);
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string("digest", (char *) "SHA256", 0),
        OSSL_PARAM_construct_octet_string("secret", master, mlen),
        OSSL_PARAM_construct_octet_string("seed", seed, sizeof seed),
        OSSL_PARAM_construct_end()
    };
    int ok = EVP_KDF_derive(k, block, sizeof block, params) == 1;
    EVP_KDF_CTX_free(k);
    EVP_KDF_free(kdf);
    if (!ok) die_ssl("key block");
    /* client_write_key, server_write_key, client_write_IV, server_write_IV (RFC 5246 §6.3) */
    const unsigned char *ckey = block, *skey = block + 16, *civ = block + 32, *siv = block + 36;
    memcpy(rl->wsalt, server ? siv : civ, 4);
    memcpy(rl->rsalt, server ? civ : siv, 4);
    rl->enc = EVP_CIPHER_CTX_new();
    rl->dec = EVP_CIPHER_CTX_new();
    EVP_EncryptInit_ex(rl->enc, cipher, NULL, NULL, NULL);
    EVP_DecryptInit_ex(rl->dec, cipher, NULL, NULL, NULL);
    EVP_CIPHER_CTX_ctrl(rl->enc, EVP_CTRL_AEAD_SET_IVLEN, 12, NULL);
    EVP_CIPHER_CTX_ctrl(rl->dec, EVP_CTRL_AEAD_SET_IVLEN, 12, NULL);
    if (rl->ccm) {
        EVP_CIPHER_CTX_ctrl(rl->enc, EVP_CTRL_AEAD_SET_TAG, rl->tag, NULL);
        EVP_CIPHER_CTX_ctrl(rl->dec, EVP_CTRL_AEAD_SET_TAG, rl->tag, NULL);
    }
    EVP_EncryptInit_ex(rl->enc, NULL, NULL, server ? skey : ckey, NULL);
    EVP_DecryptInit_ex(rl->dec, NULL, NULL, server ? ckey : skey, NULL);
    OPENSSL_cleanse(master, sizeof master);
    OPENSSL_cleanse(block, sizeof block);
    /* OpenSSL sent its Finished as epoch 1, sequence 0 (and any retransmission after it):
       a later start is always newer for the peer's replay window. */
    rl->wseq = 16;
    return 1;
}

static void rl_free(direct_rl *rl) {
    EVP_CIPHER_CTX_free(rl->enc);
    EVP_CIPHER_CTX_free(rl->dec);
    rl->enc = rl->dec = NULL;
}

static void put48(unsigned char *p, uint64_t v) {
    for (int i = 5; i >= 0; i--, v >>= 8) p[i] = (unsigned char) v;
}

/* One application_data record of epoch 1 holding pt; returns its length. */
static int rl_seal(direct_rl *rl, const unsigned char *pt, int n, unsigned char *out) {
    uint64_t seq = rl->wseq++;
    unsigned char nonce[12], aad[13];
    out[0] = 23;
    out[1] = 0xFE;
    out[2] = 0xFD;
    out[3] = 0;
    out[4] = 1;
    put48(out + 5, seq);
    int flen = 8 + n + rl->tag;
    out[11] = (unsigned char) (flen >> 8);
    out[12] = (unsigned char) flen;
    memcpy(out + 13, out + 3, 8); /* explicit nonce = epoch + sequence */
    memcpy(nonce, rl->wsalt, 4);
    memcpy(nonce + 4, out + 3, 8);
    memcpy(aad, out + 3, 8);
    aad[8] = 23;
    aad[9] = 0xFE;
    aad[10] = 0xFD;
    aad[11] = (unsigned char) (n >> 8);
    aad[12] = (unsigned char) n;
    int len;
    unsigned char *ct = out + 21;
    EVP_EncryptInit_ex(rl->enc, NULL, NULL, NULL, nonce);
    if (rl->ccm) EVP_EncryptUpdate(rl->enc, NULL, &len, NULL, n);
    EVP_EncryptUpdate(rl->enc, NULL, &len, aad, 13);
    EVP_EncryptUpdate(rl->enc, ct, &len, pt, n);
    EVP_EncryptFinal_ex(rl->enc, ct + len, &len);
    EVP_CIPHER_CTX_ctrl(rl->enc, EVP_CTRL_AEAD_GET_TAG, rl->tag, ct + n);
    return 13 + flen;
}

/*
 * Opens the record at rec (in place). Returns the record's length in the datagram, or -1 if it
 * is not a whole record; pt, ptlen and type describe the plaintext, type = -1 if it did not
 * authenticate or is not of epoch 1.
 */
static int rl_open(direct_rl *rl, unsigned char *rec, int avail, unsigned char **pt, int *ptlen, int *type) {
    *type = -1;
    if (avail < 13) return -1;
    int flen = rec[11] << 8 | rec[12];
    if (13 + flen > avail) return -1;
    if (rec[3] != 0 || rec[4] != 1 || flen < 8 + rl->tag) return 13 + flen;
    int n = flen - 8 - rl->tag;
    unsigned char nonce[12], aad[13];
    memcpy(nonce, rl->rsalt, 4);
    memcpy(nonce + 4, rec + 13, 8);
    memcpy(aad, rec + 3, 8);
    aad[8] = rec[0];
    aad[9] = rec[1];
    aad[10] = rec[2];
    aad[11] = (unsigned char) (n >> 8);
    aad[12] = (unsigned char) n;
    unsigned char *ct = rec + 21, *tag = rec + 21 + n;
    int len, ok;
    if (rl->ccm) {
        EVP_CIPHER_CTX_ctrl(rl->dec, EVP_CTRL_AEAD_SET_TAG, rl->tag, tag);
        EVP_DecryptInit_ex(rl->dec, NULL, NULL, NULL, nonce);
        EVP_DecryptUpdate(rl->dec, NULL, &len, NULL, n);
        EVP_DecryptUpdate(rl->dec, NULL, &len, aad, 13);
        ok = EVP_DecryptUpdate(rl->dec, ct, &len, ct, n) > 0;
    } else {
        EVP_DecryptInit_ex(rl->dec, NULL, NULL, NULL, nonce);
        EVP_DecryptUpdate(rl->dec, NULL, &len, aad, 13);
        EVP_DecryptUpdate(rl->dec, ct, &len, ct, n);
        EVP_CIPHER_CTX_ctrl(rl->dec, EVP_CTRL_AEAD_SET_TAG, rl->tag, tag);
        ok = EVP_DecryptFinal_ex(rl->dec, ct + len, &len) > 0;
    }
    if (ok) {
        *pt = ct;
        *ptlen = n;
        *type = rec[0];
    }
    ERR_clear_error();
    return 13 + flen;
}

/* ------------------------------------------------------------------ resource use */

typedef struct { uint64_t wall; double cpu; } usage_mark;

static usage_mark usage_now(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    usage_mark m;
    m.wall = now_ns();
    m.cpu = (double) ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double) ru.ru_stime.tv_sec
            + ru.ru_stime.tv_usec / 1e6;
    return m;
}

static double usage_percent(usage_mark a, usage_mark b) {
    double wall = (double) (b.wall - a.wall) / 1e9;
    return wall > 0 ? 100.0 * (b.cpu - a.cpu) / wall : 0;
}

/* ------------------------------------------------------------------ flood */

#define FLOOD_MAX_BATCH 256

typedef struct {
    unsigned char hello[1500];
    int hello_len;
    int *fds;          /* the sockets in use: connected to dst */
    int *fds_server, *fds_sink;
    int nfds, next_fd;
    int raw;
    struct sockaddr_in dst; /* the server, or with --phases in a phase "b" the sink */
    int on;            /* with --phases: off in a phase "a" */
    uint64_t sent, base, started_ns; /* due = base + rate x time since started_ns */
    uint32_t rnd;
    /* --flood-batch > 1: prebuilt datagrams (spoof: IP + UDP + hello) and their sendmmsg vector */
    unsigned char (*pkts)[1600];
    int pkt_len;
    struct mmsghdr *msgs;
    struct iovec *iovs;
    double cpu_s; /* thread CPU time spent in flood_pump */
} flood;

/* A real ClientHello (no cookie) of this cipher list, taken from OpenSSL through a memory BIO. */
static int capture_client_hello(SSL_CTX *ctx, unsigned char *out, int cap) {
    SSL *ssl = SSL_new(ctx);
    BIO *rbio = BIO_new(BIO_s_mem()), *wbio = BIO_new(BIO_s_mem());
    BIO_set_mem_eof_return(rbio, -1);
    SSL_set_bio(ssl, rbio, wbio);
    /* a memory BIO cannot report a path MTU: without one OpenSSL writes no DTLS record at all */
    SSL_set_options(ssl, SSL_OP_NO_QUERY_MTU);
    SSL_set_mtu(ssl, 1280);
    DTLS_set_link_mtu(ssl, 1280);
    SSL_set_connect_state(ssl);
    SSL_do_handshake(ssl);
    int n = BIO_read(wbio, out, cap);
    SSL_free(ssl);
    if (n <= 0) die_ssl("could not capture a ClientHello");
    return n;
}

static uint32_t xorshift(uint32_t *s) {
    uint32_t x = *s;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    return *s = x;
}

static double thread_cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

/* IPv4 + UDP header before the hello in pkt (spoofed source filled in per datagram). */
static int spoof_headers(unsigned char *pkt, const unsigned char *hello, int hello_len, const struct sockaddr_in *dst) {
    struct iphdr *ip = (struct iphdr *) pkt;
    struct udphdr *udp = (struct udphdr *) (pkt + sizeof *ip);
    memset(pkt, 0, sizeof *ip + sizeof *udp);
    ip->ihl = 5;
    ip->version = 4;
    ip->ttl = 64;
    ip->protocol = IPPROTO_UDP;
    ip->daddr = dst->sin_addr.s_addr;
    ip->tot_len = htons((uint16_t) (sizeof *ip + sizeof *udp + hello_len));
    udp->dest = dst->sin_port;
    udp->len = htons((uint16_t) (sizeof *udp + hello_len));
    udp->check = 0; /* optional for UDP over IPv4 (RFC 768) */
    memcpy(pkt + sizeof *ip + sizeof *udp, hello, hello_len);
    return (int) (sizeof *ip + sizeof *udp) + hello_len;
}

/* A random 127.x.y.z source (never 127.0.0.1) and port in a prebuilt spoofed datagram. */
static void spoof_source(flood *f, unsigned char *pkt) {
    struct iphdr *ip = (struct iphdr *) pkt;
    struct udphdr *udp = (struct udphdr *) (pkt + sizeof *ip);
    uint32_t src = xorshift(&f->rnd);
    ip->saddr = htonl(0x7F000000u | (src & 0x00FFFFFFu) | 2u);
    udp->source = htons((uint16_t) (1024 + (xorshift(&f->rnd) % 60000)));
}

/* One socket per flood source connected to dst, each with a small receive buffer. */
static int *flood_sockets(int n, const struct sockaddr_in *dst) {
    int *fds = calloc(n, sizeof(int));
    for (int i = 0; i < n; i++) {
        fds[i] = udp_socket_to(0, dst); /* one host, many ports */
        int small = 4096; /* the HelloVerifyRequests coming back are not read */
        setsockopt(fds[i], SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    }
    return fds;
}

/* sink: with --phases, a second destination (a socket that is never read) with its own sockets. */
static void flood_init(flood *f, SSL_CTX *ctx, const struct sockaddr_in *sink) {
    memset(f, 0, sizeof *f);
    f->dst = server_addr;
    f->on = 1;
    f->hello_len = capture_client_hello(ctx, f->hello, sizeof f->hello);
    f->rnd = 0x9E3779B9u ^ (uint32_t) now_ns();
    if (opt_flood_spoof) {
        f->raw = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK, IPPROTO_RAW);
        if (f->raw < 0) die("raw socket (needs CAP_NET_RAW)");
    } else {
        f->nfds = opt_flood_sources;
        f->fds = f->fds_server = flood_sockets(f->nfds, &server_addr);
        if (sink) f->fds_sink = flood_sockets(f->nfds, sink);
    }
    if (opt_flood_batch > 1) {
        int n = opt_flood_batch;
        f->pkts = calloc(n, sizeof *f->pkts);
        f->msgs = calloc(n, sizeof *f->msgs);
        f->iovs = calloc(n, sizeof *f->iovs);
        for (int i = 0; i < n; i++) {
            f->pkt_len = opt_flood_spoof ? spoof_headers(f->pkts[i], f->hello, f->hello_len, &f->dst) : f->hello_len;
            if (!opt_flood_spoof) memcpy(f->pkts[i], f->hello, f->hello_len);
            f->iovs[i].iov_base = f->pkts[i];
            f->iovs[i].iov_len = (size_t) f->pkt_len;
            f->msgs[i].msg_hdr.msg_iov = &f->iovs[i];
            f->msgs[i].msg_hdr.msg_iovlen = 1;
            if (opt_flood_spoof) {
                f->msgs[i].msg_hdr.msg_name = &f->dst;
                f->msgs[i].msg_hdr.msg_namelen = sizeof f->dst;
            }
        }
    }
}

/* A fresh client random (32 bytes at `random`) from r: its first and its last 4 bytes, so that a
   server comparing either end of the random (Stagecoach tells a retransmission by the last 8
   bytes) sees a different hello each time, as from a flooder that draws every random. */
static void flood_fresh_random(unsigned char *random, uint32_t r) {
    memcpy(random, &r, 4);
    r = r * 2654435761u + 1;
    memcpy(random + 28, &r, 4);
}

/* One ClientHello with a fresh client random (record header 13 + handshake header 12 + version 2). */
static void flood_send_one(flood *f) {
    unsigned char *hello = f->hello;
    uint32_t r = xorshift(&f->rnd);
    if (f->hello_len > 27 + 32) flood_fresh_random(hello + 27, r);
    if (!opt_flood_spoof) {
        int fd = f->fds[f->next_fd];
        f->next_fd = (f->next_fd + 1) % f->nfds;
        if (send(fd, hello, f->hello_len, MSG_DONTWAIT) >= 0) f->sent++;
        return;
    }
    unsigned char pkt[1600];
    int len = spoof_headers(pkt, hello, f->hello_len, &f->dst);
    spoof_source(f, pkt);
    if (sendto(f->raw, pkt, len, 0, (struct sockaddr *) &f->dst, sizeof f->dst) >= 0) f->sent++;
}

/* The flood from now on aimed at dst (the server or the sink), or paused (dst NULL): from the
   same raw socket with --flood-spoof, else from the set of --flood-sources sockets connected to
   dst (the same count of source ports either way). The rate restarts from now, so a pause leaves
   no backlog to burst out. */
static void flood_aim(flood *f, const struct sockaddr_in *dst, uint64_t now) {
    f->on = dst != NULL;
    f->base = f->sent;
    f->started_ns = now;
    if (!dst) return;
    f->dst = *dst;
    if (!opt_flood_spoof) {
        f->fds = dst->sin_port == server_addr.sin_port ? f->fds_server : f->fds_sink;
        return;
    }
    for (int i = 0; f->pkts && i < opt_flood_batch; i++) {
        struct iphdr *ip = (struct iphdr *) f->pkts[i];
        struct udphdr *udp = (struct udphdr *) (f->pkts[i] + sizeof *ip);
        ip->daddr = dst->sin_addr.s_addr;
        udp->dest = dst->sin_port;
    }
}

/* Up to n prebuilt hellos in one sendmmsg: a fresh client random each, spoofed sources fresh too;
   without --flood-spoof all n from the next of the flood's sockets. Returns how many were sent. */
static int flood_send_batch(flood *f, int n) {
    int hello_at = opt_flood_spoof ? (int) (sizeof(struct iphdr) + sizeof(struct udphdr)) : 0;
    for (int i = 0; i < n; i++) {
        uint32_t r = xorshift(&f->rnd);
        if (f->hello_len > 27 + 32) flood_fresh_random(f->pkts[i] + hello_at + 27, r);
        if (opt_flood_spoof) spoof_source(f, f->pkts[i]);
    }
    int fd = opt_flood_spoof ? f->raw : f->fds[f->next_fd];
    if (!opt_flood_spoof) f->next_fd = (f->next_fd + 1) % f->nfds;
    int k = sendmmsg(fd, f->msgs, (unsigned) n, MSG_DONTWAIT);
    return k > 0 ? k : 0;
}

/* Sends what is due at opt_flood_rate since the flood started (at most 256 at once). */
static void flood_pump(flood *f, uint64_t now) {
    if (opt_flood_rate <= 0 || !f->on) return;
    double cpu0 = thread_cpu_s();
    if (f->started_ns == 0) f->started_ns = now;
    uint64_t due = f->base + (uint64_t) ((double) (now - f->started_ns) / 1e9 * opt_flood_rate);
    if (opt_flood_batch > 1) {
        /* whole batches only (the last one of a window may wait a pump), at most 4 per pump */
        for (int b = 0; b < 4 && f->sent + (uint64_t) opt_flood_batch <= due; b++) {
            int k = flood_send_batch(f, opt_flood_batch);
            f->sent += (uint64_t) k;
            if (k < opt_flood_batch) break; /* socket buffer full */
        }
    } else {
        for (int i = 0; i < 256 && f->sent < due; i++) {
            uint64_t before = f->sent;
            flood_send_one(f);
            if (f->sent == before) break; /* socket buffer full */
        }
    }
    f->cpu_s += thread_cpu_s() - cpu0;
}

/* utime + stime of a process in seconds (/proc/PID/stat fields 14 and 15); 0 if unreadable. */
static double process_cpu_s(int pid) {
    if (pid <= 0) return 0;
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *fp = fopen(path, "r");
    if (!fp) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    if (!p) return 0;
    unsigned long ut = 0, st = 0;
    /* after ")": state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15) */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2) return 0;
    return (double) (ut + st) / (double) sysconf(_SC_CLK_TCK);
}

/* ------------------------------------------------------------------ machine accounting (--phases) */

/*
 * Where the CPU time of a phase went, from the kernel's own counters: per CPU the /proc/stat
 * columns (user + nice, system, softirq, idle + iowait, steal), per CPU the packets its NET_RX
 * softirq processed (/proc/net/softnet_stat, column 1: on loopback the CPU that sent a datagram
 * runs its receive path unless RPS moves it), the UDP receive-buffer drops (/proc/net/snmp) and
 * the drops of the sockets bound to the server's and the sink's port (/proc/net/udp).
 */
#define MAX_CPUS 8
enum { C_USER, C_SYS, C_SOFTIRQ, C_IDLE, C_STEAL, C_COLS };
typedef struct {
    double cpu[MAX_CPUS][C_COLS]; /* seconds */
    uint64_t softnet[MAX_CPUS];
    uint64_t rcvbuf_errors, in_datagrams;
    uint64_t server_drops, sink_drops;
    int ncpus;
} machine_mark;

static void read_proc_stat(machine_mark *m) {
    FILE *fp = fopen("/proc/stat", "r");
    if (!fp) return;
    char line[512];
    double tick = (double) sysconf(_SC_CLK_TCK);
    while (fgets(line, sizeof line, fp)) {
        int cpu;
        unsigned long long v[10] = {0};
        if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2], &v[3], &v[4],
                &v[5], &v[6], &v[7]) < 9 || cpu < 0 || cpu >= MAX_CPUS) continue;
        m->cpu[cpu][C_USER] = (double) (v[0] + v[1]) / tick;
        m->cpu[cpu][C_SYS] = (double) v[2] / tick;
        m->cpu[cpu][C_IDLE] = (double) (v[3] + v[4]) / tick;
        m->cpu[cpu][C_SOFTIRQ] = (double) v[6] / tick;
        m->cpu[cpu][C_STEAL] = (double) v[7] / tick;
        if (cpu + 1 > m->ncpus) m->ncpus = cpu + 1;
    }
    fclose(fp);
    fp = fopen("/proc/net/softnet_stat", "r");
    for (int cpu = 0; fp && cpu < MAX_CPUS && fgets(line, sizeof line, fp); cpu++) {
        unsigned long long processed = 0;
        sscanf(line, "%llx", &processed);
        m->softnet[cpu] = processed;
    }
    if (fp) fclose(fp);
}

static void read_udp_counters(machine_mark *m) {
    FILE *fp = fopen("/proc/net/snmp", "r");
    if (!fp) return;
    char head[1024], vals[1024];
    while (fgets(head, sizeof head, fp) && fgets(vals, sizeof vals, fp)) {
        if (strncmp(head, "Udp: ", 5) != 0) continue;
        /* Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors ... */
        unsigned long long in = 0, noports, inerr, out, rcvbuf = 0;
        if (sscanf(vals, "Udp: %llu %llu %llu %llu %llu", &in, &noports, &inerr, &out, &rcvbuf) == 5) {
            m->in_datagrams = in;
            m->rcvbuf_errors = rcvbuf;
        }
        break;
    }
    fclose(fp);
}

/* Sum of the drops column of the sockets in /proc/net/udp bound to a local port. */
static uint64_t socket_drops(int port) {
    FILE *fp = fopen("/proc/net/udp", "r");
    if (!fp || port <= 0) {
        if (fp) fclose(fp);
        return 0;
    }
    char line[512];
    uint64_t sum = 0;
    (void) !fgets(line, sizeof line, fp);
    while (fgets(line, sizeof line, fp)) {
        unsigned int local_port;
        unsigned long long drops;
        /* sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ref pointer drops */
        if (sscanf(line, " %*d: %*x:%x %*x:%*x %*x %*x:%*x %*x:%*x %*x %*u %*u %*u %*u %*x %llu", &local_port, &drops) == 2
                && (int) local_port == port) sum += drops;
    }
    fclose(fp);
    return sum;
}

static machine_mark machine_now(int sink_port) {
    machine_mark m;
    memset(&m, 0, sizeof m);
    read_proc_stat(&m);
    read_udp_counters(&m);
    m.server_drops = socket_drops(opt_port);
    m.sink_drops = socket_drops(sink_port);
    return m;
}

/* The machine's counters between two marks as JSON fields (CPU columns as % of the wall time). */
static void print_machine(const machine_mark *a, const machine_mark *b, double wall) {
    static const char *names[C_COLS] = { "user", "sys", "softirq", "idle", "steal" };
    printf(",\"cpus\":[");
    for (int c = 0; c < b->ncpus; c++) {
        printf("%s{\"cpu\":%d", c ? "," : "", c);
        for (int j = 0; j < C_COLS; j++) printf(",\"%s_pct\":%.1f", names[j], 100.0 * (b->cpu[c][j] - a->cpu[c][j]) / wall);
        printf(",\"softnet_per_s\":%.0f}", (double) (b->softnet[c] - a->softnet[c]) / wall);
    }
    printf("],\"udp_in_per_s\":%.0f,\"udp_rcvbuf_errors_per_s\":%.0f,\"server_socket_drops_per_s\":%.0f,"
           "\"sink_socket_drops_per_s\":%.0f",
            (double) (b->in_datagrams - a->in_datagrams) / wall, (double) (b->rcvbuf_errors - a->rcvbuf_errors) / wall,
            (double) (b->server_drops - a->server_drops) / wall, (double) (b->sink_drops - a->sink_drops) / wall);
}

/* ------------------------------------------------------------------ load */

#define OPEN_WINDOW 8

typedef struct {
    int fd;
    SSL *ssl;
    int established;
    int attempts;
    uint16_t mid;
    uint32_t token;
    int awaiting;
    uint64_t sent_ns;
    direct_rl rl;
    /* open loop (--rate): up to OPEN_WINDOW requests outstanding, matched by token */
    int inflight;
    uint32_t open_token[OPEN_WINDOW];
    uint64_t open_sent[OPEN_WINDOW]; /* 0: slot free */
} client;

enum { WARMUP, MEASURE, DRAIN, DONE };

typedef struct {
    uint64_t completed, errors, timeouts, sent, stray, session_errors, offered, skipped;
} load_counters;

static int drive_handshake(client *c) {
    int r = SSL_do_handshake(c->ssl);
    if (r == 1) {
        c->established = 1;
        return 1;
    }
    int err = SSL_get_error(c->ssl, r);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) return 0;
    return -1;
}

static void reset_client(client *c, SSL_CTX *ctx) {
    if (c->ssl) SSL_free(c->ssl);
    if (c->fd >= 0) close(c->fd);
    c->fd = udp_socket_connected();
    c->ssl = new_client_ssl(ctx, c->fd);
    c->established = 0;
}

/* Establishes every client's session, at most opt_parallel_handshakes at a time. */
static void establish_all(client *cs, int n, SSL_CTX *ctx) {
    int ep = epoll_create1(EPOLL_CLOEXEC);
    int next = 0, running = 0, done = 0, failed = 0;
    uint64_t begin = now_ns();
    uint64_t *started = calloc(n, sizeof(uint64_t));
    struct epoll_event evs[256];
    while (done < n) {
        while (running < opt_parallel_handshakes && next < n) {
            client *c = &cs[next];
            c->fd = -1;
            c->ssl = NULL;
            reset_client(c, ctx);
            struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t) next };
            epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
            started[next] = now_ns();
            drive_handshake(c);
            next++;
            running++;
        }
        int k = epoll_wait(ep, evs, 256, 10);
        for (int i = 0; i < k; i++) {
            int id = (int) evs[i].data.u32;
            client *c = &cs[id];
            if (c->established) continue;
            int r = drive_handshake(c);
            if (r == 1) {
                epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
                running--;
                done++;
            } else if (r < 0) {
                ERR_clear_error();
                epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
                if (++c->attempts > 5) {
                    fprintf(stderr, "dtlsbench: handshake of client %d failed 5 times\n", id);
                    exit(1);
                }
                failed++;
                reset_client(c, ctx);
                struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t) id };
                epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
                started[id] = now_ns();
                drive_handshake(c);
            }
        }
        uint64_t t = now_ns();
        for (int i = 0; i < next; i++) {
            if (!cs[i].established && cs[i].ssl) DTLSv1_handle_timeout(cs[i].ssl);
        }
        if (t - begin > 120ull * 1000000000ull) {
            fprintf(stderr, "dtlsbench: %d of %d sessions established after 120 s\n", done, n);
            exit(1);
        }
    }
    close(ep);
    free(started);
    fprintf(stderr, "dtlsbench: %d sessions established in %.2f s (%d handshakes retried)\n", n,
            (double) (now_ns() - begin) / 1e9, failed);
}

static void send_request(client *c, uint64_t now, load_counters *k) {
    unsigned char buf[300];
    c->mid++;
    c->token++;
    write_request(buf, c->mid, c->token);
    c->awaiting = 1;
    c->sent_ns = now;
    k->sent++;
    if (opt_direct) {
        unsigned char rec[400];
        int n = rl_seal(&c->rl, buf, request_len, rec);
        /* a failed send is a lost request: left to time out, as a dropped datagram would be */
        (void) !send(c->fd, rec, n, MSG_DONTWAIT);
        return;
    }
    if (SSL_write(c->ssl, buf, request_len) <= 0) ERR_clear_error();
}

/* The next plaintext of the client's session; 0 when nothing is left to read now. */
static int next_plaintext(client *c, unsigned char *buf, int cap, unsigned char **pt, int *off, int *len,
        load_counters *k) {
    if (!opt_direct) {
        int r = SSL_read(c->ssl, buf, cap);
        if (r <= 0) {
            int err = SSL_get_error(c->ssl, r);
            if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) {
                k->session_errors++;
                ERR_clear_error();
            }
            return 0;
        }
        *pt = buf;
        return r;
    }
    for (;;) {
        if (*off >= *len) {
            ssize_t r = recv(c->fd, buf, cap, MSG_DONTWAIT);
            if (r <= 0) return 0;
            *off = 0;
            *len = (int) r;
        }
        int ptlen, type;
        int used = rl_open(&c->rl, buf + *off, *len - *off, pt, &ptlen, &type);
        if (used < 0) {
            *off = *len;
            continue;
        }
        *off += used;
        if (type == 23) return ptlen;
        k->session_errors++; /* an alert, a record that did not authenticate, another epoch */
    }
}

/* 0: not ours / stray; 1: success; 2: error code; 3: empty ACK (keep waiting) */
static int match_response(client *c, const unsigned char *b, int n) {
    if (n < 4 || (b[0] & 0xC0) != 0x40) return 0;
    int type = (b[0] >> 4) & 3, tkl = b[0] & 0x0F, code = b[1];
    uint16_t mid = (uint16_t) (b[2] << 8 | b[3]);
    if (!c->awaiting) return 0;
    if (code == 0) return type == 2 && mid == c->mid ? 3 : 0;
    if (tkl != TOKEN_LEN || n < 4 + TOKEN_LEN || memcmp(b + 4, &c->token, TOKEN_LEN) != 0) return 0;
    if (type == 2 && mid != c->mid) return 0;
    return (code >> 5) == 2 ? 1 : 2;
}

/* Open loop: one request on c in a free slot; 0 (nothing sent) if all OPEN_WINDOW are taken. */
static int send_open(client *c, uint64_t now, load_counters *k) {
    if (c->inflight >= OPEN_WINDOW) return 0;
    int slot = 0;
    while (c->open_sent[slot] != 0) slot++;
    c->token++;
    c->mid++;
    c->open_token[slot] = c->token;
    c->open_sent[slot] = now;
    c->inflight++;
    /* send_request keeps mid/token in c; here they were advanced already, so write directly */
    unsigned char buf[300];
    write_request(buf, c->mid, c->token);
    k->sent++;
    if (opt_direct) {
        unsigned char rec[400];
        int n = rl_seal(&c->rl, buf, request_len, rec);
        (void) !send(c->fd, rec, n, MSG_DONTWAIT);
    } else if (SSL_write(c->ssl, buf, request_len) <= 0) {
        ERR_clear_error();
    }
    return 1;
}

/* Open loop: the slot of the outstanding request this response answers, or -1 (stray, empty ACK). */
static int match_open(client *c, const unsigned char *b, int n, int *success) {
    if (n < 4 + TOKEN_LEN || (b[0] & 0xC0) != 0x40 || b[1] == 0 || (b[0] & 0x0F) != TOKEN_LEN) return -1;
    uint32_t token;
    memcpy(&token, b + 4, TOKEN_LEN);
    for (int i = 0; i < OPEN_WINDOW; i++) {
        if (c->open_sent[i] != 0 && c->open_token[i] == token) {
            *success = (b[1] >> 5) == 2;
            return i;
        }
    }
    return -1;
}

/* The counters at the start or end of a measured window. */
typedef struct {
    usage_mark u;
    uint64_t flood_sent;
    double flood_cpu, server_cpu;
    machine_mark m;
} step_mark;

static step_mark mark_now(const flood *f, int sink_port) {
    step_mark s;
    s.u = usage_now();
    s.flood_sent = opt_flood_rate > 0 ? f->sent : 0;
    s.flood_cpu = opt_flood_rate > 0 ? f->cpu_s : 0;
    s.server_cpu = process_cpu_s(opt_server_pid);
    s.m = machine_now(sink_port);
    return s;
}

/* One JSON line for a measured window [a, b]; phase 0 without --phases. */
static void print_load(const load_counters *k, const histogram *h, const step_mark *a, const step_mark *b,
        char phase, int phase_index, const char *flood_target) {
    double secs = (double) (b->u.wall - a->u.wall) / 1e9;
    if (secs <= 0) secs = opt_duration;
    printf("{\"mode\":\"load\",\"label\":\"%s\",\"clients\":%d,\"cipher\":\"%s\",\"rps\":%.0f,"
           "\"completed\":%llu,\"errors\":%llu,\"timeouts\":%llu,\"stray\":%llu,\"session_errors\":%llu,"
           "\"p50_ms\":%.3f,\"p90_ms\":%.3f,\"p99_ms\":%.3f,\"p999_ms\":%.3f,\"max_ms\":%.3f,"
           "\"generator_cpu_pct\":%.1f,\"record_layer\":\"%s\",\"flood_rate\":%.0f,\"flood_sent_per_s\":%.0f,\"flood_spoof\":%d,"
           "\"flood_batch\":%d,\"flood_cpu_pct\":%.1f,\"server_cpu_pct\":%.1f,"
           "\"open_loop_rate\":%.0f,\"offered_per_s\":%.0f,\"sent_per_s\":%.0f,\"skipped_per_s\":%.0f",
            opt_label, opt_clients, opt_cipher, (double) k->completed / secs, (unsigned long long) k->completed,
            (unsigned long long) k->errors, (unsigned long long) k->timeouts, (unsigned long long) k->stray,
            (unsigned long long) k->session_errors, h_percentile(h, 50), h_percentile(h, 90), h_percentile(h, 99),
            h_percentile(h, 99.9), (double) h->max / 1000.0, usage_percent(a->u, b->u), opt_direct ? "direct" : "openssl",
            opt_flood_rate, (double) (b->flood_sent - a->flood_sent) / secs, opt_flood_spoof, opt_flood_batch,
            100.0 * (b->flood_cpu - a->flood_cpu) / secs,
            opt_server_pid > 0 ? 100.0 * (b->server_cpu - a->server_cpu) / secs : -1,
            opt_rate, (double) k->offered / secs, (double) k->sent / secs, (double) k->skipped / secs);
    if (phase) printf(",\"phase\":\"%c\",\"phase_index\":%d,\"flood_target\":\"%s\",\"seconds\":%.2f", phase,
            phase_index, flood_target, secs);
    print_machine(&a->m, &b->m, secs);
    printf("}\n");
    fflush(stdout);
}

/* A socket bound beside the server (same address, any port) that is never read: with --phases,
   the flood's target in a phase "b". Its receive buffer is the smallest the kernel allows, so
   the flood's datagrams are dropped at its queue; returns the port. */
static int open_sink(int *fd_out) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) die("sink socket");
    int small = 1;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    struct sockaddr_in a = server_addr;
    a.sin_port = 0;
    if (bind(fd, (struct sockaddr *) &a, sizeof a) < 0) die("bind the sink");
    socklen_t len = sizeof a;
    getsockname(fd, (struct sockaddr *) &a, &len);
    *fd_out = fd;
    return ntohs(a.sin_port);
}

/* --phases: "a" no flood, "b" the flood aimed at the sink, "c" the flood aimed at the server. */
static const struct sockaddr_in *phase_target(char phase, const struct sockaddr_in *sink) {
    return phase == 'c' ? &server_addr : phase == 'b' ? sink : NULL;
}

static const char *phase_target_name(char phase) {
    return phase == 'c' ? "server" : phase == 'b' ? "sink" : "none";
}

static int run_load(void) {
    SSL_CTX *ctx = client_ctx();
    client *cs = calloc(opt_clients, sizeof(client));
    for (int i = 0; i < opt_clients; i++) {
        cs[i].mid = (uint16_t) rand();
        cs[i].token = (uint32_t) rand() << 8;
    }
    establish_all(cs, opt_clients, ctx);
    for (int i = 0; opt_direct && i < opt_clients; i++) {
        if (!rl_init(&cs[i].rl, cs[i].ssl, 0)) exit(1);
    }
    /* --phases: the letters a, b, c (other characters ignored), each a window of --duration */
    char phases[512];
    int nphases = 0;
    for (const char *q = opt_phases; q && *q; q++) {
        if (*q != 'a' && *q != 'b' && *q != 'c') continue;
        if (nphases == (int) sizeof phases) {
            fprintf(stderr, "dtlsbench: --phases has more than %d windows\n", (int) sizeof phases);
            exit(2);
        }
        phases[nphases++] = *q;
    }
    if (opt_phases && (nphases == 0 || opt_flood_rate <= 0)) {
        fprintf(stderr, "dtlsbench: --phases needs letters a, b, c and a --flood-rate\n");
        exit(2);
    }
    struct sockaddr_in sink = server_addr;
    int sink_fd = -1, sink_port = 0;
    if (nphases > 0) {
        sink_port = open_sink(&sink_fd);
        sink.sin_port = htons((uint16_t) sink_port);
    }
    flood fl;
    memset(&fl, 0, sizeof fl);
    if (opt_flood_rate > 0) flood_init(&fl, ctx, nphases > 0 ? &sink : NULL);

    int ep = epoll_create1(EPOLL_CLOEXEC);
    for (int i = 0; i < opt_clients; i++) {
        struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &cs[i] };
        epoll_ctl(ep, EPOLL_CTL_ADD, cs[i].fd, &ev);
    }
    histogram *h = calloc(1, sizeof(histogram));
    load_counters warm = {0}, meas = {0};
    load_counters *k = &warm;
    uint64_t begin = now_ns();
    uint64_t t_measure = begin + (uint64_t) (opt_warmup * 1e9);
    uint64_t phase_ns = (uint64_t) (opt_duration * 1e9);
    uint64_t t_drain = t_measure + phase_ns * (uint64_t) (nphases > 0 ? nphases : 1);
    uint64_t t_done = t_drain + 1000000000ull;
    uint64_t timeout_ns = (uint64_t) (opt_timeout * 1e9);
    uint64_t ramp_ns = opt_warmup > 2 ? 1000000000ull : (uint64_t) (opt_warmup * 1e9 / 2);
    int started = 0, phase = WARMUP;
    uint64_t next_scan = begin + 10000000ull;
    step_mark m0, m1;
    memset(&m0, 0, sizeof m0);
    memset(&m1, 0, sizeof m1);
    int cur = 0; /* --phases: the phase running */
    struct epoll_event evs[1024];
    unsigned char rbuf[2048];
    int open_loop = opt_rate > 0;
    uint64_t open_due_from = begin, open_offered = 0; /* requests due since begin (open loop) */
    int open_next = 0;
    while (phase != DONE) {
        uint64_t now = now_ns();
        if (phase == WARMUP && now >= t_measure) {
            phase = MEASURE;
            k = &meas;
            m0 = mark_now(&fl, sink_port);
            if (nphases > 0) flood_aim(&fl, phase_target(phases[0], &sink), now_ns());
        } else if (phase == MEASURE && nphases > 0 && cur + 1 < nphases && now >= t_measure + phase_ns * (uint64_t) (cur + 1)) {
            /* the next phase: the window so far is printed, the load goes on over the same sessions */
            m1 = mark_now(&fl, sink_port);
            print_load(&meas, h, &m0, &m1, phases[cur], cur, phase_target_name(phases[cur]));
            memset(&meas, 0, sizeof meas);
            memset(h, 0, sizeof *h);
            cur++;
            /* the marks read /proc for some ms: the flood's schedule restarts after them, not before */
            m0 = mark_now(&fl, sink_port);
            flood_aim(&fl, phase_target(phases[cur], &sink), now_ns());
        } else if (phase == MEASURE && now >= t_drain) {
            phase = DRAIN;
            m1 = mark_now(&fl, sink_port);
        } else if (phase == DRAIN && now >= t_done) {
            phase = DONE;
            break;
        }
        if (!open_loop && phase == WARMUP && started < opt_clients) {
            uint64_t due = ramp_ns == 0 ? (uint64_t) opt_clients
                    : (uint64_t) ((double) (now - begin) / (double) ramp_ns * opt_clients) + 1;
            for (; started < opt_clients && (uint64_t) started < due; started++) send_request(&cs[started], now, k);
        }
        if (open_loop && (phase == WARMUP || phase == MEASURE)) {
            started = opt_clients;
            uint64_t due = (uint64_t) ((double) (now - open_due_from) / 1e9 * opt_rate);
            /* a generator more than 100 ms behind its schedule skips the rest: counted, never sent late */
            uint64_t behind_cap = (uint64_t) (opt_rate / 10) + 1;
            if (due > open_offered + behind_cap) {
                k->skipped += due - open_offered - behind_cap;
                k->offered += due - open_offered - behind_cap;
                open_offered = due - behind_cap;
            }
            /* at most 256 per pass, so a generator catching up sends no burst that queues at the server */
            for (int i = 0; i < 256 && open_offered < due; i++) {
                client *c = &cs[open_next];
                open_next = (open_next + 1) % opt_clients;
                open_offered++;
                k->offered++;
                if (!send_open(c, now, k)) k->skipped++; /* the session's window is full */
            }
        }
        if (opt_flood_rate > 0 && phase != DRAIN) flood_pump(&fl, now);
        int wait = (opt_flood_rate > 0 || open_loop || started < opt_clients) ? 1 : 10;
        int n = epoll_wait(ep, evs, 1024, wait);
        for (int i = 0; i < n; i++) {
            client *c = evs[i].data.ptr;
            int off = 0, len = 0;
            for (;;) {
                unsigned char *pt;
                int r = next_plaintext(c, rbuf, sizeof rbuf, &pt, &off, &len, k);
                if (r <= 0) break;
                uint64_t t = now_ns();
                if (open_loop) {
                    int ok = 0, slot = match_open(c, pt, r, &ok);
                    if (slot < 0) {
                        if (!(r >= 2 && pt[1] == 0)) k->stray++; /* an empty ACK is no stray */
                        continue;
                    }
                    if (ok) {
                        k->completed++;
                        if (phase == MEASURE) h_record(h, (t - c->open_sent[slot]) / 1000);
                    } else {
                        k->errors++;
                    }
                    c->open_sent[slot] = 0;
                    c->inflight--;
                    continue;
                }
                int m = match_response(c, pt, r);
                if (m == 0) {
                    k->stray++;
                    continue;
                }
                if (m == 3) continue;
                c->awaiting = 0;
                if (m == 1) {
                    k->completed++;
                    if (phase == MEASURE) h_record(h, (t - c->sent_ns) / 1000);
                } else {
                    k->errors++;
                }
                if (phase == WARMUP || phase == MEASURE) send_request(c, t, k);
            }
        }
        now = now_ns();
        if (now >= next_scan) {
            next_scan = now + 10000000ull;
            for (int i = 0; i < started; i++) {
                client *c = &cs[i];
                if (open_loop) {
                    for (int j = 0; j < OPEN_WINDOW; j++) {
                        if (c->open_sent[j] != 0 && now - c->open_sent[j] > timeout_ns) {
                            c->open_sent[j] = 0;
                            c->inflight--;
                            k->timeouts++;
                        }
                    }
                    continue;
                }
                if (c->awaiting && now - c->sent_ns > timeout_ns) {
                    c->awaiting = 0;
                    k->timeouts++;
                    if (phase == WARMUP || phase == MEASURE) send_request(c, now, k);
                }
            }
            if (phase == DRAIN) {
                int busy = 0;
                for (int i = 0; i < started && !busy; i++) busy = open_loop ? cs[i].inflight > 0 : cs[i].awaiting;
                if (!busy) phase = DONE;
            }
        }
    }
    print_load(&meas, h, &m0, &m1, nphases > 0 ? phases[cur] : 0, cur, nphases > 0 ? phase_target_name(phases[cur]) : "");
    if (sink_fd >= 0) close(sink_fd);
    return 0;
}

/* ------------------------------------------------------------------ handshakes */

typedef struct {
    int fd;
    SSL *ssl;
    uint64_t started;
    int state; /* 0 handshaking, 1 waiting for the GET's answer */
    uint16_t mid;
    uint32_t token;
} slot;

static void slot_start(slot *s, SSL_CTX *ctx, int ep, int id) {
    s->fd = udp_socket_connected();
    s->ssl = new_client_ssl(ctx, s->fd);
    s->started = now_ns();
    s->state = 0;
    struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t) id };
    epoll_ctl(ep, EPOLL_CTL_ADD, s->fd, &ev);
    SSL_do_handshake(s->ssl);
}

static void slot_end(slot *s, int ep, int graceful) {
    epoll_ctl(ep, EPOLL_CTL_DEL, s->fd, NULL);
    if (graceful && !opt_no_close) SSL_shutdown(s->ssl); /* close_notify, so that the server can forget it */
    SSL_free(s->ssl);
    close(s->fd);
    ERR_clear_error();
}

static int run_handshakes(void) {
    SSL_CTX *ctx = client_ctx();
    int n = opt_clients;
    slot *ss = calloc(n, sizeof(slot));
    int ep = epoll_create1(EPOLL_CLOEXEC);
    for (int i = 0; i < n; i++) {
        ss[i].mid = (uint16_t) rand();
        slot_start(&ss[i], ctx, ep, i);
    }
    histogram *h = calloc(1, sizeof(histogram));
    uint64_t begin = now_ns();
    uint64_t t_measure = begin + (uint64_t) (opt_warmup * 1e9);
    uint64_t t_end = t_measure + (uint64_t) (opt_duration * 1e9);
    uint64_t done = 0, failed = 0, timeouts = 0, gets = 0, total_ok = 0;
    uint64_t attempt_timeout = (uint64_t) (opt_timeout * 1e9);
    usage_mark u0 = {0}, u1;
    int measuring = 0;
    struct epoll_event evs[256];
    uint64_t next_scan = begin;
    unsigned char buf[2048];
    for (;;) {
        uint64_t now = now_ns();
        if (!measuring && now >= t_measure) {
            measuring = 1;
            done = failed = timeouts = gets = 0;
            memset(h, 0, sizeof *h);
            u0 = usage_now();
        }
        if (now >= t_end) break;
        if (opt_max_handshakes > 0 && total_ok >= (uint64_t) opt_max_handshakes) break;
        int k = epoll_wait(ep, evs, 256, 5);
        for (int i = 0; i < k; i++) {
            int id = (int) evs[i].data.u32;
            slot *s = &ss[id];
            if (s->state == 0) {
                int r = SSL_do_handshake(s->ssl);
                if (r == 1) {
                    uint64_t t = now_ns();
                    done++;
                    total_ok++;
                    h_record(h, (t - s->started) / 1000);
                    if (opt_get_after_handshake) {
                        s->state = 1;
                        s->mid++;
                        s->token++;
                        write_request(buf, s->mid, s->token);
                        SSL_write(s->ssl, buf, request_len);
                    } else {
                        slot_end(s, ep, 1);
                        slot_start(s, ctx, ep, id);
                    }
                } else {
                    int err = SSL_get_error(s->ssl, r);
                    if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) {
                        failed++;
                        slot_end(s, ep, 0);
                        slot_start(s, ctx, ep, id);
                    }
                }
            } else {
                int r = SSL_read(s->ssl, buf, sizeof buf);
                if (r > 0) {
                    gets++;
                    slot_end(s, ep, 1);
                    slot_start(s, ctx, ep, id);
                }
            }
        }
        now = now_ns();
        if (now >= next_scan) {
            next_scan = now + 20000000ull;
            for (int i = 0; i < n; i++) {
                slot *s = &ss[i];
                if (now - s->started > attempt_timeout) {
                    timeouts++;
                    slot_end(s, ep, 0);
                    slot_start(s, ctx, ep, i);
                } else if (s->state == 0) {
                    DTLSv1_handle_timeout(s->ssl);
                }
            }
        }
    }
    u1 = usage_now();
    printf("{\"mode\":\"handshakes\",\"label\":\"%s\",\"clients\":%d,\"cipher\":\"%s\",\"handshakes_per_s\":%.0f,"
           "\"handshakes\":%llu,\"failed\":%llu,\"timeouts\":%llu,\"gets\":%llu,\"p50_ms\":%.3f,\"p99_ms\":%.3f,"
           "\"max_ms\":%.3f,\"generator_cpu_pct\":%.1f}\n",
            opt_label, n, opt_cipher, (double) done / opt_duration, (unsigned long long) done,
            (unsigned long long) failed, (unsigned long long) timeouts, (unsigned long long) gets,
            h_percentile(h, 50), h_percentile(h, 99), (double) h->max / 1000.0, usage_percent(u0, u1));
    fflush(stdout);
    return 0;
}

/* ------------------------------------------------------------------ echo server */

/*
 * One socket, peers told apart by address: OpenSSL runs each handshake over memory BIOs (with
 * its cookie exchange), then the session's records go through the direct record layer (or
 * SSL_read/SSL_write with --record-layer openssl). Datagrams are read and written in batches
 * (recvmmsg/sendmmsg). Not hardened: a benchmark counterpart, never a server.
 */
static unsigned char cookie_secret[32];

typedef struct echo_peer {
    uint64_t key;
    struct sockaddr_in addr;
    SSL *ssl;
    int established;
    direct_rl rl;
} echo_peer;

#define PEER_SLOTS (1 << 18)
static echo_peer **peers;

static uint64_t peer_key(const struct sockaddr_in *a) {
    return (uint64_t) ntohl(a->sin_addr.s_addr) << 16 | ntohs(a->sin_port);
}

static echo_peer **peer_slot(uint64_t key) {
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    for (uint32_t i = (uint32_t) (h >> 46);; i = (i + 1) & (PEER_SLOTS - 1)) {
        if (peers[i] == NULL || peers[i]->key == key) return &peers[i];
    }
}

static int cookie_of(SSL *ssl, unsigned char *out) {
    echo_peer *p = SSL_get_app_data(ssl);
    unsigned char in[sizeof cookie_secret + 8], md[EVP_MAX_MD_SIZE];
    unsigned int n;
    memcpy(in, cookie_secret, sizeof cookie_secret);
    memcpy(in + sizeof cookie_secret, &p->key, 8);
    if (!EVP_Digest(in, sizeof in, md, &n, EVP_sha256(), NULL)) return 0;
    memcpy(out, md, 16);
    return 1;
}

static int gen_cookie(SSL *ssl, unsigned char *cookie, unsigned int *len) {
    *len = 16;
    return cookie_of(ssl, cookie);
}

static int verify_cookie(SSL *ssl, const unsigned char *cookie, unsigned int len) {
    unsigned char want[16];
    return len == 16 && cookie_of(ssl, want) && CRYPTO_memcmp(want, cookie, 16) == 0;
}

/* Answers a CON/NON request piggybacked: ACK 2.05, Content-Format text/plain, "hello world". */
static int coap_answer(const unsigned char *req, int n, unsigned char *out) {
    if (n < 4 || (req[0] & 0xC0) != 0x40) return 0;
    int tkl = req[0] & 0x0F;
    if (tkl > 8 || n < 4 + tkl) return 0;
    int type = (req[0] >> 4) & 3;
    out[0] = (unsigned char) (0x40 | (type == 0 ? 2 : 1) << 4 | tkl);
    out[1] = 0x45;
    out[2] = req[2];
    out[3] = req[3];
    memcpy(out + 4, req + 4, tkl);
    int p = 4 + tkl;
    out[p++] = 0xC0; /* Content-Format (12), length 0 = text/plain */
    out[p++] = 0xFF;
    memcpy(out + p, "hello world", 11);
    return p + 11;
}

#define BATCH 64
static struct mmsghdr out_msgs[BATCH];
static struct iovec out_iov[BATCH];
static unsigned char out_buf[BATCH][2048];
static int out_count;
static int echo_fd;

static void flush_out(void) {
    int off = 0;
    while (off < out_count) {
        int r = sendmmsg(echo_fd, out_msgs + off, out_count - off, 0);
        if (r <= 0) break; /* a full buffer drops the rest: UDP */
        off += r;
    }
    out_count = 0;
}

static unsigned char *out_slot(const struct sockaddr_in *to) {
    if (out_count == BATCH) flush_out();
    struct mmsghdr *m = &out_msgs[out_count];
    memset(m, 0, sizeof *m);
    m->msg_hdr.msg_name = (void *) to;
    m->msg_hdr.msg_namelen = sizeof *to;
    m->msg_hdr.msg_iov = &out_iov[out_count];
    m->msg_hdr.msg_iovlen = 1;
    out_iov[out_count].iov_base = out_buf[out_count];
    return out_buf[out_count];
}

static void out_commit(int len) {
    out_iov[out_count].iov_len = (size_t) len;
    out_count++;
}

/* Whatever OpenSSL wrote for the peer goes out as one datagram. */
static void drain_wbio(echo_peer *p) {
    BIO *w = SSL_get_wbio(p->ssl);
    while (BIO_ctrl_pending(w) > 0) {
        unsigned char *o = out_slot(&p->addr);
        int n = BIO_read(w, o, 2048);
        if (n <= 0) break;
        out_commit(n);
    }
}

static void drop_peer(echo_peer **slot) {
    echo_peer *p = *slot;
    SSL_free(p->ssl);
    if (p->rl.enc) rl_free(&p->rl);
    free(p);
    *slot = NULL;
    /* re-insert the following cluster (linear probing) */
    uint32_t i = (uint32_t) (slot - peers);
    for (i = (i + 1) & (PEER_SLOTS - 1); peers[i]; i = (i + 1) & (PEER_SLOTS - 1)) {
        echo_peer *q = peers[i];
        peers[i] = NULL;
        *peer_slot(q->key) = q;
    }
}

static void echo_datagram(SSL_CTX *ctx, unsigned char *d, int n, const struct sockaddr_in *from) {
    uint64_t key = peer_key(from);
    echo_peer **slot = peer_slot(key);
    echo_peer *p = *slot;
    if (p != NULL && p->established && d[0] == 22 && d[3] == 0 && d[4] == 0) {
        drop_peer(slot); /* a new ClientHello from a known address: a new handshake */
        slot = peer_slot(key);
        p = NULL;
    }
    if (p == NULL) {
        if (n < 13 || d[0] != 22) return;
        p = calloc(1, sizeof *p);
        p->key = key;
        p->addr = *from;
        p->ssl = SSL_new(ctx);
        SSL_set_app_data(p->ssl, p);
        BIO *r = BIO_new(BIO_s_mem()), *w = BIO_new(BIO_s_mem());
        BIO_set_mem_eof_return(r, -1);
        SSL_set_bio(p->ssl, r, w);
        SSL_set_mtu(p->ssl, 1280);
        DTLS_set_link_mtu(p->ssl, 1280);
        SSL_set_options(p->ssl, SSL_OP_COOKIE_EXCHANGE);
        SSL_set_accept_state(p->ssl);
        *slot = p;
    }
    unsigned char answer[256];
    if (!p->established) {
        BIO_write(SSL_get_rbio(p->ssl), d, n);
        int a = SSL_do_handshake(p->ssl);
        drain_wbio(p);
        if (a == 1) {
            p->established = 1;
            if (opt_direct && !rl_init(&p->rl, p->ssl, 1)) exit(1);
        } else {
            int err = SSL_get_error(p->ssl, a);
            if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) {
                ERR_clear_error();
                drop_peer(slot);
            }
        }
        return;
    }
    if (!opt_direct) {
        BIO_write(SSL_get_rbio(p->ssl), d, n);
        unsigned char in[2048];
        for (;;) {
            int r = SSL_read(p->ssl, in, sizeof in);
            if (r <= 0) {
                int err = SSL_get_error(p->ssl, r);
                if (err == SSL_ERROR_ZERO_RETURN || (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE)) {
                    SSL_shutdown(p->ssl);
                    drain_wbio(p);
                    ERR_clear_error();
                    drop_peer(slot);
                    return;
                }
                break;
            }
            int m = coap_answer(in, r, answer);
            if (m > 0) SSL_write(p->ssl, answer, m);
        }
        drain_wbio(p);
        return;
    }
    for (int off = 0; off < n;) {
        unsigned char *pt;
        int ptlen, type;
        int used = rl_open(&p->rl, d + off, n - off, &pt, &ptlen, &type);
        if (used < 0) break;
        off += used;
        if (type == 23) {
            int m = coap_answer(pt, ptlen, answer);
            if (m > 0) out_commit(rl_seal(&p->rl, answer, m, out_slot(&p->addr)));
        } else if (type == 21) {
            drop_peer(slot); /* close_notify or fatal alert */
            return;
        }
    }
}

static int run_echo(void) {
    RAND_bytes(cookie_secret, sizeof cookie_secret);
    peers = calloc(PEER_SLOTS, sizeof(echo_peer *));
    SSL_CTX *ctx = SSL_CTX_new(DTLS_server_method());
    SSL_CTX_set_min_proto_version(ctx, DTLS1_2_VERSION);
    SSL_CTX_set_max_proto_version(ctx, DTLS1_2_VERSION);
    if (SSL_CTX_set_cipher_list(ctx, opt_cipher) != 1) die_ssl("cipher list");
    SSL_CTX_set_psk_server_callback(ctx, psk_server_cb);
    SSL_CTX_set_cookie_generate_cb(ctx, gen_cookie);
    SSL_CTX_set_cookie_verify_cb(ctx, verify_cookie);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET | SSL_OP_NO_QUERY_MTU);
    echo_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int buf = 4 << 20;
    setsockopt(echo_fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
    setsockopt(echo_fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
    if (bind(echo_fd, (struct sockaddr *) &server_addr, sizeof server_addr) < 0) die("bind");
    fprintf(stderr, "dtlsbench echo: DTLS on %s:%d, %s, record layer %s\n", opt_host, opt_port, opt_cipher,
            opt_direct ? "direct" : "openssl");
    static struct mmsghdr msgs[BATCH];
    static struct iovec iov[BATCH];
    static struct sockaddr_in from[BATCH];
    static unsigned char in[BATCH][2048];
    for (;;) {
        for (int i = 0; i < BATCH; i++) {
            memset(&msgs[i], 0, sizeof msgs[i]);
            iov[i].iov_base = in[i];
            iov[i].iov_len = sizeof in[i];
            msgs[i].msg_hdr.msg_iov = &iov[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
            msgs[i].msg_hdr.msg_name = &from[i];
            msgs[i].msg_hdr.msg_namelen = sizeof from[i];
        }
        int n = recvmmsg(echo_fd, msgs, BATCH, MSG_WAITFORONE, NULL);
        if (n < 0) {
            if (errno == EINTR) continue;
            die("recvmmsg");
        }
        for (int i = 0; i < n; i++) echo_datagram(ctx, in[i], (int) msgs[i].msg_len, &from[i]);
        flush_out();
    }
    return 0;
}

/* ------------------------------------------------------------------ probe */

/* One handshake and one GET within --timeout; exit 0 if a 2.xx came back (for scripts). */
static int run_probe(void) {
    SSL_CTX *ctx = client_ctx();
    int fd = udp_socket_connected();
    SSL *ssl = new_client_ssl(ctx, fd);
    uint64_t deadline = now_ns() + (uint64_t) (opt_timeout * 1e9);
    unsigned char buf[2048];
    int state = 0;
    while (now_ns() < deadline) {
        if (state == 0) {
            int r = SSL_do_handshake(ssl);
            if (r == 1) {
                write_request(buf, 1, 0x01020304);
                if (SSL_write(ssl, buf, request_len) <= 0) return 1;
                state = 1;
                continue;
            }
            int err = SSL_get_error(ssl, r);
            if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) return 1;
        } else {
            int r = SSL_read(ssl, buf, sizeof buf);
            if (r > 1) return (buf[1] >> 5) == 2 ? 0 : 1;
        }
        usleep(2000);
        if (state == 0) DTLSv1_handle_timeout(ssl);
    }
    return 1;
}

/* ------------------------------------------------------------------ main */

static void usage(void) {
    fprintf(stderr,
        "usage: dtlsbench load|handshakes|echo|probe [options]\n"
        "  --host ADDR (127.0.0.1) --port N (5684) --psk-identity ID (bench) --psk-key HEX (required)\n"
        "  --cipher OPENSSL-NAME (PSK-AES128-CCM8) --path SEGMENTS (benchmark)\n"
        "  --clients N (100) --warmup S (5) --duration S (20) --timeout S (10) --label TEXT\n"
        "  --record-layer direct|openssl (direct: OpenSSL's keys and AEAD, records framed here)\n"
        "  --source-ips N (0: clients bind to 127.0.0.2 .. 127.0.0.N+1 in turn; loopback servers only)\n"
        "  load:       --parallel-handshakes N (32) --flood-rate PER_S (0 = none) --flood-sources N (1000)\n"
        "              --flood-spoof (random 127/8 sources over a raw socket)\n"
        "              --flood-batch N (1: one send per hello; up to 256: prebuilt hellos, N per sendmmsg)\n"
        "              --rate PER_S (open loop at that offered rate; 0 = closed loop)\n"
        "              --server-pid PID (report that process's CPU use over the measured window)\n"
        "              --phases \"a b c b c ...\" (after the warm-up, one window of --duration per letter over the\n"
        "                same sessions: a no flood, b the flood aimed at a sink socket beside the server\n"
        "                that is never read, c the flood aimed at the server; one result line per window)\n"
        "  handshakes: --no-close (no close_notify) --get (one GET per session before closing)\n"
        "              --max-handshakes N (stop after N completed, warm-up included; with --no-close: N sessions left)\n");
    exit(2);
}

int main(int argc, char **argv) {
    if (argc < 2) usage();
    const char *mode = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define ARG(name) (strcmp(a, name) == 0 && (v || (usage(), 0)) && ++i)
        if (ARG("--host")) opt_host = v;
        else if (ARG("--port")) opt_port = atoi(v);
        else if (ARG("--psk-identity")) opt_identity = v;
        else if (ARG("--psk-key")) parse_key(v);
        else if (ARG("--cipher")) opt_cipher = v;
        else if (ARG("--path")) opt_path = v;
        else if (ARG("--clients")) opt_clients = atoi(v);
        else if (ARG("--warmup")) opt_warmup = atof(v);
        else if (ARG("--duration")) opt_duration = atof(v);
        else if (ARG("--timeout")) opt_timeout = atof(v);
        else if (ARG("--label")) opt_label = v;
        else if (ARG("--parallel-handshakes")) opt_parallel_handshakes = atoi(v);
        else if (ARG("--flood-rate")) opt_flood_rate = atof(v);
        else if (ARG("--flood-sources")) opt_flood_sources = atoi(v);
        else if (strcmp(a, "--flood-spoof") == 0) opt_flood_spoof = 1;
        else if (ARG("--flood-batch")) opt_flood_batch = atoi(v);
        else if (ARG("--phases")) opt_phases = v;
        else if (ARG("--rate")) opt_rate = atof(v);
        else if (ARG("--server-pid")) opt_server_pid = atoi(v);
        else if (strcmp(a, "--no-close") == 0) opt_no_close = 1;
        else if (strcmp(a, "--get") == 0) opt_get_after_handshake = 1;
        else if (ARG("--record-layer")) opt_direct = strcmp(v, "openssl") != 0;
        else if (ARG("--source-ips")) opt_source_ips = atoi(v);
        else if (ARG("--max-handshakes")) opt_max_handshakes = atol(v);
        else usage();
    }
    if (opt_flood_batch < 1 || opt_flood_batch > FLOOD_MAX_BATCH) {
        fprintf(stderr, "dtlsbench: --flood-batch must be 1..%d\n", FLOOD_MAX_BATCH);
        exit(2);
    }
    if (opt_key_len == 0) {
        fprintf(stderr, "dtlsbench: --psk-key is required\n");
        exit(2);
    }
    memset(&server_addr, 0, sizeof server_addr);
    server_addr.sin_family = AF_INET;
    server_addr.sin_port = htons((uint16_t) opt_port);
    if (inet_pton(AF_INET, opt_host, &server_addr.sin_addr) != 1) {
        fprintf(stderr, "dtlsbench: --host must be an IPv4 address\n");
        exit(2);
    }
    struct rlimit rl = { 65536, 65536 };
    setrlimit(RLIMIT_NOFILE, &rl);
    srand((unsigned) now_ns());
    build_request();
    if (strcmp(mode, "load") == 0) return run_load();
    if (strcmp(mode, "handshakes") == 0) return run_handshakes();
    if (strcmp(mode, "echo") == 0) return run_echo();
    if (strcmp(mode, "probe") == 0) return run_probe();
    usage();
    return 2;
}
