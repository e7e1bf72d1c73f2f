/* `nsys-perfetto sql [--list | --ui-settings] [MODULE...]`: the nsys
 * PerfettoSQL package as one pasteable script (docs/sql.md; the script
 * itself: tool/sql_package.c). */
#include "sql_cli.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nsys_perfetto.h"
#include "tool/open_view.h"
#include "tool/sql_package.h"

static void usage(FILE *f)
{
    fputs("usage: nsys-perfetto sql [--list | --ui-settings] [MODULE...]\n"
          "Prints the nsys PerfettoSQL modules (all when none is named; 'cuda' or\n"
          "'nsys.cuda'), the modules they include first, as one script to paste into\n"
          "the Perfetto UI's query page. With trace_processor, load the installed\n"
          "package instead: --add-sql-package PREFIX/share/nsys-perfetto/sql/nsys.\n"
          "  -l, --list   list the modules\n"
          "      --ui-settings  print the Perfetto UI's settings (JSON) for our traces:\n"
          "               startup commands and \"nsys: ...\" macros (docs/open.md)\n"
          "  -h, --help   show this help\n",
          f);
}

int sql_main(int argc, char **argv)
{
    static const struct option options[] = {
        {"list", no_argument, NULL, 'l'},
        {"ui-settings", no_argument, NULL, 'u'},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    bool list = false, ui_settings = false;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+lh", options, NULL)) != -1) {
        switch (c) {
        case 'l':
            list = true;
            break;
        case 'u':
            ui_settings = true;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            fprintf(stderr, "nsys-perfetto sql: unknown option %s\n", argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    if (ui_settings) {
        if (optind < argc || list) {
            fprintf(stderr, "nsys-perfetto sql: --ui-settings takes no module names, nor --list\n");
            return 2;
        }
        buf json = {0};
        open_view_ui_settings(&json);
        size_t wrote = fwrite(json.data, 1, json.len, stdout);
        int rc = wrote != json.len || fflush(stdout) != 0 ? 6 : 0;
        if (rc)
            fprintf(stderr, "nsys-perfetto sql: cannot write the settings\n");
        buf_free(&json);
        return rc;
    }
    if (list) {
        for (size_t i = 0; i < nsysp_sql_n_modules; i++)
            printf("%s\n", nsysp_sql_modules[i].name);
        return 0;
    }
    char err[512] = "";
    int rc = sql_script((const char *const *)argv + optind, (size_t)(argc - optind), stdout, err,
                        sizeof err);
    if (rc)
        fprintf(stderr, "nsys-perfetto sql: %s\n", err);
    else if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "nsys-perfetto sql: cannot write the script\n");
        rc = 6;
    }
    return rc;
}
