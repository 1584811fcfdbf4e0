// SPDX-License-Identifier: Apache-2.0
// OpenSSL's libcrypto (Debian's libssl-dev): P-256 keys, ECDSA, ECDH, AES-GCM, SHA-256 for rights' keys.
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/x509.h>
#include <openssl/pem.h>
