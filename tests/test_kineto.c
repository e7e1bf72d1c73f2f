/* The Kineto JSON writer's text: strings escaped for any bytes, times in
 * microseconds that hold every nanosecond, and Kineto's names for our
 * categories and args. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/buf.h"
#include "common/json.h"
#include "kineto/kineto_args.h"

static const char *escaped(buf *b, const char *s, size_t n, bool html_safe)
{
    buf_clear(b);
    json_append_string(b, s, n, html_safe);
    return buf_cstr(b);
}

static void strings(void)
{
    buf b = {0};
    CHECK_EQ_STR(escaped(&b, "plain", 5, false), "\"plain\"");
    CHECK_EQ_STR(escaped(&b, "q\"b\\", 4, false), "\"q\\\"b\\\\\"");
    CHECK_EQ_STR(escaped(&b, "\x01\t\n\x1f", 4, false), "\"\\u0001\\u0009\\u000a\\u001f\"");
    /* Bytes that are not UTF-8 become U+FFFD, each; a cut sequence too. */
    CHECK_EQ_STR(escaped(&b, "a\xff\xfe" "b", 4, false), "\"a\\ufffd\\ufffdb\"");
    CHECK_EQ_STR(escaped(&b, "cut \xe2\x82", 6, false), "\"cut \\ufffd\\ufffd\"");
    /* Overlong forms and surrogates are not UTF-8 either. */
    CHECK_EQ_STR(escaped(&b, "\xc0\xaf", 2, false), "\"\\ufffd\\ufffd\"");
    CHECK_EQ_STR(escaped(&b, "\xed\xa0\x80", 3, false), "\"\\ufffd\\ufffd\\ufffd\"");
    /* Valid UTF-8 stays as it is; template brackets stay unless html_safe. */
    CHECK_EQ_STR(escaped(&b, "snow \xe2\x98\x83", 8, false), "\"snow \xe2\x98\x83\"");
    CHECK_EQ_STR(escaped(&b, "f<int>", 6, false), "\"f<int>\"");
    CHECK_EQ_STR(escaped(&b, "f<int>", 6, true), "\"f\\u003cint\\u003e\"");
    /* A NUL inside the given length is a control character. */
    CHECK_EQ_STR(escaped(&b, "a\0b", 3, false), "\"a\\u0000b\"");
    buf_free(&b);
}

static const char *us(buf *b, uint64_t ns)
{
    buf_clear(b);
    kineto_append_us(b, ns);
    return buf_cstr(b);
}

static void times(void)
{
    buf b = {0};
    CHECK_EQ_STR(us(&b, 0), "0.000");
    CHECK_EQ_STR(us(&b, 7), "0.007");
    CHECK_EQ_STR(us(&b, 1234567), "1234.567");
    CHECK_EQ_STR(us(&b, 1000), "1.000");
    CHECK_EQ_STR(us(&b, UINT64_MAX), "18446744073709551.615");
    /* Every nanosecond comes back: as text, and through a double (what
     * HTA parses it as) while the time stays under 2^52 ns, 52 days. */
    for (uint64_t ns = 0; ns < 5000000000000ULL; ns = ns * 3 + 7) {
        const char *t = us(&b, ns);
        char *dot = strchr(t, '.');
        CHECK(dot && strlen(dot) == 4);
        uint64_t back = strtoull(t, NULL, 10) * 1000 + strtoull(dot + 1, NULL, 10);
        CHECK_EQ_INT(back, ns);
        double parsed = strtod(t, NULL);
        CHECK_EQ_INT((uint64_t)(parsed * 1000.0 + 0.5), ns);
    }
    buf_clear(&b);
    kineto_append_double(&b, 100.0);
    kineto_append_double(&b, 0.0 / 0.0);
    CHECK_EQ_STR(buf_cstr(&b), "100null");
    buf_free(&b);
}

static const char *args_of(kineto_strings *c, buf *b, const pw_event *ev, uint64_t dur,
                           int64_t corr)
{
    buf_clear(b);
    kineto_append_args(c, b, kineto_kind_of(ev), ev, dur, corr);
    return buf_cstr(b);
}

