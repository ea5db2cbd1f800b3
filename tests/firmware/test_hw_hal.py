"""The HAL backends where a PC can genuinely run them:

- hal/sim.py under the real MicroPython unix port, against real world files
  in a folder and a real pipe for serial;
- hal/circuitpython.py under CPython with Adafruit Blinka's OS-agnostic board
  (BLINKA_OS_AGNOSTIC=1) and the real adafruit neopixel driver: the pins are
  Blinka's stand-in pins (fixed ADC value, fixed button levels) and the LED
  bytes are caught where the driver hands them to neopixel_write. Timing, real
  analog readings and USB CDC cannot run on a PC.
- hal/rp2.py needs a Pico: tests/test_firmware_build.py compiles it with
  mpy-cross and type-checks it against the MicroPython rp2 stubs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from turtleboard.paths import BOARDS, FIRMWARE
from turtleboard.sim.mpy import micropython_command, run_micropython


def _sim(tmp_path: Path, code: str, board: str = "race") -> list:
    flash = tmp_path / "flash"
    flash.mkdir(exist_ok=True)
    (tmp_path / "world").mkdir(exist_ok=True)
    prelude = (
        "import json, os, time\n"
        "from controller.board import load_board\n"
        "from hal.sim import Hal\n"
        "b = load_board(open(%r).read())\n"
        "hal = Hal(b)\n"
        "def world(name, text):\n"
        "    f = open('../world/' + name, 'w'); f.write(text); f.close()\n"
        "def later():\n"
        "    time.sleep_ms(6)\n"
    ) % str(BOARDS / (board + ".json"))
    proc = run_micropython(["-c", prelude + code], [FIRMWARE], timeout=60, cwd=flash)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


@pytest.mark.micropython
def test_sim_hal_reads_the_world_files(tmp_path):
    out = _sim(tmp_path, """
print(json.dumps([hal.read_channel(0), hal.button('next')]))  # nothing written yet
world('adc', ' '.join([str(1000 + i) for i in range(16)]) + '\\n')
world('buttons', 'next undo\\n')
hal.refresh()
print(json.dumps([hal.read_channel(0), hal.read_channel(15), hal.button('next'),
                  hal.button('ok'), hal.button('undo')]))
world('adc', '7 ' * 16 + '\\n')
hal._read_at = time.ticks_add(time.ticks_ms(), 1000)  # as if just read, on any machine
hal.refresh()  # too soon: not read again
print(json.dumps(hal.read_channel(3)))
hal._read_at = time.ticks_add(time.ticks_ms(), -6)  # read 6 ms ago
hal.refresh()
print(json.dumps(hal.read_channel(3)))
for bad in ['9 9 9', '9 x 9\\n', '9 70000\\n', '']:  # half or damaged files
    world('adc', bad); later(); hal.refresh()
    print(json.dumps(hal.read_channel(0)))
os.remove('../world/adc'); os.remove('../world/buttons'); later(); hal.refresh()
print(json.dumps([hal.read_channel(0), hal.button('next')]))
world('buttons', '\\n'); later(); hal.refresh()
print(json.dumps(hal.button('next')))
""")
    assert out[0] == [32768, False]
    assert out[1] == [1000, 1015, True, False, True]
    assert out[2] == 1003  # throttled
    assert out[3] == 7
    assert out[4:8] == [7, 7, 7, 7]  # kept the last good values
    assert out[8] == [7, True]  # missing files: the last values stay
    assert out[9] is False


@pytest.mark.micropython
def test_sim_hal_writes_led_frames_atomically_and_only_when_changed(tmp_path):
    out = _sim(tmp_path, """
hal.write_leds([(255, 0, 16)] + [(0, 0, 0)] * 15)
print(json.dumps(open('../world/leds').read()))
os.remove('../world/leds')
hal.write_leds([(255, 0, 16)] + [(0, 0, 0)] * 15)  # the same frame: no write
print(json.dumps(sorted(os.listdir('../world'))))
hal.write_leds([(1, 2, 3)] * 16)
print(json.dumps(open('../world/leds').read()))
print(json.dumps(sorted(os.listdir('../world'))))
os.remove('../world/leds'); os.rmdir('../world')
hal.write_leds([(9, 9, 9)] * 16)  # no world folder: no crash
os.mkdir('../world')
hal.write_leds([(9, 9, 9)] * 16)  # and the frame arrives once it is back
print(json.dumps(open('../world/leds').read()))
""")
    assert out[0] == "ff0010 " + "000000 " * 14 + "000000\n"
    assert out[1] == []
    assert out[2] == " ".join(["010203"] * 16) + "\n"
    assert out[3] == ["leds"]  # no .tmp left behind
    assert out[4] == " ".join(["090909"] * 16) + "\n"


@pytest.mark.micropython
def test_sim_hal_serial_is_non_blocking_bytes(tmp_path):
    flash = tmp_path / "flash"
    flash.mkdir()
    (tmp_path / "world").mkdir()
    code = """
import time
from controller.board import load_board
from hal.sim import Hal
hal = Hal(load_board(open(%r).read()))
t = time.ticks_us()
empty = hal.serial_read()
spent = time.ticks_diff(time.ticks_us(), t)
hal.serial_write(b'ready %%r %%d\\n' %% (empty, spent < 500000))
got = b''
while not got.endswith(b'\\n'):
    got += hal.serial_read()
    time.sleep_ms(1)
