/* The `sql` subcommand: prints the nsys PerfettoSQL package (src/sql/nsys,
 * embedded at build time) as one script for the Perfetto UI's query page,
 * where packages cannot be added (tool/sql_package.h). */
#ifndef NSYSP_CLI_SQL_CLI_H
#define NSYSP_CLI_SQL_CLI_H

/* argv[0] is "sql"; returns the exit status. */
int sql_main(int argc, char **argv);

#endif
