// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CVaultLibraries
import LocalAuthCore

/// One conversation with a TPM 2.0 through tpm2-tss's Enhanced System API: the TCTI named by a
/// `tpm_tcti` string (`device:/dev/tpmrm0`, `swtpm:path=…`), the ESYS context over it, and the
/// transient objects loaded during it, all flushed and finalized when it ends.
///
/// The only place of the package that calls tpm2-tss; every failure becomes a ``RightVaultError``
/// naming the step and tpm2-tss's decoded response code.
struct TPMConnection: ~Copyable {
    private var tcti: OpaquePointer?
    private var esys: OpaquePointer?
    private var loaded: [ESYS_TR] = []
    /// The salted session that encrypts the sealed data between the TPM and us (parameter encryption).
    private var session: ESYS_TR = ESYS_TR(ESYS_TR_NONE)
    let tctiName: String

    /// Opens the TCTI and the ESYS context; `.sealingUnavailable` when there is no TPM there.
    init(tcti name: String) throws(RightVaultError) {
        tctiName = name
        // tpm2-tss logs its errors to stderr by itself unless TSS2_LOG says otherwise; localauthd's
        // main sets it before any thread starts (``TPMSealedKey/quietLogging()``): setenv here would
        // race with another thread reading the environment (a process being started).
        try VaultLibraries.loadTSS2()
        var tcti: OpaquePointer?
        let loaded = Tss2_TctiLdr_Initialize(name, &tcti)
        guard loaded == TSS2_RC_SUCCESS, tcti != nil else {
            throw RightVaultError(.sealingUnavailable, "No TPM 2.0 at \(name): \(Self.decode(loaded)).")
        }
        var esys: OpaquePointer?
        let initialized = Esys_Initialize(&esys, tcti, nil)
        guard initialized == TSS2_RC_SUCCESS else {
            Tss2_TctiLdr_Finalize(&tcti)
            throw RightVaultError(.sealingUnavailable, "The TPM 2.0 at \(name) does not answer: \(Self.decode(initialized)).")
        }
        self.tcti = tcti
        self.esys = esys
    }

    deinit {
        for handle in loaded.reversed() { _ = Esys_FlushContext(esys, handle) }
        if session != ESYS_TR(ESYS_TR_NONE) { _ = Esys_FlushContext(esys, session) }
        var esys = esys, tcti = tcti
        Esys_Finalize(&esys)
        Tss2_TctiLdr_Finalize(&tcti)
    }

