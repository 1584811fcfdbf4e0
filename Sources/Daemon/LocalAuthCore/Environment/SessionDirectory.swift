// SPDX-License-Identifier: Apache-2.0
/// Tells the engine the ``SessionStanding`` of a client when its evaluations compete for a
/// sensor. The real one asks logind; asked on the engine's actor, so it must answer quickly and
/// never block (reading logind's files in /run is fine, a bus round trip is not).
///
/// The engine finds a client's session once per connection (``SessionLookup``); a session's
/// standing changes (it becomes active, or not), so it is asked whenever claims compete: for a
/// claim that joins others, and for a lone claim when another joins it (``SensorArbiter``).
public protocol SessionDirectory: Sendable {
    /// The standing of a client in `session` (nil: in none, or it could not be told) evaluating for `user`.
    func standing(in session: LoginSession?, user: UInt32) -> SessionStanding
}
