/* The `serve` subcommand: a web page for a team to convert reports on. */
#ifndef NSYSP_WEB_MAIN_H
#define NSYSP_WEB_MAIN_H

/* argv[0] is "serve"; returns the exit status. */
int serve_main(int argc, char **argv);

#endif
