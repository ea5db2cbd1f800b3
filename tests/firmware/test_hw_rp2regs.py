# hal/rp2.py's sensor read through the RP2040's registers (hal/rp2regs.py,
# native code) and the boot check that decides whether it is used, under
# the MicroPython unix port (its x64 native emitter runs the viper code) on
# stand-in registers (tests/firmware/rp2_fake.py). Whether the addresses
# are the RP2040's cannot be checked off the chip: the boot check is there
# for that, and this shows it turns the read off when it reads otherwise
# than ADC.read_u16.
import json
import os
import subprocess
import threading
from pathlib import Path

import pytest

from turtleboard.sim.mpy import FIRMWARE, micropython_command, run_micropython

HERE = Path(__file__).parent

PRELUDE = """
import json
from array import array
import rp2_fake as f
from hwtools import board
b = board("tortuga")
R = 0x8A5  # the stand-in RESULT register: 12 bits
U16 = (R << 4) | (R >> 8)  # what ADC.read_u16 makes of it on the rp2 port
for ch in b.sensor_of:
    f.FakeMachine.values[ch] = U16
"""


def _run(code):
    proc = run_micropython(["-c", PRELUDE + code], [FIRMWARE, HERE], timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.micropython
def test_the_register_read_gives_what_read_u16_gives_and_writes_each_select_change_once():
    out = _run("""
from controller.sensing import Sensing
from hwtools import scratch
f_scratch = scratch("rp2regs")
hal = f.setup(b, 0x101, R)  # CS: EN and READY
s = Sensing(hal, b, f_scratch + "/calibration.txt")
raw = array("i", [0] * len(b.cells))
hal.read_cells(s._plan, raw)
masks = [0] * 16
for v in range(16):
    for k in range(4):
        if v >> k & 1:
            masks[v] |= 1 << b.mux["select"][k]
print(json.dumps({"fast": hal._fast is not None, "note": hal.note, "raw": list(raw), "u16": U16,
                  "input": hal._input, "last": s._plan[-1][0], "before": s._plan[-2][0],
                  "set": f.word(f.SIO_MEM, 0x14), "clr": f.word(f.SIO_MEM, 0x18), "masks": masks,
                  "xor": f.word(f.ADC_MEM, 0x1000), "start": f.word(f.ADC_MEM, 0x2000),
                  "last_ainsel": b.mux["adc"][max([m for m in range(len(s._plan[-1][1])) if s._plan[-1][1][m] >= 0])] - 26,
                  "channel": hal.read_channel(b.sensor_of[0])}))
""")
    assert out["fast"] and out["note"] is None
    assert out["raw"] == [out["u16"]] * len(out["raw"])  # every cell, scaled as read_u16 scales
    assert out["channel"] == out["u16"]
    # the last select change: one line, set or cleared, by one write
    a, b = out["before"], out["last"]
    assert out["input"] == b and bin(a ^ b).count("1") == 1
    if b & ~a:
        assert out["set"] == out["masks"][b & ~a]
    else:
        assert out["clr"] == out["masks"][a & ~b]
    # AINSEL through the XOR alias (the stand-in CS holds 0), START_ONCE through SET
    assert out["xor"] == out["last_ainsel"] << 12 and out["start"] == 4


@pytest.mark.micropython
def test_the_boot_check_keeps_the_register_read_within_the_noise_and_turns_it_off_otherwise():
    out = _run("""
res = {}
f.FakeMachine.wobble[0] = 40  # read_u16 moves by 80 from a reading to the next: noise
hal = f.setup(b, 0x101, R)
res["noisy"] = [hal._fast is not None, hal.note]
f.FakeMachine.wobble[0] = 0
bad = b.sensor_of[5]
f.FakeMachine.values[bad] = U16 + 600  # this channel reads otherwise through the registers
hal = f.setup(b, 0x101, R)
raw = array("i", [0] * len(b.cells))
hal.read_cells([(bad & 15, (-1,) * (bad >> 4) + (5,))], raw)
res["differs"] = [hal._fast is not None, hal.note, raw[5], U16 + 600, bad]
f.FakeMachine.values[bad] = U16
hal = f.setup(b, 0x001, R)  # READY never comes
res["stuck"] = [hal._fast is not None, hal.note]
print(json.dumps(res))
""")
    assert out["noisy"] == [True, None]
    fast, note, got, want, bad = out["differs"]
    assert not fast and note == "channel %d read %d by ADC.read_u16 but %d through the registers" % (
        bad, want, want - 600)
    assert got == want  # read in Python from then on
    fast, note = out["stuck"]
    assert not fast and "ADC stopped answering" in note


@pytest.mark.micropython
def test_boot_tells_the_host_when_the_sensors_are_read_the_slow_way():
    out = _run("""
import controller.boot as boot
class Stop(Exception):
    pass
sent = []
def fake_hal(board):
    f.FakeMachine.values[board.sensor_of[0]] = 0  # reads otherwise: the check fails
    h = f.setup(board, 0x101, R)
    h.serial_write = lambda data: sent.append(data.decode())
    h.serial_read = lambda: b""
    return h
def stop(self, period_ms=5):
    raise Stop()
boot.Controller.run = stop
import os
from hwtools import BOARDS, read, scratch
text = read(BOARDS + "tortuga.json")
os.chdir(scratch("rp2boot"))
open("board.json", "w").write(text)
try:
    boot.main(fake_hal)
except Stop:
    pass
print(json.dumps([line for line in sent if " error " in line]))
""")
    assert any("read the slow way" in line and "ADC.read_u16" in line for line in out), out


@pytest.mark.micropython
def test_the_buttons_read_in_one_call_through_gpio_in_or_through_their_pins():
    out = _run("""
from controller.buttons import Buttons
res = {}
ok = dict(b.buttons)["ok"]
names = [name for name, _ in b.buttons]
hal = f.setup(b, 0x101, R)
buttons = Buttons(hal, names)
from hal import rp2regs
res["fast"] = hal.buttons_held is rp2regs.buttons_held
res["none"] = [hal.buttons_held(), buttons.poll(1000)]
f.pressed([ok])  # OK pressed: its GPIO low
res["ok"] = [hal.buttons_held(), 1 << names.index("ok"), buttons.poll(1100), buttons.poll(1110)]
f.LEVELS[ok] = 1  # its pin reads otherwise than GPIO_IN: the register read is not used
hal = f.setup(b, 0x101, R)
res["slow"] = [hal.buttons_held is rp2regs.buttons_held, hal.buttons_held()]
print(json.dumps(res))
""")
    assert out["fast"]
    assert out["none"] == [0, []]
    held, bit, first, again = out["ok"]
    assert held == bit and first == ["ok"] and again == []  # one press per push
    assert out["slow"] == [False, 0]


@pytest.mark.micropython
def test_the_serial_read_takes_what_arrived_without_blocking_and_a_quiet_line_allocates_nothing():
    # The rp2 HAL's serial_read on the unix port's stdin (a pipe held open):
    # at most 256 bytes a call, b"" when nothing waits, no heap on a quiet line.
    code = PRELUDE + """
import gc, select, sys
hal = f.setup(b, 0x101, R)
p = select.poll()
p.register(sys.stdin, select.POLLIN)
p.poll(-1)  # the test's bytes are there
got = [hal.serial_read()]
while len(got[-1]) == 256:
    got.append(hal.serial_read())
gc.collect()
before = gc.mem_alloc()
for _ in range(1000):
    hal.serial_read()
print(json.dumps([[len(x) for x in got], b"".join(got).decode(), hal.serial_read().decode(),
                  gc.mem_alloc() - before]))
"""
    env = dict(os.environ, MICROPYPATH=os.pathsep.join([str(FIRMWARE), str(HERE), ".frozen"]))
    sent = "".join(chr(97 + i % 26) for i in range(300))
    proc = subprocess.Popen(micropython_command() + ["-c", code], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    watchdog = threading.Timer(60, proc.kill)  # a blocking read would hang the test
    watchdog.start()
    try:
        proc.stdin.write(sent.encode())
        proc.stdin.flush()
        line = proc.stdout.readline().decode()  # stdin still open: a quiet line, not its end
        proc.stdin.close()
        err = proc.stderr.read().decode()
        proc.wait()
    finally:
        watchdog.cancel()
        proc.kill()
    assert proc.returncode == 0 and line, err[-3000:]
    sizes, text, after, allocated = json.loads(line)
    assert sizes[0] == 256 and sum(sizes) == 300 and text == sent
    assert after == "" and allocated < 1000  # not a block a call (poll() took 32 bytes a call)
