/* The `series` subcommand: a program profiled once per parameter value
 * (and run), each report exported, converted and summarized, then the
 * series' table, CSV and chart. */
#ifndef NSYSP_CLI_SERIES_H
#define NSYSP_CLI_SERIES_H

#include <signal.h>
#include <stddef.h>

/* argv[0] is "series"; returns the exit status. */
int series_main(int argc, char **argv, volatile sig_atomic_t *interrupted);

/* The default -o name pattern ("$p" is the value). */
#define SERIES_DEFAULT_PATTERN "p$p"

/* Replaces every "$p" in pattern by value into out (size bytes). */
void series_expand(const char *pattern, const char *value, char *out, size_t size);

/* The parameter's name for the chart: the word before "$p" in the
 * pattern ("bs$p" -> "bs"), else "p". */
void series_parameter(const char *pattern, char *out, size_t size);

#endif
