// SPDX-License-Identifier: Apache-2.0
/// Which app a process is, as the daemon read it from the kernel: the key of the user's face
/// decisions (``ContextOptions/appIdentity``) and what a sandbox may not do.
public struct AppIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The sandbox an app runs in, when it runs in one.
    public enum Sandbox: String, Sendable, Hashable {
        case flatpak
        case snap
    }

    /// `flatpak:<app id>`, `snap:<snap name>`, or the path of an unconfined app's executable.
    public let id: String
    public let sandbox: Sandbox?

    /// A Flatpak or Snap app: it may not register as an agent nor call methods that take the
    /// user's passcode (it could collect other apps' reasons, or burn the user's passcode tries).
    public var isSandboxed: Bool { sandbox != nil }

    public init(sandbox: Sandbox, name: some StringProtocol) {
        self.id = "\(sandbox.rawValue):\(name)"
        self.sandbox = sandbox
    }

    /// An unconfined app, named by its executable's path.
    public init(executable: String) {
        self.id = executable
        self.sandbox = nil
    }

    /// The identity `id` names (`flatpak:…` and `snap:…` are sandboxed, anything else an executable).
    public init(id: String) {
        self.id = id
        if id.hasPrefix("flatpak:") { sandbox = .flatpak } else if id.hasPrefix("snap:") { sandbox = .snap } else { sandbox = nil }
    }

    public var description: String { id }
}
