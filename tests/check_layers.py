#!/usr/bin/env python3
"""The layers of src/ (docs/layout.md): each folder includes only the folders
below it, so arrows run one way. A quoted include names a folder ("nsys/...")
or a file of its own folder; this reads every .c and .h of src/ and fails on
an include that goes up or sideways.

    check_layers.py SRC_DIR"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import expect, finish  # noqa: E402

# Folder -> the folders it may include ("" is src/ itself: the entry points).
MAY_INCLUDE = {
    "common": set(),
    "nsys": {"common"},
    "perfetto": {"common"},
    "model": {"common", "nsys", "perfetto"},
    "sources": {"common", "nsys", "model", "perfetto"},
    "kineto": {"common", "nsys", "perfetto"},
    "analysis": {"common", "nsys", "model", "perfetto"},
    "recipes": {"common", "nsys", "perfetto"},
    "": {"common", "nsys", "perfetto", "model", "sources", "kineto", "analysis"},
    "tool": {"common", "analysis"},
    "web": {"common", "analysis", "tool"},
    "cli": {"common", "analysis", "tool", "web"},
    "sql": set(),
}

# Bare names that are no file of src/: the public header, the generated bindings.
BARE = {"nsys_perfetto.h", "pftrace.pb-c.h"}

src = sys.argv[1]
include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
seen = 0
for folder, _, files in os.walk(src):
    here = os.path.relpath(folder, src)
    here = "" if here == "." else here.split(os.sep)[0]
    for name in files:
        if not name.endswith((".c", ".h")):
            continue
        path = os.path.join(folder, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for target in include.findall(text):
            seen += 1
            if "/" not in target:
                # A file of its own folder, the public header or a generated one;
                # a bare name found only elsewhere would hide an arrow.
                expect(os.path.exists(os.path.join(folder, target)) or target in BARE,
                       f"{os.path.relpath(path, src)} includes {target}, not of its folder")
                continue
            top = target.split("/")[0]
            expect(here in MAY_INCLUDE and (top == here or top in MAY_INCLUDE[here]),
                   f"{os.path.relpath(path, src)} includes {target}: "
                   f"{here or 'src/'} may include only {sorted(MAY_INCLUDE.get(here, ()))}")
expect(seen > 300, f"only {seen} includes read in {src}: is it the source tree?")
finish("includes against the layers", f"{seen} includes, each of a layer below")
