# The game log's area on a stock MicroPython (controller/logfiles.py): the
# flash blocks of one-block files on littlefs, programmed and erased in place
# by the log (controller/flashlog.py). Run under the MicroPython unix port
# (tests/firmware/test_hw_micropython.py), whose vfs.VfsLfs2 is the littlefs
# of the rp2 port, mounted here on a flash in RAM with a flash's rules
# (host/sim/pico/pico_flash.py: erase to 0xff, programs only clear bits,
# whole pages). CPython has no littlefs: pytest skips the module.
import os

from hwtools import Counted, exists, flash_area, scratch

try:
    import vfs
except ImportError:
    vfs = None
    import pytest

    pytestmark = pytest.mark.skip(reason="littlefs (vfs.VfsLfs2) is MicroPython's: test_hw_micropython runs these")

from controller.flashlog import SECTOR, LogArea
from controller.gamelog import GameLog
from controller.logfiles import BLOCK, MARK, READY, file_area

BLOCKS = 8  # the test's ring: 8 one-block files (32 KB)
FLASH = 40  # blocks of the test's flash (160 KB)
_mounts = [0, None]  # (how many made, the one mounted)


def _flash(folder):
    # The flash a littlefs is on, in RAM, its writes counted.
    dev = flash_area(folder, FLASH * BLOCK)
    dev._save = lambda at, n: None  # (in RAM only)
    return Counted(dev)


def _mounted(folder):
    # A fresh littlefs as the rp2 port makes it (progsize 256) on a flash
    # in RAM, mounted. -> (flash, mount point)
    if _mounts[1] is not None:
        vfs.umount(_mounts[1])  # (the last test's: its flash freed)
        _mounts[1] = None
        import gc

        gc.collect()
    flash = _flash(folder)
    vfs.VfsLfs2.mkfs(flash, progsize=256)
    _mounts[0] += 1
    point = _mounts[1] = "/lfs%d" % _mounts[0]
    vfs.mount(vfs.VfsLfs2(flash, progsize=256), point)
    return flash, point


def _remount(flash, point):
    vfs.umount(point)
    vfs.mount(vfs.VfsLfs2(flash, progsize=256), point)


def _write(path, data):
    f = open(path, "wb")
    try:
        f.write(data)
    finally:
        f.close()


def _read(path):
    f = open(path, "rb")
    try:
        return f.read()
    finally:
        f.close()


def _log(flash, point):
    where = file_area(flash.dev, point + "/game.log.area", BLOCKS)
    assert where is not None
    area = LogArea(flash.dev, point + "/game.log", where)
    area.dev = flash  # (its writes counted; reads stay on the flash's buffer)
    return GameLog(point + "/game.log", area)


def test_the_files_are_made_once_and_their_blocks_found():
    flash, point = _mounted(scratch("lfs"))
    _write(point + "/board.json", b"{}" * 3000)
    where = file_area(flash.dev, point + "/game.log.area", BLOCKS)
    assert where is not None and len(where) == BLOCKS and len(set(where)) == BLOCKS
    mem = memoryview(flash.dev)
    for k, b in enumerate(where):
        if k < READY:  # erased already: the first games begin with no erase
            assert bytes(mem[b * BLOCK:b * BLOCK + BLOCK]) == b"\xff" * BLOCK
        else:
            assert bytes(mem[b * BLOCK:b * BLOCK + 4]) == MARK and mem[b * BLOCK + 12] == k
        assert os.stat("%s/game.log.area/%d" % (point, k))[6] == BLOCK
    # the next boot reads them from `where`, writing nothing
    del flash.written[:]
    _remount(flash, point)
    assert file_area(flash.dev, point + "/game.log.area", BLOCKS) == where
    assert flash.written == []


def test_the_log_writes_only_its_files_blocks_and_the_filesystem_stays_whole():
    flash, point = _mounted(scratch("lfs"))
    other = bytes(range(256)) * 20
    _write(point + "/board.json", other)
    log = _log(flash, point)
    where = log.area.where
    log.begin("mahe", 2)
    del flash.written[:]
    for k in range(400):  # ~3 sectors of lines: the ring's sectors entered and erased
        log.append("move %d" % k)
        if k % 100 == 99:
            log.prepare()
    assert flash.written and set(flash.written) <= set(where)
    # littlefs after the log's writes: mounted again, its files read, new
    # ones written over every free block (its allocator walks every file)
    _remount(flash, point)
    assert _read(point + "/board.json") == other
    k = 0
    try:
        while True:
            _write("%s/fill%d" % (point, k), bytes([k & 0xFF]) * BLOCK)
            k += 1
    except OSError:
        pass
    assert k > 10
    for j in range(k):
        assert _read("%s/fill%d" % (point, j)) == bytes([j & 0xFF]) * BLOCK
    header, actions = _log(flash, point).load()
    assert header["game"] == "mahe" and actions == ["move %d" % k for k in range(400)]


def test_a_file_gone_makes_them_again_and_the_log_begins_afresh():
    flash, point = _mounted(scratch("lfs"))
    log = _log(flash, point)
    log.begin("mahe", 2)
    log.append("1-3")
    os.remove(point + "/game.log.area/3")  # (mpremote rm, say)
    again = _log(flash, point)
    assert again.load() is None  # (the old blocks may have gone to other files)
    for k in range(BLOCKS):
        assert exists("%s/game.log.area/%d" % (point, k))


