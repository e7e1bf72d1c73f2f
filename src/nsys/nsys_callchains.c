#include "nsys_callchains.h"

#include <stdlib.h>

#include "nsys_perfetto.h"

int nsys_callchains_build(nsys_db *db, buf *err)
{
    static const struct {
        const char *table;
        int kind;
    } SOURCES[] = {
        {"OSRT_CALLCHAINS", NSYS_CALLCHAIN_OSRT},
        {"SAMPLING_CALLCHAINS", NSYS_CALLCHAIN_SAMPLE},
    };
    buf sql = {0};
    for (size_t i = 0; i < sizeof SOURCES / sizeof *SOURCES; i++) {
        const char *t = SOURCES[i].table;
        if (!nsys_db_has_column(db, t, "id") || !nsys_db_has_column(db, t, "stackDepth") ||
            !nsys_db_has_column(db, t, "symbol"))
            continue;
        buf_printf(&sql, "INSERT INTO callchain_frames SELECT %d, id, stackDepth, symbol, %s, %s FROM %s;",
                   SOURCES[i].kind, nsys_db_has_column(db, t, "module") ? "module" : "NULL",
                   nsys_db_has_column(db, t, "kernelMode") ? "kernelMode" : "NULL", t);
    }
    if (!sql.len)
        return NSYSP_OK;
    buf all = {0};
    buf_printf(&all,
               "CREATE TEMP TABLE callchain_frames(kind INTEGER, id INTEGER, depth INTEGER,"
               " symbol INTEGER, module INTEGER, kernel INTEGER);"
               "%s"
               "CREATE INDEX temp.callchain_frames_by_id ON callchain_frames(kind, id, depth);",
               buf_cstr(&sql));
    int status = nsys_db_create(db, NSYS_CALLCHAINS_TABLE, buf_cstr(&all), err);
    buf_free(&sql);
    buf_free(&all);
    return status;
}

size_t nsys_callchain_parse(const char *text, nsys_frame_ids *frames, size_t max)
{
    size_t n = 0;
    const char *p = text;
    while (p && *p && n < max) {
        char *end;
        frames[n].symbol = strtoll(p, &end, 10);
        if (*end != ',')
            break;
        frames[n].module = strtoll(end + 1, &end, 10);
        if (*end != ',')
            break;
        frames[n].kernel = strtoll(end + 1, &end, 10) != 0;
        n++;
        p = *end == ';' ? end + 1 : NULL;
    }
    return n;
}
