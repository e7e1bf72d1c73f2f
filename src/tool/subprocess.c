/* syscall(2) for getdents64, which _XOPEN_SOURCE alone does not declare. */
#define _DEFAULT_SOURCE 1

#include "subprocess.h"
#include "common/cancel.h"
#include "text_out.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How long a session has to end after SIGINT/SIGTERM before SIGKILL. */
#define GRACE_S 3.0
/* How long what a program left running may take to end by itself before it
 * is ended. */
#define LINGER_S 2.0
/* The keeper's word to the parent once the program has ended (signals
 * travel the other way, as their numbers, which are never 0). */
enum { KEEPER_PROGRAM_ENDED = 0 };
/* SIGKILL ends anything not stuck in the kernel; past this the keeper
 * stops trying rather than hang itself. */
#define KILL_GIVE_UP_S 10.0
/* How often the waits look at the processes, the clock and the cancel flag. */
enum { POLL_MS = 20 };

/* The keeper's signals. It is told when to stop, so signals that would
 * end it (and leave the session without its keeper) are ignored; SIGCHLD
 * must not be, or its children would not wait to be reaped. The program
 * gets the dispositions back that we had. */
static const struct {
    int sig;
    void (*action)(int);
} KEEPER_SIGNALS[] = {{SIGINT, SIG_IGN},  {SIGTERM, SIG_IGN}, {SIGHUP, SIG_IGN},
                      {SIGQUIT, SIG_IGN}, {SIGPIPE, SIG_IGN}, {SIGCHLD, SIG_DFL}};
enum { N_KEEPER_SIGNALS = sizeof KEEPER_SIGNALS / sizeof *KEEPER_SIGNALS };

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void sleep_ms(int ms)
{
    struct timespec t = {0, ms * 1000000L};
    nanosleep(&t, NULL);
}

static int exit_code(int status)
{
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* In a forked child: becomes argv[0], its output appended to log. */
static void exec_logged(const char *const argv[], const char *log, const char *env_name,
                        const char *env_value)
{
    sigset_t none; /* the web server blocks Ctrl-C in its threads; the child must not */
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0644); /* never through a link */
    if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
    }
    if (env_name)
        setenv(env_name, env_value, 1);
    execvp(argv[0], (char *const *)argv);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(RUN_NOT_RUN);
}

/* Without limits: the child in our process group, waited for. */
static int run_plain(const char *const argv[], const char *log, const char *env_name,
                     const char *env_value)
{
    pid_t pid = fork();
    if (pid == 0)
        exec_logged(argv, log, env_name, env_value);
    if (pid < 0)
        return RUN_NOT_RUN;
    int status = 0;
    while (waitpid(pid, &status, 0) != pid)
        if (errno != EINTR)
            return RUN_NOT_RUN;
    return exit_code(status);
}

/* ---- The keeper: a forked copy of us that owns one session. ----
 *
 * It is forked from a process that may run other threads (the web
 * server), so until it has forked the program it must not allocate: a
 * lock another thread held at the fork (the allocator's, ASan's) stays
 * held in the copy forever. Everything below reads /proc with raw system
 * calls into fixed buffers and formats and parses numbers by hand. */

typedef struct session {
    pid_t leader; /* the program; its pid is its process group */
    bool ended;
    int status;   /* the leader's wait status, once ended */
} session;

typedef struct proc_link {
    pid_t pid, ppid;
} proc_link;

/* The processes of the machine, read afresh for each SIGKILL round; static,
 * so in the keeper's own copy of our memory. */
enum { PROCESSES_MAX = 1 << 16, SESSION_MAX = 4096 };
static proc_link processes[PROCESSES_MAX];
static pid_t in_session[SESSION_MAX];

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

static long parse_decimal(const char *s)
{
    long v = 0;
    for (; *s >= '0' && *s <= '9'; s++)
        v = v * 10 + (*s - '0');
    return v;
}

/* The parent of process pid (its /proc name) from /proc/PID/stat; 0 when
 * it is gone. */
static pid_t read_parent(const char *pid)
{
    char path[64] = "/proc/", stat[512];
    size_t n = strlen(path), len = strlen(pid);
    if (len > sizeof path - n - sizeof "/stat")
        return 0;
    memcpy(path + n, pid, len);
    memcpy(path + n + len, "/stat", sizeof "/stat");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t got = read(fd, stat, sizeof stat - 1);
    close(fd);
    stat[got > 0 ? got : 0] = '\0';
    /* "pid (comm) state ppid ...": comm may hold blanks and parentheses */
    const char *p = strrchr(stat, ')');
    if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
        return 0;
    return (pid_t)parse_decimal(p + 4);
}

