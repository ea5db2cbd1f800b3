# Helpers for the portable hardware-side tests (CPython and MicroPython):
# scratch folders, and a scripted stand-in for the HAL that feeds numbers.
import os

from turtles.rng import Rng  # noqa: F401  (re-exported for the tests)

_count = [0]


def scratch_root():
    # Where the tests' scratch folders go: $TB_SCRATCH, which tests/conftest.py
    # makes for a test run (the MicroPython runs inherit it) and removes
    # after; else /tmp.
    return os.getenv("TB_SCRATCH") or "/tmp"


def scratch(name):
    # A fresh empty folder for one test, under the scratch root.
    _count[0] += 1
    root = scratch_root() + "/tb-hw"
    _mkdir(root)
    path = "%s/%s-%d-%d" % (root, name, _pid(), _count[0])
    _rmtree(path)
    _mkdir(path)
    return path


def _pid():
    try:
        return os.getpid()
    except AttributeError:  # MicroPython
        return int.from_bytes(os.urandom(3), "little")


def _mkdir(path):
    try:
        os.mkdir(path)
    except OSError:
        pass


def _rmtree(path):
    try:
        names = os.listdir(path)
    except OSError:
        try:
            os.remove(path)
        except OSError:
            pass
        return
    for name in names:
        _rmtree(path + "/" + name)
    os.rmdir(path)


def read(path, mode="r"):
    f = open(path, mode)
    try:
        return f.read()
    finally:
        f.close()


def write(path, data, mode="w"):
    f = open(path, mode)
    try:
        f.write(data)
    finally:
        f.close()


def exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


class ScriptedHal:
    # Stands in for the hardware in sensing tests: the test sets the reading
    # of each channel; counts calls. (The real backends are tested apart.)
    def __init__(self, channels):
        self.values = [32768] * channels
        self.refreshes = 0
        self.reads = 0
        self.selects = 0  # select settings
        self.selected = [0] * 16  # the inputs selected, in order (a ring)

    def refresh(self):
        self.refreshes += 1

    def read_channel(self, ch):
        self.reads += 1
        return self.values[ch]

    def read_cells(self, plan, out):
        for sel, cells in plan:
            self.selected[self.selects & 15] = sel  # no list growing: scans must allocate nothing
            self.selects += 1
            m = 0
            for i in cells:
                if i >= 0:
                    self.reads += 1
                    out[i] = self.values[(m << 4) | sel]
                m += 1

    def ticks_ms(self):
        return 0

    def ticks_diff(self, a, b):
        return a - b

    def sleep_ms(self, ms):
        pass

    files_awake = False  # (it never rests)

    def wake_files(self):
        pass

    def rest_files(self):
        pass


BOARDS = __file__.rsplit("/", 1)[0] + "/../../boards/"


def board(name):
    from controller.board import load_board

    return load_board(read(BOARDS + name + ".json"))


def noise(rng, amp):
    # Triangular noise in -amp..amp (two uniform draws), as small ints.
    return (rng.below(2 * amp + 1) + rng.below(2 * amp + 1)) // 2 - amp


def flash_area(folder, size=64 * 1024):
    # A raw flash area for the game log (controller/flashlog.py), played by
    # the virtual Pico's own flash region (host/sim/pico/pico_flash.py): the
    # file <folder>/logarea.img, erased when new. -> the block device.
    path = folder + "/logarea.img"
    try:
        os.stat(path)
    except OSError:
        f = open(path, "wb")
        try:
            f.write(b"\xff" * size)
        finally:
            f.close()
    try:
        from turtleboard.sim.pico.pico_flash import load
    except ImportError:  # MicroPython: the module from the checkout
        import sys

        sys.path.append(__file__.rsplit("/tests/", 1)[0] + "/host/sim/pico")
        from pico_flash import load
    return load(path, "the game log's area")


class Counted:
    # A flash region (flash_area's), its page programs and sector erases
    # counted, and the blocks they wrote, in order.
    def __init__(self, dev):
        self.dev = dev
        self.programs = 0
        self.erases = 0
        self.written = []

    def __len__(self):
        return len(self.dev)

    def readblocks(self, block, buf, offset=0):
        self.dev.readblocks(block, buf, offset)

    def writeblocks(self, block, buf, offset=None):
        self.programs += 1
        self.written.append(block)
        self.dev.writeblocks(block, buf, offset)

    def ioctl(self, op, arg):
        if op == 6:
            self.erases += 1
            self.written.append(arg)
        return self.dev.ioctl(op, arg)
