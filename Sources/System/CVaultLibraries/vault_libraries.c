// SPDX-License-Identifier: Apache-2.0
// The vault's libcrypto and tpm2-tss functions, each a call through the library's own symbol,
// looked up at its first call in the library that localauth_load_*() opened (see the header).
#define _GNU_SOURCE
#include "CVaultLibraries.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct library {
    const char *const names[4];
    void (*const opener)(void);
    void *handles[4];
    pthread_once_t once;
    char error[256];
    int loaded;
};

static void open_crypto(void);
static void open_tss2(void);

static struct library crypto = {.names = {"libcrypto.so.3"}, .opener = open_crypto, .once = PTHREAD_ONCE_INIT};
static struct library tss2 = {
    .names = {"libtss2-esys.so.0", "libtss2-tctildr.so.0", "libtss2-mu.so.0", "libtss2-rc.so.0"},
    .opener = open_tss2,
    .once = PTHREAD_ONCE_INIT,
};

static void open_library(struct library *library) {
    for (int i = 0; i < 4 && library->names[i]; i++) {
        library->handles[i] = dlopen(library->names[i], RTLD_NOW | RTLD_LOCAL);
        if (!library->handles[i]) {
            const char *reason = dlerror();
            snprintf(library->error, sizeof library->error, "%s", reason ? reason : library->names[i]);
            return;
        }
    }
    __atomic_store_n(&library->loaded, 1, __ATOMIC_RELEASE);
}

static void open_crypto(void) { open_library(&crypto); }
static void open_tss2(void) { open_library(&tss2); }

static int load(struct library *library, char *message, size_t size) {
    pthread_once(&library->once, library->opener);
    if (__atomic_load_n(&library->loaded, __ATOMIC_ACQUIRE)) return 0;
    if (message && size) snprintf(message, size, "%s", library->error);
    return -1;
}

int localauth_load_crypto(char *message, size_t size) { return load(&crypto, message, size); }
int localauth_load_tss2(char *message, size_t size) { return load(&tss2, message, size); }

/// The address of `name` in `library`, loaded now if need be; found once per function (a race
/// between two first calls looks it up twice, with the same result).
static void *symbol(struct library *library, const char *name) {
    if (load(library, NULL, 0) != 0) {
        fprintf(stderr, "localauthd: %s is needed and cannot be loaded: %s\n", library->names[0], library->error);
        abort();
    }
    for (int i = 0; i < 4 && library->handles[i]; i++) {
        void *address = dlsym(library->handles[i], name);
        if (address) return address;
    }
    fprintf(stderr, "localauthd: %s is missing from %s\n", name, library->names[0]);
    abort();
}