/* Every process with its parent into processes[]; how many. */
static size_t read_process_links(void)
{
    struct linux_dirent64 {
        unsigned long long d_ino;
        long long d_off;
        unsigned short d_reclen;
        unsigned char d_type;
        char d_name[];
    };
    int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return 0;
    size_t n = 0;
    char buf[8192] __attribute__((aligned(8)));
    long got;
    while (n < PROCESSES_MAX && (got = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0)
        for (long at = 0; at < got && n < PROCESSES_MAX;) {
            const struct linux_dirent64 *e = (const void *)(buf + at);
            at += e->d_reclen;
            pid_t ppid = all_digits(e->d_name) ? read_parent(e->d_name) : 0;
            if (ppid > 0)
                processes[n++] = (proc_link){(pid_t)parse_decimal(e->d_name), ppid};
        }
    close(dir);
    return n;
}

/* sig to the whole session: the program's process group, and every
 * process below the keeper, which includes whatever left that group
 * (orphans are adopted by the keeper, a subreaper). */
static void signal_session(const session *s, int sig)
{
    /* Once the leader is reaped its pid, and so its group's id, may be
     * reused by another process: then only the walk below, which sees
     * only our descendants, is safe. */
    if (!s->ended)
        kill(-s->leader, sig);
    size_t n = read_process_links(), members = 0;
    in_session[members++] = getpid();
    /* Marks descendants pass by pass: a process whose parent is marked. */
    for (bool grew = true; grew && members < SESSION_MAX;) {
        grew = false;
        for (size_t i = 0; i < n && members < SESSION_MAX; i++) {
            bool parent_in = false, already = false;
            for (size_t k = 0; k < members; k++) {
                parent_in |= in_session[k] == processes[i].ppid;
                already |= in_session[k] == processes[i].pid;
            }
            if (parent_in && !already) {
                in_session[members++] = processes[i].pid;
                grew = true;
            }
        }
    }
    for (size_t k = 1; k < members; k++)
        kill(in_session[k], sig);
}

/* Reaps whatever has ended (noting the leader's status); returns whether
 * any process below the keeper is left. */
static bool reap(session *s)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid == s->leader) {
            s->ended = true;
            s->status = status;
        }
        if (pid > 0)
            continue;
        return !(pid < 0 && errno == ECHILD);
    }
}

/* SIGKILL to all of the session until nothing of it is left (or
 * KILL_GIVE_UP_S passed). */
static void kill_session(session *s)
{
    double give_up = now_s() + KILL_GIVE_UP_S;
    while (reap(s) && now_s() < give_up) {
        signal_session(s, SIGKILL);
        sleep_ms(POLL_MS / 4);
    }
}

/* first_signal to the program's process group, as a terminal would send
 * it (nsys then ends its session itself), up to GRACE_S for the program to
 * end, then SIGKILL to all of the session until nothing of it is left. */
static void end_session(session *s, int first_signal)
{
    kill(-s->leader, first_signal);
    double grace_end = now_s() + GRACE_S;
    while (reap(s) && !s->ended && now_s() < grace_end)
        sleep_ms(POLL_MS);
    kill_session(s);
}

/* After the program ended: SIGTERM to what is left of its session, up to
 * GRACE_S for it to go, then SIGKILL until nothing is left. */
static void end_leftovers(session *s)
{
    signal_session(s, SIGTERM);
    double grace_end = now_s() + GRACE_S;
    while (reap(s) && now_s() < grace_end)
        sleep_ms(POLL_MS);
    kill_session(s);
}

/* Waits up to ms for the parent's word: the signal to end the session
 * with; end of file (the parent is gone) means SIGTERM. 0: no word yet. */
static int stop_request(int fd, int ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, ms) <= 0)
        return 0;
    unsigned char sig;
    ssize_t n = read(fd, &sig, 1);
    if (n == 1)
        return sig;
    if (n < 0 && errno == EINTR)
        return 0;
    return SIGTERM;
}

/* The keeper runs no program, so nothing of ours closes on exec: it lets
 * go of our files, or a web server's sockets would stay open as long as
 * the session. Returns keep's new number (3). */
