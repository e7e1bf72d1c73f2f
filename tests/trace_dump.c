/* trace_dump: decodes a trace written by nsys-perfetto (gzip or raw) with
 * the project's own protobuf-c bindings and prints what trace_processor
 * would import, one line per item, for tests to compare with SQL:
 *
 *   S <ts> <dur> <category> <name> <track path> <args> <track uuid> <callstack> <flows>
 *                                                          a slice; flows: ids, ","
 *   I <ts> <category> <name> <track path> <args> <track uuid> <callstack> <flows>
 *                                                          an instant
 *   T <uuid> <parent> <kind> <name>                       a track
 *   F <flow id> <begin|end>                                a flow endpoint
 *   W <cpu> <ts> <prev tid> <prev state> <next tid>        a context switch
 *   P <ts> <cpu> <pid> <tid> <mode> <callstack>            a CPU sample
 *   C <ts> <track path> <value>                            a counter value
 *   R <depth> <rank|-> <kind> <name>                       the track tree, last,
 *                                                          in the UI's order
 *
 * Slices also end with their callstack. A callstack prints as
 * "function@module|..." outermost first.
 *
 * Fields are tab-separated; track paths join ancestor names with " / ";
 * args are "name=value" joined by ";". Tabs, newlines and backslashes in
 * names print as \t, \n and \\. Slices are matched BEGIN/END per
 * track as trace_processor does (a bare END closes the innermost slice). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pftrace.pb-c.h"

typedef struct strtab {
    char **s;
    size_t n;
} strtab;

static void strtab_set(strtab *t, uint64_t iid, const char *s, size_t len)
{
    if (iid >= t->n) {
        size_t n = (size_t)iid * 2 + 16;
        t->s = realloc(t->s, n * sizeof *t->s);
        memset(t->s + t->n, 0, (n - t->n) * sizeof *t->s);
        t->n = n;
    }
    if (t->s[iid])
        return; /* first definition wins */
    t->s[iid] = malloc(len + 1);
    memcpy(t->s[iid], s, len);
    t->s[iid][len] = '\0';
}

static const char *strtab_get(const strtab *t, uint64_t iid)
{
    return iid < t->n && t->s[iid] ? t->s[iid] : "?";
}

enum { NAMES, CATS, ARG_NAMES, ARG_STRINGS, FUNCTIONS, MAPPING_PATHS, KINDS };

/* iid -> small integer tuple (mappings: path; frames: function, mapping;
 * callstacks: frame list). */
typedef struct inttab {
    uint64_t **v;
    size_t *len;
    size_t n;
} inttab;

static void inttab_set(inttab *t, uint64_t iid, const uint64_t *v, size_t len)
{
    if (iid >= t->n) {
        size_t n = (size_t)iid * 2 + 16;
        t->v = realloc(t->v, n * sizeof *t->v);
        t->len = realloc(t->len, n * sizeof *t->len);
        memset(t->v + t->n, 0, (n - t->n) * sizeof *t->v);
        memset(t->len + t->n, 0, (n - t->n) * sizeof *t->len);
        t->n = n;
    }
    if (t->v[iid])
        return;
    t->v[iid] = malloc((len ? len : 1) * sizeof *v);
    memcpy(t->v[iid], v, len * sizeof *v);
    t->len[iid] = len;
}

enum { MAPPINGS, FRAMES, CALLSTACKS, INT_KINDS };
typedef struct seqstate {
    uint32_t id;
    strtab tab[KINDS];
    inttab ints[INT_KINDS];
    uint32_t default_clock;  /* TracePacketDefaults.timestamp_clock_id */
    uint64_t delta_base;     /* clock 64: the running (incremental) value */
} seqstate;

