// SPDX-License-Identifier: Apache-2.0
#include <dbus/dbus.h>
