/* Shared plumbing of the fuzz targets: temporary files and the checks of
 * a conversion's outcome (see fuzz_common.h). */
#include "fuzz_common.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "pftrace.pb-c.h"

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "fuzz: FAILED CHECK: " __VA_ARGS__);                                       \
        fputc('\n', stderr);                                                                       \
        abort();                                                                                   \
    } while (0)

/* Checks that NSYSP_FUZZ_IGNORE (comma-separated names) turns off, to keep
 * fuzzing past a known finding: "utf8" (invalid UTF-8 in a string field),
 * "unsorted" (track events out of time order), "timestamp" (a timestamp
 * past INT64_MAX), "accounting" (rows != emitted + skipped), "nomem"
 * (status 1 "out of memory" for a corrupt file). */
static bool ignored(const char *check)
{
    const char *list = getenv("NSYSP_FUZZ_IGNORE");
    if (!list)
        return false;
    size_t n = strlen(check);
    for (const char *p = list; (p = strstr(p, check)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return true;
    return false;
}

/* s quoted for a one-line message: non-printable bytes as \xHH; a long
 * string keeps its head and its tail (where truncation bugs show). */
static const char *printable(const char *s, char *out, size_t size)
{
    size_t n = 0, len = strlen(s), head = len, tail_from = len;
    if (len > 100) {
        head = 40;
        tail_from = len - 40;
    }
    for (size_t i = 0; i < len && n + 8 < size; i++) {
        if (i == head && i < tail_from) {
            n += (size_t)snprintf(out + n, size - n, "...(%zu bytes)...", tail_from - head);
            i = tail_from - 1;
            continue;
        }
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7F && c != '\\')
            out[n++] = (char)c;
        else
            n += (size_t)snprintf(out + n, size - n, "\\x%02X", c);
    }
    out[n] = '\0';
    return out;
}

/* UBSan is built recoverable (so that known issues can be suppressed with
 * UBSAN_OPTIONS=suppressions=...), but any report still ends the run; the
 * environment's UBSAN_OPTIONS come on top of these. */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
    return "halt_on_error=1:print_stacktrace=1";
}

/* ---- Temporary files ----------------------------------------------------- */

static char tmpdir[4096];
static unsigned long long tmp_serial;

static void remove_tmpdir(void)
{
    if (!tmpdir[0])
        return;
    DIR *d = opendir(tmpdir);
    if (d) {
        struct dirent *e;
        char path[8192];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(tmpdir);
    tmpdir[0] = '\0';
}

const char *fuzz_tmpdir(void)
{
    if (tmpdir[0])
        return tmpdir;
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    snprintf(tmpdir, sizeof tmpdir, "%s/nsysp-fuzz-XXXXXX", base);
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "fuzz: cannot create a temporary directory under %s: %s\n", base,
                strerror(errno));
        exit(1);
    }
    static bool registered;
    if (!registered) {
        registered = true;
        atexit(remove_tmpdir);
    }
    return tmpdir;
}

void fuzz_tmpdir_release(void)
{
    remove_tmpdir();
}

void fuzz_tmp_path(char *out, size_t size, const char *stem, const char *ext)
{
    snprintf(out, size, "%s/%s-%llu%s", fuzz_tmpdir(), stem, ++tmp_serial, ext);
}

void fuzz_write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        fprintf(stderr, "fuzz: cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

int fuzz_count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1; /* the directory's own descriptor */
}

/* ---- Status histogram ----------------------------------------------------- */

static unsigned long long status_counts[16];
static bool status_registered;

static void print_statuses(void)
{
    for (int i = 0; i < 16; i++)
        if (status_counts[i])
            fprintf(stderr, "fuzz: status %d: %llu\n", i, status_counts[i]);
}

void fuzz_count_status(nsysp_status status)
{
    if (!status_registered) {
        status_registered = true;
        atexit(print_statuses);
    }
    unsigned s = (unsigned)status;
    status_counts[s < 16 ? s : 15]++;
}

/* ---- Output checks ---------------------------------------------------------- */