static int close_files_but(int keep)
{
    if (keep != 3) {
        if (dup2(keep, 3) < 0)
            return keep;
        keep = 3;
    }
    struct rlimit files;
    int last = getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < (1u << 20)
                   ? (int)files.rlim_cur : 1 << 20;
    for (int fd = 4; fd < last; fd++)
        close(fd);
    return keep;
}

/* In the forked keeper: starts the program in a process group of its own,
 * adopts what escapes it, and ends the whole session when the parent says
 * so on stop_fd. Exits with the program's exit code when it ends. */
static void keep_session(int stop_fd, const char *const argv[], const char *log,
                         const char *env_name, const char *env_value)
{
    struct sigaction ours[N_KEEPER_SIGNALS];
    for (int i = 0; i < N_KEEPER_SIGNALS; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = KEEPER_SIGNALS[i].action;
        sigaction(KEEPER_SIGNALS[i].sig, &sa, &ours[i]);
    }
    stop_fd = close_files_but(stop_fd);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    session s = {fork(), false, 0};
    if (s.leader == 0) {
        setpgid(0, 0);
        for (int i = 0; i < N_KEEPER_SIGNALS; i++)
            sigaction(KEEPER_SIGNALS[i].sig, &ours[i], NULL);
        exec_logged(argv, log, env_name, env_value);
    }
    if (s.leader < 0)
        _exit(RUN_NOT_RUN);
    setpgid(s.leader, s.leader); /* either side may run first */
    for (;;) {
        bool left = reap(&s);
        if (s.ended) {
            /* What the program leaves running (nsys's daemon lingers a
             * moment; a setsid child of the workload would stay) is given
             * LINGER_S to end by itself, then ended like a stopped session:
             * nothing of it outlives the call. The parent is told first
             * that the program ended, so that this wait is not counted
             * against the program's timeout. */
            unsigned char ended = KEEPER_PROGRAM_ENDED;
            send(stop_fd, &ended, 1, MSG_NOSIGNAL);
            double linger_end = now_s() + LINGER_S;
            while (left && now_s() < linger_end) {
                sleep_ms(POLL_MS);
                left = reap(&s);
            }
            if (left)
                end_leftovers(&s);
            _exit(exit_code(s.status));
        }
        int sig = stop_request(stop_fd, POLL_MS);
        if (sig) {
            end_session(&s, sig);
            _exit(s.ended ? exit_code(s.status) : 128 + sig);
        }
    }
}

/* RUN_CANCELLED or RUN_TIMED_OUT when the session is to stop, else 0. */
static int stop_reason(const run_limits *limits, double deadline)
{
    if (cancel_requested(limits->cancel))
        return RUN_CANCELLED;
    if (deadline > 0 && now_s() >= deadline)
        return RUN_TIMED_OUT;
    return 0;
}

/* One look at the keeper, which exits once the session has ended: true
 * then, with the result in *rc. Reads the keeper's word that the program
 * ended (so that what it left is cleared without counting as a stop), and
 * kills a keeper that does not end its session in the time it has: it is
 * itself stuck, and the caller (a server's worker) must not be. */
static bool keeper_done(run_handle *h, int *rc)
{
    int status;
    pid_t pid = h->done ? 0 : waitpid(h->keeper, &status, WNOHANG);
    if (!h->done && (pid == h->keeper || (pid < 0 && errno != EINTR))) {
        h->rc = pid < 0 ? RUN_NOT_RUN : h->stopped ? h->stopped : exit_code(status);
        h->done = true;
        close(h->stop_fd);
    }
    if (h->done) {
        *rc = h->rc;
        return true;
    }
    unsigned char word;
    if (!h->program_ended && recv(h->stop_fd, &word, 1, MSG_DONTWAIT) == 1)
        h->program_ended = word == KEEPER_PROGRAM_ENDED;
    if (h->program_ended && !h->stop_sent)
        h->stop_sent = now_s(); /* bounds the keeper's clearing, as a stop would */
    if (h->stop_sent && now_s() > h->stop_sent + LINGER_S + GRACE_S + KILL_GIVE_UP_S + 2)
        kill(h->keeper, SIGKILL);
    return false;
}

/* Tells the keeper to end the session (why: RUN_CANCELLED or
 * RUN_TIMED_OUT), unless told already or the program ended by itself. */
static void keeper_stop(run_handle *h, int why)
{
    if (h->stopped || h->program_ended || h->done)
        return;
    h->stopped = why;
    /* cancel: what Ctrl-C would have sent */
    unsigned char sig = why == RUN_CANCELLED ? SIGINT : SIGTERM;
    /* MSG_NOSIGNAL: a keeper that has just exited must not kill us */
    send(h->stop_fd, &sig, 1, MSG_NOSIGNAL);
    h->stop_sent = now_s();
}

