#include "web_main.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool/open_big.h"
#include "tool/options.h"
#include "nsys_perfetto.h"
#include "web_reports.h"
#include "web_server.h"

#define DEFAULT_UI "https://ui.perfetto.dev"
enum {
    DEFAULT_PORT = 8080,
    WORKERS_MAX = 8,
    DEFAULT_JOB_TIMEOUT_S = 3600, /* a 10M-row report converts in about a minute */
    FILES_WANTED = 4096,          /* descriptors: connections, uploads, conversions */
};
#define DEFAULT_DISK_RESERVE (64ull << 20)

static void usage(FILE *to)
{
    fputs("Usage: nsys-perfetto serve [--port N] [--bind ADDR] [--dir DIR] [--max-upload SIZE]\n"
          "                           [--perfetto-ui URL] [--workers N] [--allow-host NAME]...\n"
          "                           [--job-timeout DURATION] [--disk-reserve SIZE]\n"
          "                           [--open-limit SIZE]\n"
          "Serve a web page where anyone who reaches it drops an Nsight Systems report\n"
          "(.sqlite, .nsys-rep, .qdrep), gets it converted, opens it in the Perfetto UI,\n"
          "downloads the trace and reads its summary. Stops on Ctrl-C.\n"
          "\n"
          "Options:\n"
          "      --port N           port (default 8080; 0 picks a free one)\n"
          "      --bind ADDR        address to listen on (default 127.0.0.1: this machine\n"
          "                         only; 0.0.0.0 or :: for everyone who can reach it)\n"
          "      --dir DIR          where uploads and traces are kept (default\n"
          "                         $XDG_CACHE_HOME/nsys-perfetto/reports)\n"
          "      --max-upload SIZE  refuse reports larger than SIZE (bytes, or with K, M, G\n"
          "                         or T; default: no limit but the free disk space)\n"
          "      --perfetto-ui URL  the Perfetto UI to open traces in\n"
          "                         (default " DEFAULT_UI ")\n"
          "      --workers N        conversions at once (default: the CPUs, at most 8)\n"
          "      --allow-host NAME  also answer requests for host NAME (a reverse proxy's\n"
          "                         public name); repeatable. Loopback names, the bound\n"
          "                         address (and with 0.0.0.0 or ::, any IP address and\n"
          "                         this machine's name) are always answered\n"
          "      --job-timeout DURATION\n"
          "                         stop a conversion (export included) running longer\n"
          "                         (s, m or h; default 1h; 0 for no limit)\n"
          "      --disk-reserve SIZE\n"
          "                         refuse uploads that would leave less free space on\n"
          "                         the disk of --dir (default 64M)\n"
          "      --open-limit SIZE  traces estimated to need more than SIZE in a trace\n"
          "                         processor get the download and the command to open\n"
          "                         them natively instead of the Open button (default 2G,\n"
          "                         the browser's share)\n"
          "  -q, --quiet            print nothing but errors\n"
          "  -h, --help             show this help\n",
          to);
}

/* Room for every connection and file: the soft limit of open files is often
 * 1024, the hard one much higher. */
static void raise_file_limit(void)
{
    struct rlimit files;
    if (getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur >= FILES_WANTED)
        return;
    files.rlim_cur = files.rlim_max < FILES_WANTED ? files.rlim_max : FILES_WANTED;
    setrlimit(RLIMIT_NOFILE, &files);
}

/* mkdir -p, private to the user. */
static int make_dirs(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return -1;
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0700) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

