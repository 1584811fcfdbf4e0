// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthTestSupport
import Testing

/// Issue 10, finding 8, CLI side: when `localauth` exits, no copy of a passcode it read and sent
/// is left in its memory. The tool runs under ptrace (a python3 helper), stopped at its exit
/// (PTRACE_EVENT_EXIT, memory still mapped) to be scanned.
@Suite("localauth passcode memory", .timeLimit(.minutes(2)))
struct PasscodeMemoryTests {
    typealias CLI = CommandLineTool

    /// argv: secrets file (current, new, wrong: one per line; deleted once read), localauth, bus address.
    /// Prints one line per run: `copies:`, the exit status, then the copies of each passcode it sent.
    static let tracer = #"""
import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
TRACEME, CONT, SETOPTIONS, O_TRACEEXIT, O_EXITKILL, EVENT_EXIT = 0, 7, 0x4200, 0x40, 0x100000, 6
path, tool, address = sys.argv[1:4]
with open(path, 'rb') as f: current, new, wrong = f.read().split(b'\n')[:3]
os.unlink(path)

def copies(pid, needles):
    counts = [0] * len(needles)
    with open('/proc/%d/maps' % pid) as maps, open('/proc/%d/mem' % pid, 'rb', buffering=0) as mem:
        for line in maps.read().splitlines():
            f = line.split()
            if not f[1].startswith('r') or (len(f) > 5 and f[5] in ('[vvar]', '[vsyscall]', '[vvar_vclock]')): continue
            start, end = (int(x, 16) for x in f[0].split('-'))
            try:
                mem.seek(start); data = mem.read(end - start)
            except OSError: continue
            for i, needle in enumerate(needles): counts[i] += data.count(needle)
    return counts

def run(arguments, stdin, needles):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.dup2(r, 0); os.close(r); os.close(w)
        libc.ptrace(TRACEME, 0, None, None)
        os.execv(tool, [tool, '--address', address] + arguments)
    os.close(r); os.write(w, stdin); os.close(w)
    os.waitpid(pid, 0)  # the SIGTRAP after exec
    libc.ptrace(SETOPTIONS, pid, None, ctypes.c_void_p(O_TRACEEXIT | O_EXITKILL))
    libc.ptrace(CONT, pid, None, None)
    counts = None
    while True:
        _, status = os.waitpid(pid, 0)
        if os.WIFEXITED(status) or os.WIFSIGNALED(status): break
        sig = os.WSTOPSIG(status)
        if sig == signal.SIGTRAP and status >> 16 == EVENT_EXIT:
            counts, sig = copies(pid, needles), 0
        libc.ptrace(CONT, pid, None, ctypes.c_void_p(sig))
    print('copies:', os.waitstatus_to_exitcode(status), *(counts or ['not-stopped']), flush=True)

run(['passcode', 'change', '--stdin'], current + b'\n' + new + b'\n', [current, new])
run(['evaluate', '--reason', 'scan', '--policy', 'owner', '--passcode-stdin'], wrong + b'\n', [wrong])
"""#

    @Test func noPasscodeIsLeftInTheToolsMemoryWhenItExits() async throws {
        let current = MaskedSecret(prefix: "cur-"), new = MaskedSecret(prefix: "new-"), wrong = MaskedSecret(prefix: "bad-")
        try await withDaemon(configuration: CLI.daemonConfiguration) { daemon, bus in
            let client = try await Client(bus)
            _ = try await client.manager("SetPasscode", [.string(""), current.withPlainBytes { .string(String(decoding: $0, as: UTF8.self)) }])
            let path = daemon.stateDirectory + "/../cli-passcodes"
            let lines = [current, new, wrong].map { secret in secret.withPlainBytes { Data($0) + Data("\n".utf8) } }.reduce(Data(), +)
            #expect(FileManager.default.createFile(atPath: path, contents: lines, attributes: [.posixPermissions: 0o600]))
            let (status, output) = try await runTool("/usr/bin/python3", ["-c", Self.tracer, path, CLI.binary, bus.address], timeout: .seconds(60))
            #expect(status == 0, "\(output)")
            let runs = output.split(separator: "\n").filter { $0.hasPrefix("copies: ") }.map { $0.split(separator: " ").dropFirst().map(String.init) }
            #expect(runs.count == 2, "\(output)")
            guard runs.count == 2 else { return }
            #expect(runs[0] == ["0", "0", "0"], "passcode change: exit status, then the copies of the current and the new passcode: \(runs[0])")
            #expect(runs[1] == ["1", "0"], "evaluate with a wrong passcode: exit status, then its copies: \(runs[1])")
            #expect(try await client.userState()["PasscodeFailures"] == .uint32(1))
        }
    }
}
