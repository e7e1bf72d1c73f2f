/* PyTorch's NVTX range names. torch.autograd.profiler.emit_nvtx (which
 * Megatron-LM and NeMo turn on) names each op's range
 *
 *   NAME[, seq = N][, op_id = K][, sizes = [[2, 3], []]][, input_op_ids = [(K1,0), ...]]
 *
 * (getNvtxStr in torch/csrc/profiler/util.cpp). op_id differs on every
 * call, so grouping on the whole text makes every call a name of its own.
 * PyTorch's own traces (Kineto) name the slice by its op and keep the rest
 * as args; the converter, the summaries and the measures do the same.
 *
 * The format is recognised exactly: the parts in PyTorch's order and
 * spelling, at least one of them, numbers in decimal, the lists as
 * PyTorch prints them (an input op id pair as "(K,N)", or "(K, N)"). The
 * op's name may hold ", " but none of the parts' labels (", seq = ", ...).
 * A name that only resembles the format stays whole. */
#ifndef NSYSP_NSYS_TORCH_H
#define NSYSP_NSYS_TORCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct nsys_torch_range {
    size_t op_len;               /* the op's name is text[0, op_len) */
    int64_t seq;                 /* -1 when absent */
    int64_t op_id;               /* -1 when absent */
    const char *sizes;           /* "[[2, 3], []]" inside text, NULL when absent */
    size_t sizes_len;
    const char *input_op_ids;    /* "[(12,0), (13,1)]" inside text, NULL when absent */
    size_t input_op_ids_len;
    bool rebuilds;               /* the op's name and these parts, printed as
                                    getNvtxStr does, give text back exactly
                                    (false only for numbers with leading zeros) */
} nsys_torch_range;

/* Whether text is a PyTorch op range name; fills *range when it is. */
bool nsys_torch_parse(const char *text, nsys_torch_range *range);

/* The op's name of text into out (size bytes, cut when longer), or text
 * whole when it is not a PyTorch op range name. Returns out. */
const char *nsys_torch_op_name(const char *text, char *out, size_t size);

#endif
