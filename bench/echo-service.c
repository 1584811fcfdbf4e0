// SPDX-License-Identifier: Apache-2.0
/*
 * The floor for `make bench`: the smallest service libdbus allows. It owns
 * org.localauth.BenchEcho on the bus given as argv[1] and answers every method call on
 * /org/localauth/BenchEcho with an empty reply, exactly the shape of a successful
 * CanEvaluatePolicy. org.freedesktop.DBus.Peer.Ping is answered by libdbus itself.
 *
 * Build: cc -O2 -o .build/bench-echo bench/echo-service.c $(pkg-config --cflags --libs dbus-1)
 */
#include <dbus/dbus.h>
#include <stdio.h>

static DBusHandlerResult answer(DBusConnection *connection, DBusMessage *call, void *unused) {
    (void)unused;
    if (dbus_message_get_type(call) != DBUS_MESSAGE_TYPE_METHOD_CALL) return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    DBusMessage *reply = dbus_message_new_method_return(call);
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
        fprintf(stderr, "bench-echo: cannot connect to %s: %s\n", argv[1], error.message);
        return 69;
    }
    if (dbus_bus_request_name(connection, "org.localauth.BenchEcho", DBUS_NAME_FLAG_DO_NOT_QUEUE, &error)
        != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
        fprintf(stderr, "bench-echo: cannot own org.localauth.BenchEcho: %s\n", error.message ? error.message : "taken");
        return 69;
    }
    static const DBusObjectPathVTable vtable = { .message_function = answer };
    dbus_connection_register_object_path(connection, "/org/localauth/BenchEcho", &vtable, NULL);
    while (dbus_connection_read_write_dispatch(connection, -1)) {}
    return 0;
}
