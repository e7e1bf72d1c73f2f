/* The bounds on user-given regular expressions (common/regex_limits.h):
 * back-references and runaway repeats refused with a one-line reason,
 * ordinary POSIX extended expressions compiled and matching as before;
 * the command line's and the web form's parsers refuse the same. */
#include <regex.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "tool/options.h"
#include "common/regex_limits.h"
#include "web/web_options.h"

/* Whether pattern compiles; why receives the reason when it does not. */
static int compiles(const char *pattern, char *why, size_t size)
{
    regex_t re;
    why[0] = '\0';
    if (regex_compile(&re, pattern, why, size) < 0)
        return 0;
    regfree(&re);
    return 1;
}

/* Refused, with a one-line reason that contains expected. */
static void check_refused(const char *pattern, const char *expected)
{
    char why[256];
    int ok = compiles(pattern, why, sizeof why);
    if (ok || !strstr(why, expected) || strchr(why, '\n')) {
        fprintf(stderr, "pattern '%.60s': %s, reason '%s', expected '%s'\n", pattern,
                ok ? "accepted" : "refused", why, expected);
        check_failures++;
    }
}

static int matches(const char *pattern, const char *name)
{
    regex_t re;
    char why[256];
    if (regex_compile(&re, pattern, why, sizeof why) < 0) {
        fprintf(stderr, "pattern '%s' refused: %s\n", pattern, why);
        check_failures++;
        return -1;
    }
    int m = regexec(&re, name, 0, NULL, 0) == 0;
    regfree(&re);
    return m;
}

static void test_refused(void)
{
    /* The pattern of issue 24: over 20 s of regexec on a 68-byte NVTX name. */
    check_refused("^(.*)(.*)(.*)(.*)(.*)\\5\\4\\3\\2\\1$",
                  "back-references (\\5) are not supported");
    check_refused("(a)\\1", "back-references (\\1)");
    check_refused("x[ab](c)\\9", "back-references (\\9)");
    check_refused("(a{1000}){1000}", "repeat counts above 255");
    check_refused("a{256}", "repeat counts above 255 are not supported");
    check_refused("a{1,99999999999999999999}", "repeat counts above 255");
    check_refused("a{300,}", "repeat counts above 255");
    check_refused("(a{255}){255}", "too large");
    check_refused("(.{0,64}){64}x", "too large");
    check_refused("((a{10}){10}){11}", "too large");
    check_refused("(ab|cd{100}){11}", "too large");
    check_refused(".{0,255}.{0,255}.{0,255}.{0,255}.{0,255}", "too large");
    char longest[REGEX_MAX_BYTES + 2];
    memset(longest, 'a', sizeof longest - 1);
    longest[sizeof longest - 1] = '\0';
    check_refused(longest, "longer than 1024 bytes");
    /* regcomp's own refusals come through as its message. */
    check_refused("(", "(");
    check_refused("a{2,1}", "");
}

static void test_accepted(void)
{
    char why[256];
    const char *const ordinary[] = {
        "^step_[0-9]{1,6}$", "forward|backward", "[[:alpha:]]+::[a-z_]+", "(nccl|NCCL)[A-Z]?",
        "a{255}", "(a{15}){17}", ".{0,255}x", "(x|y){0,100}z", "\\.", "[\\1]x", "[]\\1]",
        "[[:digit:]\\2]", "a{,5}", "^$", "", "\\bword\\b", "x{2}{3}",
    };
    for (size_t i = 0; i < sizeof ordinary / sizeof *ordinary; i++)
        if (!compiles(ordinary[i], why, sizeof why)) {
            fprintf(stderr, "ordinary pattern '%s' refused: %s\n", ordinary[i], why);
            check_failures++;
        }
    /* The longest pattern allowed: a kilobyte of characters. */
    char longest[REGEX_MAX_BYTES + 1];
    memset(longest, 'a', sizeof longest - 1);
    longest[sizeof longest - 1] = '\0';
    CHECK(compiles(longest, why, sizeof why));
}