/* Valid UTF-8 (no overlongs, surrogates or code points past U+10FFFF), an
 * oracle written independently of src/common/utf8.c. */
static bool valid_utf8(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        unsigned lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF)
            len = 2;
        else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0)
                lo = 0xA0;
            if (c == 0xED)
                hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0)
                lo = 0x90;
            if (c == 0xF4)
                hi = 0x8F;
        } else
            return false;
        if (i + len > n)
            return false;
        if (s[i + 1] < lo || s[i + 1] > hi)
            return false;
        for (size_t k = 2; k < len; k++)
            if ((s[i + k] & 0xC0) != 0x80)
                return false;
        i += len;
    }
    return true;
}

/* Walks an unpacked message through its descriptor: every string field
 * (however deep, repeated or in a oneof) must be valid UTF-8, as proto
 * readers (trace_processor included) expect. */
static void check_strings(const ProtobufCMessage *m, unsigned depth)
{
    if (depth > 32)
        FAIL("message nesting deeper than 32");
    const ProtobufCMessageDescriptor *d = m->descriptor;
    const char *base = (const char *)m;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if (f->type != PROTOBUF_C_TYPE_STRING && f->type != PROTOBUF_C_TYPE_MESSAGE)
            continue;
        if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
            uint32_t which;
            memcpy(&which, base + f->quantifier_offset, sizeof which);
            if (which != f->id)
                continue;
        }
        size_t n = 1;
        void *const *values = (void *const *)(base + f->offset);
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            memcpy(&n, base + f->quantifier_offset, sizeof n);
            values = *(void *const *const *)(base + f->offset);
        }
        for (size_t k = 0; k < n; k++) {
            const void *v = values[k];
            if (!v)
                continue;
            if (f->type == PROTOBUF_C_TYPE_STRING) {
                const char *s = v;
                char shown[512];
                if (!valid_utf8((const unsigned char *)s, strlen(s)) && !ignored("utf8"))
                    FAIL("invalid UTF-8 in %s.%s: \"%s\"", d->name, f->name,
                         printable(s, shown, sizeof shown));
            } else {
                check_strings(v, depth + 1);
            }
        }
    }
}

static bool read_varint(const uint8_t *p, size_t n, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64 && *pos < n; shift += 7) {
        uint8_t b = p[(*pos)++];
        v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return true;
        }
    }
    return false;
}

/* Per-sequence timestamp state. Perfetto packets may carry their time on an
 * incremental clock (a delta to the previous timestamp on that clock),
 * declared by a ClockSnapshot and made the default by TracePacketDefaults;
 * packets naming another clock carry absolute times. */
enum { MAX_SEQUENCES = 64, MAX_CLOCKS = 8 };
typedef struct seq_time {
    uint32_t id;
    uint32_t default_clock;        /* 0: none (the trace clock) */
    uint32_t incremental[MAX_CLOCKS];
    size_t n_incremental;
    uint64_t clock_value;          /* current value of the incremental clock */
    uint64_t last_event;           /* absolute time of the last track event */
} seq_time;

static seq_time *sequence(seq_time *seqs, size_t *n, uint32_t id)
{
    for (size_t i = 0; i < *n; i++)
        if (seqs[i].id == id)
            return &seqs[i];
    if (*n == MAX_SEQUENCES)
        FAIL("more than %d packet sequences", MAX_SEQUENCES);
    seq_time *s = &seqs[(*n)++];
    memset(s, 0, sizeof *s);
    s->id = id;
    return s;
}

static bool is_incremental(const seq_time *s, uint32_t clock)
{
    for (size_t i = 0; i < s->n_incremental; i++)
        if (s->incremental[i] == clock)
            return true;
    return false;
}

