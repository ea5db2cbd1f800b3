"""The lock on a virtual board's folder: one `turtleboard sim` serves a folder
at a time, and its <dir>/pty is live only while that process holds the lock
(the kernel lets go when the process ends, however it ends)."""

from __future__ import annotations

import os

from turtleboard.errors import UserError
from turtleboard.paths import writable_folder

LOCK_FILE = "lock"  # in the sim folder: held (flock) by the `turtleboard sim` serving it
PORT_FILE = "pty"  # in the sim folder: the path of its serial port (a pseudo-terminal)


def lock_folder(sim_dir: str) -> int:
    """Hold the sim folder for this process (until it exits): a second virtual
    board on the same folder is refused, naming the process that has it,
    before anything in it is touched. The folder is made if missing; a path
    that cannot be one is a UserError. Returns the lock's file descriptor
    (keep it open; a child given it holds the folder too)."""
    import fcntl

    writable_folder(sim_dir, "the virtual board")
    path = os.path.join(sim_dir, LOCK_FILE)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise UserError("cannot make the lock file %s of the virtual board: %s"
                        % (path, e.strerror)) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        try:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
        finally:
            os.close(fd)
        raise UserError("the folder %s is in use by another virtual board (process %s); "
                        "stop that one first, or give this one another --dir" % (sim_dir, holder))
    mark_holder(fd)
    return fd


def mark_holder(fd: int) -> None:
    """Write this process's id in the lock file `fd` (the one that holds it now)."""
    os.ftruncate(fd, 0)
    os.pwrite(fd, b"%d\n" % os.getpid(), 0)


def folder_served(sim_dir: str) -> bool:
    """True while a `turtleboard sim` holds the folder (its files are live),
    False when they are left over from a board that was stopped or killed."""
    try:
        import fcntl
    except ImportError:  # no virtual boards where there is no fcntl: cannot tell
        return True
    path = os.path.join(sim_dir, LOCK_FILE)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True  # someone holds it
    finally:
        os.close(fd)  # (and with it any lock we took)
    return False