static void test_matching(void)
{
    CHECK_EQ_INT(matches("^aten::(mul|add)_$", "aten::mul_"), 1);
    CHECK_EQ_INT(matches("^aten::(mul|add)_$", "aten::mul"), 0);
    CHECK_EQ_INT(matches("^step_[0-9]{2,3}$", "step_42"), 1);
    CHECK_EQ_INT(matches("^step_[0-9]{2,3}$", "step_4"), 0);
    CHECK_EQ_INT(matches("[[:upper:]]{4}", "NCCL AllReduce"), 1);
    CHECK_EQ_INT(matches("[\\1]", "a\\b"), 1); /* a backslash in brackets is ordinary */
    CHECK_EQ_INT(matches("[\\1]", "abc"), 0);
}

/* The bounds keep the cost of the worst patterns allowed small. */
static void test_bounded_cost(void)
{
    const char *const worst[] = {"(a{15}){17}b", "(.?){255}x", ".{0,255}.{0,255}x",
                                 "(.{0,15}){17}x"};
    char name[257];
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    for (size_t i = 0; i < sizeof worst / sizeof *worst; i++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        CHECK_EQ_INT(matches(worst[i], name), 0);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
        if (s > 2.0) {
            fprintf(stderr, "'%s' took %.2f s on a 256-byte name\n", worst[i], s);
            check_failures++;
        }
    }
}

static void test_parsers(void)
{
    char why[256];
    CHECK(parse_regex("(a)\\1", why, sizeof why) < 0);
    CHECK(strstr(why, "back-references") != NULL);
    CHECK_EQ_INT(parse_regex("^(fwd|bwd)_[0-9]+$", why, sizeof why), 0);

    web_options form;
    web_parsed_options parsed;
    char err[512];
    memset(&form, 0, sizeof form);
    strcpy(form.nvtx_filter, " (.*)(.*)\\2\\1 ");
    CHECK_EQ_INT(web_options_parse(&form, &parsed, err, sizeof err), -1);
    CHECK(strstr(err, "NVTX filter: back-references (\\2) are not supported") == err);
    CHECK(strchr(err, '\n') == NULL);
    strcpy(form.nvtx_filter, "(a{1000}){1000}");
    CHECK_EQ_INT(web_options_parse(&form, &parsed, err, sizeof err), -1);
    CHECK(strstr(err, "NVTX filter: repeat counts above 255") == err);
    strcpy(form.nvtx_filter, " ^(fwd|bwd)$ ");
    CHECK_EQ_INT(web_options_parse(&form, &parsed, err, sizeof err), 0);
    CHECK_EQ_STR(parsed.opt.nvtx_filter, "^(fwd|bwd)$");
}

/* The library refuses such a pattern itself, before it reads the input. */
static void test_library(void)
{
    nsysp_options opt;
    nsysp_options_init(&opt);
    opt.nvtx_filter = "(.*)\\1";
    opt.output_path = "/nonexistent-dir/never-written.perfetto-trace";
    nsysp_result res;
    CHECK_EQ_INT(nsysp_convert("/nonexistent-report.sqlite", &opt, &res), NSYSP_ERR_USAGE);
    CHECK(strstr(res.message, "--nvtx-filter: back-references (\\1)") == res.message);
    nsysp_summary sum;
    CHECK_EQ_INT(nsysp_summarize("/nonexistent-report.sqlite", "x{9999}", &sum), NSYSP_ERR_USAGE);
    CHECK(strstr(sum.message, "--match: repeat counts above 255") == sum.message);
    nsysp_summary_free(&sum);
}

int main(void)
{
    test_refused();
    test_accepted();
    test_matching();
    test_bounded_cost();
    test_parsers();
    test_library();
    return CHECK_DONE();
}
