// SPDX-License-Identifier: Apache-2.0
/*
 * pam-as-applicant: runs one pam_authenticate as `su` or `sudo` would, for LocalAuthPAMTests.
 *
 *   pam-as-applicant SERVICE USER RUID [RUSER]
 *
 * Started as root (so that pam_wrapper is preloaded: the loader ignores LD_PRELOAD in a process
 * whose real and effective uids differ), it then sets its real uid to RUID and keeps effective uid
 * 0, as a set-user-ID `su` run by RUID has them, and sets PAM_RUSER when given. Conversation texts
 * go to standard output, one a line; echo-off prompts read a line from standard input. Prints
 * pam_strerror's text of the result, like pamtester, and exits 0 on success.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <security/pam_appl.h>

static int converse(int count, const struct pam_message **messages, struct pam_response **responses, void *data)
{
    (void)data;
    struct pam_response *answers = calloc((size_t)count, sizeof *answers);
    if (answers == NULL)
        return PAM_BUF_ERR;
    for (int i = 0; i < count; i++) {
        const struct pam_message *message = messages[i];
        printf("%s\n", message->msg ? message->msg : "");
        fflush(stdout);
        if (message->msg_style == PAM_PROMPT_ECHO_OFF || message->msg_style == PAM_PROMPT_ECHO_ON) {
            char line[512];
            if (fgets(line, sizeof line, stdin) == NULL)
                line[0] = '\0';
            line[strcspn(line, "\n")] = '\0';
            answers[i].resp = strdup(line);
            explicit_bzero(line, sizeof line);
        }
    }
    *responses = answers;
    return PAM_SUCCESS;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: %s SERVICE USER RUID [RUSER]\n", argv[0]);
        return 2;
    }
    char *end = NULL;
    unsigned long ruid = strtoul(argv[3], &end, 10);
    if (*argv[3] == '\0' || *end != '\0' || setresuid((uid_t)ruid, 0, 0) != 0) {
        perror("setresuid");
        return 2;
    }
    struct pam_conv conversation = { .conv = converse };
    pam_handle_t *pamh = NULL;
    int code = pam_start(argv[1], argv[2], &conversation, &pamh);
    if (code == PAM_SUCCESS && argc == 5)
        code = pam_set_item(pamh, PAM_RUSER, argv[4]);
    if (code == PAM_SUCCESS)
        code = pam_authenticate(pamh, 0);
    printf("%s\n", pam_strerror(pamh, code));
    pam_end(pamh, code);
    return code == PAM_SUCCESS ? 0 : 1;
}
