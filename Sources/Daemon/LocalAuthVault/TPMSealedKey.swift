// SPDX-License-Identifier: Apache-2.0
import CSodium
import CVaultLibraries
import LocalAuthCore

/// The wrapping key of a machine with a TPM 2.0: 32 random bytes sealed in a TPM data object
/// under the storage root key of the owner hierarchy. Only the object's public and private parts
/// are on disk (`<directory>/tpm-wrapping-key.pub` and `.priv`, marshalled TPM2B_PUBLIC and
/// TPM2B_PRIVATE, the private part encrypted by the TPM): copied to another machine, or after the
/// TPM is cleared, they do not unseal. Unsealed once, at start, straight into the sealer's locked memory.
public struct TPMSealedKey: Sendable {
    /// Keeps tpm2-tss quiet on stderr (our errors carry its decoded response codes) unless the
    /// administrator set TSS2_LOG. Call it before the process starts any thread: setenv races with
    /// a thread reading the environment, and tpm2-tss reads TSS2_LOG once, at its first log call.
    public static func quietLogging() {
        setenv("TSS2_LOG", "all+NONE", 0)
    }

    /// The sealed object's public part (written last: its presence means the key exists).
    public static let publicFileName = "tpm-wrapping-key.pub"
    /// The sealed object's private part.
    public static let privateFileName = "tpm-wrapping-key.priv"
    /// Marshalled TPM2B objects are a few hundred bytes; anything larger is not ours.
    static let fileLimit = 4096

    /// The sealing directory (`<state>/sealing`).
    public let directory: String
    /// The tpm2-tss TCTI of the TPM (`device:/dev/tpmrm0`, `swtpm:path=…`).
    public let tcti: String

    public init(directory: String, tcti: String) {
        self.directory = directory
        self.tcti = tcti
    }

    /// Whether a TPM-sealed key was made here (then this TPM, and nothing else, must unseal it).
    /// Nothing is created to find out.
    public var exists: Bool { SealingDirectory.entryExists(directory + "/" + Self.publicFileName) }

    /// A sealer with the unsealed key; the key is made and sealed first when there is none.
    /// `.sealingUnavailable` when the TPM cannot be reached or refuses the stored object.
    public func open() throws(RightVaultError) -> WrappingKeySealer {
        let directory = try SealingDirectory(path: directory)
        let stored = try directory.load(Self.publicFileName, limit: Self.fileLimit)
        var tpm: TPMConnection
        do throws(RightVaultError) {
            tpm = try TPMConnection(tcti: tcti)
        } catch {
            guard stored != nil else { throw error }
            throw RightVaultError(.sealingUnavailable, "The rights' wrapping key is sealed to a TPM 2.0, and the TPM at \(tcti) cannot be reached (\(error.message)) Rights cannot be used until it is back; check tpm_tcti in localauthd.conf and that /dev/tpmrm0 exists.")
        }
        let root = try tpm.createStorageRootKey()
        return try WrappingKeySealer(protection: .tpm2) { (key) throws(RightVaultError) in
            if let stored {
                guard let sealed = try directory.load(Self.privateFileName, limit: Self.fileLimit) else {
                    throw RightVaultError(.sealingUnavailable, "\(directory.path(of: Self.privateFileName)) is missing, but \(Self.publicFileName) is there: restore it from a backup (the rights cannot be opened without it).")
                }
                let object: ESYS_TR
                do throws(RightVaultError) {
                    object = try tpm.load(parent: root, public: stored, private: sealed)
                } catch {
                    throw RightVaultError(.sealingUnavailable, "The TPM 2.0 at \(tcti) refuses the sealed wrapping key in \(directory.path): it was sealed by another TPM, or this TPM's owner hierarchy was cleared (\(error.message)) The rights sealed with it cannot be opened on this machine.")
                }
                try tpm.unseal(object, into: key)
                return
            }
            randombytes_buf(key.baseAddress!, key.count)
            let (publicPart, privatePart) = try tpm.seal(UnsafeBufferPointer(key), parent: root)
            // Proven before it is stored: the object loads and unseals to the same key.
            let object = try tpm.load(parent: root, public: publicPart, private: privatePart)
            var failure: RightVaultError?
            let check = SecretBytes(count: key.count) { copy in
                do throws(RightVaultError) { try tpm.unseal(object, into: copy) } catch { failure = error }
            }
            if let failure { throw failure }
            guard check.withBytes({ sodium_memcmp($0.baseAddress!, key.baseAddress!, key.count) == 0 }) else {
                throw RightVaultError(.failed, "The TPM 2.0 at \(tcti) unsealed another key than it sealed.")
            }
            try privatePart.withUnsafeBufferPointer { (bytes) throws(RightVaultError) in try directory.store(Self.privateFileName, bytes, replace: true) }
            try publicPart.withUnsafeBufferPointer { (bytes) throws(RightVaultError) in try directory.store(Self.publicFileName, bytes, replace: false) }
        }
    }
}