hal.serial_write(b'got ' + got)
while not hal._eof:
    hal.serial_read()
    time.sleep_ms(1)
hal.serial_write(b'eof ' + repr(hal.serial_read()).encode() + b'\\n')
""" % str(BOARDS / "race.json")
    env = dict(os.environ, MICROPYPATH=f"{FIRMWARE}:.frozen")
    proc = subprocess.Popen(micropython_command() + ["-c", code], cwd=flash, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    watchdog = threading.Timer(60, proc.kill)  # a blocking read would hang the test
    watchdog.start()
    try:
        assert proc.stdout.readline() == b"ready b'' 1\n"
        proc.stdin.write(b"~TB 1 hello \x01\xff\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == b"got ~TB 1 hello \x01\xff\n"
        time.sleep(0.05)
        proc.stdin.close()  # the host hangs up
        assert proc.stdout.readline() == b"eof b''\n"
        assert proc.wait(timeout=10) == 0, proc.stderr.read()
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()


BLINKA = r"""
import json, sys
import turtleboard  # puts the device packages (controller, hal) on sys.path
import board as pins
import neopixel
from controller.board import load_board
from hal.circuitpython import Hal

b = load_board(open(sys.argv[1]).read())
wiring = {2: pins.Dx_OUTPUT, 3: pins.Dx_OUTPUT, 4: pins.Dx_OUTPUT, 5: pins.Dx_OUTPUT,
          26: pins.Ax_INPUT_FIXED_INT_PI, 22: pins.NEOPIXEL,
          6: pins.Dx_INPUT_FALSE, 7: pins.Dx_INPUT_TRUE_PULL_UP, 8: pins.Dx_INPUT_TOGGLE}
sent = []
real_write = neopixel.neopixel_write
def catch(pin, buf):
    sent.append(bytes(buf).hex())
    real_write(pin, buf)
neopixel.neopixel_write = catch
hal = Hal(b, pin=wiring.__getitem__)
out = {"board": pins.board_id, "adc": [hal.read_channel(0), hal.read_channel(9)],
       "select": [io._pin.current_value for io in hal._select],  # what was driven
}
got = [None, None]
hal.read_cells([(6, (1,))], got)
out.update({"mux": got, "select_mux": [io._pin.current_value for io in hal._select],
       "buttons": [hal.button("next"), hal.button("ok"), hal.button("nope")]})
frame = [(255, 0, 16), (1, 2, 3)] + [(0, 0, 0)] * 14
hal.write_leds(frame)
hal.write_leds(frame)
hal.write_leds([(0, 0, 0)] * 16)
out["sent"] = sent
t = hal.ticks_ms()
hal.sleep_ms(20)
out["slept"] = hal.ticks_diff(hal.ticks_ms(), t)
out["wrap"] = hal.ticks_diff(3, (1 << 29) - 2)
out["serial"] = hal.serial_read().decode()
print(json.dumps(out))
"""


def test_circuitpython_hal_on_blinka_with_the_adafruit_neopixel_driver(tmp_path):
    env = dict(os.environ, BLINKA_OS_AGNOSTIC="1")
    proc = subprocess.run([sys.executable, "-c", BLINKA, str(BOARDS / "race.json")], env=env,
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["board"] == "OS_AGNOSTIC_BOARD"
    assert out["adc"] == [31415, 31415]  # analogio.AnalogIn on Blinka's fixed pin
    assert out["select"] == [True, False, False, True]  # input 9 = 0b1001 on S0..S3
    assert out["mux"] == [None, 31415]  # the one multiplexer asked for, into the cell asked for
    assert out["select_mux"] == [False, True, True, False]  # input 6
    assert out["buttons"] == [True, False, False]  # a low pin is a pressed button
    # the driver's bytes: GRB order, one frame per change, the repeat skipped
    assert len(out["sent"]) == 2
    assert out["sent"][0].startswith("00ff10" + "020103")
    assert out["sent"][1] == "00" * 3 * (16 + 4)  # the chain and 4 spare places past it (self-test)
    assert 15 <= out["slept"] < 1000
    assert out["wrap"] == 5  # differences survive the 2**29 wrap of ticks_ms
    assert out["serial"] == ""  # no usb_cdc or supervisor on a PC


@pytest.mark.micropython
def test_sim_hal_reads_one_input_of_every_multiplexer(tmp_path):
    # The multiplexers share their select lines: read_cells(plan, out)
    # gives, per (input, cells), channel m * 16 + input into out[cells[m]]
    # (-1: no cell there).
    out = _sim(tmp_path, """
world('adc', ' '.join([str(1000 + i) for i in range(48)]) + '\\n')
hal.refresh()
got = [0, 0, 0, 0, 0]
hal.read_cells([(5, (2, 0, 4)), (15, (-1, 1))], got)
print(json.dumps(got))
""", board="tortuga")
    assert out == [[1021, 1031, 1005, 0, 1037]]


@pytest.mark.micropython
def test_platform_hal_is_the_sim_one_on_the_unix_port(tmp_path):
    out = _sim(tmp_path, """
import sys
from hal import platform_hal
print(json.dumps([sys.platform, isinstance(platform_hal(b), Hal)]))
""")
    assert out == [["linux", True]]
