/* The `recipe` subcommand of the command-line tool. */
#ifndef NSYSP_CLI_RECIPE_CLI_H
#define NSYSP_CLI_RECIPE_CLI_H

/* argv[0] is "recipe"; returns the exit status. */
int recipe_main(int argc, char **argv);

#endif