/* A Trace is "repeated TracePacket packet = 1": tag 0x0A, length, bytes. */
static uint64_t check_trace(const uint8_t *p, size_t n)
{
    uint64_t packets = 0;
    seq_time seqs[MAX_SEQUENCES];
    size_t n_seqs = 0;
    size_t pos = 0;
    while (pos < n) {
        uint64_t tag, len;
        if (!read_varint(p, n, &pos, &tag) || tag != 0x0A)
            FAIL("trace byte %zu: expected a TracePacket (tag 0x0A), got tag %llu", pos,
                 (unsigned long long)tag);
        if (!read_varint(p, n, &pos, &len) || len > n - pos)
            FAIL("trace byte %zu: packet length %llu past the end (%zu bytes)", pos,
                 (unsigned long long)len, n);
        Pftrace__TracePacket *pk = pftrace__trace_packet__unpack(NULL, (size_t)len, p + pos);
        if (!pk)
            FAIL("packet %llu at byte %zu does not parse", (unsigned long long)packets, pos);
        check_strings(&pk->base, 0);

        seq_time *sq = sequence(seqs, &n_seqs, pk->trusted_packet_sequence_id);
        if (pk->trace_packet_defaults && pk->trace_packet_defaults->has_timestamp_clock_id)
            sq->default_clock = pk->trace_packet_defaults->timestamp_clock_id;
        if (pk->data_case == PFTRACE__TRACE_PACKET__DATA_CLOCK_SNAPSHOT) {
            const Pftrace__ClockSnapshot *cs = pk->clock_snapshot;
            for (size_t i = 0; i < cs->n_clocks; i++) {
                const Pftrace__ClockSnapshot__Clock *c = cs->clocks[i];
                if (c->is_incremental && sq->n_incremental < MAX_CLOCKS) {
                    sq->incremental[sq->n_incremental++] = c->clock_id;
                    sq->clock_value = c->timestamp;
                }
            }
        }
        if (pk->has_timestamp) {
            uint32_t clock = pk->has_timestamp_clock_id ? pk->timestamp_clock_id
                                                        : sq->default_clock;
            uint64_t ts = pk->timestamp;
            if (clock && is_incremental(sq, clock)) {
                if (ts > UINT64_MAX - sq->clock_value)
                    FAIL("packet %llu: delta timestamp %llu overflows the clock at %llu",
                         (unsigned long long)packets, (unsigned long long)ts,
                         (unsigned long long)sq->clock_value);
                ts += sq->clock_value;
                sq->clock_value = ts;
            }
            if (ts > (uint64_t)INT64_MAX && !ignored("timestamp"))
                FAIL("packet %llu: timestamp %llu is negative as int64 (trace_processor drops it)",
                     (unsigned long long)packets, (unsigned long long)ts);
            /* Track events come from one merge by start time: sorted
             * within their sequence. (Other packets need not be.) */
            if (pk->data_case == PFTRACE__TRACE_PACKET__DATA_TRACK_EVENT) {
                if (ts < sq->last_event && !ignored("unsorted"))
                    FAIL("packet %llu: track event at %llu before the previous one at %llu"
                         " on sequence %u (trace not sorted)",
                         (unsigned long long)packets, (unsigned long long)ts,
                         (unsigned long long)sq->last_event,
                         (unsigned)pk->trusted_packet_sequence_id);
                sq->last_event = ts;
            }
        }
        pftrace__trace_packet__free_unpacked(pk, NULL);
        pos += (size_t)len;
        packets++;
    }
    return packets;
}

uint8_t *fuzz_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *data = malloc(cap);
    for (;;) {
        if (n == cap)
            data = realloc(data, cap *= 2);
        size_t r = fread(data + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
    }
    fclose(f);
    *size = n;
    return data;
}

/* Gunzips data: gzip members one after the other (the writer makes one
 * per 1 MiB chunk), nothing else after them. */
static uint8_t *gunzip(const uint8_t *data, size_t size, size_t *out_size)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        FAIL("inflateInit2");
    size_t cap = size * 4 + 4096, n = 0;
    uint8_t *out = malloc(cap);
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)size;
    int rc;
    for (;;) {
        if (n == cap)
            out = realloc(out, cap *= 2);
        z.next_out = out + n;
        z.avail_out = (uInt)(cap - n);
        rc = inflate(&z, Z_NO_FLUSH);
        n = cap - z.avail_out;
        if (rc != Z_OK && rc != Z_STREAM_END && !(rc == Z_BUF_ERROR && z.avail_out == 0))
            FAIL("the gzip output does not decode: %s (zlib %d)", z.msg ? z.msg : "?", rc);
        if (rc == Z_STREAM_END) {
            if (z.avail_in == 0)
                break;
            if (z.avail_in < 2 || z.next_in[0] != 0x1f || z.next_in[1] != 0x8b)
                FAIL("%u bytes after the end of the gzip stream", z.avail_in);
            inflateReset(&z); /* the next member */
        }
    }
    inflateEnd(&z);
    *out_size = n;
    return out;
}