    /// The storage root key: the primary key the standard SRK template (TCG EK Credential Profile's
    /// "ECC NIST P256 storage key": restricted decryption key, AES-128-CFB, unique x and y 32 zero
    /// bytes) derives from the owner hierarchy's seed; the same key every time on the same TPM until
    /// the owner hierarchy is cleared. A salted, encrypting session bound to it is started too.
    mutating func createStorageRootKey() throws(RightVaultError) -> ESYS_TR {
        var template = TPM2B_PUBLIC()
        template.publicArea.type = TPM2_ALG_ID(TPM2_ALG_ECC)
        template.publicArea.nameAlg = TPM2_ALG_ID(TPM2_ALG_SHA256)
        template.publicArea.objectAttributes = TPMA_OBJECT(
            TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN
                | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT)
        template.publicArea.parameters.eccDetail.symmetric.algorithm = TPM2_ALG_ID(TPM2_ALG_AES)
        template.publicArea.parameters.eccDetail.symmetric.keyBits.aes = 128
        template.publicArea.parameters.eccDetail.symmetric.mode.aes = TPM2_ALG_ID(TPM2_ALG_CFB)
        template.publicArea.parameters.eccDetail.scheme.scheme = TPM2_ALG_ID(TPM2_ALG_NULL)
        template.publicArea.parameters.eccDetail.curveID = TPM2_ECC_CURVE(TPM2_ECC_NIST_P256)
        template.publicArea.parameters.eccDetail.kdf.scheme = TPM2_ALG_ID(TPM2_ALG_NULL)
        template.publicArea.unique.ecc.x.size = 32
        template.publicArea.unique.ecc.y.size = 32
        var sensitive = TPM2B_SENSITIVE_CREATE()
        var outside = TPM2B_DATA()
        var pcrs = TPML_PCR_SELECTION()
        var handle = ESYS_TR(ESYS_TR_NONE)
        try check("CreatePrimary (the storage root key under the owner hierarchy)",
                  Esys_CreatePrimary(esys, ESYS_TR(ESYS_TR_RH_OWNER), ESYS_TR(ESYS_TR_PASSWORD), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE),
                                     &sensitive, &template, &outside, &pcrs, &handle, nil, nil, nil, nil),
                  unavailable: true)
        loaded.append(handle)
        try startEncryptingSession(saltedWith: handle)
        return handle
    }

    /// An HMAC session salted with `key`, with parameter encryption both ways (AES-128-CFB), so
    /// the wrapping key never crosses the TCTI in the clear.
    private mutating func startEncryptingSession(saltedWith key: ESYS_TR) throws(RightVaultError) {
        var symmetric = TPMT_SYM_DEF()
        symmetric.algorithm = TPM2_ALG_ID(TPM2_ALG_AES)
        symmetric.keyBits.aes = 128
        symmetric.mode.aes = TPM2_ALG_ID(TPM2_ALG_CFB)
        var session = ESYS_TR(ESYS_TR_NONE)
        try check("StartAuthSession (the encrypting session)",
                  Esys_StartAuthSession(esys, key, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE),
                                        nil, TPM2_SE(TPM2_SE_HMAC), &symmetric, TPM2_ALG_ID(TPM2_ALG_SHA256), &session))
        self.session = session
        let attributes = TPMA_SESSION(TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT | TPMA_SESSION_CONTINUESESSION)
        try check("TRSess_SetAttributes", Esys_TRSess_SetAttributes(esys, session, attributes, 0xff))
    }

    /// A new sealed data object under `parent` holding `data` (at most 128 bytes): its public and
    /// private parts, marshalled (TPM2B_PUBLIC, TPM2B_PRIVATE), to store and ``load(parent:public:private:)`` later.
    mutating func seal(_ data: UnsafeBufferPointer<UInt8>, parent: ESYS_TR) throws(RightVaultError) -> (public: [UInt8], private: [UInt8]) {
        var template = TPM2B_PUBLIC()
        template.publicArea.type = TPM2_ALG_ID(TPM2_ALG_KEYEDHASH)
        template.publicArea.nameAlg = TPM2_ALG_ID(TPM2_ALG_SHA256)
        // No sensitiveDataOrigin: the data is ours. noDA: no dictionary-attack lockout, the
        // object has no password to guess.
        template.publicArea.objectAttributes = TPMA_OBJECT(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA)
        template.publicArea.parameters.keyedHashDetail.scheme.scheme = TPM2_ALG_ID(TPM2_ALG_NULL)
        var sensitive = TPM2B_SENSITIVE_CREATE()
        defer { withUnsafeMutableBytes(of: &sensitive) { explicit_bzero($0.baseAddress!, $0.count) } }
        guard data.count <= 128 else { throw RightVaultError(.failed, "A TPM sealed data object holds at most 128 bytes.") }
        sensitive.sensitive.data.size = UInt16(data.count)
        withUnsafeMutableBytes(of: &sensitive.sensitive.data.buffer) { $0.copyMemory(from: UnsafeRawBufferPointer(data)) }
        var outside = TPM2B_DATA()
        var pcrs = TPML_PCR_SELECTION()
        var outPrivate: UnsafeMutablePointer<TPM2B_PRIVATE>?
        var outPublic: UnsafeMutablePointer<TPM2B_PUBLIC>?
        try check("Create (the sealed wrapping key)",
                  Esys_Create(esys, parent, session, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE),
                              &sensitive, &template, &outside, &pcrs, &outPrivate, &outPublic, nil, nil, nil))
        defer {
            Esys_Free(outPrivate)
            Esys_Free(outPublic)
        }
        guard let outPrivate, let outPublic else { throw RightVaultError(.failed, "The TPM's Create returned no object.") }
        return (try Self.marshal(outPublic, Tss2_MU_TPM2B_PUBLIC_Marshal), try Self.marshal(outPrivate, Tss2_MU_TPM2B_PRIVATE_Marshal))
    }

    /// Loads a sealed data object made by ``seal(_:parent:)`` under the same parent; `.sealingUnavailable`
    /// when the TPM refuses it (another TPM's object, or the owner hierarchy was cleared).
    mutating func load(parent: ESYS_TR, public: [UInt8], private: [UInt8]) throws(RightVaultError) -> ESYS_TR {
        var inPublic = try Self.unmarshal(`public`, as: TPM2B_PUBLIC(), Tss2_MU_TPM2B_PUBLIC_Unmarshal)
        var inPrivate = try Self.unmarshal(`private`, as: TPM2B_PRIVATE(), Tss2_MU_TPM2B_PRIVATE_Unmarshal)
        var handle = ESYS_TR(ESYS_TR_NONE)
        try check("Load (the sealed wrapping key)",
                  Esys_Load(esys, parent, ESYS_TR(ESYS_TR_PASSWORD), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &inPrivate, &inPublic, &handle),
                  unavailable: true)
        loaded.append(handle)
        return handle
    }

    /// Unseals `object` straight into `buffer`, which it must fill exactly; the TPM's answer is wiped.
    mutating func unseal(_ object: ESYS_TR, into buffer: UnsafeMutableBufferPointer<UInt8>) throws(RightVaultError) {
        var out: UnsafeMutablePointer<TPM2B_SENSITIVE_DATA>?
        try check("Unseal (the wrapping key)",
                  Esys_Unseal(esys, object, session, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &out), unavailable: true)
        guard let out else { throw RightVaultError(.failed, "The TPM's Unseal returned nothing.") }
        defer {
            withUnsafeMutableBytes(of: &out.pointee) { explicit_bzero($0.baseAddress!, $0.count) }
            Esys_Free(out)
        }
        guard Int(out.pointee.size) == buffer.count else {
            throw RightVaultError(.sealingUnavailable, "The TPM unsealed \(out.pointee.size) bytes, not the \(buffer.count) of a wrapping key: the sealed object is not this daemon's.")
        }
        withUnsafeBytes(of: &out.pointee.buffer) { UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(buffer.count))) }
    }

    // MARK: tpm2-tss plumbing

    private func check(_ step: String, _ rc: TSS2_RC, unavailable: Bool = false) throws(RightVaultError) {
        guard rc != TSS2_RC_SUCCESS else { return }
        throw RightVaultError(unavailable ? .sealingUnavailable : .failed, "The TPM 2.0 at \(tctiName) failed \(step): \(Self.decode(rc)).")
    }

    static func decode(_ rc: TSS2_RC) -> String {
        Tss2_RC_Decode(rc).map { String(cString: $0) } ?? "response code \(rc)"
    }

    /// The TPM wire form of a TPM2B structure.
    private static func marshal<T>(_ value: UnsafeMutablePointer<T>,
                                   _ function: (UnsafePointer<T>?, UnsafeMutablePointer<UInt8>?, Int, UnsafeMutablePointer<Int>?) -> TSS2_RC) throws(RightVaultError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: MemoryLayout<T>.size + 8)
        var offset = 0
        let rc = bytes.withUnsafeMutableBufferPointer { function(value, $0.baseAddress, $0.count, &offset) }
        guard rc == TSS2_RC_SUCCESS else { throw RightVaultError(.failed, "Cannot marshal a TPM object: \(decode(rc)).") }
        return Array(bytes.prefix(offset))
    }

    /// A TPM2B structure read from its wire form; the whole of `bytes` must be used.
    private static func unmarshal<T>(_ bytes: [UInt8], as empty: T,
                                     _ function: (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<Int>?, UnsafeMutablePointer<T>?) -> TSS2_RC) throws(RightVaultError) -> T {
        var value = empty
        var offset = 0
        let rc = bytes.withUnsafeBufferPointer { function($0.baseAddress, $0.count, &offset, &value) }
        guard rc == TSS2_RC_SUCCESS, offset == bytes.count else {
            throw RightVaultError(.sealingUnavailable, "A stored TPM object is damaged (\(rc == TSS2_RC_SUCCESS ? "\(bytes.count - offset) bytes too many" : decode(rc))).")
        }
        return value
    }
}
