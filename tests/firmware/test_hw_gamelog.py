# The power-safe game log. Plain test functions: pytest runs them under
# CPython, tests/engine/mprun.py under MicroPython (tests/firmware/test_hw_micropython.py).
from hwtools import exists, flash_area, read, scratch, write

from controller.gamelog import GameLog, GameLogError, crc32, seal, unseal

ACTIONS = ["1-3", "roll 4", "2 5", "red+2", "take back?", "z"]


def _game(folder, n=6):
    log = GameLog(folder + "/game.log")
    log.begin("mahe", 3, {"variant": "std"}, {"seed": 7})
    for text in ACTIONS[:n]:
        log.append(text)
    return log


def test_crc32_is_the_zlib_crc():
    assert crc32(b"") == 0
    assert crc32(b"123456789") == 0xCBF43926


def test_bitwise_crc32_where_binascii_has_none():
    import controller.logline as logline

    saved = logline._c_crc32
    logline._c_crc32 = None
    try:
        assert crc32(b"") == 0
        assert crc32(b"123456789") == 0xCBF43926
        assert crc32(seal("A d2-d3")[:-11].encode()) == saved(b"A d2-d3") & 0xFFFFFFFF
    finally:
        logline._c_crc32 = saved


def test_seal_and_unseal():
    line = seal("A 1-3")
    assert line.endswith("\n")
    assert unseal(line) == "A 1-3"
    assert unseal(line[:-1]) is None  # no newline: a torn write
    assert unseal(line.replace("1-3", "1-4")) is None
    assert unseal("A 1-3 *zzzzzzzz\n") is None


def test_round_trip():
    folder = scratch("log")
    _game(folder)
    header, actions = GameLog(folder + "/game.log").load()
    assert header == {"game": "mahe", "players": 3, "options": {"variant": "std"},
                      "extra": {"seed": 7}}
    assert actions == ACTIONS


def test_no_game():
    folder = scratch("log")
    log = GameLog(folder + "/game.log")
    assert log.load() is None
    try:
        log.append("1-3")
        raise AssertionError("append without a game must fail")
    except GameLogError as e:
        assert "begin" in str(e)


def test_takebacks():
    folder = scratch("log")
    log = _game(folder, 3)
    log.pop()
    log.pop()
    log.append("x")
    assert GameLog(folder + "/game.log").load()[1] == ACTIONS[:1] + ["x"]
    fresh = GameLog(folder + "/game.log")
    fresh.pop()
    fresh.pop()
    assert fresh.load()[1] == []
    try:
        fresh.pop()
        raise AssertionError("a takeback with no action must fail")
    except GameLogError as e:
        assert "no action" in str(e)


def test_bad_action_text_refused_and_log_unchanged():
    folder = scratch("log")
    log = _game(folder, 2)
    for bad in ["", "a\nb", "x\r", None, 5]:
        try:
            log.append(bad)
            raise AssertionError("%r must be refused" % (bad,))
        except GameLogError:
            pass
    assert GameLog(folder + "/game.log").load()[1] == ACTIONS[:2]


def test_cut_at_every_byte_keeps_every_committed_action():
    # A power cut mid-write leaves any prefix of the last line on flash.
    folder = scratch("log")
    path = folder + "/game.log"
    _game(folder)
    whole = read(path, "rb")
    ends = []  # byte offsets where each line ends
    for i in range(len(whole)):
        if whole[i] == 10:
            ends.append(i + 1)
    for cut in range(len(whole) + 1):
        write(path, whole[:cut], "wb")
        log = GameLog(path)
        got = log.load()
        # a line whole but for its newline is kept: its checksum proves it
        complete = len([e for e in ends if e - 1 <= cut])
        if complete == 0:
            assert got is None, cut
            continue
        assert got[1] == ACTIONS[:complete - 1], (cut, got)
        assert log.dropped == (0 if cut in ends or cut + 1 in ends else 1), cut
        assert log.damage is None, (cut, log.damage)
        # The next action lands cleanly after the repaired file.
        log.append("next")
        assert GameLog(path).load()[1] == ACTIONS[:complete - 1] + ["next"]


def test_garbage_at_the_end_is_dropped():
    folder = scratch("log")
    path = folder + "/game.log"
    _game(folder, 4)
    good = read(path, "rb")
    for junk in [b"\x00\x00\x00\x00", b"\xff\xfe garbage\n", b"A 9-9 *00000000\n",
                 b"H {} *00000000\n", b"\n\n", b"A lost *1234"]:
        write(path, good + junk, "wb")
        log = GameLog(path)
        assert log.load()[1] == ACTIONS[:4], junk
        assert log.dropped >= 1
        assert read(path, "rb") == good  # repaired in place


