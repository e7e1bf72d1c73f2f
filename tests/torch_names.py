"""PyTorch's NVTX op range names, the tests' copy of the rule.

torch.autograd.profiler.emit_nvtx names an op's range
NAME[, seq = N][, op_id = K][, sizes = [[2, 3], []]][, input_op_ids = [(K1,0), ...]]
(getNvtxStr, torch/csrc/profiler/util.cpp). The converter names such a slice by its op and
keeps the parts as args (src/nsys/nsys_torch.c); this is the same rule, written again from
the format: the op ends at the first part's label, and the rest must read as the parts, in
PyTorch's order, at least one of them.
"""
import re

_TORCH_LABELS = (', seq = ', ', op_id = ', ', sizes = ', ', input_op_ids = ')
_TORCH_SHAPE = r'\[(?:-?\d+(?:, -?\d+)*)?\]'
_TORCH_PAIR = r'\(\d+, ?\d+\)'
_TORCH_PARTS = re.compile(
    r'(?:, seq = (?P<seq>\d+))?(?:, op_id = (?P<op_id>\d+))?'
    rf'(?:, sizes = (?P<sizes>\[(?:{_TORCH_SHAPE}(?:, {_TORCH_SHAPE})*)?\]))?'
    rf'(?:, input_op_ids = (?P<input_op_ids>\[(?:{_TORCH_PAIR}(?:, {_TORCH_PAIR})*)?\]))?')


def torch_range(text):
    """(op, parts) when text is a PyTorch op range name, else None. parts: the parts present,
    seq and op_id as int, sizes and input_op_ids as text."""
    if not isinstance(text, str):
        return None
    c = text.find(', ')
    while c != -1:
        if text.startswith(_TORCH_LABELS, c):
            m = _TORCH_PARTS.fullmatch(text, c)
            if c == 0 or not m or not any(m.groupdict().values()):
                return None
            parts = {k: (int(v) if k in ('seq', 'op_id') else v) for k, v in m.groupdict().items()
                     if v is not None}
            if any(isinstance(v, int) and v > 2 ** 63 - 1 for v in parts.values()):
                return None
            return text[:c], parts
        c = text.find(', ', c + 1)
    return None


def torch_op(text):
    """The op of a PyTorch op range name, any other text whole."""
    r = torch_range(text)
    return r[0] if r else text


def torch_text(name, args):
    """An op range slice's whole text, as the trace keeps it: its "text" arg when written,
    else its name and parts (args: dict of arg name -> value as text) printed as PyTorch
    prints them; None for a slice that is not an op range."""
    if args.get('text') is not None:
        return args['text']
    parts = [(label, args.get(key)) for label, key in zip(_TORCH_LABELS, ('seq', 'op_id', 'sizes', 'input_op_ids'))]
    if all(v is None for _, v in parts):
        return None
    return name + ''.join(label + str(v) for label, v in parts if v is not None)
