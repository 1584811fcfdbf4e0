// SPDX-License-Identifier: Apache-2.0
/// Reads the passcodes a command needs: from the terminal without echo, or with `--stdin` one per line.
@MainActor
enum PasscodeInput {
    static func read(stdin: Bool, prompts: [String]) async throws(CLIError) -> [[UInt8]] {
        if stdin {
            return try await Secret.readStandardInput(lines: prompts.count)
        }
        var passcodes: [[UInt8]] = []
        for prompt in prompts {
            passcodes.append(try await Terminal.readPasscode(prompt: prompt))
        }
        return passcodes
    }

    /// The current passcode, for commands that need it to change something.
    static func current(stdin: Bool) async throws(CLIError) -> [UInt8] {
        try await read(stdin: stdin, prompts: ["Passcode: "])[0]
    }
}
