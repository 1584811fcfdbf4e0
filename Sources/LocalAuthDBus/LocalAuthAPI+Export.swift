// SPDX-License-Identifier: Apache-2.0
/// `DBusInterfaceDescription` lives in LocalAuthAPI (no libdbus there, so the contract can be
/// declared once for every client); whoever uses this wrapper sees it as before.
@_exported import LocalAuthAPI
