// SPDX-License-Identifier: Apache-2.0
import CommandLineKit
import Testing

/// The rules of `CommandLineParser`, which both `localauth` and `localauthd` follow, on a small
/// command of their own: typed values checked at parse time, and every error a user can act on.
@Suite("command-line parser")
struct CommandLineParserTests {
    enum Mode: String, ExpressibleByArgument, CaseIterable {
        case fast, careful

        static var argumentParser: ValueParser<Mode> { .choice(allCases.map { ($0.rawValue, $0) }) }
    }

    /// A command with a required option, a typed one, an optional one, flags, and arguments.
    struct Sample {
        var reason = ""
        var mode = Mode.careful
        var count: Int?
        var verbose = false
        var target = ""
        var extra: String?

        static let options: [Option<Sample>] = [
            .value(\.reason, "--reason", "TEXT", "why", required: true, parser: .nonEmpty("--reason must not be empty.")),
            .value(\.mode, "--mode", "MODE", "how"),
            .value(\.count, "--count", "N", "how many", parser: ValueParser { text, option throws(CommandLineError) in
                guard let count = Int(text), count > 0 else { throw CommandLineError("\(option) needs a positive number, not “\(text)”.") }
                return count
            }),
            .flag(\.verbose, "--verbose", aliases: ["-v"], "say more"),
        ]
        static let arguments: [Argument<Sample>] = [.argument(\.target, "TARGET"), .argument(\.extra, "[EXTRA]")]
        static let subject = CommandLineParser.Subject(name: "sample", usage: "tool sample --reason TEXT TARGET [EXTRA]",
                                                       helpHint: " See tool sample --help.", otherOptions: ["--json"])

        static func parse(_ tokens: [String]) throws(CommandLineError) -> Sample {
            var sample = Sample()
            try CommandLineParser.parse(tokens, into: &sample, options: options, arguments: arguments, subject: subject)
            return sample
        }
    }

    func error(_ tokens: [String]) -> String? {
        do throws(CommandLineError) {
            _ = try Sample.parse(tokens)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func typedValuesAreFilledFromSeparateAndInlineWords() throws {
        let sample = try Sample.parse(["--reason", "backup", "--mode=fast", "host", "--count", "3", "-v"])
        #expect(sample.reason == "backup" && sample.mode == .fast && sample.count == 3 && sample.verbose)
        #expect(sample.target == "host" && sample.extra == nil)
        let defaults = try Sample.parse(["host", "--reason=x=y"])
        #expect(defaults.mode == .careful && defaults.count == nil && !defaults.verbose && defaults.reason == "x=y")
    }

    @Test func aBadTypedValueIsRefusedWithTheNearestChoice() {
        #expect(error(["--reason", "r", "--mode", "fats", "host"]) == "--mode: “fats” is not one of fast, careful. Did you mean “fast”?")
        #expect(error(["--reason", "r", "--count", "-2", "host"]) == "--count needs a positive number, not “-2”.")
        #expect(error(["--reason=", "host"]) == "--reason must not be empty.")
    }

    @Test func aMissingValueIsAnErrorNotTheNextOption() throws {
        #expect(error(["host", "--reason"]) == "--reason needs a value (TEXT).")
        #expect(error(["host", "--reason", "--verbose"]) == "--reason needs a value (TEXT).")
        #expect(try Sample.parse(["host", "--reason=--verbose"]).reason == "--verbose", "inline, a value may start with --")
        #expect(error(["host"]) == "sample needs --reason TEXT: why. Usage: tool sample --reason TEXT TARGET [EXTRA]")
    }

    @Test func anUnknownOptionIsRefusedWithASuggestion() {
        #expect(error(["--reson", "x", "host"]) == "sample: unknown option --reson. Did you mean --reason? See tool sample --help.")
        #expect(error(["--jsn", "host"]) == "sample: unknown option --jsn. Did you mean --json? See tool sample --help.")
        #expect(error(["--colour=red", "host"]) == "sample: unknown option --colour. See tool sample --help.")
    }

    @Test func aRepeatedOptionWithAValueIsRefusedAndARepeatedFlagIsNot() throws {
        #expect(error(["--reason", "a", "--reason", "b", "host"]) == "--reason is given twice; give it once.")
        #expect(error(["--mode=fast", "--mode", "careful", "--reason", "r", "host"]) == "--mode is given twice; give it once.")
        #expect(try Sample.parse(["-v", "--verbose", "--reason", "r", "host"]).verbose)
        #expect(error(["--verbose=yes", "--reason", "r", "host"]) == "--verbose takes no value.")
    }

    @Test func doubleDashEndsTheOptions() throws {
        let sample = try Sample.parse(["--reason", "r", "--", "--verbose", "-"])
        #expect(sample.target == "--verbose" && sample.extra == "-" && !sample.verbose)
        #expect(error(["--reason", "r", "--", "a", "b", "c"]) == "Usage: tool sample --reason TEXT TARGET [EXTRA]")
        #expect(error(["--reason", "r"]) == "Usage: tool sample --reason TEXT TARGET [EXTRA]")
    }

    @Test func theShapeIsCheckedBeforeAnyValue() {
        // An unknown option after a bad value: the line's shape is wrong, so that is what is said.
        #expect(error(["--mode", "fats", "--bogus", "host", "--reason", "r"])?.hasPrefix("sample: unknown option --bogus.") == true)
        #expect(error(["--mode", "fats"]) == "Usage: tool sample --reason TEXT TARGET [EXTRA]")
    }

    /// The global step: its options anywhere before `--`, everything else kept in order for the command.
    @Test func extractTakesItsOptionsAndKeepsTheRest() throws {
        struct Global {
            var json = false
            var bus = "system"
            var timeout: String?
        }
        let rows: [Option<Global>] = [
            .flag(\.json, "--json", "json"), .flag(\.bus, "--session", setting: "session", "session"),
            .flag(\.bus, "--system", setting: "system", "system"), .value(\.timeout, "--timeout", "SECONDS", "wait"),
        ]
        var global = Global()
        let rest = try CommandLineParser.extract(rows, from: ["sim", "--session", "touch", "--json", "--timeout=5", "-x", "--system",
                                                              "--", "--json"], into: &global)
        #expect(rest == ["sim", "touch", "-x", "--", "--json"])
        #expect(global.json && global.bus == "system" && global.timeout == "5", "the last bus flag wins")
        var again = Global()
        #expect(throws: CommandLineError("--timeout is given twice; give it once.")) {
            _ = try CommandLineParser.extract(rows, from: ["--timeout", "1", "--timeout", "2"], into: &again)
        }
    }

    @Test func suggestionsPreferTheOnlyExtensionThenTheNearestTypo() {
        #expect(CommandLineParser.closest(to: "--ses", in: ["--session", "--system"]) == "--session")
        #expect(CommandLineParser.closest(to: "stauts", in: ["status", "sim"]) == "status")
        #expect(CommandLineParser.closest(to: "xyzzy", in: ["status", "sim"]) == nil)
    }
}
