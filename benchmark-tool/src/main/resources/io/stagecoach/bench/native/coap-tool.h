/*
 * What every C instrument of CoAPBench needs besides its protocol: a monotonic clock, the CPU
 * time of the measured server (from /proc) and of the tool itself, and a comparator for sorting
 * latencies. NativeTool writes this header beside each tool's source before compiling it.
 */
#ifndef COAP_TOOL_H
#define COAP_TOOL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* CLOCK_MONOTONIC in nanoseconds: the clock System.nanoTime() reads on Linux */
static inline uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

/* CPU seconds (user + system) of process pid from /proc, or -1 */
static inline double process_cpu_s(long pid) {
    if (pid <= 0) {
        return -1;
    }
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) {
        return -1;
    }
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* the command name may hold spaces; fields 3.. follow the last ')' */
    if (!p) {
        return -1;
    }
    unsigned long utime = 0, stime = 0;
    /* after ")": state(3) ppid(4) ... utime(14) stime(15) */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2) {
        return -1;
    }
    return (double) (utime + stime) / (double) sysconf(_SC_CLK_TCK);
}

/* CPU seconds (user + system) of this process */
static inline double self_cpu_s(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double) u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + (double) u.ru_stime.tv_sec
           + u.ru_stime.tv_usec / 1e6;
}

/* qsort order of uint64_t values */
static inline int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : x > y;
}

#endif
