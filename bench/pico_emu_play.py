"""The shared harness's play30.py (NAME N SEED) with its LED check fixed for
this firmware: the rp2 HAL drives the board file's LEDs and 4 spare places
after them (where the self-test looks for LEDs past the count), always dark
in play, while the harness compares the whole chain with the host's `leds`
view of the board's LEDs. Here the board's LEDs must equal the host's view
and the spare places must be dark, once both have settled (the same for
300 emulated ms). Run by bench/pico_emu.py and bench/pico_emu_circuitpython.py."""

import os
import runpy
import sys
import time

SCRIPTS = os.path.join(os.environ["EMU_ROOT"], "scripts")
sys.argv = [os.path.join(SCRIPTS, "play30.py")] + sys.argv[1:]  # play.py reads NAME at import
sys.path.insert(0, SCRIPTS)

import play  # noqa: E402  (the harness's)


def compare_leds(ctl, frames, mirror, what, settle_ns=300e6, deadline_s=120):
    # The WS2812 chain as decoded == what the controller told the host, once
    # the LEDs have settled: the same for settle_ns of emulated time (the
    # firmware may light the movable turtles a moment after the move's
    # frames, and a slower firmware sends its `leds` frames after the wire
    # has changed). Checked within deadline_s of wall time.
    end = time.time() + deadline_s
    seen = None  # (wire, host view, emulated ns first seen so)
    while True:
        frames.poll()
        mirror.apply(frames.since(0))
        got = ctl.cmd(leds=1)
        ws = got["leds"]
        wire = play.hexes(ws["leds"]) if ws else None
        now = (wire, list(mirror.c))
        if seen is None or seen[:2] != now:
            seen = now + (got["t"],)
        elif got["t"] - seen[2] >= settle_ns or time.time() > end:
            break
        time.sleep(0.2)
    n = len(mirror.c)
    ok = wire is not None and wire[:n] == mirror.c and all(c == "000000" for c in wire[n:])
    play.check("LEDs on the wire == host `leds` view (%s)" % what, ok, "" if ok else "wire %s host %s" % (wire, mirror.c))
    return wire


play.compare_leds = compare_leds
runpy.run_path(sys.argv[0], run_name="__main__")
