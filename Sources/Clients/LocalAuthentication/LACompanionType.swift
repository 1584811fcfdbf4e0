// SPDX-License-Identifier: Apache-2.0
/// A kind of companion device, with Apple's raw values. localauthd pairs none, so no `LAContext`
/// reports one; declared so code written for Apple platforms builds.
public enum LACompanionType: Int, Sendable, Hashable, CaseIterable {
    case watch = 1
    case mac = 2
    case vision = 4
}
