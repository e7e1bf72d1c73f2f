"""What the test scripts share: checks that record their failures.

A script calls expect() for each thing it checks and ends with finish():
every failed check is printed as it happens (FAIL: what), and the exit
status is 1 when any failed. Scripts run from tests/, so `import testlib`
finds this file (tests/web/ adds its parent to sys.path)."""
import sys

failures = []


def expect(ok, what, show_ok=False):
    """Records a failed check; returns ok so callers can stop on it."""
    if not ok:
        failures.append(what)
        print("FAIL:", what, flush=True)
    elif show_ok:
        print("ok:  ", what, flush=True)
    return ok


def finish(summary="failures", ok_text=None):
    """Exits 1 after 'N summary' when a check failed, else 0 (after
    ok_text, when given)."""
    if failures:
        print(f"{len(failures)} {summary}", flush=True)
        sys.exit(1)
    if ok_text:
        print(ok_text, flush=True)
    sys.exit(0)
