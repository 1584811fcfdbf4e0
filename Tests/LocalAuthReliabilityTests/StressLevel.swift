// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Sizes and seeds of the reliability suite: small in `make test`, big in `make stress`
/// (`LOCALAUTH_STRESS=1`). Every count can be set on its own, e.g. `LOCALAUTH_CRASH_ROUNDS=500`;
/// `LOCALAUTH_SEED` replays a failure's seed.
enum StressLevel {
    static let isStress = ProcessInfo.processInfo.environment["LOCALAUTH_STRESS"] == "1"

    static func count(_ variable: String, bounded: Int, stress: Int) -> Int {
        ProcessInfo.processInfo.environment[variable].flatMap(Int.init) ?? (isStress ? stress : bounded)
    }

    static let raceClients = count("LOCALAUTH_RACE_CLIENTS", bounded: 20, stress: 100)
    static let crashRounds = count("LOCALAUTH_CRASH_ROUNDS", bounded: 5, stress: 100)
    static let churnRounds = count("LOCALAUTH_CHURN_ROUNDS", bounded: 200, stress: 5000)
    static let fuzzMessages = count("LOCALAUTH_FUZZ_MESSAGES", bounded: 400, stress: 20000)
    /// 512 KiB calls without reply one connection floods the daemon with: 160 are 80 MiB, past
    /// libdbus's 63 MiB of received messages.
    static let floodMessages = count("LOCALAUTH_FLOOD_MESSAGES", bounded: 160, stress: 2000)
    static let floodConnections = count("LOCALAUTH_FLOOD_CONNECTIONS", bounded: 64, stress: 250)

    /// `LOCALAUTH_SEED`, or a fresh one that failures print.
    static func seed() -> UInt64 {
        ProcessInfo.processInfo.environment["LOCALAUTH_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64(UInt32.max))
    }

    /// How to run one test again with the same seed, for failure messages.
    static func reproduce(_ test: String, seed: UInt64, extra: String = "") -> String {
        "reproduce: LOCALAUTH_SEED=\(seed) \(extra)swift test --filter \(test)"
    }
}
