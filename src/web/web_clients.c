#include "web_clients.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

typedef enum phase {
    AWAITING_HEADERS, /* deadline: WEB_HEADER_DEADLINE_S from since */
    RECEIVING_BODY,   /* WEB_BODY_MIN_BYTES per WEB_BODY_WINDOW_S */
    ANSWERING,        /* ours to finish; the idle timeout guards the client */
} phase;

typedef struct client {
    struct web_clients *owner;
    struct client *prev, *next;
    int fd;
    phase phase;
    int64_t since_ms;      /* the phase's (or the body window's) start */
    uint64_t body_bytes;   /* received so far, and at the window's start */
    uint64_t window_bytes;
    bool cut_off;          /* shut down once; libmicrohttpd closes it */
} client;

struct web_clients {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    client *head;
    bool stopping;
    pthread_t reaper;
};

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Whether c has missed its deadline at now; moves its body window on. */
static bool overdue(client *c, int64_t now)
{
    int64_t elapsed = now - c->since_ms;
    switch (c->phase) {
    case AWAITING_HEADERS:
        return elapsed > WEB_HEADER_DEADLINE_S * 1000;
    case RECEIVING_BODY:
        if (elapsed < WEB_BODY_WINDOW_S * 1000)
            return false;
        if (c->body_bytes - c->window_bytes < WEB_BODY_MIN_BYTES)
            return true;
        c->since_ms = now;
        c->window_bytes = c->body_bytes;
        return false;
    case ANSWERING:
        break;
    }
    return false;
}

static void *reap(void *arg)
{
    web_clients *clients = arg;
    pthread_mutex_lock(&clients->lock);
    while (!clients->stopping) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 250 * 1000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&clients->wake, &clients->lock, &until);
        int64_t now = now_ms();
        /* A registered connection's socket is still open: libmicrohttpd
         * tells us it closed (web_clients_notify) before closing it, under
         * this lock, so the descriptor cannot be another's by now. */
        for (client *c = clients->head; c; c = c->next)
            if (!c->cut_off && overdue(c, now)) {
                shutdown(c->fd, SHUT_RDWR);
                c->cut_off = true;
            }
    }
    pthread_mutex_unlock(&clients->lock);
    return NULL;
}

web_clients *web_clients_start(void)
{
    web_clients *clients = calloc(1, sizeof *clients);
    if (!clients)
        return NULL;
    pthread_mutex_init(&clients->lock, NULL);
    pthread_cond_init(&clients->wake, NULL);
    if (pthread_create(&clients->reaper, NULL, reap, clients) != 0) {
        pthread_cond_destroy(&clients->wake);
        pthread_mutex_destroy(&clients->lock);
        free(clients);
        return NULL;
    }
    return clients;
}

void web_clients_stop(web_clients *clients)
{
    if (!clients)
        return;
    pthread_mutex_lock(&clients->lock);
    clients->stopping = true;
    pthread_cond_signal(&clients->wake);
    pthread_mutex_unlock(&clients->lock);
    pthread_join(clients->reaper, NULL);
    while (clients->head) { /* none, once the daemon stopped */
        client *c = clients->head;
        clients->head = c->next;
        free(c);
    }
    pthread_cond_destroy(&clients->wake);
    pthread_mutex_destroy(&clients->lock);
    free(clients);
}

void web_clients_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
                        enum MHD_ConnectionNotificationCode code)
{
    web_clients *clients = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info =
            MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        client *c = info ? calloc(1, sizeof *c) : NULL;
        *socket_context = c;
        if (!c)
            return; /* not watched: only the idle timeout applies */
        c->owner = clients;
        c->fd = info->connect_fd;
        c->phase = AWAITING_HEADERS;
        c->since_ms = now_ms();
        pthread_mutex_lock(&clients->lock);
        c->next = clients->head;
        if (c->next)
            c->next->prev = c;
        clients->head = c;
        pthread_mutex_unlock(&clients->lock);
        return;
    }
    client *c = *socket_context;
    *socket_context = NULL;
    if (!c)
        return;
    pthread_mutex_lock(&clients->lock);
    if (c->prev)
        c->prev->next = c->next;
    else
        clients->head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    pthread_mutex_unlock(&clients->lock);
    free(c);
}

static client *client_of(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/* Moves c to phase p under its owner's lock. */
static void enter(client *c, phase p, uint64_t body_bytes)
{
    pthread_mutex_lock(&c->owner->lock);
    c->phase = p;
    c->since_ms = now_ms();
    c->body_bytes = c->window_bytes = body_bytes;
    pthread_mutex_unlock(&c->owner->lock);
}

void web_clients_headers_in(struct MHD_Connection *connection)
{
    client *c = client_of(connection);
    if (c)
        enter(c, RECEIVING_BODY, 0);
}

void web_clients_answering(struct MHD_Connection *connection)
{
    client *c = client_of(connection);
    if (c)
        enter(c, ANSWERING, 0);
}

void web_clients_body_in(struct MHD_Connection *connection, size_t bytes)
{
    client *c = client_of(connection);
    if (!c)
        return;
    pthread_mutex_lock(&c->owner->lock);
    c->body_bytes += bytes;
    pthread_mutex_unlock(&c->owner->lock);
}

void web_clients_request_done(struct MHD_Connection *connection)
{
    client *c = client_of(connection);
    if (c)
        enter(c, AWAITING_HEADERS, 0);
}
