// SPDX-License-Identifier: Apache-2.0
// tpm2-tss (Debian's libtss2-dev): the Enhanced System API, the TCTI loader and error decoding,
// for sealing the rights' wrapping key to the machine's TPM 2.0.
#include <tss2/tss2_esys.h>
#include <tss2/tss2_tctildr.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>
