/* The `summary` subcommand of the command-line tool. */
#ifndef NSYSP_CLI_SUMMARY_CLI_H
#define NSYSP_CLI_SUMMARY_CLI_H

/* argv[0] is "summary"; returns the exit status. */
int summary_main(int argc, char **argv);

#endif
