// swift-tools-version:6.0
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

let package = Package(
    name: "localauthd",
    products: [
        .library(name: "LocalAuthCore", targets: ["LocalAuthCore"]),
        .executable(name: "localauthd", targets: ["localauthd"]),
        .executable(name: "localauth", targets: ["localauth"]),
        .library(name: "LocalAuthentication", targets: ["LocalAuthentication"]),
        .library(name: "Security", targets: ["Security"]),
        .executable(name: "localauth-bench", targets: ["localauth-bench"]),
        .executable(name: "localauth-fprintd-provider", targets: ["localauth-fprintd-provider"]),
    ],
    targets: [
        // C libraries from Debian's -dev packages.
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        // OpenSSL's libcrypto (libssl-dev) and tpm2-tss (libtss2-dev) for the key vault, opened with dlopen
        // when the vault first opens, not linked (Sources/System/CVaultLibraries/include/CVaultLibraries.h).
        .target(name: "CVaultLibraries", linkerSettings: [.linkedLibrary("dl")]),
        .systemLibrary(name: "CPAM", pkgConfig: "pam", providers: [.apt(["libpam0g-dev"])]),

        // The command-line rules of localauth and localauthd: typed option and argument rows, the parser, help layout.
        .target(name: "CommandLineKit"),
        // The API v1 contract, shared by the core, the daemon, the clients, the CLI and the providers: names (bus
        // name, paths, interfaces, error names) and the vocabulary both sides use (LAPolicy, LAErrorCode,
        // LABiometryType, BiometricModality, ContextState, PromptKind, AgentUpdateKind, AgentResponse, FingerName,
        // RequirementTerm). No libdbus, no Foundation.
        .target(name: "LocalAuthAPI"),
        // Policy core: contexts, policies, errors, lockout ledger. No I/O, no C.
        .target(name: "LocalAuthCore", dependencies: ["LocalAuthAPI"]),
        // The built-in backends: fingerprint and face simulators, Argon2id passcode hashing.
        .target(name: "LocalAuthBackends", dependencies: ["LocalAuthAPI", "LocalAuthCore", "CSodium"]),
        // The real world behind the core's protocols: atomic state files, configuration files, the system clock.
        .target(name: "LocalAuthSystem", dependencies: ["LocalAuthAPI", "LocalAuthCore"]),
        // The keys and sealed secrets of rights (LARight): P-256 through OpenSSL's libcrypto, sealing with
        // the machine's TPM 2.0 (tpm2-tss) or a root-only wrapping key. Behind the core's RightVault.
        .target(name: "LocalAuthVault", dependencies: ["LocalAuthCore", "CVaultLibraries", "CSodium"]),
        // A small Swift layer over libdbus-1, shared by the daemon and clients.
        .target(name: "LocalAuthDBus", dependencies: ["CDBus", "LocalAuthAPI"]),
        // Typed client proxies of the daemon's interfaces, built on LocalAuthAPI's declarations.
        .target(name: "LocalAuthProxies", dependencies: ["LocalAuthAPI", "LocalAuthDBus"]),
        // Biometric providers in other processes: the BiometricBackend proxy, the ProviderHost object,
        // the daemon's own start mode (docs/providers.md).
        .target(name: "LocalAuthProviders", dependencies: ["LocalAuthAPI", "LocalAuthCore", "LocalAuthBackends", "LocalAuthSystem", "LocalAuthDBus"]),
        // The D-Bus API v1: Manager, Context and Simulator objects translating to the engine.
        .target(name: "LocalAuthService", dependencies: ["LocalAuthAPI", "LocalAuthCore", "LocalAuthBackends", "LocalAuthSystem", "LocalAuthDBus", "LocalAuthProviders", "LocalAuthVault"]),
        // The daemon: options, configuration, logging, signals.
        .executableTarget(name: "localauthd", dependencies: ["LocalAuthAPI", "CommandLineKit", "LocalAuthService", "LocalAuthSystem", "LocalAuthCore", "LocalAuthDBus", "LocalAuthBackends", "LocalAuthVault"]),
        // `import Security`'s part that LocalAuthentication's rights and access controls use:
        // SecAccessControl, SecAccessControlCreateWithFlags, SecKeyAlgorithm, kSecAttrAccessible…, with Apple's values.
        .target(name: "Security"),
        // `import LocalAuthentication`: Apple's client API (LAContext, LAPolicy, LAError) talking to localauthd.
        .target(name: "LocalAuthentication", dependencies: ["LocalAuthAPI", "LocalAuthDBus", "LocalAuthProxies", "Security"]),
        // Apple-platform code that builds unchanged against LocalAuthentication.
        .executableTarget(name: "BiometricAuthManagerExample", dependencies: ["LocalAuthentication"],
                          path: "Examples/BiometricAuthManager"),
        .executableTarget(name: "SecureNotesExample", dependencies: ["LocalAuthentication", "Security"],
                          path: "Examples/SecureNotes"),
        // Test doubles and a harness that drive the core without a bus, disk or real clock.
        .target(name: "LocalAuthTestSupport", dependencies: ["LocalAuthAPI", "LocalAuthCore", "LocalAuthBackends", "LocalAuthDBus", "LocalAuthProxies"]),

        // The command-line client for people and scripts, over the D-Bus API only; `provider check`
        // also reads provider descriptors as the daemon does (LocalAuthSystem, the built-in ids).
        .executableTarget(name: "localauth", dependencies: ["CommandLineKit", "LocalAuthAPI", "LocalAuthDBus", "LocalAuthProxies",
                                                         "LocalAuthSystem", "LocalAuthBackends", "CPAM", "CSodium"]),

        // A provider (org.localauth.Provider1) for real fingerprint readers, through fprintd.
        .executableTarget(name: "localauth-fprintd-provider", dependencies: ["CommandLineKit", "LocalAuthAPI", "LocalAuthDBus"]),

        // `make bench`: latency, throughput, memory and start-up of the release daemon (not part of `make test`).
        .executableTarget(name: "localauth-bench", dependencies: ["LocalAuthAPI", "localauthd", "LocalAuthDBus", "LocalAuthTestSupport"],
                          path: "Benchmarks/localauth-bench"),
        // `make bench`: a match through the Python reference provider against the built-in simulator, same run.
        .executableTarget(name: "localauth-provider-bench", dependencies: ["LocalAuthAPI", "localauthd", "LocalAuthDBus", "LocalAuthTestSupport"],
                          path: "Benchmarks/provider-bench"),

        .testTarget(name: "CommandLineKitTests", dependencies: ["CommandLineKit"]),
        // The vocabulary's raw values (Apple's) and wire strings.
        .testTarget(name: "LocalAuthAPITests", dependencies: ["LocalAuthAPI"]),
        .testTarget(name: "LocalAuthCoreTests", dependencies: ["LocalAuthAPI", "LocalAuthCore", "LocalAuthTestSupport"]),
        .testTarget(name: "LocalAuthBackendsTests", dependencies: ["LocalAuthAPI", "LocalAuthBackends", "LocalAuthTestSupport"]),
        .testTarget(name: "LocalAuthSystemTests", dependencies: ["LocalAuthAPI", "LocalAuthSystem", "LocalAuthBackends", "LocalAuthTestSupport"]),
        // The vault: sealing (wrapping key file, TPM 2.0 through swtpm) and the P-256 operations.
        .testTarget(name: "LocalAuthVaultTests", dependencies: ["LocalAuthVault", "LocalAuthCore", "LocalAuthTestSupport"]),
        .testTarget(name: "LocalAuthDBusTests", dependencies: ["LocalAuthAPI", "LocalAuthDBus", "LocalAuthTestSupport"]),
        // Integration: the real localauthd binary on a private bus, driven by gdbus, busctl, python3-dbus and LocalAuthDBus.
        .testTarget(name: "LocalAuthServiceTests", dependencies: ["LocalAuthAPI", "localauthd", "LocalAuthDBus", "LocalAuthProviders", "LocalAuthTestSupport"]),
        // The service layer's parts without the binary or a bus (the access stage's decisions, the callers' queues).
        .testTarget(name: "LocalAuthServiceUnitTests", dependencies: ["LocalAuthAPI", "LocalAuthService", "LocalAuthTestSupport"]),
        .testTarget(name: "LocalAuthenticationTests",
                    dependencies: ["LocalAuthAPI", "LocalAuthentication", "Security", "LocalAuthDBus", "LocalAuthTestSupport", "localauthd",
                                   "BiometricAuthManagerExample", "SecureNotesExample"]),
        // iOS code in Swift 5 language mode: the `reply` closures Apple's SDK accepts there must build.
        .testTarget(name: "LocalAuthenticationSwift5Tests",
                    dependencies: ["LocalAuthentication", "Security", "LocalAuthTestSupport", "localauthd"],
                    swiftSettings: [.swiftLanguageMode(.v5)]),
        // The real localauth binary against the real localauthd on a private bus.
        .testTarget(name: "LocalAuthCLITests", dependencies: ["LocalAuthAPI", "localauth", "localauthd", "LocalAuthDBus", "LocalAuthTestSupport"]),
        // Faults and abuse: lockout races, crashes, vanishing clients, a bus fuzzer, access, secrets.
        // Bounded here; `make stress` runs the same tests bigger (LOCALAUTH_STRESS=1).
        .testTarget(name: "LocalAuthReliabilityTests", dependencies: ["LocalAuthAPI", "localauthd", "LocalAuthDBus", "LocalAuthTestSupport"]),
        // pam_localauth.so (C, built by `make pam`) under pam_wrapper against the real daemon.
        // localauth-fprintd-provider against real fprintd with libfprint's virtual_device on a private bus.
        .testTarget(name: "LocalAuthFprintdTests",
                    dependencies: ["LocalAuthAPI", "localauth-fprintd-provider", "localauth", "localauthd", "LocalAuthDBus", "LocalAuthTestSupport"]),
        .testTarget(name: "LocalAuthPAMTests", dependencies: ["LocalAuthAPI", "localauthd", "LocalAuthDBus", "LocalAuthTestSupport"]),
        // agent-gtk/localauth-agent-gtk (the desktop sheet) on Xvfb against the real daemon, read through AT-SPI.
        .testTarget(name: "LocalAuthDesktopAgentTests", dependencies: ["LocalAuthAPI", "localauthd", "LocalAuthDBus", "LocalAuthTestSupport"], exclude: ["sheet-driver.py"]),
    ],
    swiftLanguageModes: [.v6]
)

/// Sources are grouped by role (docs/architecture.md): the shared contract, the daemon, its clients,
/// the providers, the bus layer, the C libraries and the test support. Each target lives in
/// `Sources/<role>/<target>`.
let roles: KeyValuePairs<String, [String]> = [
    "Contract": ["LocalAuthAPI"],
    "Daemon": ["LocalAuthCore", "LocalAuthBackends", "LocalAuthSystem", "LocalAuthVault", "LocalAuthService", "localauthd"],
    "Clients": ["LocalAuthentication", "Security", "LocalAuthProxies", "localauth", "CommandLineKit"],
    "Providers": ["LocalAuthProviders", "localauth-fprintd-provider"],
    "Bus": ["LocalAuthDBus"],
    "System": ["CDBus", "CSodium", "CVaultLibraries", "CPAM"],
    "Testing": ["LocalAuthTestSupport"],
]
for (role, names) in roles {
    for target in package.targets where names.contains(target.name) {
        target.path = "Sources/\(role)/\(target.name)"
    }
}
