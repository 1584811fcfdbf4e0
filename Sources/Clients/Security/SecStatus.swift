// SPDX-License-Identifier: Apache-2.0

/// No error.
public let errSecSuccess: OSStatus = 0
/// One or more parameters passed to a function were not valid.
public let errSecParam: OSStatus = -50
/// The user name or passphrase you entered is not correct.
public let errSecAuthFailed: OSStatus = -25293
/// The specified item could not be found (also: a right whose biometric enrollments changed, as
/// Apple's `biometryCurrentSet` keychain items become unreachable).
public let errSecItemNotFound: OSStatus = -25300
/// User interaction is not allowed.
public let errSecInteractionNotAllowed: OSStatus = -25308
/// A signature did not verify.
public let errSecVerifyFailed: OSStatus = -67808