/* "function@module|..." for a callstack iid. */
static void format_callstack(const seqstate *s, uint64_t iid, char *out, size_t size)
{
    out[0] = '\0';
    const inttab *cs = &s->ints[CALLSTACKS];
    if (!iid || iid >= cs->n || !cs->v[iid])
        return;
    for (size_t i = 0; i < cs->len[iid]; i++) {
        uint64_t f = cs->v[iid][i];
        const char *fn = "?", *mod = "?";
        if (f < s->ints[FRAMES].n && s->ints[FRAMES].v[f]) {
            fn = strtab_get(&s->tab[FUNCTIONS], s->ints[FRAMES].v[f][0]);
            uint64_t m = s->ints[FRAMES].v[f][1];
            if (m < s->ints[MAPPINGS].n && s->ints[MAPPINGS].v[m])
                mod = strtab_get(&s->tab[MAPPING_PATHS], s->ints[MAPPINGS].v[m][0]);
        }
        size_t len = strlen(out);
        snprintf(out + len, size - len, "%s%s@%s", i ? "|" : "", fn, mod);
    }
}

/* The sequences seen (the writer opens one per report plus its batches). */
static seqstate **seqs;
static size_t n_seqs;

static seqstate *seq_of(uint32_t id)
{
    for (size_t i = 0; i < n_seqs; i++)
        if (seqs[i]->id == id)
            return seqs[i];
    seqs = realloc(seqs, (n_seqs + 1) * sizeof *seqs);
    seqs[n_seqs] = calloc(1, sizeof **seqs);
    if (!seqs || !seqs[n_seqs]) {
        fprintf(stderr, "trace_dump: out of memory\n");
        exit(1);
    }
    seqs[n_seqs]->id = id;
    return seqs[n_seqs++];
}

typedef struct open_slice {
    uint64_t ts;
    char *line; /* everything after ts/dur */
} open_slice;

typedef struct trackinfo {
    uint64_t uuid, parent;
    char *name;
    const char *kind;
    int child_order;         /* the descriptor's child_ordering */
    bool has_rank;
    int32_t rank;            /* sibling_order_rank */
    int32_t pid;             /* process tracks */
    size_t seen;             /* descriptor order */
    open_slice *stack;
    size_t depth, cap;
} trackinfo;

static trackinfo *tracks;
static size_t n_tracks, cap_tracks;

static trackinfo *track_of(uint64_t uuid)
{
    for (size_t i = 0; i < n_tracks; i++)
        if (tracks[i].uuid == uuid)
            return &tracks[i];
    if (n_tracks == cap_tracks) {
        cap_tracks = cap_tracks ? cap_tracks * 2 : 64;
        tracks = realloc(tracks, cap_tracks * sizeof *tracks);
    }
    trackinfo *t = &tracks[n_tracks++];
    memset(t, 0, sizeof *t);
    t->uuid = uuid;
    t->name = strdup("?");
    t->kind = "?";
    return t;
}

static void track_path(uint64_t uuid, char *out, size_t size)
{
    const char *parts[64];
    size_t n = 0;
    while (uuid && n < 64) {
        trackinfo *t = track_of(uuid);
        parts[n++] = t->name;
        uuid = t->parent;
    }
    out[0] = '\0';
    for (size_t i = n; i-- > 0;) {
        strncat(out, parts[i], size - strlen(out) - 1);
        if (i)
            strncat(out, " / ", size - strlen(out) - 1);
    }
}

/* ---- The track tree in the UI's order ---------------------------------- *
 * As the Perfetto UI lays tracks out: under a parent with EXPLICIT child
 * ordering, children by sibling_order_rank (none counts as 0); under any
 * other, by name; at the top, tracks that are not processes first, then
 * processes by pid. Ties keep the order descriptors came in. */

static int explicit_parent;

