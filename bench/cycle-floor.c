// SPDX-License-Identifier: Apache-2.0
/*
 * The floor of the evaluation cycle for `make bench`: a C libdbus service that answers the four
 * calls of one cycle with no work. It owns org.localauth.BenchFloor on the bus given as argv[1]
 * and serves localauthd's object paths and interfaces under /org/localauth/LocalAuthentication1:
 *
 *   Manager.CreateContext(a{sv}) -> o     a fresh .../context/<n>, nothing stored
 *   Simulator.Touch(s)                    empty reply
 *   Context.EvaluatePolicy(us)            empty reply (a success)
 *   Context.Invalidate()                  empty reply
 *
 * Any other call gets org.freedesktop.DBus.Error.UnknownMethod. The daemon's cycle divided by this
 * one is what localauthd adds to what the bus and libdbus cost anyway.
 *
 * Build: cc -O2 -o .build/bench-cycle-floor bench/cycle-floor.c $(pkg-config --cflags --libs dbus-1)
 */
#include <dbus/dbus.h>
#include <stdio.h>
#include <string.h>

#define ROOT "/org/localauth/LocalAuthentication1"
#define API "org.localauth.LocalAuthentication1"

static unsigned long long last_context;

static int is_call(DBusMessage *call, const char *interface, const char *member) {
    const char *i = dbus_message_get_interface(call), *m = dbus_message_get_member(call);
    return i != NULL && m != NULL && strcmp(i, interface) == 0 && strcmp(m, member) == 0;
}

static DBusHandlerResult answer(DBusConnection *connection, DBusMessage *call, void *unused) {
    (void)unused;
    if (dbus_message_get_type(call) != DBUS_MESSAGE_TYPE_METHOD_CALL) return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    const char *path = dbus_message_get_path(call);
    DBusMessage *reply;
    if (strcmp(path, ROOT) == 0 && is_call(call, API ".Manager", "CreateContext")) {
        char context[96];
        snprintf(context, sizeof context, ROOT "/context/%llu", ++last_context);
        const char *object = context;
        reply = dbus_message_new_method_return(call);
        if (reply != NULL && !dbus_message_append_args(reply, DBUS_TYPE_OBJECT_PATH, &object, DBUS_TYPE_INVALID)) {
            dbus_message_unref(reply);
            reply = NULL;
        }
    } else if ((strcmp(path, ROOT "/simulator") == 0 && is_call(call, API ".Simulator", "Touch"))
               || (strncmp(path, ROOT "/context/", strlen(ROOT "/context/")) == 0
                   && (is_call(call, API ".Context", "EvaluatePolicy") || is_call(call, API ".Context", "Invalidate")))) {
        reply = dbus_message_new_method_return(call);
    } else {
        reply = dbus_message_new_error(call, DBUS_ERROR_UNKNOWN_METHOD, "not part of the benchmark cycle");
    }
    if (reply == NULL) return DBUS_HANDLER_RESULT_NEED_MEMORY;
    dbus_connection_send(connection, reply, NULL);
    dbus_message_unref(reply);
    return DBUS_HANDLER_RESULT_HANDLED;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s BUS-ADDRESS\n", argv[0]);
        return 64;
    }
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *connection = dbus_connection_open_private(argv[1], &error);
    if (connection == NULL || !dbus_bus_register(connection, &error)) {
        fprintf(stderr, "bench-cycle-floor: cannot connect to %s: %s\n", argv[1], error.message);
        return 69;
    }
    if (dbus_bus_request_name(connection, "org.localauth.BenchFloor", DBUS_NAME_FLAG_DO_NOT_QUEUE, &error)
        != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
        fprintf(stderr, "bench-cycle-floor: cannot own org.localauth.BenchFloor: %s\n", error.message ? error.message : "taken");
        return 69;
    }
    static const DBusObjectPathVTable vtable = { .message_function = answer };
    dbus_connection_register_fallback(connection, ROOT, &vtable, NULL);
    while (dbus_connection_read_write_dispatch(connection, -1)) {}
    return 0;
}
