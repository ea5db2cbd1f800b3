# The game log in a raw flash area (controller/flashlog.py), on the virtual
# Pico's flash region (a file, NOR semantics: host/sim/pico/pico_flash.py).
# Plain test functions: pytest runs them under CPython, tests/engine/mprun.py
# under MicroPython (tests/firmware/test_hw_micropython.py).
from hwtools import Counted, exists, flash_area, scratch

from controller.flashlog import PAGE, RESERVE, SECTOR, LogArea
from controller.gamelog import GameLog, GameLogError, seal

SIZE = 16 * SECTOR  # the test's area: 16 sectors


def _log(folder, counted=False):
    dev = flash_area(folder, SIZE)
    area = LogArea(dev, folder + "/game.log")
    if counted:
        area.dev = Counted(dev)  # (reads stay on the region's buffer)
    return GameLog(folder + "/game.log", area)


def _again(folder):
    return _log(folder)


def _game(folder, actions=("1-3", "2 5", "4-6")):
    # A Mahé game in a fresh area, these actions played.
    log = _log(folder)
    log.begin("mahe", 2)
    for text in actions:
        log.append(text)
    return log


def test_round_trip_one_page_program_an_action_no_erase():
    folder = scratch("area")
    log = _log(folder, True)
    log.begin("mahe", 3, {"variant": "std"}, {"seed": 7})
    dev = log.area.dev
    before = dev.programs
    for k in range(20):
        log.append("a%d" % k)
    # a line is one page program (two where it runs over a page's end), never an erase
    assert 20 <= dev.programs - before <= 22 and dev.erases == 0
    header, actions = _again(folder).load()
    assert header == {"game": "mahe", "players": 3, "options": {"variant": "std"},
                      "extra": {"seed": 7}, "log": 1}
    assert actions == ["a%d" % k for k in range(20)]
    assert not exists(folder + "/game.log")  # nothing in the filesystem


def test_takeback_and_snapshot_lines_as_in_a_file():
    folder = scratch("area")
    log = _game(folder, ("1-3", "roll 4", "2 5"))
    log.pop()
    log.snapshot(0x1234, "[2]")
    log.append("x")
    again = _again(folder)
    assert again.load()[1] == ["1-3", "roll 4", "x"]
    assert again.last_snapshot() == (2, 0x1234, "[2]")


def test_a_new_game_begins_at_the_next_erased_sector_with_the_next_number():
    folder = scratch("area")
    log = _game(folder, ("1-3",))
    first = log.area.start
    log.begin("race", 4)
    assert log.area.start == (first + SECTOR) % SIZE and log.area.number == 2
    log.append("red+2")
    header, actions = _again(folder).load()
    assert header["game"] == "race" and header["log"] == 2 and actions == ["red+2"]


def test_a_torn_write_is_dropped_and_the_game_copied_whole_before_the_next_append():
    folder = scratch("area")
    log = _game(folder, ("1-3", "2 5"))
    # a power cut in the middle of the next line's page program
    area = log.area
    torn = seal("A 4-6").encode()[:5]
    area._program(area.start + area.end, torn, area.start + SIZE)
    again = _again(folder)
    assert again.load()[1] == ["1-3", "2 5"] and again.dropped == 1 and again.damage is None
    assert again.area.number == 2  # the copy without the torn end
    again.append("4-6")
    third = _again(folder)
    assert third.load()[1] == ["1-3", "2 5", "4-6"] and third.damage is None


def test_a_copy_cut_before_its_header_leaves_the_game_before_it():
    folder = scratch("area")
    log = _game(folder)

    def cut(lines):
        n = 0
        for line in lines:
            n += 1
            if n == 3:
                raise OSError("the power went")
            yield line

    try:
        log.area.begin(cut(log._lines(log.scan())))
        raise AssertionError("the copy must fail")
    except OSError:
        pass
    again = _again(folder)
    assert again.load()[1] == ["1-3", "2 5", "4-6"] and again.area.number == 1


