// SPDX-License-Identifier: Apache-2.0
/// Whether `condition` holds within about 5 s, asked every millisecond: for a state another thread
/// reaches (a writer queue, a gate) that sends no signal to wait on.
public func eventually(_ condition: () async -> Bool) async -> Bool {
    for _ in 0..<5_000 {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return await condition()
}
