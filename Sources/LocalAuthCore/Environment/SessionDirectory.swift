// SPDX-License-Identifier: Apache-2.0
/// Tells the engine the ``SessionStanding`` of a client when one of its evaluations claims a
/// sensor. The real one asks logind; asked on the engine's actor, so it must answer quickly and
/// never block (reading logind's files in /run is fine, a bus round trip is not).
public protocol SessionDirectory: Sendable {
    /// The standing of process `pid` (nil when the transport could not tell) evaluating for `user`.
    func standing(ofProcess pid: UInt32?, user: UInt32) -> SessionStanding
}
