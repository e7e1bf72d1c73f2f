/* Flow ids between CUDA calls and their GPU work (model/flows.h), in either
 * order: work written after its call, work written before it, and what
 * happens when too many calls wait for their work's ids at once. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "model/flows.h"

/* Call then work: the call's ids, one per operation, in order. */
static void test_call_first(void)
{
    flows f = {0};
    const uint64_t *ids = flows_of_call(&f, 1, 10, 3);
    CHECK(ids != NULL);
    uint64_t want[3] = {ids[0], ids[1], ids[2]};
    CHECK(want[0] != 0 && want[0] != want[1] && want[1] != want[2]);
    CHECK(flows_of_call(&f, 1, 10, 3) == NULL); /* a duplicate row */
    for (int k = 0; k < 3; k++)
        CHECK_EQ_INT(flows_of_gpu_op(&f, 1, 10), want[k]);
    CHECK_EQ_INT(flows_of_gpu_op(&f, 1, 10), 0); /* the call is done */
    CHECK_EQ_INT(flows_of_gpu_op(&f, 1, 11), 0); /* no such call */
    CHECK_EQ_INT(f.linked, 3);
    flows_free(&f);
}

/* Work then call: the first operation takes the call's ids, the others
 * (before or after the call) the next ones, and the call all of them. */
static void test_work_first(void)
{
    flows f = {0};
    uint64_t op1 = flows_of_early_gpu_op(&f, 2, 20, 3);
    CHECK(op1 != 0);
    CHECK(flows_awaited(&f, 2, 20));
    CHECK(!flows_awaited(&f, 2, 21));
    uint64_t op2 = flows_of_gpu_op(&f, 2, 20);
    CHECK(op2 != 0 && op2 != op1);
    const uint64_t *ids = flows_of_call(&f, 2, 20, 3);
    CHECK(ids != NULL);
    if (ids) {
        CHECK_EQ_INT(ids[0], op1);
        CHECK_EQ_INT(ids[1], op2);
        uint64_t last = ids[2];
        CHECK_EQ_INT(flows_of_gpu_op(&f, 2, 20), last);
    }
    CHECK(!flows_awaited(&f, 2, 20));
    CHECK_EQ_INT(flows_of_gpu_op(&f, 2, 20), 0);
    /* Another call's ids never repeat these. */
    const uint64_t *next = flows_of_call(&f, 2, 22, 1);
    CHECK(next && *next != op1 && *next != op2);
    CHECK_EQ_INT(f.dropped, 0);
    flows_free(&f);
}

/* Past FLOWS_MAX_AWAITING calls waiting, early work gets no id, from then
 * on, and is counted; the calls already waiting keep theirs. */
static void test_awaiting_bounded(void)
{
    flows f = {0};
    for (int64_t corr = 0; corr < FLOWS_MAX_AWAITING; corr++)
        CHECK(flows_of_early_gpu_op(&f, 3, corr, 1) != 0);
    CHECK_EQ_INT(flows_of_early_gpu_op(&f, 3, FLOWS_MAX_AWAITING, 1), 0);
    CHECK_EQ_INT(f.dropped, 1);
    /* The waiting calls end their flows and leave room, but the refusal
     * stays: a call whose early work was refused must not find ids. */
    for (int64_t corr = 0; corr < FLOWS_MAX_AWAITING; corr++) {
        const uint64_t *ids = flows_of_call(&f, 3, corr, 1);
        CHECK(ids != NULL);
    }
    CHECK_EQ_INT(f.awaiting.count, 0);
    CHECK_EQ_INT(flows_of_early_gpu_op(&f, 3, FLOWS_MAX_AWAITING + 1, 1), 0);
    CHECK_EQ_INT(f.dropped, 2);
    CHECK(!flows_awaited(&f, 3, FLOWS_MAX_AWAITING));
    flows_free(&f);
}

int main(void)
{
    test_call_first();
    test_work_first();
    test_awaiting_bounded();
    return check_failures ? 1 : 0;
}