static int by_ui_order(const void *pa, const void *pb)
{
    const trackinfo *a = *(trackinfo *const *)pa, *b = *(trackinfo *const *)pb;
    if (explicit_parent) {
        int32_t ra = a->has_rank ? a->rank : 0, rb = b->has_rank ? b->rank : 0;
        if (ra != rb)
            return ra < rb ? -1 : 1;
    } else if (a->parent == 0) {
        bool pa_ = strcmp(a->kind, "process") == 0, pb_ = strcmp(b->kind, "process") == 0;
        if (pa_ != pb_)
            return pa_ ? 1 : -1;
        if (pa_ && a->pid != b->pid)
            return a->pid < b->pid ? -1 : 1;
    }
    if (!explicit_parent) {
        int c = strcmp(a->name, b->name);
        if (c)
            return c;
    }
    return a->seen < b->seen ? -1 : a->seen > b->seen;
}

static void print_tree(uint64_t parent, int order, size_t depth)
{
    trackinfo **kids = malloc((n_tracks + 1) * sizeof *kids);
    size_t n = 0;
    for (size_t i = 0; i < n_tracks; i++)
        if (tracks[i].parent == parent && tracks[i].uuid != parent)
            kids[n++] = &tracks[i];
    explicit_parent = order == PFTRACE__TRACK_DESCRIPTOR__CHILD_TRACKS_ORDERING__EXPLICIT;
    qsort(kids, n, sizeof *kids, by_ui_order);
    for (size_t i = 0; i < n; i++) {
        char rank[16] = "-";
        if (kids[i]->has_rank)
            snprintf(rank, sizeof rank, "%" PRId32, kids[i]->rank);
        printf("R\t%zu\t%s\t%s\t%s\n", depth, rank, kids[i]->kind, kids[i]->name);
        if (depth < 32)
            print_tree(kids[i]->uuid, kids[i]->child_order, depth + 1);
    }
    free(kids);
}

/* Copies s into out with \t, \n and \\ escaped; returns out. */
static const char *escaped(const char *s, char *out, size_t size)
{
    size_t n = 0;
    for (; *s && n + 3 < size; s++) {
        char e = *s == '\t' ? 't' : *s == '\n' ? 'n' : *s == '\\' ? '\\' : 0;
        if (e) {
            out[n++] = '\\';
            out[n++] = e;
        } else {
            out[n++] = *s;
        }
    }
    out[n] = '\0';
    return out;
}

static void format_args(const seqstate *s, const Pftrace__TrackEvent *te, char *out, size_t size)
{
    out[0] = '\0';
    for (size_t i = 0; i < te->n_debug_annotations; i++) {
        const Pftrace__DebugAnnotation *a = te->debug_annotations[i];
        char v[4096];
        switch (a->value_case) {
        case PFTRACE__DEBUG_ANNOTATION__VALUE_INT_VALUE:
            snprintf(v, sizeof v, "%" PRId64, a->int_value);
            break;
        case PFTRACE__DEBUG_ANNOTATION__VALUE_UINT_VALUE:
            snprintf(v, sizeof v, "%" PRIu64, a->uint_value);
            break;
        case PFTRACE__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE:
            snprintf(v, sizeof v, "%.17g", a->double_value);
            break;
        case PFTRACE__DEBUG_ANNOTATION__VALUE_BOOL_VALUE:
            snprintf(v, sizeof v, "%s", a->bool_value ? "true" : "false");
            break;
        case PFTRACE__DEBUG_ANNOTATION__VALUE_STRING_VALUE:
            snprintf(v, sizeof v, "%s", a->string_value);
            break;
        case PFTRACE__DEBUG_ANNOTATION__VALUE_STRING_VALUE_IID:
            snprintf(v, sizeof v, "%s", strtab_get(&s->tab[ARG_STRINGS], a->string_value_iid));
            break;
        default:
            snprintf(v, sizeof v, "?");
        }
        const char *name = a->name_field_case == PFTRACE__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID
                               ? strtab_get(&s->tab[ARG_NAMES], a->name_iid)
                               : a->name;
        size_t len = strlen(out);
        snprintf(out + len, size - len, "%s%s=%s", i ? ";" : "", name, v);
    }
}

