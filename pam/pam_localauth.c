// SPDX-License-Identifier: Apache-2.0
/*
 * pam_localauth: PAM authentication through localauthd (Touch ID / Face ID style policies).
 *
 * The module decides nothing itself: it creates a root-only unlock context for the PAM user on
 * localauthd, evaluates policy 1 (biometrics) or 2 (device owner) there and relays the daemon's
 * prompts through the PAM conversation. Failures the user can get around with a password return
 * PAM_AUTHINFO_UNAVAIL so the stack falls through to the next module.
 *
 * After a biometric match (never after a typed passcode, never for a remote session) the login
 * password the user stored with `localauth keyring enroll` is released by the daemon, checked with a
 * nested PAM transaction on the service localauth-keyring and handed to the rest of the stack as
 * PAM_AUTHTOK, so that pam_gnome_keyring (or any module using use_authtok/try_first_pass) unlocks
 * the login keyring. A stored password the stack refuses is discarded and the user is told.
 *
 * Single-threaded, libdbus-1 on a private connection that is always closed before returning.
 * SIGINT gets a handler only while an evaluation runs; the application's action is put back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <dbus/dbus.h>
#include <systemd/sd-login.h>

#define PAM_SM_AUTH
#include <security/pam_appl.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "localauth-api.h"

#define POLICY_BIOMETRICS LA_POLICY_DEVICE_OWNER_AUTHENTICATION_WITH_BIOMETRICS
#define POLICY_OWNER LA_POLICY_DEVICE_OWNER_AUTHENTICATION
/* Calls that should answer at once; EvaluatePolicy is waited for in the loop instead. */
#define CALL_TIMEOUT_MS 10000
/* SubmitPasscode: the daemon hashes with Argon2id, slow on a busy machine. */
#define PASSCODE_TIMEOUT_MS 30000
/* How long to wait for the evaluation to end after Cancel. */
#define CANCEL_WAIT_MS 3000
/* Poll slices, so a SIGINT that lands just before poll() is seen soon. */
#define POLL_SLICE_MS 200
/* The PAM service that checks a released login password (pam/localauth-keyring). This module
 * returns PAM_IGNORE there, so that a stack including it never asks for a finger inside itself. */
#define KEYRING_SERVICE "localauth-keyring"

struct options {
    unsigned policy;
    int timeout_seconds;
    int max_tries;
    const char *bus_address;
    bool debug;
    /* Hand the stored login password to the stack after a match (option nokeyring: never). */
    bool keyring;
};

/* One authentication: the connection, the context and what happened so far. */
struct session {
    pam_handle_t *pamh;
    const struct options *options;
    DBusConnection *connection;
    char *context;
    /* The daemon's unique name, from the CreateContext reply: only its messages are believed
     * (any local user may send a unicast signal to our connection). */
    char *daemon;
    dbus_uint32_t evaluate_serial;
    bool evaluation_ended;
    /* When waiting for biometrics gives up; moved on after each passcode prompt (the user typed). */
    long long deadline;
    bool asked_passcode;
    /* Another uid is acting as the PAM user (su, sudo -u): the user's login password is not theirs. */
    bool foreign_applicant;
    int no_matches;
    int wrong_passcodes;
    /* PAM code decided by the module before the evaluation ended (PAM_INCOMPLETE: none yet). */
    int decided;
};

static volatile sig_atomic_t interrupted;

static void on_sigint(int signal_number)
{
    (void)signal_number;
    interrupted = 1;
}

static void debug_log(const struct options *options, pam_handle_t *pamh, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void debug_log(const struct options *options, pam_handle_t *pamh, const char *format, ...)
{
    if (!options->debug)
        return;
    va_list arguments;
    va_start(arguments, format);
    pam_vsyslog(pamh, LOG_DEBUG, format, arguments);
    va_end(arguments);
}

static void say(pam_handle_t *pamh, int style, const char *text)
{
    if (text != NULL && *text != '\0')
        (void)pam_prompt(pamh, style, NULL, "%s", text);
}

static long long now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static bool parse_int(const char *text, int minimum, int maximum, int *value)
{
    char *end = NULL;
    errno = 0;
    long parsed = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || parsed < minimum || parsed > maximum)
        return false;
    *value = (int)parsed;
    return true;
}

