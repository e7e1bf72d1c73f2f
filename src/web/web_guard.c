#include "web_guard.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* An address in the form inet_pton gives, with its family. */
typedef struct ip_literal {
    int family; /* 0 when the text is not an IP address */
    unsigned char bytes[16];
} ip_literal;

static ip_literal parse_ip(const char *text)
{
    ip_literal ip = {0};
    if (inet_pton(AF_INET, text, ip.bytes) == 1)
        ip.family = AF_INET;
    else if (inet_pton(AF_INET6, text, ip.bytes) == 1)
        ip.family = AF_INET6;
    return ip;
}

static bool ip_equal(const ip_literal *a, const ip_literal *b)
{
    return a->family && a->family == b->family &&
           memcmp(a->bytes, b->bytes, a->family == AF_INET ? 4 : 16) == 0;
}

static bool ip_is_loopback(const ip_literal *ip)
{
    static const unsigned char V6_LOOPBACK[16] = {[15] = 1};
    static const unsigned char V4_MAPPED[12] = {[10] = 0xff, [11] = 0xff};
    if (ip->family == AF_INET)
        return ip->bytes[0] == 127;
    return ip->family == AF_INET6 &&
           (memcmp(ip->bytes, V6_LOOPBACK, 16) == 0 ||
            (memcmp(ip->bytes, V4_MAPPED, 12) == 0 && ip->bytes[12] == 127));
}

static bool ip_is_wildcard(const ip_literal *ip)
{
    static const unsigned char ZERO[16];
    return ip->family && memcmp(ip->bytes, ZERO, ip->family == AF_INET ? 4 : 16) == 0;
}

/* The host of "name", "name:port", "[v6]" or "[v6]:port", lowercased and
 * without a final dot, into out; false when malformed. */
static bool host_of(const char *hostport, char *out, size_t size)
{
    const char *begin = hostport, *end, *after;
    if (*begin == '[') {
        end = strchr(++begin, ']');
        if (!end)
            return false;
        after = end + 1;
    } else {
        end = begin + strcspn(begin, ":");
        after = end;
    }
    if (*after == ':') {
        const char *port = after + 1;
        if (!*port || strspn(port, "0123456789") != strlen(port))
            return false;
    } else if (*after) {
        return false;
    }
    size_t n = (size_t)(end - begin);
    if (n && begin[n - 1] == '.')
        n--;
    if (n == 0 || n >= size)
        return false;
    for (size_t i = 0; i < n; i++)
        out[i] = (char)tolower((unsigned char)begin[i]);
    out[n] = '\0';
    return true;
}

bool web_guard_name_valid(const char *text)
{
    if (parse_ip(text).family)
        return true;
    size_t n = strlen(text);
    if (n == 0 || n > 253)
        return false;
    for (const char *p = text; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '.')
            return false;
    return true;
}

void web_guard_init(web_guard *guard, const char *bind, const char *const *names,
                    size_t n_names)
{
    memset(guard, 0, sizeof *guard);
    guard->bound = bind;
    ip_literal bound = parse_ip(bind);
    guard->wildcard = ip_is_wildcard(&bound);
    if (guard->wildcard && gethostname(guard->machine, sizeof guard->machine) != 0)
        guard->machine[0] = '\0';
    guard->machine[sizeof guard->machine - 1] = '\0';
    for (size_t i = 0; i < n_names && i < WEB_ALLOWED_HOSTS_MAX; i++)
        guard->names[guard->n_names++] = names[i];
}

static bool is_allowed_name(const web_guard *guard, const char *host)
{
    for (size_t i = 0; i < guard->n_names; i++) {
        size_t n = strlen(guard->names[i]);
        if (n && guard->names[i][n - 1] == '.')
            n--;
        if (strlen(host) == n && strncasecmp(host, guard->names[i], n) == 0)
            return true;
    }
    return false;
}

/* The server's names: loopback ones (which a browser never looks up in the
 * DNS: rebinding cannot use them), the bound address, the --allow-host
 * names, and when bound to every address, any IP address (an address is not
 * a name a rebinding page can take over) and the machine's own name. */
static bool is_own_host(const web_guard *guard, const char *host)
{
    size_t n = strlen(host);
    static const char SUFFIX[] = ".localhost";
    if (strcmp(host, "localhost") == 0 ||
        (n > sizeof SUFFIX - 1 && strcmp(host + n - (sizeof SUFFIX - 1), SUFFIX) == 0))
        return true;
    ip_literal ip = parse_ip(host), bound = parse_ip(guard->bound);
    if (ip_is_loopback(&ip) || ip_equal(&ip, &bound) || (guard->wildcard && ip.family))
        return true;
    if (guard->wildcard && guard->machine[0] && strcasecmp(host, guard->machine) == 0)
        return true;
    return is_allowed_name(guard, host);
}

/* A request that changes state may come from this server's own page (its
 * Origin is the Host it asked), from a page of an --allow-host name (a
 * reverse proxy that rewrites Host), or from a tool that sends no Origin. */
static bool origin_allowed(const web_guard *guard, const char *origin, const char *host)
{
    const char *rest = strncasecmp(origin, "http://", 7) == 0    ? origin + 7
                       : strncasecmp(origin, "https://", 8) == 0 ? origin + 8
                                                                 : NULL;
    if (!rest || strchr(rest, '/'))
        return false; /* "null" (sandboxed pages, files) and anything odd */
    if (strcasecmp(rest, host) == 0)
        return true;
    char name[256];
    return host_of(rest, name, sizeof name) && is_allowed_name(guard, name);
}

bool web_guard_allows(const web_guard *guard, const char *method, const char *host,
                      const char *origin, const char *fetch_site, unsigned *status,
                      const char **why)
{
    char name[256];
    if (!host || !*host) {
        *status = 400;
        *why = "no Host header";
        return false;
    }
    if (!host_of(host, name, sizeof name) || !is_own_host(guard, name)) {
        *status = 403;
        *why = "this server does not answer to that host name (see serve --allow-host)";
        return false;
    }
    if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0 ||
        strcmp(method, "OPTIONS") == 0)
        return true; /* reads (and CORS preflights, which read nothing): the browser
                        keeps other pages from seeing the answer */
    if (origin && !origin_allowed(guard, origin, host)) {
        *status = 403;
        *why = "requests from other web sites may not change this server's reports";
        return false;
    }
    if (fetch_site && strcmp(fetch_site, "same-origin") != 0 && strcmp(fetch_site, "none") != 0) {
        *status = 403;
        *why = "requests from other web sites may not change this server's reports";
        return false;
    }
    return true;
}
