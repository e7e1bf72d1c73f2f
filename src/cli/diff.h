/* The `diff` subcommand: before against after, name by name, with a gate
 * that knows run-to-run noise (docs/diff.md). */
#ifndef NSYSP_CLI_DIFF_H
#define NSYSP_CLI_DIFF_H

/* The exit status when a name regresses past the gate. */
#define DIFF_EXIT_REGRESSION 8

/* argv[0] is "diff"; returns the exit status. */
int diff_main(int argc, char **argv);

#endif