def test_damage_in_the_middle_is_reported_kept_and_the_good_lines_copied():
    folder = scratch("area")
    log = _game(folder)
    # a bit flipped in the second action's text ("2 5" -> "2 4"): NOR can clear bits
    area = log.area
    at = area.start + bytes(area.mem[area.start:area.start + area.end]).find(b"A 2 5") + 4
    page = bytearray(b"\xff" * PAGE)
    page[at % PAGE] = ord("4")
    area.dev.writeblocks(at // SECTOR, page, at % SECTOR - at % PAGE)
    again = _again(folder)
    assert again.load()[1] == ["1-3"]
    assert "line 3 (an action)" in again.damage and exists(folder + "/game.log.bad")
    third = _again(folder)
    assert third.load()[1] == ["1-3"] and third.damage is None


def test_erases_come_only_from_prepare_while_sectors_are_ready():
    folder = scratch("area")
    log = _log(folder, True)
    dev = log.area.dev
    # an area holding old data (a filesystem's, before the board's flash was laid out so)
    for s in range(SIZE // SECTOR):
        dev.writeblocks(s, b"\x00" * PAGE, 0)
    log.area.find()
    assert log.area.start is None
    while log.prepare():
        pass
    assert log.area.erased == RESERVE and dev.erases == RESERVE
    log.begin("mahe", 2)
    k = 0
    while log.area.end < 2 * SECTOR + 100:  # into a third sector: within the reserve
        k += 1
        log.append("action number %d" % k)
    assert log.area.forced == 0 and dev.erases == RESERVE
    assert log.prepare() and log.area.erased == RESERVE + 1
    again = _again(folder)
    assert again.load()[1] == ["action number %d" % i for i in range(1, k + 1)]


def test_a_write_ending_on_a_sector_edge_never_runs_into_older_data():
    folder = scratch("area")
    log = _log(folder)
    log.begin("mahe", 2)
    area = log.area
    # the next sector holds an older game's lines (as after the ring came round)
    old = (seal("A old one") + seal("A old two")).encode()
    nxt = area.start + SECTOR
    area.dev.writeblocks(nxt // SECTOR, old + b"\xff" * (PAGE - len(old)), 0)
    area.ready = 0
    while area.end % SECTOR:  # action lines up to the sector's last byte exactly
        rest = SECTOR - area.end % SECTOR  # (an action line is its text + 13 bytes)
        log.append("z" * (100 if rest > 127 else rest - 27 if rest > 113 else rest - 13))
    assert area.forced == 1  # the sector after the edge, erased by the write that ended there
    again = _again(folder)
    got = again.load()[1]
    assert "old one" not in got and again.damage is None


def test_the_ring_comes_round_and_a_full_area_says_so():
    folder = scratch("area")
    log = _log(folder)
    for game in range(40):  # more games than sectors: the ring comes round
        log.begin("mahe", 2 + game % 3)
        log.append("g%d" % game)
    header, actions = _again(folder).load()
    assert header["players"] == 2 + 39 % 3 and header["log"] == 40 and actions == ["g39"]
    try:
        while True:
            log.append("x" * 90)
    except GameLogError as e:
        assert "full" in str(e)
    assert _again(folder).load()[1][0] == "g39"


def test_a_fresh_area_holds_no_game():
    folder = scratch("area")
    log = _log(folder)
    assert log.load() is None and log.damage is None
    try:
        log.append("1-3")
        raise AssertionError("an append with no game must fail")
    except GameLogError:
        pass


def test_a_game_in_the_file_an_earlier_firmware_kept_goes_on_in_the_area():
    # A stock Pico's first boot with its log area (logfiles.py): the game
    # of game.log is copied in, with its snapshot, and the file removed.
    folder = scratch("area")
    old = GameLog(folder + "/game.log")
    old.begin("mahe", 2, {"variant": "std"})
    for text in ("1-3", "roll 4", "2 5"):
        old.append(text)
    old.snapshot(0xABCD, "[3]")
    old.append("4-6")
    log = _log(folder)
    header, actions = log.load()
    assert header["game"] == "mahe" and header["options"] == {"variant": "std"} and header["log"] == 1
    assert actions == ["1-3", "roll 4", "2 5", "4-6"]
    assert log.last_snapshot() == (3, 0xABCD, "[3]")
    assert not exists(folder + "/game.log")
    log.append("x")
    assert _again(folder).load()[1] == ["1-3", "roll 4", "2 5", "4-6", "x"]
