// SPDX-License-Identifier: Apache-2.0
/// The CLI's version; it speaks localauthd's D-Bus API v1.
let localauthVersion = "1.0.0"