/* Unknown or malformed arguments are logged and the defaults kept, as other PAM modules do. */
static void parse_options(pam_handle_t *pamh, int argc, const char **argv, struct options *options)
{
    *options = (struct options){ .policy = POLICY_BIOMETRICS, .timeout_seconds = 10, .max_tries = 1, .keyring = true };
    for (int i = 0; i < argc; i++) {
        const char *argument = argv[i];
        if (strcmp(argument, "debug") == 0)
            options->debug = true;
        else if (strcmp(argument, "nokeyring") == 0)
            options->keyring = false;
        else if (strcmp(argument, "policy=biometrics") == 0)
            options->policy = POLICY_BIOMETRICS;
        else if (strcmp(argument, "policy=owner") == 0)
            options->policy = POLICY_OWNER;
        else if (strncmp(argument, "timeout=", 8) == 0 && parse_int(argument + 8, 1, 3600, &options->timeout_seconds))
            continue;
        else if (strncmp(argument, "max-tries=", 10) == 0 && parse_int(argument + 10, 1, 100, &options->max_tries))
            continue;
        else if (strncmp(argument, "bus=", 4) == 0 && argument[4] != '\0')
            options->bus_address = argument + 4;
        else
            pam_syslog(pamh, LOG_ERR, "ignoring unknown or malformed argument \"%s\" (see pam_localauth(8))", argument);
    }
}

static bool is_remote(pam_handle_t *pamh)
{
    const void *item = NULL;
    if (pam_get_item(pamh, PAM_RHOST, &item) == PAM_SUCCESS && item != NULL) {
        const char *rhost = item;
        if (*rhost != '\0' && strcmp(rhost, "localhost") != 0 && strcmp(rhost, "127.0.0.1") != 0 && strcmp(rhost, "::1") != 0)
            return true;
    }
    return sd_session_is_remote(NULL) > 0;
}

