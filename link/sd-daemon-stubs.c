/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The two libsystemd functions Debian's libdbus-1.a calls, for release binaries that link libdbus
 * statically (Makefile, RELEASE_LIBS_DIR) and so do not load libsystemd and its six libraries.
 *
 * libdbus calls them only from dbus_server_listen("systemd:"), to take sockets systemd passed to
 * a socket-activated bus daemon. localauthd, localauth and the fprintd provider are bus clients and
 * never listen, so these say what libsystemd says to a process that was passed no sockets.
 */
#include <errno.h>

/* No sockets were passed (sd_listen_fds(3) without LISTEN_FDS). */
int sd_listen_fds(int unset_environment) {
    (void)unset_environment;
    return 0;
}

/* Never reached: with no sockets passed there is no descriptor to check. */
int sd_is_socket(int fd, int family, int type, int listening) {
    (void)fd;
    (void)family;
    (void)type;
    (void)listening;
    return -ENOSYS;
}