/* Polls the keeper: a blocking wait would not notice a cancel flag set by
 * another thread. */
static int wait_for_keeper(run_handle *h, const run_limits *limits)
{
    double deadline = limits->timeout_s > 0 ? now_s() + limits->timeout_s : 0;
    int rc, why;
    while (!keeper_done(h, &rc)) {
        if ((why = stop_reason(limits, deadline)) != 0)
            keeper_stop(h, why);
        sleep_ms(POLL_MS);
    }
    return rc;
}

/* Says in the log why its output stops short. */
static void note_stop(const char *log, int rc, const run_limits *limits)
{
    char why[128];
    run_failure(rc, limits, why, sizeof why);
    FILE *f = fopen(log, "a");
    if (!f)
        return;
    fprintf(f, "nsys-perfetto: %s: stopped it and everything it started\n", why);
    fclose(f);
}

int run_start(run_handle *h, const char *const argv[], const char *log, const char *env_name,
              const char *env_value)
{
    int ends[2];
    fflush(NULL);
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
        return RUN_NOT_RUN;
    *h = (run_handle){.keeper = fork(), .stop_fd = ends[0]};
    if (h->keeper == 0) {
        close(ends[0]);
        keep_session(ends[1], argv, log, env_name, env_value);
    }
    close(ends[1]);
    if (h->keeper < 0) {
        close(ends[0]);
        return RUN_NOT_RUN;
    }
    return 0;
}

bool run_finished(run_handle *h, int *rc)
{
    return keeper_done(h, rc);
}

int run_stop(run_handle *h, int why)
{
    keeper_stop(h, why);
    int rc;
    while (!keeper_done(h, &rc))
        sleep_ms(POLL_MS);
    return rc;
}

static int run_in_session(const char *const argv[], const char *log, const char *env_name,
                          const char *env_value, const run_limits *limits)
{
    run_handle h;
    if (run_start(&h, argv, log, env_name, env_value) != 0)
        return RUN_NOT_RUN;
    int rc = wait_for_keeper(&h, limits);
    if (rc == RUN_TIMED_OUT || rc == RUN_CANCELLED)
        note_stop(log, rc, limits);
    return rc;
}

int run_logged(const char *const argv[], const char *log, const char *env_name,
               const char *env_value, const run_limits *limits)
{
    if (limits && cancel_requested(limits->cancel))
        return RUN_CANCELLED;
    fflush(NULL);
    if (!limits)
        return run_plain(argv, log, env_name, env_value);
    return run_in_session(argv, log, env_name, env_value, limits);
}

void format_duration(double seconds, char *out, size_t size)
{
    if (seconds >= 3600 && fmod(seconds, 3600) == 0)
        snprintf(out, size, "%.10gh", seconds / 3600);
    else if (seconds >= 60 && fmod(seconds, 60) == 0)
        snprintf(out, size, "%.10gm", seconds / 60);
    else
        snprintf(out, size, "%.10gs", seconds);
}

void run_failure(int rc, const run_limits *limits, char *out, size_t size)
{
    if (rc == RUN_TIMED_OUT) {
        char duration[64];
        format_duration(limits ? limits->timeout_s : 0, duration, sizeof duration);
        snprintf(out, size, "timed out after %s", duration);
    } else if (rc == RUN_CANCELLED) {
        snprintf(out, size, "interrupted");
    } else {
        snprintf(out, size, "exited with status %d", rc);
    }
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
        if (line[0]) /* shown, never obeyed: a log's escapes must not reach a terminal */
            text_visible(line, out, size);
    }
    fclose(f);
}

/* 0 when path is a file we may run, else -1 with errno saying why: a
 * directory passes access(X_OK) but cannot be run. */
static int executable_file(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    if (S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        errno = EACCES;
        return -1;
    }
    return access(path, X_OK);
}

int find_program(const char *name, char *out, size_t size)
{
    if (strchr(name, '/')) {
        snprintf(out, size, "%s", name);
        return executable_file(out);
    }
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        size_t len = strcspn(p, ":");
        snprintf(out, size, "%.*s/%s", (int)len, p, name);
        if (len && executable_file(out) == 0)
            return 0;
        p += len + (p[len] == ':');
    }
    errno = ENOENT;
    return -1;
}
