// SPDX-License-Identifier: Apache-2.0
// libpam (Debian's libpam0g-dev), for `localauth keyring enroll`: the login password is checked
// against the PAM stack (service localauth-keyring) before it is stored.
#include <security/pam_appl.h>
