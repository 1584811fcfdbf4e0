// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

// localauth: a client of localauthd over D-Bus. See `localauth --help` and the README.

let arguments = Array(CommandLine.arguments.dropFirst())
Interrupts.install()
let output = Output(json: arguments.contains("--json"))
let status: Int32
do throws(CLIError) {
    switch try CommandRouter.parse(arguments) {
    case .help(let text):
        Output.write(text, to: 1)
        status = ExitStatus.success
    case .version:
        print("localauth \(localauthVersion)")
        status = ExitStatus.success
    case .run(let command, let global):
        status = try await command.run(global)
    }
} catch {
    output.error(error)
    status = error.exitStatus
}
Terminal.restoreEcho()
exit(status)
