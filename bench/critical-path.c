// SPDX-License-Identifier: Apache-2.0
/*
 * What a bus service spends on each call before its reply leaves, for bench/critical-path.py.
 *
 * Loaded with LD_PRELOAD into localauthd or the C floor (bench/cycle-floor.c), it wraps poll(2),
 * recvmsg(2) and sendmsg(2) of the process. A "wake" starts when a blocking poll returns with
 * something ready and ends at the next blocking poll. Each wake is filed under the first of the
 * cycle's four members (CreateContext, Touch, EvaluatePolicy, Invalidate) found in the bytes it
 * read, and for it are kept: time to the reply (the first method return or error sent), to the
 * first and to the last send (a signal may precede the reply or follow it), and the whole wake. Whoever waits
 * for the reply waits for its send; the rest of the wake delays them only by taking a core. A call carrying the string
 * "critical-path-start" (bench/critical-path.py sends it as EvaluatePolicy's reason after the
 * warm-up) starts the count afresh. Writes its totals to the file named by $CRITICAL_PATH_OUT
 * every 200 wakes and when the library is unloaded. Counts one thread (the first to send); both
 * programs read and answer calls on one.
 *
 * Build: cc -O2 -shared -fPIC -o .build/critical-path.so bench/critical-path.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

static const char *const members[] = {"CreateContext", "Touch", "EvaluatePolicy", "Invalidate"};
enum { MEMBERS = 4, OTHER = MEMBERS };

struct totals { unsigned long long wakes, answered, reply_ns, first_ns, last_ns, busy_ns; };
static struct totals totals[MEMBERS + 1];

/* Only the serving thread (the first one to send) is measured. */
static pthread_t serving;
static int serving_known;
static long long wake_start, reply_sent, first_send, last_send;
static int member = OTHER;
static int restart;
static unsigned long long wakes;

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int is_serving(void) { return serving_known && pthread_equal(serving, pthread_self()); }

static void dump(void) {
    const char *path = getenv("CRITICAL_PATH_OUT");
    if (path == NULL) return;
    FILE *out = fopen(path, "w");
    if (out == NULL) return;
    for (int i = 0; i <= MEMBERS; i++) {
        struct totals *t = &totals[i];
        fprintf(out, "%s %llu %llu %llu %llu %llu %llu\n", i < MEMBERS ? members[i] : "other", t->wakes, t->answered,
                t->reply_ns, t->first_ns, t->last_ns, t->busy_ns);
    }
    fclose(out);
}

__attribute__((destructor)) static void unloaded(void) { dump(); }

static void end_wake(void) {
    if (restart) {
        memset(totals, 0, sizeof totals);
        wake_start = reply_sent = first_send = last_send = 0;
        member = OTHER;
        restart = 0;
        return;
    }
    struct totals *t = &totals[member];
    t->wakes++;
    t->busy_ns += now_ns() - wake_start;
    if (reply_sent) {
        t->answered++;
        t->reply_ns += reply_sent - wake_start;
        t->first_ns += first_send - wake_start;
        t->last_ns += last_send - wake_start;
    }
    wake_start = reply_sent = first_send = last_send = 0;
    member = OTHER;
    if (++wakes % 200 == 0) dump();
}

int poll(struct pollfd *fds, nfds_t count, int timeout) {
    static int (*real)(struct pollfd *, nfds_t, int);
    if (real == NULL) real = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");
    int blocking = timeout != 0 && is_serving();
    if (blocking && wake_start) end_wake();
    int ready = real(fds, count, timeout);
    if (blocking && ready > 0) wake_start = now_ns();
    return ready;
}

ssize_t recvmsg(int fd, struct msghdr *message, int flags) {
    static ssize_t (*real)(int, struct msghdr *, int);
    if (real == NULL) real = (ssize_t (*)(int, struct msghdr *, int))dlsym(RTLD_NEXT, "recvmsg");
    ssize_t got = real(fd, message, flags);
    if (got > 0 && wake_start && is_serving() && message->msg_iovlen > 0) {
        size_t length = (size_t)got < message->msg_iov[0].iov_len ? (size_t)got : message->msg_iov[0].iov_len;
        if (memmem(message->msg_iov[0].iov_base, length, "critical-path-start", 19) != NULL) restart = 1;
        if (member != OTHER) return got;
        for (int i = 0; i < MEMBERS; i++)
            if (memmem(message->msg_iov[0].iov_base, length, members[i], strlen(members[i])) != NULL) {
                member = i;
                break;
            }
    }
    return got;
}

ssize_t sendmsg(int fd, const struct msghdr *message, int flags) {
    static ssize_t (*real)(int, const struct msghdr *, int);
    if (real == NULL) real = (ssize_t (*)(int, const struct msghdr *, int))dlsym(RTLD_NEXT, "sendmsg");
    if (!serving_known) {
        serving = pthread_self();
        serving_known = 1;
    }
    if (wake_start && is_serving()) {
        last_send = now_ns();
        if (!first_send) first_send = last_send;
        /* The second byte of a D-Bus message is its type: 2 a method return, 3 an error. */
        const unsigned char *bytes = message->msg_iovlen > 0 && message->msg_iov[0].iov_len > 1 ? message->msg_iov[0].iov_base : NULL;
        if (!reply_sent && bytes != NULL && (bytes[1] == 2 || bytes[1] == 3)) reply_sent = last_send;
    }
    return real(fd, message, flags);
}
