// SPDX-License-Identifier: Apache-2.0
/// The bus fuzzer, a python3-dbus script (`python3 -c BusFuzzer.script ADDRESS SEED COUNT`):
/// python3-dbus's low-level messages carry any signature, so it sends what well-behaved clients
/// refuse to: wrong and missing arguments, truncated, empty and huge strings, deep variants,
/// unknown paths, interfaces and members, out-of-range policies, bad option dictionaries, writes
/// to read-only properties. Every message it sends must be answered with an error; it prints
/// `FAIL seed=… message=… <what was sent>` otherwise. The same seed sends the same messages.
///
/// Only malformed or invalid requests are generated, so a correct daemon changes no state. libdbus
/// refuses to send some values (NUL or invalid UTF-8 in strings, over-deep nesting); those are
/// counted as `refused-locally`, and a message the bus itself rejects drops the connection
/// (`reconnects`): the daemon never sees either.
enum BusFuzzer {
    static let script = #"""
import random, sys, dbus, dbus.lowlevel
address, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r = random.Random(seed)
N = 'org.localauth.LocalAuthentication1'; M = '/org/localauth/LocalAuthentication1'
MI, CI, SI, P = N + '.Manager', N + '.Context', N + '.Simulator', 'org.freedesktop.DBus.Properties'
def connect():
    bus = dbus.bus.BusConnection(address)
    ctx = dbus.Interface(bus.get_object(N, M, introspect=False), MI).CreateContext(dbus.Dictionary({}, signature='sv'))
    return bus, str(ctx)
bus, ctx = connect()
def text():
    k = r.randrange(7)
    if k == 0: return ''
    if k == 1: return 'x' * r.choice([129, 513, 4096, 65536, 1 << 20])
    if k == 2: return ''.join(chr(r.randrange(0x20, 0x2FFF)) for _ in range(r.randrange(1, 40)))
    if k == 3: return 'right-index-finger'[:r.randrange(1, 18)]
    if k == 4: return '\udcff' if r.random() < 0.5 else 'a\x00b'
    if k == 5: return r.choice(['fingerprint', 'face', 'primary', 'left-thumb'])[::-1]
    return 'ok' * r.randrange(1, 100)
def value(depth=0):
    k = r.randrange(14 if depth < 3 else 9)
    if k == 0: return dbus.UInt32(r.choice([0, 6, 7, 1000, 2**31, 2**32 - 1])), 'u'
    if k == 1: return dbus.String(text()), 's'
    if k == 2: return dbus.Boolean(r.random() < 0.5), 'b'
    if k == 3: return dbus.Int32(r.randrange(-2**31, 2**31)), 'i'
    if k == 4: return dbus.Double(r.choice([float('nan'), float('inf'), -1.0, 1e308])), 'd'
    if k == 5: return dbus.Byte(r.randrange(256)), 'y'
    if k == 6: return dbus.UInt64(r.randrange(2**64)), 't'
    if k == 7: return dbus.ObjectPath(r.choice(['/', M, M + '/context/999999', '/x/y'])), 'o'
    if k == 8: return dbus.Int16(r.randrange(-2**15, 2**15)), 'n'
    if k == 9:
        inner, _ = value(depth + 1)
        levels = r.choice([1, 2, 8, 31, 40, 64])
        # A container copied without its signature gets one guessed from its first item, and a
        # later item of another type then aborts libdbus in this process (an invalid 'o').
        keep = {'signature': inner.signature} if isinstance(inner, (dbus.Dictionary, dbus.Array, dbus.Struct)) else {}
        return type(inner)(inner, variant_level=levels, **keep), 'v'
    if k == 10: return dbus.Array([text() for _ in range(r.randrange(4))], signature='s'), 'as'
    if k == 11: return dbus.Dictionary({text(): value(depth + 1)[0] for _ in range(r.randrange(3))}, signature='sv'), 'a{sv}'
    if k == 12: return dbus.ByteArray(bytes(r.randrange(256) for _ in range(r.randrange(64)))), 'ay'
    a, sa = value(depth + 1); b, sb = value(depth + 1)
    return dbus.Struct((a, b), signature=sa + sb), '(' + sa + sb + ')'
def args(n):
    values = [value() for _ in range(n)]
    return [v for v, _ in values], ''.join(s for _, s in values)
def bad_policy(): return dbus.UInt32(r.choice([0, 6, 9, 255, 2**32 - 1, r.randrange(6, 2**32)]))
def wrong(kw): return lambda: ('xyz' + r.choice(['', '-', 'Lab', 'ü'])) if kw else text()
# (path, interface, member, expected signature, generator of wrong-valued arguments with that signature or None)
targets = [
    (M, MI, 'CreateContext', 'a{sv}', lambda: [dbus.Dictionary(r.choice([
        {'Nonsense' + str(r.randrange(99)): dbus.UInt32(1)}, {'LocalizedFallbackTitle': dbus.UInt32(1)},
        {'AllowableReuseDuration': 'long'}, {'InteractionNotAllowed': dbus.Int32(1)}, {'LocalizedCancelTitle': ''}]), signature='sv')]),
    (M, MI, 'GetUserState', '', None),
    (M, MI, 'SetPasscode', 'ss', lambda: [text(), r.choice(['', 'ab', 'abc', 'x' * r.choice([129, 4096])])]),
    (M, MI, 'RemovePasscode', 's', lambda: [r.choice(['', 'x' * 129, 'y' * 70000])]),
    (M, MI, 'Enroll', 'sss', lambda: [wrong(True)(), text(), 'x' * 129]),
    (M, MI, 'Unenroll', 'sss', lambda: [wrong(True)(), text(), 'x' * 129]),
    (M, MI, 'SetRequireAttention', 'bs', lambda: [dbus.Boolean(r.random() < 0.5), r.choice(['', 'x' * 129])]),
    (M, MI, 'ResetLockout', 'u', None),
    (ctx, CI, 'CanEvaluatePolicy', 'u', lambda: [bad_policy()]),
    (ctx, CI, 'EvaluatePolicy', 'us', lambda: r.choice([[bad_policy(), 'reason'], [dbus.UInt32(r.choice([1, 2])), r.choice(['', 'r' * 513, 'r' * 70000])]])),
    (ctx, CI, 'SubmitPasscode', 's', lambda: [text()]),
    (ctx, CI, 'Fallback', '', None), (ctx, CI, 'Cancel', '', None), (ctx, CI, 'Invalidate', '', None),
    (M + '/simulator', SI, 'Touch', 's', lambda: [wrong(True)()]),
    (M + '/simulator', SI, 'FingerprintRetry', 's', lambda: [wrong(True)()]),
    (M + '/simulator', SI, 'PresentFace', 'sb', lambda: [wrong(True)(), dbus.Boolean(True)]),
    (M + '/simulator', SI, 'SetConnected', 'sb', lambda: [wrong(True)(), dbus.Boolean(r.random() < 0.5)]),
    (M + '/simulator', SI, 'Reset', '', None),
    (ctx, P, 'Get', 'ss', lambda: [r.choice([CI, MI, 'x.y']), r.choice(['Nope', 'state', '', 'x' * 300])]),
    (ctx, P, 'Set', 'ssv', lambda: r.choice([[CI, 'State', dbus.String('idle', variant_level=1)], [CI, 'BiometryType', dbus.UInt32(1, variant_level=1)],
                                             [CI, 'LocalizedCancelTitle', dbus.UInt32(1, variant_level=1)], [CI, 'LocalizedCancelTitle', dbus.String('', variant_level=1)],
                                             [CI, 'AllowableReuseDuration', dbus.String('1', variant_level=1)], [CI, 'Nope', dbus.Boolean(True, variant_level=1)]])),
    (M, P, 'Set', 'ssv', lambda: [MI, r.choice(['Version', 'Backends', 'Nope']), dbus.String('2.0', variant_level=1)]),
]
stats = {}
def note(key): stats[key] = stats.get(key, 0) + 1
for index in range(count):
    kind = r.randrange(4)
    path, iface, member, signature, bad = r.choice(targets)
    if kind == 0 and bad is not None:
        arguments, sig = bad(), signature
    elif kind == 3:
        path, iface, member = r.choice([(M + '/nope', MI, 'GetUserState'), (M, N + '.Nope', 'GetUserState'), (M, MI, 'Nope'),
                                        (M + '/context/0', CI, 'Cancel'), (M + '/context/' + str(r.randrange(10**6, 10**9)), CI, 'CanEvaluatePolicy'),
                                        ('/', MI, 'CreateContext'), (M + '/simulator', MI, 'ResetLockout')])
        arguments, sig = args(r.randrange(3))
    else:
        arguments, sig = args(r.randrange(4))
        if sig == signature: arguments, sig = arguments + [dbus.Boolean(True)], sig + 'b'
    described = '%s %s.%s(%s) %.200r' % (path, iface, member, sig, arguments)
    try:
        message = dbus.lowlevel.MethodCallMessage(N, path, iface, member)
        if arguments: message.append(signature=sig, *arguments)
    except Exception as e:
        note('refused-locally'); continue
    try:
        bus.send_message_with_reply_and_block(message, 10.0)
        print('FAIL seed=%d message=%d answered with success: %s' % (seed, index, described)); sys.exit(1)
    except dbus.DBusException as e:
        name = e.get_dbus_name()
        if name in ('org.freedesktop.DBus.Error.NoReply', 'org.freedesktop.DBus.Error.Timeout', 'org.freedesktop.DBus.Error.ServiceUnknown'):
            print('FAIL seed=%d message=%d: %s (%s): %s' % (seed, index, name, e, described)); sys.exit(1)
        if name == 'org.freedesktop.DBus.Error.Disconnected' or not bus.get_is_connected():
            note('reconnects'); bus, ctx = connect(); continue
        note(name)
    except Exception as e:
        note('refused-locally')
print('sent', sum(v for k, v in stats.items() if k not in ('refused-locally',)), sorted(stats.items()))
"""#
}
