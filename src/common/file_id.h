/* Whether two paths name one file, for refusing an output that would
 * replace an input or another output of the same command. Compared by
 * identity (device and inode), so that another spelling, a symlink or a
 * hard link of the file is caught; a path that does not exist yet by its
 * directory's identity and its last name. */
#ifndef NSYSP_COMMON_FILE_ID_H
#define NSYSP_COMMON_FILE_ID_H

#include <stdbool.h>
#include <sys/types.h>

typedef struct file_id {
    dev_t dev;
    ino_t ino;
    const char *name;            /* "" for an existing file, else its last name (in the path) */
} file_id;

/* The identity of path; false when neither it nor its directory exists
 * (then nothing can be written there, and it is nothing's twin). */
bool file_id_of(const char *path, file_id *id);

/* The identity of an open descriptor's file (standard output); false for
 * what is not a regular file (a terminal or a pipe replaces nothing). */
bool file_id_of_fd(int fd, file_id *id);

/* Orders identities (qsort); 0 when they are one file. */
int file_id_compare(const file_id *a, const file_id *b);

/* Whether the two paths are one file. */
bool file_id_same_path(const char *a, const char *b);

#endif