static void on_interned(seqstate *s, const Pftrace__InternedData *d)
{
    for (size_t i = 0; i < d->n_event_names; i++)
        strtab_set(&s->tab[NAMES], d->event_names[i]->iid, d->event_names[i]->name,
                   strlen(d->event_names[i]->name));
    for (size_t i = 0; i < d->n_event_categories; i++)
        strtab_set(&s->tab[CATS], d->event_categories[i]->iid, d->event_categories[i]->name,
                   strlen(d->event_categories[i]->name));
    for (size_t i = 0; i < d->n_debug_annotation_names; i++)
        strtab_set(&s->tab[ARG_NAMES], d->debug_annotation_names[i]->iid,
                   d->debug_annotation_names[i]->name, strlen(d->debug_annotation_names[i]->name));
    for (size_t i = 0; i < d->n_function_names; i++)
        strtab_set(&s->tab[FUNCTIONS], d->function_names[i]->iid,
                   (const char *)d->function_names[i]->str.data, d->function_names[i]->str.len);
    for (size_t i = 0; i < d->n_mapping_paths; i++)
        strtab_set(&s->tab[MAPPING_PATHS], d->mapping_paths[i]->iid,
                   (const char *)d->mapping_paths[i]->str.data, d->mapping_paths[i]->str.len);
    for (size_t i = 0; i < d->n_mappings; i++)
        inttab_set(&s->ints[MAPPINGS], d->mappings[i]->iid, d->mappings[i]->path_string_ids,
                   d->mappings[i]->n_path_string_ids);
    for (size_t i = 0; i < d->n_frames; i++) {
        uint64_t v[2] = {d->frames[i]->function_name_id, d->frames[i]->mapping_id};
        inttab_set(&s->ints[FRAMES], d->frames[i]->iid, v, 2);
    }
    for (size_t i = 0; i < d->n_callstacks; i++)
        inttab_set(&s->ints[CALLSTACKS], d->callstacks[i]->iid, d->callstacks[i]->frame_ids,
                   d->callstacks[i]->n_frame_ids);
    for (size_t i = 0; i < d->n_debug_annotation_string_values; i++)
        strtab_set(&s->tab[ARG_STRINGS], d->debug_annotation_string_values[i]->iid,
                   (const char *)d->debug_annotation_string_values[i]->str.data,
                   d->debug_annotation_string_values[i]->str.len);
}

static void on_descriptor(const Pftrace__TrackDescriptor *td)
{
    trackinfo *t = track_of(td->uuid);
    t->parent = td->has_parent_uuid ? td->parent_uuid : 0;
    t->child_order = td->has_child_ordering ? (int)td->child_ordering : 0;
    t->has_rank = td->has_sibling_order_rank;
    t->rank = td->sibling_order_rank;
    t->pid = td->process && td->process->has_pid ? td->process->pid : 0;
    static size_t descriptors;
    t->seen = descriptors++;
    const char *name = td->static_or_dynamic_name_case ? td->name : NULL;
    t->kind = "track";
    if (td->process) {
        t->kind = "process";
        name = td->process->process_name;
    } else if (td->thread) {
        t->kind = "thread";
        name = td->thread->thread_name;
    } else if (td->counter) {
        t->kind = "counter";
    }
    free(t->name);
    t->name = strdup(name ? name : "");
    printf("T\t%" PRIu64 "\t%" PRIu64 "\t%s\t%s\n", t->uuid, t->parent, t->kind, t->name);
}