static void check_dir_empty(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        /* The caller's input report is still there; anything else is a
         * temporary file the conversion left behind. */
        if (strstr(e->d_name, "input-") == e->d_name)
            continue;
        char name[512];
        snprintf(name, sizeof name, "%s", e->d_name);
        closedir(d);
        FAIL("the conversion left a file behind in %s: %s", dir, name);
    }
    closedir(d);
}

void fuzz_check_conversion(nsysp_status status, const nsysp_result *res, const char *out_path,
                           int compress_level, unsigned allowed_mask, int fds_before)
{
    fuzz_count_status(status);
    if (status == NSYSP_ERR_INTERNAL && strstr(res->message, "out of memory") && ignored("nomem"))
        allowed_mask |= FUZZ_STATUS_BIT(NSYSP_ERR_INTERNAL);
    if ((unsigned)status > 31 || !(allowed_mask & FUZZ_STATUS_BIT(status)))
        FAIL("unexpected status %d: %s", (int)status,
             printable(res->message, (char[600]){0}, 600));

    struct stat st;
    bool exists = stat(out_path, &st) == 0;
    if (status != NSYSP_OK) {
        if (!res->message[0])
            FAIL("status %d without a message", (int)status);
        if (exists)
            FAIL("status %d (%s) but the output %s exists", (int)status, res->message, out_path);
    } else {
        if (res->message[0])
            FAIL("success with a message: %s", res->message);
        if (!exists)
            FAIL("success but no output at %s", out_path);
        size_t size;
        uint8_t *data = fuzz_read_file(out_path, &size);
        if (!data)
            FAIL("conversion succeeded but %s cannot be opened: %s", out_path, strerror(errno));
        if (size != res->bytes_written)
            FAIL("output is %zu bytes, bytes_written says %llu", size,
                 (unsigned long long)res->bytes_written);
        uint8_t *plain = data;
        size_t plain_size = size;
        if (compress_level > 0)
            plain = gunzip(data, size, &plain_size);
        if (plain_size != res->bytes_uncompressed)
            FAIL("trace is %zu bytes uncompressed, bytes_uncompressed says %llu", plain_size,
                 (unsigned long long)res->bytes_uncompressed);
        uint64_t packets = check_trace(plain, plain_size);
        if (packets != res->packets)
            FAIL("trace has %llu packets, result says %llu", (unsigned long long)packets,
                 (unsigned long long)res->packets);
        if (plain != data)
            free(plain);
        free(data);
        if (res->n_sources > NSYSP_MAX_SOURCES)
            FAIL("n_sources %zu", res->n_sources);
        for (size_t i = 0; i < res->n_sources; i++) {
            const nsysp_source_stats *s = &res->sources[i];
            uint64_t sum = s->emitted;
            for (int r = 0; r < NSYSP_SKIP_REASONS; r++)
                sum += s->skipped[r];
            if (sum != s->rows && !ignored("accounting"))
                FAIL("source %s (%s): %llu rows read but %llu emitted + skipped",
                     s->name ? s->name : "?", s->table ? s->table : "?",
                     (unsigned long long)s->rows, (unsigned long long)sum);
        }
    }
    if (exists && unlink(out_path) != 0)
        FAIL("cannot remove %s: %s", out_path, strerror(errno));
    check_dir_empty(fuzz_tmpdir());
    int fds_after = fuzz_count_fds();
    if (fds_before >= 0 && fds_after != fds_before)
        FAIL("file descriptors: %d before the conversion, %d after (leak)", fds_before,
             fds_after);
}
