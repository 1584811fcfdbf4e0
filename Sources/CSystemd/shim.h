// SPDX-License-Identifier: Apache-2.0
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-login.h>
#include <sys/uio.h>
