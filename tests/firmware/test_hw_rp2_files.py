# hal/rp2.py's resting filesystem on a PC, the rp2 modules stood in for: on
# the Turtleboard build (turtleboard_log) with the code in ROM, rest_files
# unmounts "/" and wake_files mounts littlefs there again as _boot.py does;
# a stock build, or the code in files, never rests. (The real unmount and
# mount run on the emulated Pico: docs/firmware.md.)
import os
import sys
import types

from test_hw_rp2_leds import rp2_hal

import controller
import hal
import turtles
from hal import code_in_rom

PACKAGES = {"controller": controller, "turtles": turtles, "hal": hal}

IN_ROM = {"controller": "/rom/controller", "turtles": "/rom/turtles", "hal": "/rom/hal"}


def rp2_module(monkeypatch, calls, build, paths):
    # -> hal.rp2 as a Pico imports it, the packages' paths as given
    vfs = types.ModuleType("vfs")
    vfs.umount = lambda where: calls.append(("umount", where))
    vfs.mount = lambda fs, where: calls.append(("mount", fs, where))
    vfs.VfsLfs2 = lambda dev, progsize: ("lfs2", dev, progsize)
    monkeypatch.setitem(sys.modules, "vfs", vfs)
    monkeypatch.setattr(os, "chdir", lambda where: calls.append(("chdir", where)))
    if build:
        log = types.ModuleType("turtleboard_log")
        log.filesystem = lambda: "the storage after the log area"
        monkeypatch.setitem(sys.modules, "turtleboard_log", log)
    else:
        monkeypatch.setitem(sys.modules, "turtleboard_log", None)  # (import fails)
    for name, package in PACKAGES.items():
        monkeypatch.setitem(sys.modules, name, package)
    rp2_hal(monkeypatch, [])
    for name, path in paths.items():  # once imported: as the rp2 port sets them
        package = types.ModuleType(name)
        package.__path__ = path
        monkeypatch.setitem(sys.modules, name, package)
    return sys.modules["hal.rp2"]


def hal_of(rp2):
    hal = rp2.Hal.__new__(rp2.Hal)  # the filesystem only: no pins, no USB
    hal.files_awake = rp2.can_rest(code_in_rom())  # as Hal.__init__ with what platform_hal gives it
    hal._resting = False
    return hal


def test_the_turtleboard_build_with_its_code_in_rom_rests_and_wakes(monkeypatch):
    calls = []
    hal = hal_of(rp2_module(monkeypatch, calls, True, IN_ROM))
    assert hal.files_awake
    hal.wake_files()  # awake already: nothing
    assert calls == []
    hal.rest_files()
    hal.rest_files()  # resting already: nothing
    assert calls == [("umount", "/")] and not hal.files_awake
    hal.wake_files()
    assert calls[1:] == [("mount", ("lfs2", "the storage after the log area", 256), "/"), ("chdir", "/")]
    assert hal.files_awake


def test_code_in_files_or_a_stock_build_never_rests(monkeypatch):
    for build, paths in ((True, dict(IN_ROM, controller="controller")),
                         (True, dict(IN_ROM, hal="/lib/hal")),
                         (False, IN_ROM)):
        calls = []
        hal = hal_of(rp2_module(monkeypatch, calls, build, paths))
        hal.rest_files()
        hal.wake_files()
        assert calls == [] and not hal.files_awake, (build, paths)
