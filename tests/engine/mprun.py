# Runs the test_* functions of engine test modules under MicroPython.
#   micropython tests/engine/mprun.py test_core test_mahe ...
# Prints one line per test and exits 1 if any failed.
import sys


def run(names):
    failed = 0
    count = 0
    for name in names:
        mod = __import__(name)
        for attr in sorted(dir(mod)):
            if not attr.startswith("test_"):
                continue
            fn = getattr(mod, attr)
            if not callable(fn):
                continue
            count += 1
            try:
                fn()
                print("ok", name, attr)
            except Exception as e:
                failed += 1
                print("FAIL", name, attr)
                sys.print_exception(e)
    print("%d passed, %d failed" % (count - failed, failed))
    return failed


if __name__ == "__main__":
    sys.exit(1 if run(sys.argv[1:]) else 0)
