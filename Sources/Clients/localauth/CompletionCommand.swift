// SPDX-License-Identifier: Apache-2.0
import CommandLineKit

/// `completion bash`: the completion script generated from the command table.
struct CompletionCommand: ParsableCommand {
    static let configuration = CommandConfiguration<Self>(
        words: ["completion"], summary: "Print the bash completion script (the package installs it for bash-completion).",
        arguments: [.argument(\.shell, "bash", parser: .choice(["bash"]))])
    var shell = "bash"

    func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
        Output.write(CompletionScript.bash, to: 1)
        return ExitStatus.success
    }
}
