# The game log's area on a stock MicroPython, whose filesystem (littlefs)
# owns the whole flash: BLOCKS files of exactly one 4 KB flash block each,
# written once through the filesystem, whose blocks the log then programs a
# page at a time and erases in place (flashlog.py, given their blocks in
# order), as the Turtleboard build does its raw area. Appending to a file
# would cost littlefs's copy of the file's last block to a freshly erased one
# (a 45 ms sector erase) on many lines.
#
# Why that is safe for the filesystem: littlefs reads, moves or rewrites a
# file's data only when the file itself is opened and written, and keeps no
# checksum of it; a file of one block holds data only (no pointers to other
# blocks). Its directory entry (name, size, block) never changes. So the
# filesystem stays whole whatever the log writes there, and its allocator
# never hands those blocks to another file while the files exist.
#
# Where the blocks are: found once, when the files are made. Each file is
# written with a mark (a random number and its index) at its start; the
# flash is then searched for the marks; the blocks found are written to the
# file `where`, last, so that a cut while the files are made leaves no
# `where` and the next boot makes them again. At each boot `where` is
# trusted only if every file is still there with its 4 KB (mpremote could
# have removed one) and reads, through the filesystem, what the block it
# names holds; else the files are made again (a game in them is lost).

import os

BLOCK = 4096  # the flash's erase unit, littlefs's block on an rp2 port
BLOCKS = 32  # 128 KB: a game of up to 64 KB (~2,500 Mahé actions)
MARK = b"TBLA"
WHERE_MAX = 512  # bytes of `where` read (32 block numbers take ~150)
READY = 4  # blocks erased when the files are made, as many as flashlog.py keeps erased ahead


def file_area(flash, folder, blocks=BLOCKS):
    # -> the flash blocks of the log's files in `folder` (a list, the ring's
    # order), made if need be; None where they cannot be made (the
    # filesystem full, or the flash not holding it): the log is a file then.
    # `flash`: the flash the filesystem is on (rp2.Flash()), read as a buffer.
    where = _read(flash, folder, blocks)
    if where is not None:
        return where
    _remove(folder)
    try:
        where = _make(flash, folder, blocks)
    except OSError:
        where = None
    if where is None:
        _remove(folder)
    return where


def _read(flash, folder, blocks):
    # The blocks `where` lists, if every file is there whole and reads, through
    # the filesystem, what its block holds; else None.
    mem = memoryview(flash)
    count = len(mem) // BLOCK
    try:
        sizes = {}
        for entry in os.ilistdir(folder):
            sizes[entry[0]] = entry[3] if len(entry) > 3 else -1
        f = open(folder + "/where")
        try:
            where = [int(word) for word in f.read(WHERE_MAX).split()]  # (a longer file is not ours)
        finally:
            f.close()
    except (OSError, ValueError):
        return None
    if len(where) != blocks or len(set(where)) != blocks:
        return None
    for k in range(blocks):
        if sizes.get(str(k)) != BLOCK or not 0 <= where[k] < count:
            return None
    buf = bytearray(BLOCK)
    for k in range(blocks):
        try:
            f = open("%s/%d" % (folder, k), "rb")
            try:
                n = f.readinto(buf)
            finally:
                f.close()
        except OSError:
            return None
        at = where[k] * BLOCK
        if n != BLOCK or mem[at:at + BLOCK] != buf:
            return None  # (not that file's block: `where` is not theirs)
    return where


def _make(flash, folder, blocks):
    os.mkdir(folder)
    tag = MARK + _random()
    data = bytearray(b"\xff" * BLOCK)
    data[:len(tag)] = tag
    for k in range(blocks):
        data[len(tag)] = k
        f = open("%s/%d" % (folder, k), "wb")
        try:
            f.write(data)
        finally:
            f.close()
    del data
    mem = memoryview(flash)
    where = [-1] * blocks
    n = len(tag)
    for b in range(len(mem) // BLOCK):
        at = b * BLOCK
        if mem[at:at + n] == tag:
            k = mem[at + n]
            if k >= blocks or where[k] >= 0:
                return None  # (a mark seen twice: no telling which block is the file's)
            where[k] = b
    if -1 in where:
        return None  # (the filesystem is not on this flash)
    f = open(folder + "/where.tmp", "w")
    try:
        f.write(" ".join([str(b) for b in where]))
    finally:
        f.close()
    os.rename(folder + "/where.tmp", folder + "/where")
    for b in where[:READY]:
        flash.ioctl(6, b)  # (their marks erased: the first games' `new` needs no erase)
    return where


def _random():
    # Eight bytes that no earlier making of the files left in the flash.
    try:
        return os.urandom(8)
    except (AttributeError, OSError):
        import time

        t = time.ticks_us()
        return bytes([(t >> s) & 0xFF for s in range(0, 64, 8)])


def _remove(folder):
    try:
        names = [entry[0] for entry in os.ilistdir(folder)]
    except OSError:
        return
    for name in names:
        try:
            os.remove(folder + "/" + name)
        except OSError:
            pass
    try:
        os.rmdir(folder)
    except OSError:
        pass
