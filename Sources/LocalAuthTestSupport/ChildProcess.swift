import Foundation

/// Ending child processes without `Process.waitUntilExit()`.
///
/// With dozens of children exiting at once (parallel tests), corelibs Foundation can miss a
/// SIGCHLD and leave `waitUntilExit()` waiting forever on a zombie while it holds a cooperative
/// thread. A blocking `waitpid` on the one pid cannot miss it: it returns at once if Foundation
/// already reaped the child (ECHILD), and otherwise as soon as the killed child is gone.
public enum ChildProcess {
    /// Sends SIGKILL and reaps the child.
    public static func kill(_ process: Process) {
        let pid = process.processIdentifier
        guard pid > 0 else { return }
        Foundation.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }
}
