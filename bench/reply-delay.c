// SPDX-License-Identifier: Apache-2.0
/*
 * Adds busy work before or after each sendmsg(2) of a process, to measure what a microsecond of a
 * service's work costs the evaluation cycle (BENCHMARKS.md, "what a microsecond of the service's
 * work costs the cycle"). Preloaded into the C floor (bench/cycle-floor.c), whose only sends are
 * its replies:
 *
 *   REPLY_DELAY_BEFORE_US=10 LD_PRELOAD=.build/reply-delay.so .build/bench-cycle-floor ADDRESS
 *   REPLY_DELAY_AFTER_US=10  LD_PRELOAD=.build/reply-delay.so .build/bench-cycle-floor ADDRESS
 *
 * The delay is a busy wait on CLOCK_MONOTONIC: it takes a core as the service's work would.
 *
 * Build: cc -O2 -shared -fPIC -o .build/reply-delay.so bench/reply-delay.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

static long long before_ns = -1, after_ns;

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void busy(long long ns) {
    if (ns <= 0) return;
    long long end = now_ns() + ns;
    while (now_ns() < end) {}
}

static long long microseconds(const char *name) {
    const char *value = getenv(name);
    return value ? atoll(value) * 1000 : 0;
}

ssize_t sendmsg(int fd, const struct msghdr *message, int flags) {
    static ssize_t (*real)(int, const struct msghdr *, int);
    if (real == NULL) real = (ssize_t (*)(int, const struct msghdr *, int))dlsym(RTLD_NEXT, "sendmsg");
    if (before_ns < 0) {
        before_ns = microseconds("REPLY_DELAY_BEFORE_US");
        after_ns = microseconds("REPLY_DELAY_AFTER_US");
    }
    busy(before_ns);
    ssize_t sent = real(fd, message, flags);
    busy(after_ns);
    return sent;
}