/* Sends a call and waits for its reply; NULL with `error` set on failure. */
static DBusMessage *call(DBusConnection *connection, const char *destination, const char *path, const char *interface,
                         const char *member, DBusError *error, int first_type, ...)
{
    DBusMessage *message = dbus_message_new_method_call(destination, path, interface, member);
    if (message == NULL) {
        dbus_set_error_const(error, DBUS_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    va_list arguments;
    va_start(arguments, first_type);
    bool appended = dbus_message_append_args_valist(message, first_type, arguments);
    va_end(arguments);
    DBusMessage *reply = NULL;
    if (!appended)
        dbus_set_error_const(error, DBUS_ERROR_NO_MEMORY, "out of memory");
    else
        reply = dbus_connection_send_with_reply_and_block(connection, message, CALL_TIMEOUT_MS, error);
    dbus_message_unref(message);
    return reply;
}

static bool context_call(struct session *session, const char *member, DBusError *error, int first_type, ...)
{
    DBusMessage *message = dbus_message_new_method_call(LA_BUS_NAME, session->context, LA_CONTEXT_INTERFACE, member);
    if (message == NULL)
        return false;
    va_list arguments;
    va_start(arguments, first_type);
    bool appended = dbus_message_append_args_valist(message, first_type, arguments);
    va_end(arguments);
    DBusMessage *reply = appended ? dbus_connection_send_with_reply_and_block(session->connection, message, CALL_TIMEOUT_MS, error) : NULL;
    dbus_message_unref(message);
    if (reply == NULL)
        return false;
    dbus_message_unref(reply);
    return true;
}

/* logind's LidClosed/Docked; a bus without logind (or an error) counts as open. */
static bool lid_closed_and_undocked(DBusConnection *connection)
{
    bool values[2] = { false, false };
    const char *names[2] = { "LidClosed", "Docked" };
    for (int i = 0; i < 2; i++) {
        DBusError error;
        dbus_error_init(&error);
        const char *interface = "org.freedesktop.login1.Manager";
        DBusMessage *reply = call(connection, "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.DBus.Properties",
                                  "Get", &error, DBUS_TYPE_STRING, &interface, DBUS_TYPE_STRING, &names[i], DBUS_TYPE_INVALID);
        dbus_error_free(&error);
        if (reply == NULL)
            return false;
        DBusMessageIter iter, variant;
        dbus_message_iter_init(reply, &iter);
        if (dbus_message_iter_get_arg_type(&iter) == DBUS_TYPE_VARIANT) {
            dbus_message_iter_recurse(&iter, &variant);
            if (dbus_message_iter_get_arg_type(&variant) == DBUS_TYPE_BOOLEAN) {
                dbus_bool_t value = FALSE;
                dbus_message_iter_get_basic(&variant, &value);
                values[i] = value;
            }
        }
        dbus_message_unref(reply);
    }
    return values[0] && !values[1];
}

static void append_entry(DBusMessageIter *dictionary, const char *key, int type, const void *value)
{
    char signature[2] = { (char)type, '\0' };
    DBusMessageIter entry, variant;
    dbus_message_iter_open_container(dictionary, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, signature, &variant);
    dbus_message_iter_append_basic(&variant, type, value);
    dbus_message_iter_close_container(&entry, &variant);
    dbus_message_iter_close_container(dictionary, &entry);
}

/* Who is asking to become the PAM user: the real uid of the process (su, sudo and a screen locker
 * run as whoever types), or for a process whose real uid is root (login, gdm, sudo run by root)
 * the PAM_RUSER item when set. The daemon counts another uid's failures apart from the user's own.
 * 0: none named (a root process without PAM_RUSER: the attempt is the user's own); 1: `applicant`
 * set; -1: PAM_RUSER names no user, so nobody can be held to the attempt. */
static int find_applicant(pam_handle_t *pamh, uid_t *applicant)
{
    uid_t real = getuid();
    if (real != 0) {
        *applicant = real;
        return 1;
    }
    const void *item = NULL;
    if (pam_get_item(pamh, PAM_RUSER, &item) != PAM_SUCCESS || item == NULL || *(const char *)item == '\0')
        return 0;
    struct passwd entry, *found = NULL;
    char buffer[4096];
    if (getpwnam_r(item, &entry, buffer, sizeof buffer, &found) != 0 || found == NULL)
        return -1;
    *applicant = found->pw_uid;
    return 1;
}

/* CreateContext({User, Unlock, Applicant, titles}) as root; an application running as the PAM user
 * itself (a screen locker) gets an ordinary context of its own, since User, Unlock and Applicant
 * are root-only. The cancel title names the key that cancels here. */
static bool create_context(struct session *session, uid_t uid, const uid_t *applicant, DBusError *error)
{
    DBusMessage *message = dbus_message_new_method_call(LA_BUS_NAME, LA_MANAGER_PATH, LA_MANAGER_INTERFACE, "CreateContext");
    if (message == NULL)
        return false;
    DBusMessageIter iter, dictionary;
    dbus_uint32_t user = (dbus_uint32_t)uid;
    dbus_bool_t unlock = TRUE;
    const char *cancel_title = "Ctrl-C";
    /* Fallback is how policy=owner moves to the passcode after max-tries no-matches; hidden otherwise. */
    const char *fallback_title = session->options->policy == POLICY_OWNER ? "Use Passcode" : "";
    dbus_message_iter_init_append(message, &iter);
    dbus_message_iter_open_container(&iter, DBUS_TYPE_ARRAY, "{sv}", &dictionary);
    if (geteuid() == 0) {
        append_entry(&dictionary, "User", DBUS_TYPE_UINT32, &user);
        append_entry(&dictionary, "Unlock", DBUS_TYPE_BOOLEAN, &unlock);
        if (applicant != NULL) {
            dbus_uint32_t applicant_uid = (dbus_uint32_t)*applicant;
            append_entry(&dictionary, "Applicant", DBUS_TYPE_UINT32, &applicant_uid);
        }
    }
    append_entry(&dictionary, "LocalizedCancelTitle", DBUS_TYPE_STRING, &cancel_title);
    append_entry(&dictionary, "LocalizedFallbackTitle", DBUS_TYPE_STRING, &fallback_title);
    dbus_message_iter_close_container(&iter, &dictionary);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(session->connection, message, CALL_TIMEOUT_MS, error);
    dbus_message_unref(message);
    if (reply == NULL)
        return false;
    const char *path = NULL;
    const char *sender = dbus_message_get_sender(reply);
    if (sender != NULL && dbus_message_get_args(reply, error, DBUS_TYPE_OBJECT_PATH, &path, DBUS_TYPE_INVALID)) {
        session->context = strdup(path);
        session->daemon = strdup(sender);
    }
    dbus_message_unref(reply);
    return session->context != NULL && session->daemon != NULL;
}

/* Maps a refusal or the error an evaluation ended with; lockouts tell the user how to get in. */
static int code_for_error(struct session *session, const char *name, const char *message)
{
    if (strcmp(name, LA_ERROR_BIOMETRY_LOCKOUT) == 0) {
        say(session->pamh, PAM_ERROR_MSG, "Biometry is locked after too many failed attempts; use your password.");
        return PAM_AUTHINFO_UNAVAIL;
    }
    if (strcmp(name, LA_ERROR_PASSCODE_LOCKOUT) == 0) {
        say(session->pamh, PAM_ERROR_MSG, message);
        say(session->pamh, PAM_ERROR_MSG, "The passcode is locked; use your password.");
        return PAM_AUTHINFO_UNAVAIL;
    }
    if (strcmp(name, LA_ERROR_AUTHENTICATION_FAILED) == 0) {
        say(session->pamh, PAM_ERROR_MSG, message);
        return PAM_AUTH_ERR;
    }
    /* Not enrolled, no sensor, no passcode, cancelled by the user or the system; or the daemon failed. */
    if (strncmp(name, LA_ERROR_PREFIX, strlen(LA_ERROR_PREFIX)) == 0)
        debug_log(session->options, session->pamh, "falling through: %s: %s", name, message);
    else
        pam_syslog(session->pamh, LOG_WARNING, "localauthd failed, falling through: %s: %s", name, message);
    return PAM_AUTHINFO_UNAVAIL;
}

static void handle_reply(struct session *session, DBusMessage *reply)
{
    session->evaluation_ended = true;
    if (session->decided != PAM_INCOMPLETE)
        return;
    if (dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_METHOD_RETURN) {
        session->decided = PAM_SUCCESS;
        return;
    }
    const char *text = "";
    (void)dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID);
    session->decided = code_for_error(session, dbus_message_get_error_name(reply), text);
}

/* Cancel, then wait (bounded) for the evaluation to end so the sensor is free before we return. */
static void stop_evaluation(struct session *session, int code);

/* SubmitPasscode; the copy in the message's body is wiped once the reply is in, since libdbus may
 * keep freed messages in its cache. */
static bool submit_passcode(struct session *session, const char *passcode, DBusError *error)
{
    DBusMessage *message = dbus_message_new_method_call(LA_BUS_NAME, session->context, LA_CONTEXT_INTERFACE, "SubmitPasscode");
    if (message == NULL)
        return false;
    DBusMessage *reply = NULL;
    if (dbus_message_append_args(message, DBUS_TYPE_STRING, &passcode, DBUS_TYPE_INVALID)) {
        reply = dbus_connection_send_with_reply_and_block(session->connection, message, PASSCODE_TIMEOUT_MS, error);
        const char *copy = NULL;
        if (dbus_message_get_args(message, NULL, DBUS_TYPE_STRING, &copy, DBUS_TYPE_INVALID) && copy != NULL)
            explicit_bzero((char *)copy, strlen(copy));
    }
    dbus_message_unref(message);
    if (reply == NULL)
        return false;
    dbus_message_unref(reply);
    return true;
}

/* Asks for the passcode (echo off) and offers it; an empty answer gives up biometrics and passcode. */
static void ask_passcode(struct session *session)
{
    char *passcode = NULL;
    int result = pam_prompt(session->pamh, PAM_PROMPT_ECHO_OFF, &passcode, "Passcode: ");
    session->deadline = now_ms() + (long long)session->options->timeout_seconds * 1000;
    session->asked_passcode = true;
    if (result != PAM_SUCCESS || passcode == NULL || *passcode == '\0') {
        if (passcode != NULL) {
            explicit_bzero(passcode, strlen(passcode));
            free(passcode);
        }
        stop_evaluation(session, PAM_AUTHINFO_UNAVAIL);
        return;
    }
    if (!dbus_validate_utf8(passcode, NULL)) {
        /* libdbus aborts the process on a string that is not UTF-8: never hand it one. */
        explicit_bzero(passcode, strlen(passcode));
        free(passcode);
        say(session->pamh, PAM_ERROR_MSG, "That passcode cannot be checked (it is not valid UTF-8); use your password.");
        stop_evaluation(session, PAM_AUTHINFO_UNAVAIL);
        return;
    }
    DBusError error;
    dbus_error_init(&error);
    bool accepted = submit_passcode(session, passcode, &error);
    explicit_bzero(passcode, strlen(passcode));
    free(passcode);
    if (!accepted && dbus_error_has_name(&error, LA_ERROR_AUTHENTICATION_FAILED)) {
        session->wrong_passcodes++;
        if (session->wrong_passcodes >= session->options->max_tries) {
            say(session->pamh, PAM_ERROR_MSG, error.message);
            stop_evaluation(session, PAM_AUTH_ERR);
        }
    } else if (!accepted) {
        stop_evaluation(session, code_for_error(session, error.name ? error.name : "", error.message ? error.message : ""));
    }
    dbus_error_free(&error);
}

static void handle_prompt(struct session *session, const char *kind, const char *text)
{
    debug_log(session->options, session->pamh, "prompt %s", kind);
    if (strcmp(kind, LA_PROMPT_BIOMETRY) == 0 || strcmp(kind, LA_PROMPT_WAITING) == 0) {
        say(session->pamh, PAM_TEXT_INFO, text);
    } else if (strcmp(kind, LA_PROMPT_RETRY) == 0 || strcmp(kind, LA_PROMPT_ATTENTION_REQUIRED) == 0) {
        say(session->pamh, PAM_ERROR_MSG, text);
    } else if (strcmp(kind, LA_PROMPT_NO_MATCH) == 0) {
        say(session->pamh, PAM_ERROR_MSG, text);
        session->no_matches++;
        if (session->no_matches < session->options->max_tries)
            return;
        if (session->options->policy == POLICY_OWNER) {
            DBusError error;
            dbus_error_init(&error);
            if (!context_call(session, "Fallback", &error, DBUS_TYPE_INVALID))
                stop_evaluation(session, PAM_MAXTRIES);
            dbus_error_free(&error);
        } else {
            stop_evaluation(session, PAM_MAXTRIES);
        }
    } else if (strcmp(kind, LA_PROMPT_PASSCODE) == 0) {
        say(session->pamh, PAM_TEXT_INFO, text);
        ask_passcode(session);
    } else if (strcmp(kind, LA_PROMPT_PASSCODE_WRONG) == 0) {
        say(session->pamh, PAM_ERROR_MSG, text);
        if (session->decided == PAM_INCOMPLETE)
            ask_passcode(session);
    }
}

/* Takes the messages that have arrived: our EvaluatePolicy reply and the context's Prompt signals. */
static void drain(struct session *session)
{
    DBusMessage *message;
    while ((message = dbus_connection_pop_message(session->connection)) != NULL) {
        int type = dbus_message_get_type(message);
        if (!dbus_message_has_sender(message, session->daemon)) {
            /* Not from the daemon that owns our context: a forged prompt or reply is ignored. */
        } else if ((type == DBUS_MESSAGE_TYPE_METHOD_RETURN || type == DBUS_MESSAGE_TYPE_ERROR) &&
            dbus_message_get_reply_serial(message) == session->evaluate_serial) {
            handle_reply(session, message);
        } else if (!session->evaluation_ended && session->decided == PAM_INCOMPLETE &&
                   dbus_message_is_signal(message, LA_CONTEXT_INTERFACE, "Prompt") &&
                   dbus_message_has_path(message, session->context)) {
            const char *kind = NULL, *text = NULL;
            if (dbus_message_get_args(message, NULL, DBUS_TYPE_STRING, &kind, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID))
                handle_prompt(session, kind, text);
        }
        dbus_message_unref(message);
    }
}

/* Reads what arrives until the evaluation ends, the deadline passes or SIGINT comes (when `interruptible`);
 * `deadline` NULL means the session's, which passcode prompts move. */
static void wait_for_events(struct session *session, const long long *deadline, bool interruptible)
{
    int fd = -1;
    if (!dbus_connection_get_unix_fd(session->connection, &fd))
        return;
    while (!session->evaluation_ended && dbus_connection_get_is_connected(session->connection)) {
        drain(session);
        if (session->evaluation_ended || (interruptible && (interrupted || session->decided != PAM_INCOMPLETE)))
            return;
        long long left = (deadline ? *deadline : session->deadline) - now_ms();
        if (left <= 0)
            return;
        struct pollfd pollfd = { .fd = fd, .events = POLLIN };
        if (dbus_connection_has_messages_to_send(session->connection))
            pollfd.events |= POLLOUT;
        if (poll(&pollfd, 1, (int)(left < POLL_SLICE_MS ? left : POLL_SLICE_MS)) < 0 && errno != EINTR)
            return;
        dbus_connection_read_write(session->connection, 0);
    }
    drain(session);
}

static void stop_evaluation(struct session *session, int code)
{
    if (session->decided == PAM_INCOMPLETE)
        session->decided = code;
    if (session->evaluation_ended)
        return;
    DBusError error;
    dbus_error_init(&error);
    if (!context_call(session, "Cancel", &error, DBUS_TYPE_INVALID))
        debug_log(session->options, session->pamh, "Cancel failed: %s", error.message);
    dbus_error_free(&error);
    long long deadline = now_ms() + CANCEL_WAIT_MS;
    wait_for_events(session, &deadline, false);
}

static bool start_evaluation(struct session *session, const char *user, const char *service)
{
    char reason[256];
    snprintf(reason, sizeof reason, "sign in as %s (%s)", user, service);
    /* A user or service name that is not UTF-8 (or was cut mid-character) would make libdbus abort. */
    const char *reason_argument = dbus_validate_utf8(reason, NULL) ? reason : "sign in";
    dbus_uint32_t policy = session->options->policy;
    DBusMessage *message = dbus_message_new_method_call(LA_BUS_NAME, session->context, LA_CONTEXT_INTERFACE, "EvaluatePolicy");
    if (message == NULL)
        return false;
    bool sent = dbus_message_append_args(message, DBUS_TYPE_UINT32, &policy, DBUS_TYPE_STRING, &reason_argument, DBUS_TYPE_INVALID) &&
                dbus_connection_send(session->connection, message, &session->evaluate_serial);
    dbus_message_unref(message);
    return sent;
}

static int authenticate(struct session *session, const char *user, const char *service)
{
    const struct options *options = session->options;
    struct passwd entry, *found = NULL;
    char buffer[4096];
    if (getpwnam_r(user, &entry, buffer, sizeof buffer, &found) != 0 || found == NULL) {
        debug_log(options, session->pamh, "no passwd entry for %s", user);
        return PAM_USER_UNKNOWN;
    }
    if (geteuid() != 0 && geteuid() != found->pw_uid) {
        /* Only root may ask localauthd about another user; the daemon would refuse it too. */
        debug_log(options, session->pamh, "running as uid %u, not as root or %s", (unsigned)geteuid(), user);
        return PAM_AUTHINFO_UNAVAIL;
    }
    if (lid_closed_and_undocked(session->connection)) {
        debug_log(options, session->pamh, "lid closed and not docked");
        return PAM_AUTHINFO_UNAVAIL;
    }
    uid_t applicant = 0;
    int named = find_applicant(session->pamh, &applicant);
    if (named < 0) {
        debug_log(options, session->pamh, "PAM_RUSER names no user: not offering biometrics");
        return PAM_AUTHINFO_UNAVAIL;
    }
    session->foreign_applicant = named > 0 && applicant != found->pw_uid;
    DBusError error;
    dbus_error_init(&error);
    if (!create_context(session, found->pw_uid, named > 0 ? &applicant : NULL, &error)) {
        pam_syslog(session->pamh, LOG_WARNING, "localauthd not reachable: %s", error.message ? error.message : "out of memory");
        dbus_error_free(&error);
        return PAM_AUTHINFO_UNAVAIL;
    }
    char rule[512];
    snprintf(rule, sizeof rule, "type='signal',sender='%s',interface='%s',member='Prompt',path='%s'", LA_BUS_NAME, LA_CONTEXT_INTERFACE, session->context);
    dbus_bus_add_match(session->connection, rule, &error);
    if (dbus_error_is_set(&error)) {
        pam_syslog(session->pamh, LOG_ERR, "cannot receive prompts: %s", error.message);
        dbus_error_free(&error);
        return PAM_AUTHINFO_UNAVAIL;
    }
    dbus_uint32_t policy = options->policy;
    if (!context_call(session, "CanEvaluatePolicy", &error, DBUS_TYPE_UINT32, &policy, DBUS_TYPE_INVALID)) {
        int code = code_for_error(session, error.name ? error.name : "", error.message ? error.message : "");
        dbus_error_free(&error);
        return code == PAM_AUTH_ERR ? PAM_AUTHINFO_UNAVAIL : code;
    }

    struct sigaction ours = { .sa_handler = on_sigint }, theirs;
    sigemptyset(&ours.sa_mask);
    interrupted = 0;
    /* An application that ignores SIGINT keeps ignoring it. */
    sigaction(SIGINT, NULL, &theirs);
    bool catching = theirs.sa_handler != SIG_IGN;
    if (catching)
        sigaction(SIGINT, &ours, &theirs);

    session->decided = PAM_INCOMPLETE;
    if (!start_evaluation(session, user, service)) {
        session->decided = PAM_AUTHINFO_UNAVAIL;
    } else {
        session->deadline = now_ms() + (long long)options->timeout_seconds * 1000;
        wait_for_events(session, NULL, true);
        if (session->decided == PAM_INCOMPLETE && !interrupted && !session->evaluation_ended &&
            options->policy == POLICY_OWNER && !session->asked_passcode) {
            /* No touch in time: policy=owner moves on to the passcode, with a new timeout. */
            DBusError error;
            dbus_error_init(&error);
            if (context_call(session, "Fallback", &error, DBUS_TYPE_INVALID)) {
                session->deadline = now_ms() + (long long)options->timeout_seconds * 1000;
                wait_for_events(session, NULL, true);
            }
            dbus_error_free(&error);
        }
        if (session->decided == PAM_INCOMPLETE && interrupted) {
            stop_evaluation(session, PAM_AUTHINFO_UNAVAIL);
            say(session->pamh, PAM_ERROR_MSG, "Cancelled; use your password.");
        } else if (session->decided == PAM_INCOMPLETE && !session->evaluation_ended &&
                   dbus_connection_get_is_connected(session->connection)) {
            stop_evaluation(session, PAM_AUTHINFO_UNAVAIL);
            say(session->pamh, PAM_ERROR_MSG, "Timed out; use your password.");
        } else if (session->decided == PAM_INCOMPLETE) {
            session->decided = PAM_AUTHINFO_UNAVAIL;
        }
    }
    if (catching)
        sigaction(SIGINT, &theirs, NULL);
    return session->decided;
}

/* The nested transaction's conversation: the released password answers each hidden prompt; texts
 * are not shown (the user hears only the outcome); a visible prompt cannot be answered. */
static int keyring_conversation(int count, const struct pam_message **messages, struct pam_response **responses, void *password)
{
    if (count <= 0 || count > PAM_MAX_NUM_MSG)
        return PAM_CONV_ERR;
    struct pam_response *replies = calloc((size_t)count, sizeof *replies);
    if (replies == NULL)
        return PAM_BUF_ERR;
    int code = PAM_SUCCESS;
    for (int i = 0; i < count && code == PAM_SUCCESS; i++) {
        if (messages[i]->msg_style == PAM_PROMPT_ECHO_OFF) {
            replies[i].resp = strdup(password);
            if (replies[i].resp == NULL)
                code = PAM_BUF_ERR;
        } else if (messages[i]->msg_style == PAM_PROMPT_ECHO_ON) {
            code = PAM_CONV_ERR;
        }
    }
    if (code != PAM_SUCCESS) {
        for (int i = 0; i < count; i++) {
            if (replies[i].resp != NULL) {
                explicit_bzero(replies[i].resp, strlen(replies[i].resp));
                free(replies[i].resp);
            }
        }
        free(replies);
        return code;
    }
    *responses = replies;
    return PAM_SUCCESS;
}

/* Checks `password` for `user` with a transaction of its own on the localauth-keyring service
 * (the login password as the system knows it); the PAM code pam_authenticate returned there. */
static int check_login_password(pam_handle_t *pamh, const char *user, const char *password)
{
    struct pam_conv conversation = { keyring_conversation, (void *)password };
    pam_handle_t *nested = NULL;
    int code = pam_start(KEYRING_SERVICE, user, &conversation, &nested);
    if (code != PAM_SUCCESS) {
        pam_syslog(pamh, LOG_WARNING, "cannot start the %s service: %s", KEYRING_SERVICE, pam_strerror(nested, code));
        if (nested != NULL)
            pam_end(nested, code);
        return code;
    }
    code = pam_authenticate(nested, PAM_SILENT | PAM_DISALLOW_NULL_AUTHTOK);
    pam_end(nested, code);
    return code;
}

/* DiscardLoginPassword on the context that released it, and the user told why the keyring stays locked. */
static void discard_login_password(struct session *session)
{
    DBusError error;
    dbus_error_init(&error);
    if (context_call(session, "DiscardLoginPassword", &error, DBUS_TYPE_INVALID)) {
        (void)pam_info(session->pamh, "The stored login password no longer works (was it changed?) and has been removed; "
                                      "the login keyring stays locked. Run `localauth keyring enroll` to store the new one.");
        pam_syslog(session->pamh, LOG_NOTICE, "the stored login password was refused by the %s service and removed", KEYRING_SERVICE);
    } else {
        pam_syslog(session->pamh, LOG_WARNING, "the stored login password was refused, and removing it failed: %s",
                   error.message ? error.message : "out of memory");
    }
    dbus_error_free(&error);
}

/* After a biometric match: ReleaseLoginPassword on the context that matched; a password the
 * localauth-keyring service accepts becomes PAM_AUTHTOK, one it refuses is discarded. Nothing
 * stored (RightNotFound) is the usual case and stays quiet. Every copy is wiped. */
static void release_login_password(struct session *session, const char *user)
{
    DBusMessage *message = dbus_message_new_method_call(LA_BUS_NAME, session->context, LA_CONTEXT_INTERFACE, "ReleaseLoginPassword");
    if (message == NULL)
        return;
    DBusError error;
    dbus_error_init(&error);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(session->connection, message, CALL_TIMEOUT_MS, &error);
    dbus_message_unref(message);
    if (reply == NULL) {
        if (dbus_error_has_name(&error, LA_ERROR_RIGHT_NOT_FOUND))
            debug_log(session->options, session->pamh, "no login password stored");
        else
            pam_syslog(session->pamh, LOG_WARNING, "the stored login password was not released: %s",
                       error.message ? error.message : "out of memory");
        dbus_error_free(&error);
        return;
    }
    const char *password = NULL;
    if (!dbus_message_get_args(reply, &error, DBUS_TYPE_STRING, &password, DBUS_TYPE_INVALID) || password == NULL) {
        pam_syslog(session->pamh, LOG_WARNING, "unexpected ReleaseLoginPassword reply: %s", error.message ? error.message : "no string");
        dbus_error_free(&error);
        dbus_message_unref(reply);
        return;
    }
    int verdict = *password == '\0' ? PAM_AUTH_ERR : check_login_password(session->pamh, user, password);
    if (verdict == PAM_SUCCESS) {
        /* libpam keeps its own copy (and wipes it at pam_end). */
        int code = pam_set_item(session->pamh, PAM_AUTHTOK, password);
        if (code == PAM_SUCCESS)
            debug_log(session->options, session->pamh, "the stored login password is PAM_AUTHTOK");
        else
            pam_syslog(session->pamh, LOG_WARNING, "cannot set PAM_AUTHTOK: %s", pam_strerror(session->pamh, code));
    }
    /* The copy in the reply's body: libdbus may keep freed messages in its cache. */
    explicit_bzero((char *)password, strlen(password));
    dbus_message_unref(reply);
    if (verdict == PAM_AUTH_ERR)
        discard_login_password(session);
    else if (verdict != PAM_SUCCESS)
        pam_syslog(session->pamh, LOG_WARNING, "the %s service could not check the stored login password (%s); it is kept",
                   KEYRING_SERVICE, pam_strerror(session->pamh, verdict));
}

PAM_EXTERN int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    (void)flags;
    struct options options;
    parse_options(pamh, argc, argv, &options);
    const void *service = NULL;
    if (pam_get_item(pamh, PAM_SERVICE, &service) != PAM_SUCCESS || service == NULL)
        service = "login";
    if (strcmp(service, KEYRING_SERVICE) == 0) {
        /* Checking a released login password (ours, or `localauth keyring enroll`'s): a password only. */
        debug_log(&options, pamh, "%s: ignored", KEYRING_SERVICE);
        return PAM_IGNORE;
    }
    if (is_remote(pamh)) {
        debug_log(&options, pamh, "remote session: not offering biometrics");
        return PAM_AUTHINFO_UNAVAIL;
    }
    const char *user = NULL;
    if (pam_get_user(pamh, &user, NULL) != PAM_SUCCESS || user == NULL || *user == '\0')
        return PAM_USER_UNKNOWN;

    struct session session = { .pamh = pamh, .options = &options, .decided = PAM_INCOMPLETE };
    DBusError error;
    dbus_error_init(&error);
    session.connection = options.bus_address ? dbus_connection_open_private(options.bus_address, &error)
                                             : dbus_bus_get_private(DBUS_BUS_SYSTEM, &error);
    if (session.connection == NULL) {
        pam_syslog(pamh, LOG_WARNING, "cannot connect to the bus: %s", error.message ? error.message : "out of memory");
        dbus_error_free(&error);
        return PAM_AUTHINFO_UNAVAIL;
    }
    dbus_connection_set_exit_on_disconnect(session.connection, FALSE);
    int code = PAM_AUTHINFO_UNAVAIL;
    if (options.bus_address != NULL && !dbus_bus_register(session.connection, &error)) {
        pam_syslog(pamh, LOG_WARNING, "cannot register on %s: %s", options.bus_address, error.message);
        dbus_error_free(&error);
    } else {
        code = authenticate(&session, user, (const char *)service);
        /* A match, not a typed passcode, by the user themself, as root (the daemon releases only to root). */
        if (code == PAM_SUCCESS && options.keyring && !session.asked_passcode && !session.foreign_applicant && geteuid() == 0)
            release_login_password(&session, user);
    }
    if (session.context != NULL) {
        if (!session.evaluation_ended && session.evaluate_serial != 0)
            stop_evaluation(&session, code);
        (void)context_call(&session, "Invalidate", &error, DBUS_TYPE_INVALID);
        dbus_error_free(&error);
        free(session.context);
    }
    free(session.daemon);
    dbus_connection_close(session.connection);
    dbus_connection_unref(session.connection);
    debug_log(&options, pamh, "result %s", pam_strerror(pamh, code));
    return code;
}

PAM_EXTERN int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    (void)pamh, (void)flags, (void)argc, (void)argv;
    return PAM_SUCCESS;
}
