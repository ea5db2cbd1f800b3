"""The table's web page in words a person reads, in a real browser (Debian's
chromium driven by Playwright) against the virtual board: every string the
French page can show has its French, what chance decides is said by its
kind, a page says who answers a question it cannot, the board's lit cells
are drawn in a colour one can see and its cell words are readable on a phone."""

from __future__ import annotations

import json
import os
import re

import pytest
import test_web_browser
from test_web_browser import DESKTOP, ENGLISH, PHONE, SHOTS, open_page, wait_until

from turtleboard.paths import BOARDS, FIRMWARE, reference_boards

pytestmark = [pytest.mark.e2e, pytest.mark.micropython, pytest.mark.browser]

browser = test_web_browser.browser  # (the fixtures: a chromium, a virtual board with its page)
table = test_web_browser.table


def legal_texts_of_played_games() -> dict:
    """game -> every action text met in a few random games of it (the forms
    a question's choices, a move or a hint can take)."""
    from turtles import new_game
    from turtles.rng import Rng

    out = {}
    for name, players, options in (("mahe", 3, {}), ("mahe", 2, {"egg_dice": 1}), ("race", 3, {"mode": "dealt"}),
                                   ("race", 4, {"mode": "physical", "open_colours": 1}), ("tortuga", 2, {}),
                                   ("tortuga", 2, {"tattoo": 4}), ("tortuga", 2, {"hatching": 1})):
        texts = out.setdefault(name, {"cancel", "takeback"})
        for seed in range(3):
            game, rng = new_game(name, players, options), Rng(seed + 1)
            for _ in range(400):
                if game.is_over():
                    break
                legal = game.legal_texts()
                texts.update(legal)
                game.apply_text(rng.choice(legal))
    return {k: sorted(v) for k, v in out.items()}


def test_every_string_the_french_page_can_show_has_its_french(browser, table):
    from turtleboard.games import GAMES
    from turtleboard.pictures.describe import CHANCE_WORDS
    from turtleboard.web.server import new_game_choices

    t = table("tortuga", 2)
    t.pump()
    page, _ = open_page(browser, t.web.url(), lang="fr-FR")
    assert page.evaluate("lang") == "fr"
    # the page's own words: every English entry has a French one
    missing = page.evaluate("""() => {
        const out = [];
        const walk = (en, fr, path) => {
            for (const k of Object.keys(en)) {
                if (!(k in fr)) out.push(path + k);
                else if (typeof en[k] === 'object' && !(en[k] instanceof RegExp)) walk(en[k], fr[k], path + k + '.');
            }
        };
        walk(WORDS.en, WORDS.fr, '');
        return out;
    }""")
    assert not missing, missing
    # the new-game form: every game, label and value of every reference board
    fields = []
    for path in reference_boards():
        fields += new_game_choices(json.loads(path.read_text()))
    said = page.evaluate("""games => games.map(g => [WORDS.fr.games[g.key] || null,
        g.fields.map(f => [f.label, fieldLabel(f), f.values.map(([text]) => [text, valueWords(text)])])])""", fields)
    left = []
    for g, (title, fs) in zip(fields, said):
        if title is None:
            left.append(g["key"])
        for label, french, values in fs:
            if french == label and label not in ("Mahé",):
                left.append(label)
            left += [en for en, fr in values if fr == en and not en.isdigit() or ENGLISH.search(fr)]
    assert not left, sorted(set(left))
    assert {g.key for g in GAMES} <= set(page.evaluate("Object.keys(WORDS.fr.games)"))
    # what chance decides, by its kind
    kinds = page.evaluate("Object.keys(WORDS.fr.chanceKinds)")
    assert set(CHANCE_WORDS) <= set(kinds), set(CHANCE_WORDS) - set(kinds)
    # every form of move, card or choice, in words (a Tortuga move as written is words too)
    for name, texts in legal_texts_of_played_games().items():
        words = page.evaluate("([name, texts]) => texts.map(x => choiceWords({name}, x))", [name, texts])
        bad = {x: w for x, w in zip(texts, words) if w is None or ENGLISH.search(w)}
        assert not bad, (name, bad)
    # the board's refusals a page's command can meet: each code in French
    codes = set(re.findall(r'CommandError\(\s*"([a-z-]+)"', "".join(
        p.read_text() for p in (FIRMWARE / "controller").glob("*.py"))))
    codes |= {"illegal", "bad-notation", "bad-setup", "refused"}  # game_error_code
    french = page.evaluate("Object.keys(WORDS.fr.boardErrors)")
    assert codes <= set(french), codes - set(french)
    # and the page shows a refusal of the board in French: a takeback at the start
    page.click("#lang")
    page.click("#lang")  # (English, then French again: the switch is kept)
    page.evaluate("send({do: 'undo'})")
    page.wait_for_selector("#error:not([hidden])")
    error = page.text_content("#error")
    assert error == "Rien à annuler : la partie commence.", error


