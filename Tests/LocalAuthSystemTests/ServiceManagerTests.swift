// SPDX-License-Identifier: Apache-2.0
@testable import LocalAuthSystem
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// sd_notify's datagram and sd_watchdog_enabled's reading of the environment, without libsystemd.
/// (The real daemon's READY/WATCHDOG/RELOADING/STOPPING through `$NOTIFY_SOCKET`:
/// SystemdIntegrationTests in LocalAuthServiceTests.)
@Suite("Service manager notifications", .timeLimit(.minutes(1)))
struct ServiceManagerTests {
    @Test(arguments: [false, true]) func aNotificationIsOneDatagramToThePathOrAbstractName(abstract: Bool) throws {
        let manager = try DatagramReceiver(address: temporarySocketAddress(abstract: abstract))
        #expect(ServiceManager.notify("READY=1\nSTATUS=0 contexts", socket: manager.address))
        let datagram = try manager.receive()
        #expect(String(decoding: datagram.payload, as: UTF8.self) == "READY=1\nSTATUS=0 contexts")
        #expect(datagram.descriptors.isEmpty)
    }

    @Test func anAddressSystemdWouldRefuseIsNotUsed() {
        #expect(!ServiceManager.notify("READY=1", socket: "relative/notify"))
        #expect(!ServiceManager.notify("READY=1", socket: "@"))
        #expect(!ServiceManager.notify("READY=1", socket: ""))
        #expect(!ServiceManager.notify("READY=1", socket: "/" + String(repeating: "n", count: 107)))
        #expect(!ServiceManager.notify("READY=1", socket: "/tmp/localauth-no-such-notify-socket"))
    }

    @Test func theLongestAbstractNameStillReachesItsSocket() throws {
        let name = "@" + String(repeating: "w", count: 107 - 20) + String(UInt64.random(in: 0...UInt64.max), radix: 36).padding(20)
        let manager = try DatagramReceiver(address: name)
        #expect(ServiceManager.notify("WATCHDOG=1", socket: name))
        #expect(try manager.receive().payload == Array("WATCHDOG=1".utf8))
    }

    static let me: pid_t = 4242

    @Test(arguments: [
        (nil, nil, nil), ("200000", nil, 100_000), ("  200000", nil, 100_000), ("1", nil, 0),
        ("0", nil, nil), ("18446744073709551615", nil, nil), ("18446744073709551616", nil, nil),
        ("-200000", nil, nil), ("200000 ", nil, nil), ("2e5", nil, nil), ("", nil, nil), ("0x30d40", nil, nil),
        ("200000", "4242", 100_000), ("200000", "4243", nil), ("200000", "0", nil), ("200000", "-1", nil),
        ("200000", "pid", nil), ("200000", "", nil), ("200000", "4294971538", nil),
    ] as [(String?, String?, Int64?)])
    func theWatchdogIsHalfItsTimeoutForThisProcessOnly(microseconds: String?, pid: String?, expected: Int64?) {
        let interval = ServiceManager.watchdogInterval(microseconds: microseconds, pid: pid, processID: Self.me)
        #expect(interval == expected.map { .microseconds($0) })
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
