# The state hash's FNV-1a, the frames' CRC-16 and the game log's line check
# in native code (turtles/fnv.py, controller/crc.py) against their Python
# (game.fnv_more, frames.crc16, logscan._sealed and _is_text with the native
# code switched off), on random bytes of every length and with the cell
# tables. Runs under pytest (no native code: the
# known answers only) and under MicroPython (mprun.py), whose unix port runs
# the viper code as a Pico's rp2 port does.
import sys

from controller import frames, logscan
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
    assert (logscan.sealed_native is not None) == NATIVE
    assert (logscan.ascii_native is not None) == NATIVE


def test_known_answers():
    assert fnv1a32("") == 0x811C9DC5
    assert fnv1a32("a") == 0xE40C292C
    assert fnv1a32("foobar") == 0xBF9CF968
    assert frames.crc16(b"123456789") == 0x29B1
    assert frames.crc16(b"") == 0xFFFF


def test_the_written_out_crc16_tables_are_the_crcs():
    # frames._HIGH and _LOW are constants in the source (they stay in flash
    # on a Pico from ROMFS): the table of CRC-16/CCITT-FALSE a byte at a time.
    high, low = frames._crc_tables()
    assert frames._HIGH == high and frames._LOW == low
    for n in (1, 2, 0x80, 0xFF):  # each entry: the byte shifted out through the polynomial
        crc = n << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
        assert (frames._HIGH[n] << 8 | frames._LOW[n]) == crc, n


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


def _log_lines(rng):
    # Sealed lines of every length, and each with one byte changed, cut,
    # run into the next, its checksum in capitals or not hex.
    for n in list(range(30)) + [100, 400]:
        body = _random_bytes(rng, n, 128).replace(b"\n", b".")
        line = logscan.seal(body.decode()).encode()
        yield line
        yield line[:-10] + line[-10:-1].upper() + b"\n"
        yield line[:-2] + b"g\n"
        yield line[:-1]
        yield line + line
        yield line[:-12] + line[-11:]
        k = rng.below(len(line))
        yield line[:k] + bytes([line[k] ^ (1 << rng.below(8))]) + line[k + 1:]


def test_log_line_check_native_equals_python():
    rng = Rng(9)
    good = 0
    for line in _log_lines(rng):
        want = logscan._sealed(line)
        if NATIVE:
            assert logscan.sealed_native(line) == want, line
        good += want >= 0
    assert good > 60  # the sealed ones and their capitals


def test_text_check_native_equals_python():
    rng = Rng(10)
    for n in range(40):
        data = _random_bytes(rng, n, 256 if n % 2 else 128)
        for start, end in ((0, n), (n // 3, n), (1, n // 2)):
            if NATIVE and logscan.ascii_native(data, start, end):
                assert logscan._is_text(data, start, end), (data, start, end)
            if NATIVE and max(data[start:end] or b"\0") < 128:
                assert logscan.ascii_native(data, start, end), (data, start, end)
    assert logscan._is_text("é".encode(), 0, 2) and not logscan._is_text("é".encode(), 0, 1)
