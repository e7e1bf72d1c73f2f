/* Running a program by argv (never a shell), its output to a log file. */
#ifndef NSYSP_TOOL_SUBPROCESS_H
#define NSYSP_TOOL_SUBPROCESS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

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

/* A program run_start started: run_logged's session with limits, not
 * waited for, so that the caller can watch something else meanwhile (a
 * server coming up). */
typedef struct run_handle {
    pid_t keeper;
    int stop_fd;      /* to the keeper: the signal to end the session with */
    int stopped;      /* RUN_CANCELLED or RUN_TIMED_OUT once told to stop */
    bool program_ended;
    double stop_sent; /* when the keeper began to end the session; 0: not yet */
    bool done;        /* the keeper has exited, with this result: */
    int rc;
} run_handle;

/* Starts argv as run_logged does with limits: a session of its own under a
 * keeper, which also ends it should we die. 0, or RUN_NOT_RUN. */
int run_start(run_handle *h, const char *const argv[], const char *log, const char *env_name,
              const char *env_value);

/* A look, no wait: whether the session has ended (the program and all it
 * started), its result as run_logged returns it into *rc. Once it has,
 * the same answer again. */
bool run_finished(run_handle *h, int *rc);

/* Ends the session as run_logged ends one at a limit (why: RUN_CANCELLED
 * sends SIGINT first, RUN_TIMED_OUT SIGTERM), waits, and returns its
 * result; a session that had already ended keeps its own. */
int run_stop(run_handle *h, int why);

/* The path of program name as the shell would find it (a name with a '/'
 * as it is) into out; 0 when it is an executable file, else -1 with errno
 * saying why (ENOENT, EACCES, EISDIR). */
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
