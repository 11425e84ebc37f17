/*
 * udp-echo: the fastest CoAP "server" this machine can run, the ceiling for every server we
 * measure. One thread, one UDP socket, up to BATCH datagrams per system call: recvmmsg(2) takes
 * what the socket holds, sendmmsg(2) sends all answers at once. No state, no URI check.
 *
 * Answers (as io.stagecoach.bench.echo.EchoServer, RFC 7252 sections 3, 4.2, 4.3, 5.2):
 *   CON GET/FETCH -> piggybacked ACK 2.05 Content, same MID and token, Content-Format 0, "hello world"
 *   CON other     -> ACK 2.04 Changed
 *   NON request   -> NON response with a MID of its own
 *   Empty CON     -> RST; anything else is dropped.
 *
 * Benchmark tool only: built on demand by NativeTools with gcc, never part of the product or CI.
 *
 *   udp-echo --bind 127.0.0.1 --port 5683 [--batch 64]
 *
 * --batch 1 uses recvfrom/sendto, one system call per datagram (what a JDK DatagramChannel does).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_BATCH 1024
#define MAX_DATAGRAM 2048

static const char HELLO[] = "hello world";

/* Builds the answer to in[0..n) into out; returns its length, 0 when nothing is to be sent. */
static int answer(const uint8_t *in, int n, uint8_t *out, unsigned *next_mid) {
    if (n < 4 || (in[0] & 0xC0) != 0x40) {
        return 0;
    }
    int type = (in[0] >> 4) & 0x3;
    int tkl = in[0] & 0x0F;
    int code = in[1];
    if (tkl > 8 || n < 4 + tkl) {
        return 0;
    }
    if (code == 0) {
        if (type != 0) {
            return 0;
        }
        out[0] = 0x70;
        out[1] = 0;
        out[2] = in[2];
        out[3] = in[3];
        return 4;
    }
    if ((code >> 5) != 0 || type > 1) {
        return 0;
    }
    int content = code == 1 || code == 5;
    int reply_type = type == 0 ? 2 : 1;
    out[0] = (uint8_t) (0x40 | reply_type << 4 | tkl);
    out[1] = (uint8_t) (content ? 0x45 : 0x44);
    if (type == 0) {
        out[2] = in[2];
        out[3] = in[3];
    } else {
        unsigned mid = (*next_mid)++ & 0xFFFF;
        out[2] = (uint8_t) (mid >> 8);
        out[3] = (uint8_t) mid;
    }
    memcpy(out + 4, in + 4, (size_t) tkl);
    int len = 4 + tkl;
    if (content) {
        out[len++] = 0xC0; /* Content-Format (12) = 0, zero-length value */
        out[len++] = 0xFF;
        memcpy(out + len, HELLO, sizeof HELLO - 1);
        len += (int) sizeof HELLO - 1;
    }
    return len;
}

int main(int argc, char **argv) {
    const char *bind_addr = "127.0.0.1";
    int port = 5683;
    int batch = 64;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bind") && i + 1 < argc) {
            bind_addr = argv[++i];
        } else if (!strcmp(argv[i], "--port") && i + 1 < argc) {
            port = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--batch") && i + 1 < argc) {
            batch = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: udp-echo [--bind ADDR] [--port N] [--batch 1..%d]\n", MAX_BATCH);
            return 2;
        }
    }
    if (batch < 1 || batch > MAX_BATCH) {
        fprintf(stderr, "udp-echo: --batch must be 1..%d\n", MAX_BATCH);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) {
        perror("socket");
        return 1;
    }
    int size = 4 << 20; /* as the Java servers: the kernel caps it at net.core.rmem_max */
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t) port)};
    if (inet_pton(AF_INET, bind_addr, &addr.sin_addr) != 1) {
        fprintf(stderr, "udp-echo: bad address %s\n", bind_addr);
        return 2;
    }
    if (bind(fd, (struct sockaddr *) &addr, sizeof addr) < 0) {
        perror("bind");
        return 1;
    }
    fprintf(stderr, "udp-echo on udp %s:%d, batch %d (%s)\n", bind_addr, port, batch,
            batch > 1 ? "recvmmsg/sendmmsg" : "recvfrom/sendto");

    static uint8_t in[MAX_BATCH][MAX_DATAGRAM];
    static uint8_t out[MAX_BATCH][MAX_DATAGRAM];
    static struct sockaddr_in peers[MAX_BATCH];
    static struct iovec rx_iov[MAX_BATCH], tx_iov[MAX_BATCH];
    static struct mmsghdr rx[MAX_BATCH], tx[MAX_BATCH];
    unsigned next_mid = (unsigned) getpid();
    for (int i = 0; i < batch; i++) {
        rx_iov[i].iov_base = in[i];
        rx_iov[i].iov_len = MAX_DATAGRAM;
        rx[i].msg_hdr.msg_iov = &rx_iov[i];
        rx[i].msg_hdr.msg_iovlen = 1;
        rx[i].msg_hdr.msg_name = &peers[i];
        tx_iov[i].iov_base = out[i];
        tx[i].msg_hdr.msg_iov = &tx_iov[i];
        tx[i].msg_hdr.msg_iovlen = 1;
    }
    for (;;) {
        if (batch == 1) {
            socklen_t alen = sizeof peers[0];
            ssize_t n = recvfrom(fd, in[0], MAX_DATAGRAM, 0, (struct sockaddr *) &peers[0], &alen);
            if (n < 0) {
                if (errno == EINTR) {
                    continue;
                }
                perror("recvfrom");
                return 1;
            }
            int len = answer(in[0], (int) n, out[0], &next_mid);
            if (len > 0) {
                sendto(fd, out[0], (size_t) len, 0, (struct sockaddr *) &peers[0], alen);
            }
            continue;
        }
        for (int i = 0; i < batch; i++) {
            rx[i].msg_hdr.msg_namelen = sizeof peers[i];
        }
        /* MSG_WAITFORONE: block for the first datagram, then take whatever else is queued */
        int n = recvmmsg(fd, rx, (unsigned) batch, MSG_WAITFORONE, NULL);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            perror("recvmmsg");
            return 1;
        }
        int m = 0;
        for (int i = 0; i < n; i++) {
            int len = answer(in[i], (int) rx[i].msg_len, out[m], &next_mid);
            if (len > 0) {
                tx_iov[m].iov_base = out[m];
                tx_iov[m].iov_len = (size_t) len;
                tx[m].msg_hdr.msg_name = &peers[i];
                tx[m].msg_hdr.msg_namelen = rx[i].msg_hdr.msg_namelen;
                m++;
            }
        }
        for (int sent = 0; sent < m;) {
            int k = sendmmsg(fd, tx + sent, (unsigned) (m - sent), 0);
            if (k < 0) {
                if (errno == EINTR) {
                    continue;
                }
                sent++; /* e.g. a peer that went away: drop that one answer */
                continue;
            }
            sent += k;
        }
    }
}