static void on_event(seqstate *s, uint64_t ts, const Pftrace__TrackEvent *te)
{
    trackinfo *t = track_of(te->track_uuid);
    for (size_t i = 0; i < te->n_flow_ids; i++)
        printf("F\t%" PRIu64 "\tbegin\n", te->flow_ids[i]);
    for (size_t i = 0; i < te->n_terminating_flow_ids; i++)
        printf("F\t%" PRIu64 "\tend\n", te->terminating_flow_ids[i]);
    if (te->type == PFTRACE__TRACK_EVENT__TYPE__TYPE_COUNTER) {
        static char cpath[8192];
        track_path(te->track_uuid, cpath, sizeof cpath);
        double v = te->counter_value_field_case ==
                           PFTRACE__TRACK_EVENT__COUNTER_VALUE_FIELD_DOUBLE_COUNTER_VALUE
                       ? te->double_counter_value
                       : (double)te->counter_value;
        printf("C\t%" PRIu64 "\t%s\t%.17g\n", ts, cpath, v);
        for (size_t i = 0; i < te->n_extra_double_counter_values &&
                           i < te->n_extra_double_counter_track_uuids; i++) {
            track_path(te->extra_double_counter_track_uuids[i], cpath, sizeof cpath);
            printf("C\t%" PRIu64 "\t%s\t%.17g\n", ts, cpath, te->extra_double_counter_values[i]);
        }
        return;
    }
    if (te->type == PFTRACE__TRACK_EVENT__TYPE__TYPE_SLICE_END) {
        if (!t->depth) {
            printf("X\tunmatched end on track %" PRIu64 "\n", t->uuid);
            return;
        }
        open_slice *o = &t->stack[--t->depth];
        printf("S\t%" PRIu64 "\t%" PRIu64 "\t%s\n", o->ts, ts - o->ts, o->line);
        free(o->line);
        return;
    }
    if (te->type != PFTRACE__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN &&
        te->type != PFTRACE__TRACK_EVENT__TYPE__TYPE_INSTANT)
        return;
    static char path[8192], args[65536], stack[65536], line[280000];
    track_path(te->track_uuid, path, sizeof path);
    format_args(s, te, args, sizeof args);
    format_callstack(s, te->callstack_iid, stack, sizeof stack);
    const char *name = te->name_field_case == PFTRACE__TRACK_EVENT__NAME_FIELD_NAME_IID
                           ? strtab_get(&s->tab[NAMES], te->name_iid)
                           : (te->name_field_case ? te->name : "");
    const char *cat = te->n_category_iids ? strtab_get(&s->tab[CATS], te->category_iids[0]) : "";
    static char safe_name[65536], safe_args[65536], flows[4096];
    size_t at = 0;
    flows[0] = '\0';
    for (size_t i = 0; i < te->n_flow_ids + te->n_terminating_flow_ids && at < sizeof flows; i++) {
        uint64_t id = i < te->n_flow_ids ? te->flow_ids[i]
                                         : te->terminating_flow_ids[i - te->n_flow_ids];
        at += (size_t)snprintf(flows + at, sizeof flows - at, "%s%" PRIu64, i ? "," : "", id);
    }
    snprintf(line, sizeof line, "%s\t%s\t%s\t%s\t%" PRIu64 "\t%s\t%s", cat,
             escaped(name ? name : "", safe_name, sizeof safe_name), path,
             escaped(args, safe_args, sizeof safe_args), te->track_uuid, stack, flows);
    if (te->type == PFTRACE__TRACK_EVENT__TYPE__TYPE_INSTANT) {
        printf("I\t%" PRIu64 "\t%s\n", ts, line);
        return;
    }
    if (t->depth == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 8;
        t->stack = realloc(t->stack, t->cap * sizeof *t->stack);
    }
    t->stack[t->depth].ts = ts;
    t->stack[t->depth].line = strdup(line);
    t->depth++;
}

static void on_ftrace(const Pftrace__FtraceEventBundle *b)
{
    for (size_t i = 0; i < b->n_event; i++) {
        const Pftrace__FtraceEvent *e = b->event[i];
        if (e->event_case != PFTRACE__FTRACE_EVENT__EVENT_SCHED_SWITCH)
            continue;
        const Pftrace__SchedSwitchFtraceEvent *sw = e->sched_switch;
        printf("W\t%u\t%" PRIu64 "\t%d\t%" PRId64 "\t%d\n", b->cpu, e->timestamp, sw->prev_pid,
               sw->prev_state, sw->next_pid);
    }
}