#define FORWARD(library, result, name, parameters, arguments)                                   \
    result name parameters {                                                                      \
        static result(*real) parameters;                                                          \
        result(*target) parameters = __atomic_load_n(&real, __ATOMIC_ACQUIRE);                    \
        if (!target) {                                                                            \
            target = (result(*) parameters)symbol(&library, #name);                               \
            __atomic_store_n(&real, target, __ATOMIC_RELEASE);                                    \
        }                                                                                         \
        return target arguments;                                                                  \
    }

// libcrypto
FORWARD(crypto, int, BN_bn2binpad, (const BIGNUM *a, unsigned char *to, int tolen), (a, to, tolen))
FORWARD(crypto, void, BN_clear_free, (BIGNUM *a), (a))
FORWARD(crypto, void, ERR_clear_error, (void), ())
FORWARD(crypto, void, ERR_error_string_n, (unsigned long e, char *buf, size_t len), (e, buf, len))
FORWARD(crypto, unsigned long, ERR_peek_error, (void), ())
FORWARD(crypto, int, EVP_CIPHER_CTX_ctrl, (EVP_CIPHER_CTX *ctx, int type, int arg, void *ptr), (ctx, type, arg, ptr))
FORWARD(crypto, void, EVP_CIPHER_CTX_free, (EVP_CIPHER_CTX *c), (c))
FORWARD(crypto, EVP_CIPHER_CTX *, EVP_CIPHER_CTX_new, (void), ())
FORWARD(crypto, int, EVP_DecryptFinal_ex, (EVP_CIPHER_CTX *ctx, unsigned char *outm, int *outl), (ctx, outm, outl))
FORWARD(crypto, int, EVP_DecryptInit_ex, (EVP_CIPHER_CTX *ctx, const EVP_CIPHER *cipher, ENGINE *impl, const unsigned char *key, const unsigned char *iv),
        (ctx, cipher, impl, key, iv))
FORWARD(crypto, int, EVP_DecryptUpdate, (EVP_CIPHER_CTX *ctx, unsigned char *out, int *outl, const unsigned char *in, int inl), (ctx, out, outl, in, inl))
FORWARD(crypto, int, EVP_DigestFinal_ex, (EVP_MD_CTX *ctx, unsigned char *md, unsigned int *s), (ctx, md, s))
FORWARD(crypto, int, EVP_DigestInit_ex, (EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *impl), (ctx, type, impl))
FORWARD(crypto, int, EVP_DigestSign, (EVP_MD_CTX *ctx, unsigned char *sigret, size_t *siglen, const unsigned char *tbs, size_t tbslen),
        (ctx, sigret, siglen, tbs, tbslen))
FORWARD(crypto, int, EVP_DigestSignInit, (EVP_MD_CTX *ctx, EVP_PKEY_CTX **pctx, const EVP_MD *type, ENGINE *e, EVP_PKEY *pkey), (ctx, pctx, type, e, pkey))
FORWARD(crypto, int, EVP_DigestUpdate, (EVP_MD_CTX *ctx, const void *d, size_t cnt), (ctx, d, cnt))
FORWARD(crypto, int, EVP_DigestVerify, (EVP_MD_CTX *ctx, const unsigned char *sigret, size_t siglen, const unsigned char *tbs, size_t tbslen),
        (ctx, sigret, siglen, tbs, tbslen))
FORWARD(crypto, int, EVP_DigestVerifyInit, (EVP_MD_CTX *ctx, EVP_PKEY_CTX **pctx, const EVP_MD *type, ENGINE *e, EVP_PKEY *pkey), (ctx, pctx, type, e, pkey))
FORWARD(crypto, int, EVP_EncodeBlock, (unsigned char *t, const unsigned char *f, int n), (t, f, n))
FORWARD(crypto, int, EVP_EncryptFinal_ex, (EVP_CIPHER_CTX *ctx, unsigned char *out, int *outl), (ctx, out, outl))
FORWARD(crypto, int, EVP_EncryptInit_ex, (EVP_CIPHER_CTX *ctx, const EVP_CIPHER *cipher, ENGINE *impl, const unsigned char *key, const unsigned char *iv),
        (ctx, cipher, impl, key, iv))
FORWARD(crypto, int, EVP_EncryptUpdate, (EVP_CIPHER_CTX *ctx, unsigned char *out, int *outl, const unsigned char *in, int inl), (ctx, out, outl, in, inl))
FORWARD(crypto, void, EVP_MD_CTX_free, (EVP_MD_CTX *ctx), (ctx))
FORWARD(crypto, EVP_MD_CTX *, EVP_MD_CTX_new, (void), ())
FORWARD(crypto, void, EVP_PKEY_CTX_free, (EVP_PKEY_CTX *ctx), (ctx))
FORWARD(crypto, EVP_PKEY_CTX *, EVP_PKEY_CTX_new_from_name, (OSSL_LIB_CTX *libctx, const char *name, const char *propquery), (libctx, name, propquery))
FORWARD(crypto, EVP_PKEY_CTX *, EVP_PKEY_CTX_new_from_pkey, (OSSL_LIB_CTX *libctx, EVP_PKEY *pkey, const char *propquery), (libctx, pkey, propquery))
FORWARD(crypto, int, EVP_PKEY_CTX_set_group_name, (EVP_PKEY_CTX *ctx, const char *name), (ctx, name))
FORWARD(crypto, int, EVP_PKEY_derive, (EVP_PKEY_CTX *ctx, unsigned char *key, size_t *keylen), (ctx, key, keylen))
FORWARD(crypto, int, EVP_PKEY_derive_init, (EVP_PKEY_CTX *ctx), (ctx))
FORWARD(crypto, int, EVP_PKEY_derive_set_peer_ex, (EVP_PKEY_CTX *ctx, EVP_PKEY *peer, int validate_peer), (ctx, peer, validate_peer))
FORWARD(crypto, void, EVP_PKEY_free, (EVP_PKEY *pkey), (pkey))
FORWARD(crypto, int, EVP_PKEY_generate, (EVP_PKEY_CTX *ctx, EVP_PKEY **ppkey), (ctx, ppkey))
FORWARD(crypto, int, EVP_PKEY_get_bn_param, (const EVP_PKEY *pkey, const char *key_name, BIGNUM **bn), (pkey, key_name, bn))
FORWARD(crypto, int, EVP_PKEY_get_octet_string_param, (const EVP_PKEY *pkey, const char *key_name, unsigned char *buf, size_t max_buf_sz, size_t *out_sz),
        (pkey, key_name, buf, max_buf_sz, out_sz))
FORWARD(crypto, int, EVP_PKEY_keygen_init, (EVP_PKEY_CTX *ctx), (ctx))
FORWARD(crypto, int, EVP_PKEY_public_check, (EVP_PKEY_CTX *ctx), (ctx))
FORWARD(crypto, int, EVP_PKEY_sign, (EVP_PKEY_CTX *ctx, unsigned char *sig, size_t *siglen, const unsigned char *tbs, size_t tbslen),
        (ctx, sig, siglen, tbs, tbslen))
FORWARD(crypto, int, EVP_PKEY_sign_init, (EVP_PKEY_CTX *ctx), (ctx))
FORWARD(crypto, int, EVP_PKEY_verify, (EVP_PKEY_CTX *ctx, const unsigned char *sig, size_t siglen, const unsigned char *tbs, size_t tbslen),
        (ctx, sig, siglen, tbs, tbslen))
FORWARD(crypto, int, EVP_PKEY_verify_init, (EVP_PKEY_CTX *ctx), (ctx))
FORWARD(crypto, const EVP_CIPHER *, EVP_aes_128_gcm, (void), ())
FORWARD(crypto, const EVP_MD *, EVP_sha256, (void), ())
FORWARD(crypto, EVP_PKEY *, d2i_PUBKEY, (EVP_PKEY **a, const unsigned char **pp, long length), (a, pp, length))
FORWARD(crypto, EVP_PKEY *, d2i_PrivateKey, (int type, EVP_PKEY **a, const unsigned char **pp, long length), (type, a, pp, length))

// tpm2-tss
FORWARD(tss2, TSS2_RC, Esys_Create,
        (ESYS_CONTEXT *esysContext, ESYS_TR parentHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_SENSITIVE_CREATE *inSensitive,
         const TPM2B_PUBLIC *inPublic, const TPM2B_DATA *outsideInfo, const TPML_PCR_SELECTION *creationPCR, TPM2B_PRIVATE **outPrivate,
         TPM2B_PUBLIC **outPublic, TPM2B_CREATION_DATA **creationData, TPM2B_DIGEST **creationHash, TPMT_TK_CREATION **creationTicket),
        (esysContext, parentHandle, shandle1, shandle2, shandle3, inSensitive, inPublic, outsideInfo, creationPCR, outPrivate, outPublic, creationData,
         creationHash, creationTicket))
FORWARD(tss2, TSS2_RC, Esys_CreatePrimary,
        (ESYS_CONTEXT *esysContext, ESYS_TR primaryHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_SENSITIVE_CREATE *inSensitive,
         const TPM2B_PUBLIC *inPublic, const TPM2B_DATA *outsideInfo, const TPML_PCR_SELECTION *creationPCR, ESYS_TR *objectHandle, TPM2B_PUBLIC **outPublic,
         TPM2B_CREATION_DATA **creationData, TPM2B_DIGEST **creationHash, TPMT_TK_CREATION **creationTicket),
        (esysContext, primaryHandle, shandle1, shandle2, shandle3, inSensitive, inPublic, outsideInfo, creationPCR, objectHandle, outPublic, creationData,
         creationHash, creationTicket))
FORWARD(tss2, void, Esys_Finalize, (ESYS_CONTEXT **context), (context))
FORWARD(tss2, TSS2_RC, Esys_FlushContext, (ESYS_CONTEXT *esysContext, ESYS_TR flushHandle), (esysContext, flushHandle))
FORWARD(tss2, void, Esys_Free, (void *__ptr), (__ptr))
FORWARD(tss2, TSS2_RC, Esys_Initialize, (ESYS_CONTEXT **esys_context, TSS2_TCTI_CONTEXT *tcti, TSS2_ABI_VERSION *abiVersion), (esys_context, tcti, abiVersion))
FORWARD(tss2, TSS2_RC, Esys_Load,
        (ESYS_CONTEXT *esysContext, ESYS_TR parentHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_PRIVATE *inPrivate,
         const TPM2B_PUBLIC *inPublic, ESYS_TR *objectHandle),
        (esysContext, parentHandle, shandle1, shandle2, shandle3, inPrivate, inPublic, objectHandle))
FORWARD(tss2, TSS2_RC, Esys_StartAuthSession,
        (ESYS_CONTEXT *esysContext, ESYS_TR tpmKey, ESYS_TR bind, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_NONCE *nonceCaller,
         TPM2_SE sessionType, const TPMT_SYM_DEF *symmetric, TPMI_ALG_HASH authHash, ESYS_TR *sessionHandle),
        (esysContext, tpmKey, bind, shandle1, shandle2, shandle3, nonceCaller, sessionType, symmetric, authHash, sessionHandle))
FORWARD(tss2, TSS2_RC, Esys_TRSess_SetAttributes, (ESYS_CONTEXT *esysContext, ESYS_TR session, TPMA_SESSION flags, TPMA_SESSION mask),
        (esysContext, session, flags, mask))
FORWARD(tss2, TSS2_RC, Esys_Unseal,
        (ESYS_CONTEXT *esysContext, ESYS_TR itemHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, TPM2B_SENSITIVE_DATA **outData),
        (esysContext, itemHandle, shandle1, shandle2, shandle3, outData))
FORWARD(tss2, TSS2_RC, Tss2_MU_TPM2B_PRIVATE_Marshal, (TPM2B_PRIVATE const *src, uint8_t buffer[], size_t buffer_size, size_t *offset),
        (src, buffer, buffer_size, offset))
FORWARD(tss2, TSS2_RC, Tss2_MU_TPM2B_PRIVATE_Unmarshal, (uint8_t const buffer[], size_t buffer_size, size_t *offset, TPM2B_PRIVATE *dest),
        (buffer, buffer_size, offset, dest))
FORWARD(tss2, TSS2_RC, Tss2_MU_TPM2B_PUBLIC_Marshal, (TPM2B_PUBLIC const *src, uint8_t buffer[], size_t buffer_size, size_t *offset),
        (src, buffer, buffer_size, offset))
FORWARD(tss2, TSS2_RC, Tss2_MU_TPM2B_PUBLIC_Unmarshal, (uint8_t const buffer[], size_t buffer_size, size_t *offset, TPM2B_PUBLIC *dest),
        (buffer, buffer_size, offset, dest))
FORWARD(tss2, const char *, Tss2_RC_Decode, (TSS2_RC rc), (rc))
FORWARD(tss2, void, Tss2_TctiLdr_Finalize, (TSS2_TCTI_CONTEXT **context), (context))
FORWARD(tss2, TSS2_RC, Tss2_TctiLdr_Initialize, (const char *nameConf, TSS2_TCTI_CONTEXT **context), (nameConf, context))