def test_damage_in_the_middle_keeps_what_came_before():
    folder = scratch("log")
    path = folder + "/game.log"
    _game(folder)
    lines = read(path).split("\n")
    lines[3] = lines[3].replace("2", "7")  # flip a character of the 3rd action
    write(path, "\n".join(lines))
    log = GameLog(path)
    assert log.load()[1] == ACTIONS[:2]
    assert log.dropped == len(ACTIONS) - 2


def test_begin_replaces_the_old_game_whole():
    folder = scratch("log")
    path = folder + "/game.log"
    _game(folder)
    log = GameLog(path)
    log.begin("race", 2, {}, {})
    header, actions = GameLog(path).load()
    assert header["game"] == "race" and actions == []
    assert not exists(path + ".tmp")


def test_cut_during_begin_keeps_the_old_game():
    # The new game is written aside first: a torn one never replaces the old.
    folder = scratch("log")
    path = folder + "/game.log"
    _game(folder)
    new = seal('H {"extra":{},"game":"race","options":{},"players":2}')
    for cut in range(len(new)):
        write(path + ".tmp", new[:cut])
        assert GameLog(path).load()[1] == ACTIONS, cut


def test_cut_between_remove_and_rename_recovers_the_new_game():
    # Where rename cannot replace a file (FAT), begin() removes then renames.
    folder = scratch("log")
    path = folder + "/game.log"
    write(path + ".tmp", seal('H {"extra":{},"game":"race","options":{},"players":2}'))
    header, actions = GameLog(path).load()
    assert header["game"] == "race" and actions == []
    assert exists(path) and not exists(path + ".tmp")
    # a torn new game and no old one: no game at all
    folder = scratch("log")
    path = folder + "/game.log"
    write(path + ".tmp", seal('H {"game":"race"}')[:9])
    assert GameLog(path).load() is None


def test_snapshots_the_last_that_holds_is_found():
    folder = scratch("log")
    path = folder + "/game.log"
    log = _game(folder, 2)
    assert log.snapped == 0
    log.snapshot(0x12345678, "[2]")
    assert log.snapped == 2
    log.append("x3")
    log.snapshot(0xABCDEF01, "[3]")
    log.append("x4")
    again = GameLog(path)
    assert again.load()[1] == ACTIONS[:2] + ["x3", "x4"]  # snapshots are no actions
    assert again.last_snapshot() == (3, 0xABCDEF01, "[3]") and again.snapped == 3
    assert list(again.actions(3)) == ["x4"] and list(again.actions(4)) == []
    assert list(again.actions(0, 3)) == ACTIONS[:2] + ["x3"]  # up to a snapshot, across one
    assert list(again.actions(1, 2)) == ACTIONS[1:2] and list(again.actions(2, 2)) == []
    assert list(again.actions(0, 9)) == ACTIONS[:2] + ["x3", "x4"]
    # a takeback behind the last passes it over; the one before holds
    again.pop()
    again.pop()
    assert again.snapped == 0  # (the next quiet cycle writes one again)
    third = GameLog(path)
    third.scan()
    assert third.last_snapshot() == (2, 0x12345678, "[2]") and third.count == 2
    # a snapshot that does not say the number of actions before it is no snapshot
    write(path, read(path) + seal("S 7 00000000 [7]"))
    fourth = GameLog(path)
    fourth.scan()
    assert fourth.last_snapshot() == (2, 0x12345678, "[2]") and fourth.damage is None


def test_a_repaired_log_keeps_its_snapshot():
    folder = scratch("log")
    path = folder + "/game.log"
    log = _game(folder, 3)
    log.snapshot(7, "[3]")
    log.append("x4")
    write(path, read(path) + "A torn *12")  # a power cut mid-write
    again = GameLog(path)
    assert again.load()[1] == ACTIONS[:3] + ["x4"] and again.dropped == 1
    assert again.last_snapshot() == (3, 7, "[3]")
    assert [line[:2] for line in read(path).split("\n")] == ["H ", "A ", "A ", "A ", "S ", "A ", ""]


def _state(log):
    return log.count, log._kept, log.last_snapshot(), log.dropped, log.damage


