// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// The reference side of the vault's crypto tests: the `openssl` command line and Python's
/// `cryptography` package (Debian's python3-cryptography), run in a scratch directory.
struct ReferenceTools: ~Copyable {
    /// Where the tools' files are; removed with this value.
    let scratch: ScratchDirectory

    init() throws { scratch = try ScratchDirectory(prefix: "localauth-vault") }

    var directory: String { scratch.path }

    func path(_ name: String) -> String { scratch.path(name) }

    func write(_ bytes: [UInt8], to name: String) throws { try scratch.write(bytes, to: name) }

    func write(_ text: String, to name: String) throws { try scratch.write(Array(text.utf8), to: name) }

    func read(_ name: String) throws -> [UInt8] { try scratch.read(name) }

    /// `openssl arguments…` in the scratch directory's terms; its exit status and output.
    func openssl(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await runTool("/usr/bin/openssl", arguments, timeout: .seconds(60))
    }

    /// `openssl arguments…`, which must succeed.
    @discardableResult
    func opensslSucceeding(_ arguments: [String]) async throws -> String {
        let (status, output) = try await openssl(arguments)
        guard status == 0 else { throw ToolFailure(description: "openssl \(arguments.joined(separator: " ")) exited \(status): \(output)") }
        return output
    }

    /// A Python 3 `script` run with `arguments`; its standard output, trimmed. It must succeed.
    func python(_ script: String, _ arguments: [String]) async throws -> String {
        let (status, output) = try await runTool("/usr/bin/python3", ["-c", script] + arguments, timeout: .seconds(60))
        guard status == 0 else { throw ToolFailure(description: "python3 exited \(status): \(output)") }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A new P-256 key made by `openssl` (SEC 1 PEM in `name`), and its public key in X9.63 form
    /// taken from the DER SubjectPublicKeyInfo openssl writes.
    func opensslKey(_ name: String) async throws -> (spki: [UInt8], x963: [UInt8]) {
        try await opensslSucceeding(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", path(name)])
        try await opensslSucceeding(["pkey", "-in", path(name), "-pubout", "-outform", "DER", "-out", path(name + ".pub.der")])
        let spki = try read(name + ".pub.der")
        return (spki, Array(spki.suffix(65)))
    }
}

struct ToolFailure: Error, CustomStringConvertible {
    let description: String
}

extension Array where Element == UInt8 {
    init(hexString hex: String) {
        let digits = Array(hex.utf8)
        self = stride(from: 0, to: digits.count - 1, by: 2).map { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)! }
    }

    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}

extension SecretBytes {
    var revealed: [UInt8] { withBytes { Array($0) } }
}
