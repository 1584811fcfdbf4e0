// SPDX-License-Identifier: Apache-2.0
/*
 * pam_authtok_probe: a test module standing in for pam_gnome_keyring. Its auth step writes what it
 * finds in PAM_AUTHTOK to the file named by its argument file=PATH ("none" when the item is unset,
 * else "authtok:" and the token) and succeeds; it never asks anything. LocalAuthPAMTests only.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#define PAM_SM_AUTH
#include <security/pam_ext.h>
#include <security/pam_modules.h>

PAM_EXTERN int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    (void)flags;
    const char *path = NULL;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "file=", 5) == 0)
            path = argv[i] + 5;
    }
    if (path == NULL) {
        pam_syslog(pamh, LOG_ERR, "pam_authtok_probe needs file=PATH");
        return PAM_SERVICE_ERR;
    }
    const void *item = NULL;
    if (pam_get_item(pamh, PAM_AUTHTOK, &item) != PAM_SUCCESS)
        return PAM_SERVICE_ERR;
    FILE *file = fopen(path, "w");
    if (file == NULL)
        return PAM_SERVICE_ERR;
    if (item == NULL)
        fputs("none", file);
    else
        fprintf(file, "authtok:%s", (const char *)item);
    return fclose(file) == 0 ? PAM_SUCCESS : PAM_SERVICE_ERR;
}

PAM_EXTERN int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    (void)pamh, (void)flags, (void)argc, (void)argv;
    return PAM_SUCCESS;
}
