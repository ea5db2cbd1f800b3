# The state hash's FNV-1a and the frames' CRC-16 in native code (turtles/fnv.py,
# controller/crc.py) against their loops in Python (game.fnv_more,
# frames.crc16 with the native code switched off), on random bytes of every
# length and with the cell tables. Runs under pytest (no native code: the
# known answers only) and under MicroPython (mprun.py), whose unix port runs
# the viper code as a Pico's rp2 port does.
import sys

from controller import frames
from turtles import game
from turtles.game import FNV_START, fnv1a32, fnv_more
from turtles.rng import Rng
from turtles.tortuga import BOARD_BYTES, TATTOO_BYTES

NATIVE = sys.implementation.name == "micropython"


def _random_bytes(rng, n, below=256):
    return bytes([rng.below(below) for _ in range(n)])


def _python_only(module, name, fn, *args):
    # fn(*args) with the module's native code switched off
    native = getattr(module, name)
    setattr(module, name, None)
    try:
        return fn(*args)
    finally:
        setattr(module, name, native)


def test_native_code_is_there_exactly_where_the_port_has_it():
    assert (game.fnv_native is not None) == NATIVE
    assert (frames.crc16_native is not None) == NATIVE


def test_known_answers():
    assert fnv1a32("") == 0x811C9DC5
    assert fnv1a32("a") == 0xE40C292C
    assert fnv1a32("foobar") == 0xBF9CF968
    assert frames.crc16(b"123456789") == 0x29B1
    assert frames.crc16(b"") == 0xFFFF


def test_fnv_native_equals_python():
    rng = Rng(7)
    for n in list(range(40)) + [200, 1000]:
        data = _random_bytes(rng, n)
        state = (rng.below(32768) * 2 + rng.below(2), rng.below(32768) * 2 + rng.below(2))
        want = _python_only(game, "fnv_native", fnv_more, state, data)
        assert fnv_more(state, data) == want, (n, state)
        for table in (BOARD_BYTES, TATTOO_BYTES):
            cells = _random_bytes(rng, n, len(table))
            want = _python_only(game, "fnv_native", fnv_more, state, cells, table)
            assert fnv_more(state, cells, table) == want, (n, state)
    assert fnv_more(FNV_START, b"") == FNV_START


def test_a_value_off_the_table_is_an_error_on_both():
    for native in (True, False):
        try:
            if native:
                fnv_more(FNV_START, bytes([0, 4]), BOARD_BYTES)
            else:
                _python_only(game, "fnv_native", fnv_more, FNV_START, bytes([0, 4]), BOARD_BYTES)
        except IndexError:
            continue
        raise AssertionError("a cell value off the table was hashed")


def test_crc16_native_equals_python():
    rng = Rng(8)
    for n in list(range(40)) + [300, 1024]:
        data = _random_bytes(rng, n)
        want = _python_only(frames, "crc16_native", frames.crc16, data)
        assert frames.crc16(data) == want, n
