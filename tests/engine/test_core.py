# The common engine pieces: PRNG, deterministic JSON, options, records.
import sys

from turtles import GAME_NAMES, BadSetup, game_class, new_game
from turtles.game import fnv1a32
from turtles.jsontext import dumps
from turtles.record import parse_options
from turtles.rng import Rng

from check import raises


def test_rng_is_fixed():
    # The same numbers on every interpreter: these are the first outputs for
    # seed 1 (xorshift32's: 270369, 67634689, 2647435461), as 16-bit halves.
    r = Rng(1)
    assert [r.next_halves() for _ in range(3)] == [(4, 8225), (1032, 1537), (40396, 43205)]
    r = Rng(1)
    assert [r.next16() for _ in range(3)] == [4, 1032, 40396]


def test_rng_is_xorshift32():
    # The halves step as the 32-bit xorshift32 does (the reference is
    # written with 32-bit ints, which only CPython keeps small).
    if sys.implementation.name == "micropython":
        return
    for seed in (1, 2, 0x12345678, 2**32 - 1):
        r = Rng(seed)
        x = seed & 0xFFFFFFFF
        for _ in range(2000):
            x ^= (x << 13) & 0xFFFFFFFF
            x ^= x >> 17
            x ^= (x << 5) & 0xFFFFFFFF
            hi, lo = r.next_halves()
            assert (hi << 16) | lo == x, seed


def test_rng_below_matches_the_32_bit_rule():
    # below(n) is x % n of the 32-bit output, outputs from the top
    # 2**32 % n left out, worked out on the halves.
    if sys.implementation.name == "micropython":
        return
    for n in (1, 2, 3, 6, 52, 1000, 8001, 23000, 32767, 32768):
        r = Rng(5)
        ref = Rng(5)
        for _ in range(300):
            while True:
                hi, lo = ref.next_halves()
                x = (hi << 16) | lo
                if x < 2**32 - 2**32 % n:
                    break
            assert r.below(n) == x % n, n


def test_rng_below_says_what_it_takes():
    r = Rng(1)
    raises(ValueError, r.below, 0)
    raises(ValueError, r.below, 32769)


def test_rng_stir_never_leaves_a_zero_state():
    r = Rng(5)
    r.stir(5)
    assert (r.hi, r.lo) == (0, 1)
    assert r.below(6) == Rng(1).below(6)


def test_rng_below_in_range_and_covers():
    r = Rng(7)
    seen = [0] * 6
    for _ in range(600):
        seen[r.below(6)] += 1
    assert all(40 < s < 160 for s in seen), seen


def test_rng_shuffle_is_permutation():
    r = Rng(3)
    items = list(range(20))
    r.shuffle(items)
    assert sorted(items) == list(range(20))
    assert items != list(range(20))


def test_dumps_sorted_and_escaped():
    assert dumps({"b": [1, True, None], "a": "x\"y\n"}) == '{"a":"x\\"y\\u000a","b":[1,true,null]}'


def test_fnv_known_value():
    assert fnv1a32("") == 0x811C9DC5
    assert fnv1a32("a") == 0xE40C292C
    assert fnv1a32("foobar") == 0xBF9CF968
    assert fnv1a32("tortuga \u00e9 1") == _fnv_reference("tortuga \u00e9 1".encode())


def _fnv_reference(data):
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def test_fnv_is_the_32_bit_reference():
    r = Rng(9)
    for n in range(60):
        data = bytes([r.below(128) for _ in range(n)])
        assert fnv1a32(data.decode()) == _fnv_reference(data)


def test_unknown_game():
    e = raises(BadSetup, new_game, "chess", 2)
    assert "unknown game" in str(e) and "mahe" in str(e)


def test_parse_options():
    assert parse_options("a=1,b=x") == {"a": 1, "b": "x"}
    assert parse_options("") == {}
    raises(BadSetup, parse_options, "a")


def test_history_packs_and_gives_back_every_entry():
    from turtles.game import History

    shared = [1, 2]
    entries = [
        (3, 5), (31, -32), (0, 0), (32, 1), (-1, -33), (2 ** 40, -(2 ** 35)),
        ((1, 2, 3), None), ((4, (5, -6)), (7,)), (5, shared), (6, True), (7, "x"),
        (8, [[], (1, [2 ** 33])]), ([1], -1),
        ((), 0), (tuple(range(200)), 9), (1, 2),
    ]
    h = History()
    for a, t in entries:
        h.add(a, t)
    actions = [a for a, _ in entries]
    assert len(h) == len(entries)
    assert list(h) == actions and h == actions
    assert h[0] == 3 and h[-1] == 1 and h[7] == (4, (5, -6)) and h[14] == tuple(range(200))
    assert h[2:5] == actions[2:5]
    raises(IndexError, h.__getitem__, len(entries))
    assert len(h.objects) == 2  # True and "x": lists and tuples are packed
    for a, t in reversed(entries):
        got = h.take_last()
        assert got == (a, t) and type(got[1]) is type(t), (got, a, t)
        if t is shared:
            assert got[1] is not shared  # a list comes back equal, a new one
    assert len(h) == 0 and list(h) == [] and len(h.buf) == 0 and h.objects == []