def test_a_french_mahe_says_what_chance_decides_and_who_answers_a_question(browser, table):
    # Mahé with real dice: the board waits for the die; a question is
    # answered only by its player's page, the table's or the board: the
    # other pages say so, in French, with no English word anywhere.
    t = table("mahe", 2)
    t.m.link.command("new", {"game": "mahe", "players": 2, "options": {}, "dice": "physical"}, timeout=5)
    t.m.wait_synced(10)
    seat1, _ = open_page(browser, t.web.url("seat", 0), lang="fr-FR")
    seat2, _ = open_page(browser, t.web.url("seat", 1), lang="fr-FR")
    watch, _ = open_page(browser, t.web.url("watch"), DESKTOP, lang="fr-FR")
    hands = t.hands()
    t.in_thread(lambda: hands.play(stop=lambda: t.m.prompt is not None))
    wait_until(lambda: not t.thread.is_alive(), "the board's first question", 120, t)
    t.pump()
    assert t.m.prompt["kind"] == "chance", t.m.prompt  # the egg card turned up at the start
    for page in (seat1, seat2, watch):
        page.wait_for_function("() => document.getElementById('turn').textContent.includes('carte œuf')")
        assert page.text_content("#turn") == "Maintenant : une carte œuf est retournée"
    t.m.send("answer", {"id": t.m.prompt["id"], "choice": 0})
    wait_until(lambda: t.m.prompt is not None and t.m.prompt["kind"] == "decide", "player 1's question", 30, t)
    seat2.wait_for_function("() => document.getElementById('asktext').textContent.startsWith('Cette page')")
    assert "joueur 1" in seat2.text_content("#asktext")
    watch.wait_for_function("() => document.getElementById('asktext').textContent.startsWith('Vous regardez')")
    seat1.wait_for_function("() => document.getElementById('asktext').textContent.startsWith('Répondez ici')")
    # the first turtle chosen, the die is awaited: "a die is rolled", not "a card is drawn"
    seat1.click("#choices button >> nth=0")
    wait_until(lambda: t.m.replica.game.to_move() < 0, "the die", 30, t)
    for page in (seat1, seat2, watch):
        page.wait_for_function("() => document.getElementById('turn').textContent === 'Maintenant : un dé est lancé'")
    # the new-game form, open, in French too
    seat1.click("#newbtn")
    for game in ("race", "tattoo", "tortuga", "mahe"):
        if seat1.locator("#newgamekey option[value=%s]" % game).count():
            seat1.select_option("#newgamekey", game)
            text = seat1.inner_text("#newgame")
            assert not ENGLISH.search(text), (game, ENGLISH.findall(text))
    for page in (seat1, seat2, watch):
        words = page.inner_text("body").replace("NEXT", "")
        assert not ENGLISH.search(words), ENGLISH.findall(words)
    seat2.screenshot(path=os.path.join(SHOTS, "web-mahe-seat2-phone-fr.png"), full_page=True)


