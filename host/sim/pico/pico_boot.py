# What a Pico does at power-on before main.py, for the virtual Pico (run by
# the unix port from outside the flash folder, `micropython -i -c ...`):
# with a ROMFS partition, vfs.rom_ioctl, and a valid image mounted at /rom
# with /rom and /rom/lib on sys.path after "" and ".frozen", as the rp2 port
# does (['', '.frozen', '/rom', '/rom/lib', '/lib'] there); the game log's
# raw area (turtleboard_log) where the board has one; then boot.py, and
# main.py unless this is a soft reset in the raw REPL.
import os
import sys


def _mount_rom():
    if not os.getenv("TURTLEBOARD_ROMFS"):
        return  # a stock Pico: no partition, no vfs.rom_ioctl
    import pico_vfs

    sys.modules["vfs"] = pico_vfs  # `import vfs` now gives rom_ioctl too
    del sys.modules["pico_vfs"]
    try:
        pico_vfs.mount(pico_vfs.VfsRom(pico_vfs.rom_ioctl(2, 0)), "/rom")
    except Exception:  # the rp2 port catches everything here too
        return  # blank, or not a ROMFS image: skipped, as on a Pico
    at = sys.path.index(".frozen") + 1 if ".frozen" in sys.path else 1
    sys.path[at:at] = ["/rom", "/rom/lib"]


def _log_area():
    # The Turtleboard build's game-log area (turtleboard_log), imported now,
    # while this folder is on the path: the device's path has no such module.
    if os.getenv("TURTLEBOARD_LOG_AREA"):
        import turtleboard_log  # noqa: F401


def _run(name):
    # pyexec_file_if_exists: the script runs in __main__, the REPL's namespace
    try:
        f = open(name)
    except OSError:
        return
    source = f.read()
    f.close()
    import __main__

    exec(compile(source, name, "exec"), __main__.__dict__)


def _take_terminal():
    # Opening our terminal by name makes it the controlling terminal of this
    # session (the supervisor starts us in a new one): when the supervisor
    # dies, however it dies, its end of the pty closes and the kernel hangs
    # us up (SIGHUP), as a Pico loses power with its USB cable.
    # The terminal gone means the supervisor died while we started: no power,
    # so this process ends itself (its group: the session we lead).
    name = os.getenv("TURTLEBOARD_TTY")
    if name:
        try:
            open(name).close()
        except OSError:
            os.system("kill -9 -$PPID 2>/dev/null || kill -9 $PPID")


def power_on(run_main):
    _take_terminal()
    _mount_rom()
    _log_area()
    here = __file__.rsplit("/", 1)[0]
    if here in sys.path:
        sys.path.remove(here)  # the device's path is the Pico's
    del sys.modules["pico_boot"]
    _run("boot.py")
    if run_main:
        _run("main.py")
