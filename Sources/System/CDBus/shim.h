// SPDX-License-Identifier: Apache-2.0
#include <dbus/dbus.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>

/// The wake-up descriptor of a connection's loop (DBusEventLoop): non-blocking, closed on exec.
static inline int localauth_loop_eventfd(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

/// Names the calling thread (prctl is variadic, which Swift cannot call).
static inline void localauth_name_thread(const char *name) {
    prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}
