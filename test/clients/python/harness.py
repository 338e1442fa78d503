"""Runs one test module of this folder with unittest and prints the suite
convention: "ok   <name>" / "FAIL <name>: <why>" lines, then
"N passed, N failed".  Exit status 1 on any failure.

    python3 harness.py test_psycopg

A module that sets SKIP_REASON (its driver is not importable) fails,
naming what is missing; a skipped test counts as failed.  No suite the
README promises may pass without running.
"""

import importlib
import os
import sys
import time
import traceback
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENTS = os.path.join(HERE, "..", "..", "..", "clients", "python")
sys.path[:0] = [os.path.normpath(CLIENTS), HERE]


class LineResult(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.passed = 0
        self.failed = 0

    @staticmethod
    def _name(test):
        return "%s.%s" % (type(test).__name__, test._testMethodName) \
            if hasattr(test, "_testMethodName") else str(test)

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed += 1
        print("ok   %s" % self._name(test), flush=True)

    def _bad(self, test, err):
        self.failed += 1
        exc_type, exc, tb = err
        why = "".join(traceback.format_exception_only(exc_type, exc)).strip()
        print("FAIL %s: %s" % (self._name(test), why.replace("\n", "\n    ")),
              flush=True)
        if os.environ.get("SIMHASH_TEST_VERBOSE") or exc_type is not AssertionError:
            for line in traceback.format_exception(exc_type, exc, tb)[-6:]:
                sys.stdout.write("    " + line.replace("\n", "\n    ").rstrip() + "\n")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._bad(test, err)

    def addError(self, test, err):
        super().addError(test, err)
        self._bad(test, err)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.failed += 1
        print("FAIL %s: skipped: %s" % (self._name(test), reason), flush=True)

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.failed += 1
        print("FAIL %s: unexpected success" % self._name(test), flush=True)


def main(argv):
    if len(argv) != 2:
        print("usage: harness.py <test module>", file=sys.stderr)
        return 2
    name = argv[1]
    try:
        module = importlib.import_module(name)
    except Exception:
        print("FAIL %s: cannot import the test module" % name)
        traceback.print_exc(file=sys.stdout)
        print("0 passed, 1 failed")
        return 1
    reason = getattr(module, "SKIP_REASON", None)
    if reason:
        # a suite the README promises runs or fails: never a silent pass
        print("FAIL %s: %s" % (name, reason))
        print("0 passed, 1 failed")
        return 1
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    result = LineResult()
    started = time.monotonic()
    suite.run(result)
    print("# %s: %.1f s" % (name, time.monotonic() - started))
    if result.passed + result.failed == 0:
        print("FAIL %s: no test ran" % name)
        result.failed += 1
    print("%d passed, %d failed" % (result.passed, result.failed))
    return 1 if result.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
