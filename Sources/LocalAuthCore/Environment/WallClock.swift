/// The source of "now" for every rule that involves time. Tests use a fake that they advance.
public protocol WallClock: Sendable {
    func now() -> UnixTime
}
