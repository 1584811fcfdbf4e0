// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

private let contextInterface = "org.localauth.LocalAuthentication1.Context"
private let contextPath = "/org/localauth/LocalAuthentication1/context/1"

@Suite struct SignalTests {
    @Test func signalWithDestinationReachesOnlyThatConnection() async throws {
        try await withPrivateBus { bus in
            let server = try await bus.connect()
            let owner = try await bus.connect()
            let bystander = try await bus.connect()
            defer { [server, owner, bystander].forEach { $0.close() } }
            let ownerInbox = Inbox<DBusSignal>()
            let bystanderInbox = Inbox<DBusSignal>()
            let rule = DBusMatchRule(interface: contextInterface)
            _ = try await owner.subscribe(rule) { ownerInbox.put($0) }
            _ = try await bystander.subscribe(rule) { bystanderInbox.put($0) }

            try server.emitSignal(
                path: contextPath, interface: contextInterface, member: "Prompt",
                arguments: [.string("passcode"), .string("Enter your passcode")], destination: owner.uniqueName)
            // A broadcast after it: the bus keeps one sender's messages in order, so once the
            // bystander sees this it would already have seen the Prompt, had it been sent there.
            try server.emitSignal(path: contextPath, interface: contextInterface, member: "Marker")

            let prompt = try await ownerInbox.next()
            #expect(prompt.member == "Prompt")
            #expect(prompt.arguments == [.string("passcode"), .string("Enter your passcode")])
            #expect(prompt.destination == owner.uniqueName)
            #expect(prompt.sender == server.uniqueName)
            #expect(prompt.path == contextPath)
            #expect(try await ownerInbox.next().member == "Marker")
            #expect(try await bystanderInbox.next().member == "Marker")
            #expect(bystanderInbox.received.map(\.member) == ["Marker"])
        }
    }

    @Test func propertiesChangedCarriesTheChangedValues() async throws {
        try await withPrivateBus { bus in
            let server = try await bus.connect()
            let client = try await bus.connect()
            defer { client.close(); server.close() }
            let inbox = Inbox<DBusSignal>()
            _ = try await client.subscribe(
                DBusMatchRule(sender: server.uniqueName, path: contextPath, interface: "org.freedesktop.DBus.Properties",
                              member: "PropertiesChanged")) { inbox.put($0) }
            try server.emitPropertiesChanged(
                path: contextPath, interface: contextInterface,
                changed: ["TouchIDAuthenticationAllowableReuseDuration": .double(10), "LocalizedFallbackTitle": .string("Use Passcode")],
                invalidated: ["EvaluatedPolicyDomainState"])
            let signal = try await inbox.next()
            var reader = DBusArgumentReader(signal.arguments)
            #expect(try reader.string() == contextInterface)
            #expect(try reader.vardict() == [
                "TouchIDAuthenticationAllowableReuseDuration": .double(10), "LocalizedFallbackTitle": .string("Use Passcode"),
            ])
            #expect(try reader.strings() == ["EvaluatedPolicyDomainState"])
            try reader.finish()
        }
    }

    @Test func unsubscribedHandlersAreNotCalled() async throws {
        try await withPrivateBus { bus in
            let server = try await bus.connect()
            let client = try await bus.connect()
            defer { client.close(); server.close() }
            let dropped = Inbox<DBusSignal>()
            let kept = Inbox<DBusSignal>()
            let subscription = try await client.subscribe(DBusMatchRule(member: "Dropped")) { dropped.put($0) }
            _ = try await client.subscribe(DBusMatchRule(member: "Kept")) { kept.put($0) }
            client.unsubscribe(subscription)
            try server.emitSignal(path: "/s", interface: "org.localauth.Test1", member: "Dropped", destination: client.uniqueName)
            try server.emitSignal(path: "/s", interface: "org.localauth.Test1", member: "Kept", destination: client.uniqueName)
            #expect(try await kept.next().member == "Kept")
            // Signals are delivered in order, so Dropped would have been handled before Kept.
            #expect(dropped.received.isEmpty)
        }
    }

    @Test func nameOwnerChangedIsSeenWhenAClientDisconnects() async throws {
        try await withPrivateBus { bus in
            let daemon = try await bus.connect()
            let client = try await bus.connect()
            defer { daemon.close(); client.close() }
            let changes = Inbox<DBusNameOwnerChange>()
            _ = try await daemon.watchNameOwners(client.uniqueName) { changes.put($0) }
            client.close()
            let change = try await changes.next()
            #expect(change == DBusNameOwnerChange(name: client.uniqueName, oldOwner: client.uniqueName, newOwner: nil))
        }
    }
}
