"""The lock on a virtual board's folder: one `turtleboard sim` serves a folder
at a time, and its <dir>/pty is live only while that process holds the lock
(the kernel lets go when the process ends, however it ends)."""

from __future__ import annotations

import os

from turtleboard.errors import UserError

LOCK_FILE = "lock"  # in the sim folder: held (flock) by the `turtleboard sim` serving it


def lock_folder(sim_dir: str) -> int:
    """Hold the sim folder for this process (until it exits): a second virtual
    board on the same folder is refused, naming the process that has it.
    Returns the lock's file descriptor (keep it open)."""
    import fcntl

    os.makedirs(sim_dir, exist_ok=True)
    path = os.path.join(sim_dir, LOCK_FILE)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        try:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
        finally:
            os.close(fd)
        raise UserError("the folder %s is in use by another virtual board (process %s); "
                        "stop that one first, or give this one another --dir" % (sim_dir, holder))
    os.ftruncate(fd, 0)
    os.write(fd, b"%d\n" % os.getpid())
    return fd


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
