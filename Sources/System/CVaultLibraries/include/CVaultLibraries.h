// SPDX-License-Identifier: Apache-2.0
// OpenSSL's libcrypto (P-256 keys, ECDSA, ECDH, AES-GCM, SHA-256 for rights' keys) and tpm2-tss
// (the Enhanced System API, the TCTI loader, marshalling and error decoding, to seal the rights'
// wrapping key to the machine's TPM 2.0), loaded when the key vault first opens rather than when
// localauthd starts: most daemons never open it, and linking them cost every start ~1.9 MiB of
// resident memory and their relocations. The functions the vault calls keep their names and
// prototypes (the libraries' own headers below declare them); vault_libraries.c defines each as a
// call through the symbol it looks up once. The vault calls localauth_load_crypto() when it opens
// (and localauth_load_tss2() before it uses the TPM) to report a missing library as an error; a
// function whose library cannot be loaded at its first call stops the process.
#ifndef LOCALAUTH_VAULT_LIBRARIES_H
#define LOCALAUTH_VAULT_LIBRARIES_H

#include <stddef.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <tss2/tss2_esys.h>
#include <tss2/tss2_tctildr.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>

/// Loads libcrypto.so.3 once; 0 when loaded, otherwise -1 with dlerror's text in `message`.
int localauth_load_crypto(char *message, size_t size);
/// Loads tpm2-tss's libraries once; 0 when loaded, otherwise -1 with dlerror's text in `message`.
int localauth_load_tss2(char *message, size_t size);

#endif
