/* Running a program by argv (never a shell), its output to a log file. */
#ifndef NSYSP_TOOL_SUBPROCESS_H
#define NSYSP_TOOL_SUBPROCESS_H

#include <signal.h>
#include <stddef.h>

/* How long a program may run, and a flag that stops it. */
typedef struct run_limits {
    /* Polled while the program runs, so a signal handler or another thread
     * may set it; NULL: none. */
    volatile sig_atomic_t *cancel;
    double timeout_s; /* 0: none */
} run_limits;

/* What run_logged returns, besides the program's own exit status. */
enum {
    RUN_NOT_RUN = 127,   /* could not be started (as a shell says) */
    RUN_TIMED_OUT = -1,  /* stopped at limits->timeout_s */
    RUN_CANCELLED = -2,  /* stopped because *limits->cancel was set */
};

/* Runs argv[0] (searched on PATH) with argv, stdout and stderr appended to
 * log; with env_name set, that variable is set to env_value in the child.
 * Returns the exit status, 128 + the signal that ended it, or one of the
 * RUN_ values.
 *
 * Without limits the child shares our process group (Ctrl-C reaches it
 * directly) and we wait for it.
 *
 * With limits the child runs as a session of its own: its own process
 * group (nsys profile signals its target's group when a session ends,
 * which must not reach us, and Ctrl-C reaches only our group), under a
 * keeper process that adopts whatever escapes that group (nsys's agent may
 * daemonize). At the timeout, or once *cancel is set, the whole session is
 * ended: SIGINT (cancel: what Ctrl-C would have sent) or SIGTERM (timeout)
 * to all of it, then SIGKILL to what is left after a grace of a few
 * seconds, so nothing of it outlives the call. When the program ends by
 * itself, what it leaves running (a daemon, a setsid child) has 2 s to end
 * too, then is ended the same way: with limits, nothing outlives the call. */
int run_logged(const char *const argv[], const char *log, const char *env_name,
               const char *env_value, const run_limits *limits);

/* The path of program name as the shell would find it (a name with a '/'
 * as it is) into out; 0 when it is an executable, else -1. */
int find_program(const char *name, char *out, size_t size);

/* Why a run_logged result other than 0 is a failure, for error messages:
 * "timed out after 30m", "interrupted", "exited with status 1". */
void run_failure(int rc, const run_limits *limits, char *out, size_t size);

/* A number of seconds as a person writes it: 90s, 30m, 2h, 1.5s. */
void format_duration(double seconds, char *out, size_t size);

/* The last non-empty line of a file into out (empty when none), for error
 * messages: as text_visible shows it (no terminal escapes, valid UTF-8). */
void last_line(const char *file, char *out, unsigned size);

#endif
