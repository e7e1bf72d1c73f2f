/* Cancel flags: a volatile sig_atomic_t that a signal handler or another
 * thread (the web server's watchdog) sets, and every thread of a
 * conversion reads (its reader threads' SQLite progress handlers among
 * them). Plain accesses from two threads are a data race; relaxed atomic
 * loads and stores are not, and on a lock-free int they are
 * async-signal-safe. */
#ifndef NSYSP_COMMON_CANCEL_H
#define NSYSP_COMMON_CANCEL_H

#include <signal.h>
#include <stdbool.h>

static inline bool cancel_requested(volatile sig_atomic_t *flag)
{
    return flag && __atomic_load_n(flag, __ATOMIC_RELAXED) != 0;
}

static inline void cancel_set(volatile sig_atomic_t *flag, int value)
{
    __atomic_store_n(flag, value, __ATOMIC_RELAXED);
}

#endif
