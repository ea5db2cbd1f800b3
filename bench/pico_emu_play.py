"""The shared harness's play30.py (NAME N SEED) with its LED check fixed for
this firmware: the rp2 HAL drives the board file's LEDs and 4 spare places
after them (where the self-test looks for LEDs past the count), always dark
in play, while the harness compares the whole chain with the host's `leds`
view of the board's LEDs. Here the board's LEDs must equal the host's view
and the spare places must be dark. Run by bench/pico_emu.py."""

import os
import runpy
import sys

SCRIPTS = os.path.join(os.environ["EMU_ROOT"], "scripts")
sys.argv = [os.path.join(SCRIPTS, "play30.py")] + sys.argv[1:]  # play.py reads NAME at import
sys.path.insert(0, SCRIPTS)

import play  # noqa: E402  (the harness's)


def compare_leds(ctl, frames, mirror, what):
    # The WS2812 chain as decoded == what the controller told the host.
    mirror.apply(frames.since(0))
    ws = ctl.cmd(leds=1)["leds"]
    wire = play.hexes(ws["leds"]) if ws else None
    n = len(mirror.c)
    ok = wire is not None and wire[:n] == mirror.c and all(c == "000000" for c in wire[n:])
    play.check("LEDs on the wire == host `leds` view (%s)" % what, ok, "" if ok else "wire %s host %s" % (wire, mirror.c))
    return wire


play.compare_leds = compare_leds
runpy.run_path(sys.argv[0], run_name="__main__")
