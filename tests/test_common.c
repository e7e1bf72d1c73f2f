/* hmap and UTF-8 sanitizing. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "common/buf.h"
#include "common/hmap.h"
#include "common/utf8.h"
#include "model/gpu_busy.h"

static void test_hmap(void)
{
    hmap m;
    hmap_init(&m);
    char key[32];
    /* Enough keys to force several resizes. */
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(key, sizeof key, "key-%d", i);
        bool inserted;
        uint64_t *v = hmap_upsert(&m, key, (size_t)n, &inserted);
        CHECK(inserted);
        *v = (uint64_t)i * 3;
    }
    CHECK_EQ_INT(m.count, 5000);
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(key, sizeof key, "key-%d", i);
        uint64_t *v = hmap_find(&m, key, (size_t)n);
        CHECK(v && *v == (uint64_t)i * 3);
        if (v)
            CHECK_EQ_STR(hmap_key_of(&m, v), key);
    }
    CHECK(hmap_find(&m, "key-5000", 8) == NULL);
    bool inserted = true;
    hmap_upsert(&m, "key-7", 5, &inserted);
    CHECK(!inserted);

    /* Tuple keys: equal prefixes, different lengths are different keys. */
    int64_t a[2] = {1, 2}, b[3] = {1, 2, 0};
    *hmap_upsert(&m, a, sizeof a, NULL) = 11;
    *hmap_upsert(&m, b, sizeof b, NULL) = 22;
    CHECK_EQ_INT(*hmap_find(&m, a, sizeof a), 11);
    CHECK_EQ_INT(*hmap_find(&m, b, sizeof b), 22);
    hmap_free(&m);
}

static void test_utf8(void)
{
    buf scratch = {0};
    const char *ok = "gemm \xC2\xB7 kernel";
    CHECK(utf8_sanitize(ok, strlen(ok), &scratch) == ok); /* valid: no copy */

    const char bad[] = "ab\xFF" "c\xC3";                  /* stray byte, cut sequence */
    CHECK_EQ_STR(utf8_sanitize(bad, sizeof bad - 1, &scratch), "ab\xEF\xBF\xBD" "c\xEF\xBF\xBD");

    const char overlong[] = "\xC0\xAF";                 /* overlong '/' */
    CHECK(!utf8_is_valid(overlong, 2));
    const char surrogate[] = "\xED\xA0\x80";
    CHECK(!utf8_is_valid(surrogate, 3));
    CHECK(utf8_is_valid("\xF0\x9F\x98\x80", 4));

    /* Huge strings are cut at UTF8_MAX_STRING and marked. */
    size_t n = UTF8_MAX_STRING * 2;
    char *big = malloc(n + 1);
    memset(big, 'x', n);
    big[n] = '\0';
    const char *cut = utf8_sanitize(big, n, &scratch);
    CHECK_EQ_INT(strlen(cut), UTF8_MAX_STRING + 3);
    CHECK(strcmp(cut + UTF8_MAX_STRING, "...") == 0);
    free(big);
    buf_free(&scratch);
}

/* GPU busy time (model/gpu_busy.h): touching operations make one stretch,
 * operations of no duration none, a gap closes the stretch. */
static void test_busy_union(void)
{
    busy_union u = {0};
    int64_t cs = -1, ce = -1;
    CHECK(!busy_union_add(&u, 10, 20, &cs, &ce));
    CHECK(!busy_union_add(&u, 20, 30, &cs, &ce));  /* touches: one stretch */
    CHECK(!busy_union_add(&u, 25, 28, &cs, &ce));  /* inside */
    CHECK(!busy_union_add(&u, 35, 35, &cs, &ce));  /* no duration: no work, no close */
    CHECK_EQ_INT(busy_union_total(&u), 20);
    CHECK(busy_union_add(&u, 40, 45, &cs, &ce));   /* after a gap: [10, 30] closes */
    CHECK_EQ_INT(cs, 10);
    CHECK_EQ_INT(ce, 30);
    CHECK_EQ_INT(busy_union_total(&u), 25);
    busy_union_close(&u);
    busy_union_close(&u);                          /* twice: counted once */
    CHECK_EQ_INT(busy_union_total(&u), 25);
    CHECK(!u.open);
}

int main(void)
{
    test_hmap();
    test_utf8();
    test_busy_union();
    return CHECK_DONE();
}