static void on_sample(const seqstate *s, uint64_t ts, const Pftrace__PerfSample *ps)
{
    static char stack[65536];
    format_callstack(s, ps->callstack_iid, stack, sizeof stack);
    printf("P\t%" PRIu64 "\t%u\t%u\t%u\t%d\t%s\n", ts, ps->cpu, ps->pid, ps->tid, ps->cpu_mode,
           stack);
}

static int read_varint(gzFile f, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        int c = gzgetc(f);
        if (c < 0)
            return -1;
        *v |= (uint64_t)(c & 0x7F) << shift;
        if (!(c & 0x80))
            return 0;
    }
    return -1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: trace_dump TRACE\n");
        return 2;
    }
    gzFile f = gzopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "trace_dump: cannot open %s\n", argv[1]);
        return 2;
    }
    uint8_t *data = NULL;
    size_t cap = 0;
    int c;
    while ((c = gzgetc(f)) >= 0) {
        uint64_t len;
        if (c != 0x0A || read_varint(f, &len) < 0) {
            fprintf(stderr, "trace_dump: bad framing\n");
            return 1;
        }
        if (len > cap) {
            cap = (size_t)len;
            data = realloc(data, cap);
        }
        if (gzread(f, data, (unsigned)len) != (int)len) {
            fprintf(stderr, "trace_dump: truncated\n");
            return 1;
        }
        Pftrace__TracePacket *p = pftrace__trace_packet__unpack(NULL, (size_t)len, data);
        if (!p) {
            fprintf(stderr, "trace_dump: undecodable packet\n");
            return 1;
        }
        seqstate *s = seq_of(p->trusted_packet_sequence_id);
        if (p->trace_packet_defaults && p->trace_packet_defaults->has_timestamp_clock_id)
            s->default_clock = p->trace_packet_defaults->timestamp_clock_id;
        if (p->data_case == PFTRACE__TRACE_PACKET__DATA_CLOCK_SNAPSHOT)
            for (size_t i = 0; i < p->clock_snapshot->n_clocks; i++)
                if (p->clock_snapshot->clocks[i]->clock_id == 64)
                    s->delta_base = p->clock_snapshot->clocks[i]->timestamp;
        /* Sequence clock 64 is incremental: timestamps are deltas. */
        uint32_t clock = p->has_timestamp_clock_id ? p->timestamp_clock_id : s->default_clock;
        if (p->has_timestamp && clock == 64) {
            s->delta_base += p->timestamp;
            p->timestamp = s->delta_base;
        }
        if (p->interned_data)
            on_interned(s, p->interned_data);
        if (p->data_case == PFTRACE__TRACE_PACKET__DATA_TRACK_DESCRIPTOR)
            on_descriptor(p->track_descriptor);
        else if (p->data_case == PFTRACE__TRACE_PACKET__DATA_TRACK_EVENT)
            on_event(s, p->timestamp, p->track_event);
        else if (p->data_case == PFTRACE__TRACE_PACKET__DATA_FTRACE_EVENTS)
            on_ftrace(p->ftrace_events);
        else if (p->data_case == PFTRACE__TRACE_PACKET__DATA_PERF_SAMPLE)
            on_sample(s, p->timestamp, p->perf_sample);
        pftrace__trace_packet__free_unpacked(p, NULL);
    }
    for (size_t i = 0; i < n_tracks; i++)
        if (tracks[i].depth)
            printf("X\t%zu unterminated slices on track %" PRIu64 "\n", tracks[i].depth,
                   tracks[i].uuid);
    print_tree(0, 0, 0);
    gzclose(f);
    free(data);
    return 0;
}
