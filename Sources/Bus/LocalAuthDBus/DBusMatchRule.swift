// SPDX-License-Identifier: Apache-2.0
/// A match rule for signals: every field that is set must match.
///
/// The bus uses the rule to route broadcast signals to this connection; the connection applies
/// the same rule locally to pick the subscribers. A `sender` that is a well-known name is checked
/// only by the bus, since signals carry the sender's unique name.
public struct DBusMatchRule: Sendable, Hashable {
    public var sender: String?
    public var path: String?
    public var interface: String?
    public var member: String?
    /// The first argument, if it is a string equal to this.
    public var arg0: String?

    public init(
        sender: String? = nil, path: String? = nil, interface: String? = nil, member: String? = nil,
        arg0: String? = nil
    ) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arg0 = arg0
    }

    /// The rule in the bus's syntax, e.g. `type='signal',interface='a.b',member='C'`. Throws
    /// `InvalidArgs` if a field is not a valid name of its kind.
    public func ruleString() throws(DBusError) -> String {
        var parts = ["type='signal'"]
        if let sender {
            try DBusSyntax.requireBusName(sender)
            parts.append("sender='\(sender)'")
        }
        if let path {
            try DBusSyntax.requireObjectPath(path)
            parts.append("path='\(path)'")
        }
        if let interface {
            try DBusSyntax.requireInterface(interface)
            parts.append("interface='\(interface)'")
        }
        if let member {
            try DBusSyntax.requireMember(member)
            parts.append("member='\(member)'")
        }
        if let arg0 {
            try DBusSyntax.requireString(arg0)
            // Inside quotes only the quote itself needs escaping: close, escaped quote, reopen.
            parts.append("arg0='" + arg0.replacingAll("'", with: "'\\''") + "'")
        }
        return parts.joined(separator: ",")
    }

    /// Whether `signal` matches this rule, as far as can be told locally.
    public func matches(_ signal: DBusSignal) -> Bool {
        if let sender, sender.hasPrefix(":") || sender == "org.freedesktop.DBus", signal.sender != sender {
            return false
        }
        if let path, signal.path != path { return false }
        if let interface, signal.interface != interface { return false }
        if let member, signal.member != member { return false }
        if let arg0, signal.arguments.first?.string != arg0 { return false }
        return true
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
