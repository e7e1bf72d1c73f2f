/* The `summary` subcommand of the command-line tool. */
#ifndef NSYSP_CLI_SUMMARY_CLI_H
#define NSYSP_CLI_SUMMARY_CLI_H

#include "nsys_perfetto.h"

/* argv[0] is "summary"; returns the exit status. */
int summary_main(int argc, char **argv);

/* Summarizes one report; a .nsys-rep or .qdrep is exported with nsys
 * first (which prints why when it fails, leaving summary->message empty). */
int summarize_report(const char *path, const char *const *matches, size_t n_matches,
                     nsysp_summary *summary);

#endif
