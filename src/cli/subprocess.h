/* Running a program by argv (never a shell), its output to a log file. */
#ifndef NSYSP_CLI_SUBPROCESS_H
#define NSYSP_CLI_SUBPROCESS_H

#include <signal.h>

/* Runs argv[0] (searched on PATH) with argv, stdout and stderr appended to
 * log; with env_name set, that variable is set to env_value in the child.
 * With interrupted, the child gets a process group of its own (nsys
 * profile signals its target's group when a session ends, which must not
 * reach us), and once *interrupted is set (by Ctrl-C, which reaches only
 * our group) SIGINT is passed on to it. Returns the exit
 * status, 128 + the signal that ended it, or 127 when it could not be run. */
int run_logged(const char *const argv[], const char *log, const char *env_name,
               const char *env_value, volatile sig_atomic_t *interrupted);

/* The last non-empty line of a file into out (empty when none), for error
 * messages. */
void last_line(const char *file, char *out, unsigned size);

#endif
