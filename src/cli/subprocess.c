#include "subprocess.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int run_logged(const char *const argv[], const char *log, const char *env_name,
               const char *env_value, volatile sig_atomic_t *interrupted)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        sigset_t none; /* the web server blocks Ctrl-C in its threads; the child must not */
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (interrupted)
            setpgid(0, 0);
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        if (env_name)
            setenv(env_name, env_value, 1);
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (pid < 0)
        return 127;
    if (interrupted)
        setpgid(pid, pid); /* either side may run first */
    int status = 0;
    bool passed_on = false;
    /* The handler of Ctrl-C interrupts the wait: pass it on, then wait
     * until the child is done. */
    for (;;) {
        if (interrupted && *interrupted && !passed_on) {
            kill(-pid, SIGINT);
            passed_on = true;
        }
        if (waitpid(pid, &status, 0) == pid)
            break;
        if (errno != EINTR)
            return 127;
    }
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

void last_line(const char *file, char *out, unsigned size)
{
    out[0] = '\0';
    FILE *f = fopen(file, "r");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0])
            snprintf(out, size, "%s", line);
    }
    fclose(f);
}
