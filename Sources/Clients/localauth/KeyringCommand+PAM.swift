// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import CPAM

/// Checks a login password as the system knows it: `pam_authenticate` on the service
/// localauth-keyring (pam/localauth-keyring), which pam_localauth also uses for the password it
/// releases. The conversation answers each hidden prompt with the password and shows nothing.
enum LoginPasswordCheck {
    static let service = "localauth-keyring"

    enum Verdict: Equatable {
        case accepted
        /// PAM_AUTH_ERR: not the password.
        case refused
        /// Any other failure (service missing, module error), in pam_strerror's words.
        case unavailable(String)
    }

    /// The password in a NUL-terminated buffer of its own, wiped when the check ends.
    static func check(user: String, password: [UInt8]) -> Verdict {
        let buffer = UnsafeMutableBufferPointer<CChar>.allocate(capacity: password.count + 1)
        defer {
            explicit_bzero(buffer.baseAddress!, buffer.count)
            buffer.deallocate()
        }
        password.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { _ = buffer.initialize(from: $0) }
        }
        buffer[password.count] = 0
        var conversation = pam_conv(conv: answer, appdata_ptr: UnsafeMutableRawPointer(buffer.baseAddress!))
        var handle: OpaquePointer?
        var code = pam_start(service, user, &conversation, &handle)
        guard code == PAM_SUCCESS, let handle else {
            return .unavailable(String(cString: pam_strerror(handle, code)))
        }
        code = pam_authenticate(handle, Int32(PAM_SILENT | PAM_DISALLOW_NULL_AUTHTOK))
        let reason = String(cString: pam_strerror(handle, code))
        pam_end(handle, code)
        switch code {
        case PAM_SUCCESS: return .accepted
        case PAM_AUTH_ERR: return .refused
        default: return .unavailable(reason)
        }
    }

    /// The conversation: the password (appdata) for each PAM_PROMPT_ECHO_OFF, nothing for texts, and
    /// a failure for a visible prompt (the user is named in pam_start, nothing else may be asked).
    private static let answer: @convention(c) (Int32, UnsafeMutablePointer<UnsafePointer<pam_message>?>?,
                                               UnsafeMutablePointer<UnsafeMutablePointer<pam_response>?>?, UnsafeMutableRawPointer?) -> Int32 = {
        count, messages, responses, password in
        guard count > 0, count <= PAM_MAX_NUM_MSG, let messages, let responses, let password else { return PAM_CONV_ERR }
        guard let replies = calloc(Int(count), MemoryLayout<pam_response>.stride)?.bindMemory(to: pam_response.self, capacity: Int(count))
        else { return PAM_BUF_ERR }
        var code = PAM_SUCCESS
        for index in 0..<Int(count) where code == PAM_SUCCESS {
            switch messages[index]?.pointee.msg_style {
            case PAM_PROMPT_ECHO_OFF:
                replies[index].resp = strdup(password.assumingMemoryBound(to: CChar.self))
                if replies[index].resp == nil { code = PAM_BUF_ERR }
            case PAM_PROMPT_ECHO_ON:
                code = PAM_CONV_ERR
            default:
                break
            }
        }
        guard code == PAM_SUCCESS else {
            for index in 0..<Int(count) {
                if let text = replies[index].resp {
                    explicit_bzero(text, strlen(text))
                    free(text)
                }
            }
            free(replies)
            return code
        }
        responses.pointee = replies
        return PAM_SUCCESS
    }
}