def test_files_made_without_their_where_are_made_again():
    # A cut while the files are made: `where`, written last, is missing.
    flash, point = _mounted(scratch("lfs"))
    first = file_area(flash.dev, point + "/game.log.area", BLOCKS)
    os.remove(point + "/game.log.area/where")
    second = file_area(flash.dev, point + "/game.log.area", BLOCKS)
    assert second is not None and len(set(second)) == BLOCKS
    mem = memoryview(flash.dev)
    tags = set(bytes(mem[b * BLOCK:b * BLOCK + 12]) for b in second[READY:])
    assert len(tags) == 1 and tags != set(bytes(mem[b * BLOCK:b * BLOCK + 12]) for b in first[READY:])


def test_a_full_filesystem_leaves_the_log_a_file_and_no_files_behind():
    flash, point = _mounted(scratch("lfs"))
    k = 0
    try:
        while True:  # all but a few blocks taken
            _write("%s/big%d" % (point, k), b"x" * BLOCK)
            k += 1
    except OSError:
        pass
    os.remove("%s/big0" % point)
    assert file_area(flash.dev, point + "/game.log.area", BLOCKS) is None
    assert not exists(point + "/game.log.area")
    assert _read("%s/big1" % point) == b"x" * BLOCK


def test_the_ring_runs_over_the_files_blocks_in_their_order():
    flash, point = _mounted(scratch("lfs"))
    log = _log(flash, point)
    area = log.area
    log.begin("mahe", 2)
    line = "x" * 100
    for _ in range(SECTOR * 2 // 110):  # into the ring's third sector
        log.append(line)
    mem = memoryview(flash.dev)
    assert bytes(mem[area.where[0] * BLOCK:area.where[0] * BLOCK + 2]) == b"H "
    tail = area.bytes_at(SECTOR - 50, 100)  # read across the first two sectors' edge
    assert tail == bytes(mem[area.where[0] * BLOCK + SECTOR - 50:area.where[0] * BLOCK + SECTOR]) + bytes(
        mem[area.where[1] * BLOCK:area.where[1] * BLOCK + 50])
    assert _log(flash, point).load()[1] == [line] * (SECTOR * 2 // 110)


def test_a_stock_pico_keeps_its_log_in_the_files_blocks():
    # log_area() as boot.py calls it on a stock rp2 MicroPython: no
    # turtleboard_log, an _rp2.Flash() that the filesystem is on.
    import sys

    from controller.gamelog import log_area

    flash, point = _mounted(scratch("lfs"))

    class Rp2:
        @staticmethod
        def Flash():
            return flash.dev

    class NoArea:  # (the virtual Pico's turtleboard_log is on the path: a stock build has none)
        pass

    here = os.getcwd()
    sys.modules["_rp2"] = Rp2
    kept = sys.modules.get("turtleboard_log")
    sys.modules["turtleboard_log"] = NoArea
    try:
        os.chdir(point)
        area = log_area("game.log")
        assert area is not None and len(area.where) == 32 and area.later  # (a proven move written behind its frame)
        log = GameLog("game.log", area)
        log.begin("tortuga", 2)
        log.append("c1-c2")
        assert not exists("game.log") and exists("game.log.area/where")
        assert GameLog("game.log", log_area("game.log")).load()[1] == ["c1-c2"]
    finally:
        os.chdir(here)
        sys.modules.pop("_rp2")
        sys.modules.pop("turtleboard_log")
        if kept is not None:
            sys.modules["turtleboard_log"] = kept


def test_a_where_file_of_any_bytes_is_checked_never_trusted_blindly():
    # `where` is a file on the device's flash: hostile until checked. Any
    # bytes in it give the files' true blocks (read, or the files made
    # again), never an error and never a block outside the files.
    from hwtools import Rng

    flash, point = _mounted(scratch("lfs"))
    folder = point + "/game.log.area"
    rng = Rng(2026)
    good = file_area(flash.dev, folder, BLOCKS)
    text = " ".join([str(b) for b in good])
    cases = [b"", b"x", text[:-2].encode(), (text + " 5").encode(), text.replace(str(good[1]), str(good[0])).encode(),
             text.replace(str(good[2]), "-1").encode(), text.replace(str(good[3]), "999999").encode(),
             text.replace(" ", "\n").encode(), text.replace(str(good[4]), "1e3").encode(),
             (text + " " * 600).encode(), b"7 " * 5000]
    for _ in range(12):  # and random bytes, some of them digits and spaces
        cases.append(bytes([b"0123456789 \n"[rng.below(12)] if rng.below(2) else rng.below(256)
                            for _ in range(rng.below(120))]))
    for data in cases:
        _write(folder + "/where", data)
        where = file_area(flash.dev, folder, BLOCKS)
        assert where is not None and len(set(where)) == BLOCKS, data
        if where != good:  # made again: the new marks are where it says
            mem = memoryview(flash.dev)
            assert len(set(bytes(mem[b * BLOCK:b * BLOCK + 12]) for b in where[READY:])) == 1, data
            good = where
        for k in range(BLOCKS):
            assert os.stat("%s/%d" % (folder, k))[6] == BLOCK


def test_the_first_games_after_the_files_are_made_begin_with_no_erase():
    # (`new` is a page program, as on the Turtleboard build's fresh area)
    flash, point = _mounted(scratch("lfs"))
    log = _log(flash, point)
    erases = flash.erases
    for _ in range(READY):
        log.begin("tortuga", 2)
        log.append("c1-c2")
    assert flash.erases == erases
    assert _log(flash, point).load() == ({"game": "tortuga", "players": 2, "options": {}, "extra": {}, "log": READY},
                                         ["c1-c2"])