def test_a_token_of_lists_packs_into_bytes():
    # Tortuga's tokens hold three lists (its pending powers, its triggers,
    # the cells changed): once each kept as itself in the heap, ~40 bytes a
    # move on a Pico for the whole game; now a few bytes of the buffer.
    from turtles.game import History

    token = (5, 9, [], [3, [4, -1]], [712, 296])
    h = History()
    for k in range(100):
        h.add(k, token)
    assert h.objects == [] and len(h.buf) < 100 * 20  # 17 bytes an entry
    assert h[99] == 99 and h.take_last() == (99, token)
    assert type(h.take_last()[1][3][1]) is list


def test_a_held_history_entry_reads_as_packed_and_packs_the_same_bytes():
    # hold() keeps the newest entry unpacked (a commit answers first, the
    # packing waits for a quiet cycle): it reads like any other entry, and
    # packed later (pack() or the next add) gives the same bytes.
    from turtles.game import History

    entries = [(3, 5), ((1, 2, 3), (7, 8, [1], [], [2])), ((4, (5, -6)), None), (6, "x"), (2, 1)]
    packed = History()
    for a, t in entries:
        packed.add(a, t)
    h = History()
    for k in range(len(entries)):
        a, t = entries[k]
        h.hold(a, t)  # packs the one held before
        assert len(h) == k + 1 and list(h) == [e[0] for e in entries[:k + 1]] and h[-1] == a and h[k] == a
    h.pack()
    assert bytes(h.buf) == bytes(packed.buf) and h.objects == packed.objects and h.held is None
    h.hold(9, 10)
    assert h.take_last() == (9, 10) and len(h) == len(entries)
    h.hold(9, 10)
    h.add(11, 12)  # packs the held entry first
    assert list(h) == [e[0] for e in entries] + [9, 11]
    assert h.take_last() == (11, 12) and h.take_last() == (9, 10)
    for a, t in reversed(entries):
        assert h.take_last() == (a, t)
    assert len(h) == 0 and len(h.buf) == 0


def test_no_options_are_each_games_defaults_checked():
    # check_options() takes the defaults as they are when none are given:
    # each must pass the check it skips.
    for name in GAME_NAMES:
        cls = game_class(name)
        g = new_game(name, cls.min_players)
        defaults = {}
        for option, default, allowed in cls.OPTIONS:
            assert default in allowed, (name, option)
            defaults[option] = default
        assert g.options == defaults == g.check_options(dict(defaults)), name
        assert g.check_options(None) == g.check_options({}) == defaults, name


# Records as earlier releases wrote them (`turtleboard selfplay`, before the
# Format tag: the Result's winners counted from 0), byte for byte.
FORMAT1 = __file__.rsplit("/", 2)[0] + "/data/format1/"


def _format1(name):
    with open(FORMAT1 + name) as f:
        return f.read()


def test_a_record_an_earlier_release_wrote_still_replays():
    from turtles.record import read_record

    mahe = _format1("mahe-2-players.txt")
    assert '[Result "winners=0 scores=46,38"]' in mahe and "[Format" not in mahe
    assert read_record(mahe).result()["winners"] == [0]  # player 1 won
    race = _format1("race-3-players.txt")
    assert read_record(race).result()["winners"] == [1]  # player 2 won


def test_records_say_their_format_and_each_format_counts_its_winners():
    from turtles.record import RecordError, read_record, write_record

    mahe = _format1("mahe-2-players.txt")
    game = read_record(mahe)
    now = write_record(game)
    assert '[Format "2"]\n[Result "winners=1 scores=46,38"]\n' in now
    assert read_record(now).state_key() == game.state_key()
    # each format's own count: player 1 is winners=0 in format 1, winners=1 in 2
    as_format2 = mahe.replace('[Result', '[Format "2"]\n[Result')
    e = raises(RecordError, read_record, as_format2)
    assert "the record says winners=0 scores=46,38 but the actions give winners=1" in str(e)
    as_format1 = now.replace('[Format "2"]\n', "")
    e = raises(RecordError, read_record, as_format1)
    assert "the record says winners=1 scores=46,38 but the actions give winners=0" in str(e)
    e = raises(RecordError, read_record, now.replace('[Format "2"]', '[Format "3"]'))
    assert e.line == 5 and "format 3" in str(e) and "newer release" in str(e)
    e = raises(RecordError, read_record, now.replace('[Format "2"]', '[Format "two"]'))
    assert 'the [Format "N"] tag needs a number' in str(e)
