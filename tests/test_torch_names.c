/* PyTorch's NVTX range names (nsys/nsys_torch.h): the format is read
 * exactly as getNvtxStr writes it, and anything that only resembles it
 * stays whole. */
#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "nsys/nsys_torch.h"

/* text parses, to op with seq and op_id (-1: absent), sizes and ids. */
static void parses(const char *text, const char *op, int64_t seq, int64_t op_id,
                   const char *sizes, const char *ids)
{
    nsys_torch_range r;
    if (!nsys_torch_parse(text, &r)) {
        fprintf(stderr, "not parsed: \"%s\"\n", text);
        check_failures++;
        return;
    }
    char got[256];
    snprintf(got, sizeof got, "%.*s", (int)r.op_len, text);
    CHECK_EQ_STR(got, op);
    CHECK_EQ_INT(r.seq, seq);
    CHECK_EQ_INT(r.op_id, op_id);
    snprintf(got, sizeof got, "%.*s", (int)r.sizes_len, r.sizes ? r.sizes : "");
    CHECK_EQ_STR(got, sizes ? sizes : "");
    CHECK(!sizes == !r.sizes);
    snprintf(got, sizeof got, "%.*s", (int)r.input_op_ids_len, r.input_op_ids ? r.input_op_ids : "");
    CHECK_EQ_STR(got, ids ? ids : "");
    CHECK(!ids == !r.input_op_ids);
}

static void stays(const char *text)
{
    nsys_torch_range r;
    if (nsys_torch_parse(text, &r)) {
        fprintf(stderr, "parsed, should stay whole: \"%s\" (op %.*s)\n", text, (int)r.op_len,
                text);
        check_failures++;
    }
    char out[256];
    CHECK_EQ_STR(nsys_torch_op_name(text, out, sizeof out), text);
}

int main(void)
{
    /* As the corpus holds them (GindaChen, AI-Profiler, DLProf). */
    parses("aten::to, op_id = 998949", "aten::to", -1, 998949, NULL, NULL);
    parses("aten::view, seq = 46685, op_id = 995803", "aten::view", 46685, 995803, NULL, NULL);
    parses("ConvolutionBackward0, seq = 1755", "ConvolutionBackward0", 1755, -1, NULL, NULL);
    parses("aten::conv2d, seq = 0", "aten::conv2d", 0, -1, NULL, NULL);
    /* record_shapes=True: sizes, and the input edges. */
    parses("aten::addmm, seq = 8, op_id = 12, sizes = [[2, 3], [], [3, 4]]", "aten::addmm", 8, 12,
           "[[2, 3], [], [3, 4]]", NULL);
    parses("aten::mm, op_id = 7, sizes = [], input_op_ids = [(5,0), (6,1)]", "aten::mm", -1, 7,
           "[]", "[(5,0), (6,1)]");
    parses("aten::add, seq = 3, input_op_ids = [(5, 0)]", "aten::add", 3, -1, NULL, "[(5, 0)]");
    parses("aten::empty, sizes = [[-1, 4]]", "aten::empty", -1, -1, "[[-1, 4]]", NULL);
    /* A name that holds ", " itself keeps it. */
    parses("my op, v2, seq = 4", "my op, v2", 4, -1, NULL, NULL);

    /* Only resembling: stays whole. */
    stays("aten::to");
    stays("ProfilerStep#12");
    stays("autograd::engine::evaluate_function: ConvolutionBackward0");
    stays(", seq = 5");                        /* no name */
    stays("aten::to, seq=5");                  /* spelling */
    stays("aten::to, seq = 5 ");               /* trailing text */
    stays("aten::to, op_id = 5, seq = 4");     /* order */
    stays("odd, seq = 1, seq = 2");            /* a label twice */
    stays("aten::to, seq = -1");               /* PyTorch writes seq only when >= 0 */
    stays("aten::to, seq = 0x10");
    stays("aten::to, seq = 99999999999999999999"); /* past int64 */
    stays("aten::to, sizes = [[2, 3]");
    stays("aten::to, sizes = [[2,3]]");
    stays("aten::to, sizes = [2, 3]");
    stays("aten::to, input_op_ids = [(5)]");
    stays("aten::to, op_id = ");
    stays("");

    /* Whether the op and parts give the text back (the trace then leaves
     * the text out): only numbers with leading zeros do not. */
    static const struct {
        const char *text;
        bool rebuilds;
    } REBUILDS[] = {
        {"aten::to, op_id = 998949", true},
        {"aten::conv2d, seq = 0", true},
        {"aten::mm, seq = 10, op_id = 7, sizes = [[2,  3]], input_op_ids = [(5, 0), (6,1)]", false},
        {"aten::mm, seq = 10, op_id = 7, sizes = [[2, 3]], input_op_ids = [(5, 0), (6,1)]", true},
        {"aten::to, seq = 007", false},
        {"aten::to, seq = 7, op_id = 00", false},
    };
    for (size_t i = 0; i < sizeof REBUILDS / sizeof REBUILDS[0]; i++) {
        nsys_torch_range r;
        bool parsed = nsys_torch_parse(REBUILDS[i].text, &r);
        if (!parsed) {
            /* the double blank in sizes is not PyTorch's: not an op range */
            CHECK(!REBUILDS[i].rebuilds);
            continue;
        }
        CHECK(r.rebuilds == REBUILDS[i].rebuilds);
    }

    char out[8];
    CHECK_EQ_STR(nsys_torch_op_name("aten::linear, seq = 1", out, sizeof out), "aten::l");
    return CHECK_DONE();
}