def test_a_log_read_ahead_in_pieces_is_what_a_scan_at_once_finds():
    # Boot reads the log a block at a time while calibration waits
    # (read_ahead), then scan() goes on from there: it must find what a
    # scan at once finds, with a snapshot and a torn end too, from any
    # point it was left at.
    folder = scratch("log")
    path = folder + "/game.log"
    log = _game(folder)
    for k in range(120):  # several blocks of 512 bytes
        log.append("move %d" % k)
        if k == 80:
            log.snapshot(0x1234, "[%d]" % log.count)
    whole = read(path) + "A torn *12"
    write(path, whole)
    at_once = GameLog(path)
    header = at_once.scan()
    blocks = 0
    for left_at in (0, 1, 2, 99):
        write(path, whole)
        ahead = GameLog(path)
        pieces = 0
        while pieces < left_at and ahead.read_ahead():
            pieces += 1
        blocks = max(blocks, pieces)
        assert ahead.scan() == header, left_at
        assert _state(ahead) == _state(at_once), left_at
    assert blocks >= 5  # it was read in pieces
    assert at_once.dropped == 1 and at_once.count == len(ACTIONS) + 120 and at_once.snapped == 87


def test_a_log_read_ahead_that_is_not_there_or_fails_is_scanned_again():
    folder = scratch("log")
    path = folder + "/game.log"
    log = GameLog(path)
    assert not log.read_ahead()  # no file
    assert log.scan() is None
    _game(folder)
    log = GameLog(path)
    log._ahead = (_failing(), [None])  # the flash failed mid-read: scan() reads it again
    assert not log.read_ahead()
    assert log.load()[1] == ACTIONS


def _failing():
    raise OSError(5)
    yield


def test_a_proven_move_in_a_file_is_written_behind_and_first_before_anything_else():
    # append(later=True): the line waits for write_behind(), or for the next
    # line of any kind, which writes it first; a new game drops it.
    folder = scratch("log")
    path = folder + "/game.log"
    log = _game(folder, 2)
    log.append("c1-c2", later=True)
    assert log.count == 3 and GameLog(path).load()[1] == ACTIONS[:2]
    log.write_behind()
    assert log.behind is None and GameLog(path).load()[1] == ACTIONS[:2] + ["c1-c2"]
    log.write_behind()  # nothing waits: nothing written
    assert GameLog(path).load()[1] == ACTIONS[:2] + ["c1-c2"]
    log.append("g4-g3", later=True)
    log.append("g3-g2", later=True)  # the one waiting is written first: never two
    assert GameLog(path).load()[1] == ACTIONS[:2] + ["c1-c2", "g4-g3"]
    log.pop()  # a takeback of the one waiting: written, then taken back
    assert log.count == 4 and GameLog(path).load()[1] == ACTIONS[:2] + ["c1-c2", "g4-g3"]
    log.append("h1-h2", later=True)
    list(log.actions())  # the log read (behind a snapshot, say): what waits is written first
    assert log.behind is None and GameLog(path).load()[1] == ACTIONS[:2] + ["c1-c2", "g4-g3", "h1-h2"]
    log.append("a1-a2", later=True)
    log.begin("tortuga", 2)
    assert log.behind is None and GameLog(path).load()[1] == []


def test_a_log_area_writes_a_proven_move_at_once():
    from controller.flashlog import LogArea

    folder = scratch("log")
    log = GameLog(folder + "/game.log", LogArea(flash_area(folder), folder + "/game.log"))
    log.begin("tortuga", 2)
    log.append("c1-c2", later=True)
    assert log.behind is None and GameLog(folder + "/game.log", LogArea(flash_area(folder), folder + "/game.log")).load()[1] == ["c1-c2"]


def test_a_write_behind_that_fails_waits_and_is_tried_again():
    folder = scratch("log")
    path = folder + "/game.log"
    log = _game(folder, 1)
    log.append("c1-c2", later=True)
    log.path = folder + "/no/such/folder/game.log"  # the write fails
    try:
        log.write_behind()
        raise AssertionError("no error")
    except OSError:
        pass
    assert log.behind is not None
    log.path = path
    log.write_behind()
    assert GameLog(path).load()[1] == ACTIONS[:1] + ["c1-c2"]


def test_a_stock_picos_log_area_writes_a_proven_move_behind_its_frame():
    # (gamelog.log_area sets `later` on the area of a stock Pico's files)
    from controller.flashlog import LogArea

    folder = scratch("log")
    area = LogArea(flash_area(folder), folder + "/game.log")
    area.later = True
    log = GameLog(folder + "/game.log", area)
    log.begin("tortuga", 2)
    log.append("c1-c2", later=True)

    def on_flash():  # (the log read again, as at a boot)
        return GameLog(folder + "/game.log", LogArea(flash_area(folder), folder + "/game.log")).load()[1]

    assert log.behind is not None and on_flash() == []
    log.write_behind()
    assert log.behind is None and on_flash() == ["c1-c2"]
    log.append("g4-g3", later=True)
    log.append("a1-a2")  # the next write puts what waits first
    assert log.count == 3 and on_flash() == ["c1-c2", "g4-g3", "a1-a2"]
