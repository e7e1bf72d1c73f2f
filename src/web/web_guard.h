/* Who may use the server: the Host and Origin checks that keep other web
 * pages in the user's own browser out (DNS rebinding, cross-site requests).
 *
 * A browser always says which name it connected to (Host) and, on requests
 * that change state, which page asked (Origin). A DNS-rebinding page reaches
 * 127.0.0.1 under its own name, so its Host is refused; a cross-site form or
 * fetch carries its page's Origin, so its POST or DELETE is refused. Tools
 * without a browser (curl, scripts) send a good Host and no Origin, and work.
 * No token or cookie is needed for this: the server has no login, and anyone
 * who can open a socket to it can use it without a browser anyway. */
#ifndef NSYSP_WEB_GUARD_H
#define NSYSP_WEB_GUARD_H

#include <stdbool.h>
#include <stddef.h>

enum { WEB_ALLOWED_HOSTS_MAX = 32 };

typedef struct web_guard {
    const char *bound;  /* the --bind address */
    bool wildcard;      /* bound to 0.0.0.0 or ::: reached by any of the machine's addresses */
    char machine[256];  /* gethostname(), allowed when bound to a wildcard */
    const char *names[WEB_ALLOWED_HOSTS_MAX]; /* --allow-host */
    size_t n_names;
} web_guard;

/* Fills guard for a server bound to bind, allowing names (--allow-host). */
void web_guard_init(web_guard *guard, const char *bind, const char *const *names,
                    size_t n_names);

/* Whether a request with these headers may be served (host and origin may
 * be NULL when absent; fetch_site is Sec-Fetch-Site). On refusal, a
 * one-line reason in why and the HTTP status (400 or 403) in *status. */
bool web_guard_allows(const web_guard *guard, const char *method, const char *host,
                      const char *origin, const char *fetch_site, unsigned *status,
                      const char **why);

/* Whether text is a host name --allow-host takes (letters, digits, '-', '.',
 * or an IP address); used to check the option. */
bool web_guard_name_valid(const char *text);

#endif