static void names(void)
{
    kineto_strings c;
    kineto_strings_init(&c);
    buf b = {0};
    pw_arg kernel[] = {
        {.name = "grid", .type = PW_ARG_STRING, .v.s = "(46800, 1, 1)"},
        {.name = "block", .type = PW_ARG_STRING, .v.s = "(128, 1, 1)"},
        {.name = "static shared memory", .type = PW_ARG_INT, .v.i = 16},
        {.name = "dynamic shared memory", .type = PW_ARG_INT, .v.i = 32},
        {.name = "stream", .type = PW_ARG_INT, .v.i = 7},
        {.name = "launch type", .type = PW_ARG_CONSTANT_STRING, .v.s = "Regular"},
    };
    pw_event ev = {.category = "kernel", .args = kernel, .n_args = 6};
    CHECK_EQ_INT(kineto_kind_of(&ev), KINETO_KERNEL);
    /* The correlation from the flow, when the event has none of its own. */
    CHECK_EQ_STR(args_of(&c, &b, &ev, 10, 42),
                 ",\"args\":{\"grid\":[46800, 1, 1],\"block\":[128, 1, 1],"
                 "\"static shared memory\":16,\"dynamic shared memory\":32,\"stream\":7,"
                 "\"launch type\":\"Regular\",\"shared memory\":48,\"correlation\":42}");
    /* Twice: the cached keys and values give the same text. */
    CHECK_EQ_STR(args_of(&c, &b, &ev, 10, 42),
                 ",\"args\":{\"grid\":[46800, 1, 1],\"block\":[128, 1, 1],"
                 "\"static shared memory\":16,\"dynamic shared memory\":32,\"stream\":7,"
                 "\"launch type\":\"Regular\",\"shared memory\":48,\"correlation\":42}");
    /* A sync's stream is not the stream HTA counts GPU time on. */
    pw_arg sync[] = {{.name = "stream", .type = PW_ARG_INT, .v.i = 7},
                     {.name = "correlation id", .type = PW_ARG_INT, .v.i = 5}};
    pw_event sev = {.category = "sync", .args = sync, .n_args = 2};
    CHECK_EQ_STR(kineto_category(kineto_kind_of(&sev), sev.category), "cuda_sync");
    CHECK_EQ_STR(args_of(&c, &b, &sev, 10, 42), ",\"args\":{\"stream id\":7,\"correlation\":5}");
    CHECK_EQ_INT(kineto_correlation_of(&sev), 5);
    /* A copy's bandwidth: bytes per ns is GB/s. */
    pw_arg copy[] = {{.name = "bytes", .type = PW_ARG_INT, .v.i = 3000}};
    pw_event cev = {.category = "memcpy", .args = copy, .n_args = 1};
    CHECK_EQ_STR(kineto_category(kineto_kind_of(&cev), cev.category), "gpu_memcpy");
    CHECK_EQ_STR(args_of(&c, &b, &cev, 2000, -1),
                 ",\"args\":{\"bytes\":3000,\"memory bandwidth (GB/s)\":1.5}");
    /* An op range: Kineto's names; Input Dims a list only when it is one. */
    pw_arg op[] = {{.name = "text", .type = PW_ARG_STRING, .v.s = "aten::mm, seq = 3"},
                   {.name = "seq", .type = PW_ARG_INT, .v.i = 3},
                   {.name = "op_id", .type = PW_ARG_INT, .v.i = 9},
                   {.name = "sizes", .type = PW_ARG_STRING, .v.s = "[[2, 3], [], [-1]]"}};
    pw_event oev = {.category = "nvtx", .args = op, .n_args = 4};
    CHECK_EQ_INT(kineto_kind_of(&oev), KINETO_CPU_OP);
    CHECK_EQ_STR(args_of(&c, &b, &oev, 1, -1),
                 ",\"args\":{\"text\":\"aten::mm, seq = 3\",\"Sequence number\":3,"
                 "\"Record function id\":9,\"Input Dims\":[[2, 3], [], [-1]]}");
    op[3].v.s = "[[2, 3], \"x\"]";
    CHECK_EQ_STR(args_of(&c, &b, &oev, 1, -1),
                 ",\"args\":{\"text\":\"aten::mm, seq = 3\",\"Sequence number\":3,"
                 "\"Record function id\":9,\"Input Dims\":\"[[2, 3], \\\"x\\\"]\"}");
    /* What the NVTX source gives for an op range in the default domain whose
     * text its parts give back (no domain arg, no text: nvtx_torch_args),
     * then one in a named domain whose text they do not: written as given. */
    pw_arg whole[] = {{.name = "domain", .type = PW_ARG_STRING, .v.s = "NCCL"},
                      {.name = "text", .type = PW_ARG_STRING,
                       .v.s = "aten::mm, seq = 3, op_id = 9, sizes = [[2, 3]]"},
                      {.name = "seq", .type = PW_ARG_INT, .v.i = 3},
                      {.name = "op_id", .type = PW_ARG_INT, .v.i = 9},
                      {.name = "sizes", .type = PW_ARG_STRING, .v.s = "[[2, 3]]"}};
    pw_event wev = {.name = "aten::mm", .category = "nvtx", .args = whole + 2, .n_args = 3};
    CHECK_EQ_STR(args_of(&c, &b, &wev, 1, -1),
                 ",\"args\":{\"Sequence number\":3,\"Record function id\":9,"
                 "\"Input Dims\":[[2, 3]]}");
    wev.args = whole;
    wev.n_args = 5;
    whole[1].v.s = "aten::mm, seq = 03, op_id = 9, sizes = [[2, 3]]"; /* not as PyTorch writes it */
    CHECK_EQ_STR(args_of(&c, &b, &wev, 1, -1),
                 ",\"args\":{\"domain\":\"NCCL\",\"text\":\"aten::mm, seq = 03, op_id = 9, "
                 "sizes = [[2, 3]]\",\"Sequence number\":3,\"Record function id\":9,"
                 "\"Input Dims\":[[2, 3]]}");
    pw_event plain = {.category = "nvtx", .args = op, .n_args = 1};
    CHECK_EQ_STR(kineto_category(kineto_kind_of(&plain), plain.category), "user_annotation");
    pw_event none = {.category = "osrt"};
    CHECK_EQ_STR(kineto_category(kineto_kind_of(&none), none.category), "osrt");
    CHECK_EQ_STR(args_of(&c, &b, &none, 1, -1), "");
    buf_free(&b);
    kineto_strings_free(&c);
}

int main(void)
{
    strings();
    times();
    names();
    return CHECK_DONE();
}