static int default_dir(char *out, size_t size)
{
    const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n = cache && *cache ? snprintf(out, size, "%s/nsys-perfetto/reports", cache)
            : home && *home ? snprintf(out, size, "%s/.cache/nsys-perfetto/reports", home)
                            : -1;
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

static unsigned default_workers(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus < 1 ? 1 : cpus > WORKERS_MAX ? WORKERS_MAX : (unsigned)cpus;
}

int serve_main(int argc, char **argv)
{
    enum {
        OPT_PORT = 256, OPT_BIND, OPT_DIR, OPT_MAX_UPLOAD, OPT_UI, OPT_WORKERS, OPT_ALLOW_HOST,
        OPT_JOB_TIMEOUT, OPT_DISK_RESERVE, OPT_OPEN_LIMIT
    };
    static const struct option options[] = {
        {"port", required_argument, NULL, OPT_PORT},
        {"bind", required_argument, NULL, OPT_BIND},
        {"dir", required_argument, NULL, OPT_DIR},
        {"max-upload", required_argument, NULL, OPT_MAX_UPLOAD},
        {"perfetto-ui", required_argument, NULL, OPT_UI},
        {"workers", required_argument, NULL, OPT_WORKERS},
        {"allow-host", required_argument, NULL, OPT_ALLOW_HOST},
        {"job-timeout", required_argument, NULL, OPT_JOB_TIMEOUT},
        {"disk-reserve", required_argument, NULL, OPT_DISK_RESERVE},
        {"open-limit", required_argument, NULL, OPT_OPEN_LIMIT},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *bind = "127.0.0.1", *ui = DEFAULT_UI;
    char dir[4096] = "";
    unsigned long long max_upload = 0, disk_reserve = DEFAULT_DISK_RESERVE;
    unsigned long long open_limit = OPEN_DEFAULT_LIMIT;
    double job_timeout = DEFAULT_JOB_TIMEOUT_S;
    const char *allowed[WEB_ALLOWED_HOSTS_MAX];
    size_t n_allowed = 0;
    long port = DEFAULT_PORT, workers = default_workers();
    int quiet = 0, c;
    while ((c = getopt_long(argc, argv, "qh", options, NULL)) != -1) {
        char *end;
        switch (c) {
        case OPT_PORT:
            port = strtol(optarg, &end, 10);
            if (*end || end == optarg || port < 0 || port > 65535) {
                fprintf(stderr, "nsys-perfetto serve: --port: expected 0-65535, got '%s'\n",
                        optarg);
                return NSYSP_ERR_USAGE;
            }
            break;
        case OPT_BIND:
            bind = optarg;
            break;
        case OPT_DIR:
            snprintf(dir, sizeof dir, "%s", optarg);
            break;
        case OPT_MAX_UPLOAD:
            if (parse_size(optarg, &max_upload) < 0) {
                fprintf(stderr, "nsys-perfetto serve: --max-upload: expected a size such as "
                                "500M or 20G, got '%s'\n", optarg);
                return NSYSP_ERR_USAGE;
            }
            break;
        case OPT_UI:
            if (!is_http_url(optarg)) {
                fprintf(stderr, "nsys-perfetto serve: --perfetto-ui: expected an http:// or "
                                "https:// URL, got '%s'\n", optarg);
                return NSYSP_ERR_USAGE;
            }
            ui = optarg;
            break;
        case OPT_WORKERS:
            workers = strtol(optarg, &end, 10);
            if (*end || end == optarg || workers < 1 || workers > WORKERS_MAX) {
                fprintf(stderr, "nsys-perfetto serve: --workers: expected 1-%d, got '%s'\n",
                        WORKERS_MAX, optarg);
                return NSYSP_ERR_USAGE;
            }
            break;
        case OPT_ALLOW_HOST:
            if (!web_guard_name_valid(optarg) || n_allowed == WEB_ALLOWED_HOSTS_MAX) {
                fprintf(stderr, "nsys-perfetto serve: --allow-host: expected a host name or "
                                "address (at most %d), got '%s'\n", WEB_ALLOWED_HOSTS_MAX,
                        optarg);
                return NSYSP_ERR_USAGE;
            }
            allowed[n_allowed++] = optarg;
            break;
        case OPT_JOB_TIMEOUT:
            if (parse_duration(optarg, &job_timeout) < 0) {
                fprintf(stderr, "nsys-perfetto serve: --job-timeout: expected a duration such "
                                "as 90s, 30m or 2h, got '%s'\n", optarg);
                return NSYSP_ERR_USAGE;
            }
            break;
        case OPT_DISK_RESERVE:
            if (parse_size(optarg, &disk_reserve) < 0) {
                fprintf(stderr, "nsys-perfetto serve: --disk-reserve: expected a size such as "
                                "64M or 2G, got '%s'\n", optarg);
                return NSYSP_ERR_USAGE;
            }
            break;
        case OPT_OPEN_LIMIT:
            if (parse_size(optarg, &open_limit) < 0 || open_limit == 0) {
                fprintf(stderr, "nsys-perfetto serve: --open-limit: expected a size such as "
                                "2G, got '%s'\n", optarg);
                return NSYSP_ERR_USAGE;
            }
            break;
        case 'q':
            quiet = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            fputs("Try 'nsys-perfetto serve --help'.\n", stderr);
            return NSYSP_ERR_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "nsys-perfetto serve: unexpected argument '%s'\n"
                        "Try 'nsys-perfetto serve --help'.\n", argv[optind]);
        return NSYSP_ERR_USAGE;
    }
    if (!dir[0] && default_dir(dir, sizeof dir) < 0) {
        fputs("nsys-perfetto serve: no $XDG_CACHE_HOME or $HOME; give --dir\n", stderr);
        return NSYSP_ERR_USAGE;
    }
    if (make_dirs(dir) < 0 || access(dir, W_OK) != 0) {
        fprintf(stderr, "nsys-perfetto serve: %s: cannot create or write: %s\n", dir,
                strerror(errno));
        return NSYSP_ERR_OUTPUT;
    }
    char why[4400];
    if (reports_lock(dir, why, sizeof why) < 0) {
        fprintf(stderr, "nsys-perfetto serve: %s\n", why);
        return NSYSP_ERR_OUTPUT;
    }
    int removed = reports_remove_unfinished(dir);
    if (removed && !quiet)
        fprintf(stderr, "nsys-perfetto serve: removed %d unfinished reports from %s\n", removed,
                dir);
    source_names(); /* built once here, before threads read it */

    /* Ctrl-C and SIGTERM are taken by this thread alone (sigwait); the
     * server's threads, started below, inherit the mask. */
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
    signal(SIGPIPE, SIG_IGN);

    raise_file_limit();
    web_server srv = {.dir = dir, .perfetto_ui = ui, .max_upload = max_upload,
                      .disk_reserve = disk_reserve, .open_limit = open_limit};
    web_guard_init(&srv.guard, bind, allowed, n_allowed);
    srv.jobs = web_jobs_start(dir, (unsigned)workers, job_timeout);
    char err[512];
    if (!srv.jobs) {
        fputs("nsys-perfetto serve: cannot start the conversion threads\n", stderr);
        return NSYSP_ERR_INTERNAL;
    }
    if (web_server_start(&srv, bind, (int)port, err, sizeof err) < 0) {
        fprintf(stderr, "nsys-perfetto serve: %s\n", err);
        web_jobs_stop(srv.jobs);
        return NSYSP_ERR_USAGE;
    }
    if (!job_timeout && !quiet)
        fputs("nsys-perfetto serve: warning: --job-timeout 0: a conversion that hangs keeps "
              "its worker forever\n", stderr);
    printf("http://%s/\n", srv.address);
    fflush(stdout);
    if (!quiet)
        fprintf(stderr, "nsys-perfetto serve: serving http://%s/ (reports in %s; %ld "
                        "conversions at once; Ctrl-C to stop)\n", srv.address, dir, workers);
    int sig = 0;
    while (sigwait(&stop_signals, &sig) != 0)
        ;
    web_server_stop(&srv); /* partial uploads are removed as their requests end */
    web_jobs_stop(srv.jobs); /* conversions under way are cancelled and removed */
    if (!quiet)
        fputs("nsys-perfetto serve: stopped\n", stderr);
    return 0;
}