def test_a_players_own_question_on_their_turn_is_not_told_to_wait(browser, table):
    # The Race dealt by the board: a player moves a turtle by hand, and two
    # cards of their hand would have moved it so: the board asks them which.
    # Their page says to answer it, never "wait for your turn"; the others wait.
    t = table("race", 3, {"mode": "dealt"})
    hands = t.hands()
    hands.computer = {0, 1, 2}
    hands.play(stop=lambda: t.m.replica.game.to_move() >= 0 and hands.board_matches(t.m.replica.game))
    game = t.m.replica.game.copy()
    who = game.to_move()
    # the cards of the hand that leave the same board (as the sensors see it)
    seen = {}
    for action in game.legal_actions():
        after = game.copy()
        after.apply(action)
        seen.setdefault(tuple(after.image()), []).append(after)
    after = next(same[0] for same in seen.values() if len(same) >= 2)  # (the deal is seeded)
    hands.arrange(after, game)  # the turtle moved by hand, not from the phone
    t.pump()
    mine, _ = open_page(browser, t.web.url("seat", who), lang="fr-FR")
    other, _ = open_page(browser, t.web.url("seat", (who + 1) % 3), lang="fr-FR")
    wait_until(lambda: t.m.prompt is not None and t.m.prompt["kind"] == "move", "the question", 30, t)
    mine.wait_for_selector("#ask:not([hidden]) #choices button")
    mine.wait_for_function("() => document.getElementById('plays').textContent !== ''")
    assert mine.text_content("#turn").startswith("À vous de jouer")
    assert mine.text_content("#plays") == "Répondez à la question ci-dessus."
    assert "Attendez" not in mine.inner_text("body")
    other.wait_for_function("() => document.getElementById('plays').textContent !== ''")
    assert other.text_content("#plays") == "Attendez votre tour pour jouer."
    mine.screenshot(path=os.path.join(SHOTS, "web-race-question-phone-fr.png"), full_page=True)


def label_sizes(page, traffic) -> list[float]:
    """Each cell word of the board picture the page shows, in CSS pixels."""
    ground = traffic.ground([m for m in traffic.states() if m["game"]][-1])
    upright = page.evaluate("UPRIGHT.matches")
    svg = ground["svg_narrow"] if upright and ground["svg_narrow"] else ground["svg"]
    width = float(re.search(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+)', svg).group(1))
    scale = page.locator("#board").bounding_box()["width"] / width
    return [float(x) * scale for x in re.findall(r'<text [^>]*font-size="([\d.]+)"[^>]*class="label"', svg)]


@pytest.mark.parametrize("game", ["tortuga", "mahe", "race"])
def test_the_board_is_readable_on_a_phone_and_a_pc(browser, table, game):
    # Cell words at least 11 px on a phone held upright; a lit cell ringed in
    # a colour at full brightness (the LEDs are dimmed: 004000 is near black);
    # the phone's header keeps the language button beside the title.
    t = table(game, 2 if game != "race" else 3)
    t.pump()
    wait_until(lambda: any(c != "000000" for c in t.m.leds), "a lit LED (set the board out)", 30)
    for size in (PHONE, DESKTOP):
        for lang in ("en-GB", "fr-FR"):
            page, traffic = open_page(browser, t.web.url(), size, lang)
            page.wait_for_function("() => document.getElementById('board').naturalWidth > 0")
            sizes = label_sizes(page, traffic)
            assert sizes and min(sizes) >= 11, (size, min(sizes))
            lang_box = page.locator("#lang").bounding_box()
            title_box = page.locator("#title").bounding_box()
            assert abs((lang_box["y"] + lang_box["height"] / 2) - (title_box["y"] + title_box["height"] / 2)) < 12
            assert lang_box["x"] + lang_box["width"] <= size["width"]
            page.screenshot(path=os.path.join(SHOTS, "web-%s-%d-%s.png" % (game, size["width"], lang[:2])),
                            full_page=True)
            page.context.close()
    # the rings of the lit cells: full colours, never the LED's dimmed value
    from turtleboard.web.views import lit_cells

    with t.m.lock:
        lit = lit_cells(t.m.replica.game, json.loads((BOARDS / ("%s.json" % game)).read_text()), t.m.leds)
    assert lit
    page, traffic = open_page(browser, t.web.url(), PHONE)
    page.wait_for_function("() => document.getElementById('board').naturalWidth > 0")
    svg = [m for m in traffic.states() if m["game"]][-1]["game"]["svg_narrow"]
    rings = re.findall(r'<use href="#ring" stroke="#([0-9a-f]{6})"', svg)
    assert rings, svg[-500:]
    for ring in rings:
        assert max(int(ring[i:i + 2], 16) for i in (0, 2, 4)) == 255, ring
    for dimmed in set(lit.values()):
        if max(int(dimmed[i:i + 2], 16) for i in (0, 2, 4)) < 255:
            assert 'stroke="#%s"' % dimmed not in svg
