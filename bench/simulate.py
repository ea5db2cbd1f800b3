"""The whole table, simulated (docs/simulation.md): seeded families play on
every surface while faults strike; the seven promises are checked after
every step.

    python bench/simulate.py --seed 7 --minutes 10              # one table, one seed
    python bench/simulate.py --hours 2 --seed 1 --jobs 2        # a soak: seeds 1, 2, ... until 2 simulated hours
    python bench/simulate.py --mutations --minutes 20           # each mutation must be caught
    python bench/simulate.py --merge a.json b.json --out all.json  # soaks run on successive commits

A soak writes bench/results/simulate.json: simulated family-hours, games,
verbs tried per surface, faults injected, promises broken (each with its
seed, step and the command that replays it). A broken promise is printed
with that command at once.
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import multiprocessing
import os
import sys
import tempfile
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "firmware"))

from turtleboard.simulate.mutations import MUTATIONS, mutated  # noqa: E402
from turtleboard.simulate.table import GAMES, Table  # noqa: E402

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "simulate.json")
BLACKBOX = 6000  # a soak's table keeps its last lines of trace, written out if it breaks a promise


def one(seed: int, minutes: float, game=None, faults=True, mutation=None, until_step=None,
        verbose=False, folder=None, trace=False, browser=False, budget_s=None,
        traces: str | None = None) -> dict:
    """One table. `traces`: a folder where a table that breaks a promise
    leaves the trace of its last BLACKBOX lines (every frame, touch, press
    and page message), as its replay would print it: a soak's table, run
    beside others, may not replay the same from its seed (docs/simulation.md)."""
    folder = folder or tempfile.mkdtemp(prefix="tb-simulate-")
    start = time.monotonic()
    # a table that hangs says where, every 10 minutes (its waits all have deadlines)
    faulthandler.dump_traceback_later(600, repeat=True)
    log = (lambda s: print(s, flush=True)) if verbose or trace else None
    box = None
    if traces is not None and log is None:
        box = deque(maxlen=BLACKBOX)
        log, trace = box.append, True
    table = Table(seed, os.path.join(folder, "t%d" % seed), minutes=minutes, game=game,
                  faults=faults, mutation=mutation, stop_at_step=until_step,
                  log=log, trace=trace, browser=browser, budget_s=budget_s)
    try:
        with mutated(mutation):
            stats = table.run()
    except BaseException:
        import shutil

        table.close()
        shutil.rmtree(folder, ignore_errors=True)  # a run that failed leaves nothing either
        raise
    table.close()
    faulthandler.cancel_dump_traceback_later()
    out = {"seed": seed, "game": table.game_name, "tui": table.tui, "minutes": (table.clock.now - table.clock.start) / 60000,
           "real_s": round(time.monotonic() - start, 1), "lag_steps": table.lag, "stats": stats,
           "broken": [{"promise": b.promise, "what": b.what, "seed": b.seed, "step": b.step,
                       "replay": b.replay} for b in table.broken]}
    for b in table.broken:
        print("BROKEN promise %d, seed %d, step %d: %s\n  replay: %s"
              % (b.promise, b.seed, b.step, b.what, b.replay), flush=True)
    if box is not None and table.broken:
        os.makedirs(traces, exist_ok=True)
        path = os.path.join(traces, "seed-%d.log" % seed)
        with open(path, "w") as f:
            f.write("".join(line + "\n" for line in box))
        for b in out["broken"]:
            b["trace"] = path
        print("  its trace: %s" % path, flush=True)
    import shutil

    shutil.rmtree(folder, ignore_errors=True)
    return out


def merge(total: dict, run: dict) -> None:
    s = run["stats"]
    total["family_hours"] += run["minutes"] / 60
    total["games"] += s.get("games", 0)
    total["actions"] += s.get("actions", 0)
    total["runs"] += 1
    for surface, verbs in s.get("verbs", {}).items():
        per = total["verbs"].setdefault(surface, {})
        for verb, n in verbs.items():
            per[verb] = per.get(verb, 0) + n
    for kind, n in s.get("faults", {}).items():
        total["faults"][kind] = total["faults"].get(kind, 0) + n
    total["broken"].extend(run["broken"])
    total["games_by_name"][run["game"]] = total["games_by_name"].get(run["game"], 0) + run["minutes"] / 60
    for game, minutes in s.get("minutes_played", {}).items():
        total.setdefault("hours_played", {})[game] = total.get("hours_played", {}).get(game, 0) + minutes / 60
    total["lag_steps"] += run["lag_steps"]
    total["steps"] += s.get("steps", 0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--minutes", type=float, default=10.0, help="simulated minutes a table (default 10)")
    ap.add_argument("--hours", type=float, help="a soak: tables of --minutes with seeds from --seed on, "
                    "until this many simulated family-hours")
    ap.add_argument("--jobs", type=int, default=1, help="tables at once in a soak (default 1)")
    ap.add_argument("--game", choices=GAMES, help="the game (default: drawn by the seed, as the next ones)")
    ap.add_argument("--no-faults", action="store_true")
    ap.add_argument("--mutation", choices=sorted(MUTATIONS))
    ap.add_argument("--mutations", action="store_true",
                    help="run each mutation (or --mutation's) until a promise catches it")
    ap.add_argument("--until-step", type=int, help="stop at this step (a replay)")
    ap.add_argument("--verbose", "-v", action="store_true")
    ap.add_argument("--browser", action="store_true",
                    help="also open the table's page in headless Chromium, looked at every simulated minute")
    ap.add_argument("--trace", action="store_true",
                    help="also print every frame of the board, touch, button press and page message")
    ap.add_argument("--stock", action="store_true",
                    help="the boards as stock Picos (no ROM partition, no log area: the game log a file)")
    ap.add_argument("--out", default=RESULTS)
    ap.add_argument("--traces", default=os.path.join(tempfile.gettempdir(), "turtleboard-simulate-traces"),
                    help="a soak: where a table that breaks a promise leaves its last lines of trace")
    ap.add_argument("--merge", nargs="+", metavar="JSON",
                    help="combine soaks' results (each run on its commit: a fault found, fixed, the "
                    "soak started again) into --out: the totals, and each soak as it was")
    args = ap.parse_args(argv)
    if args.stock:
        os.environ["TURTLEBOARD_SIM_STOCK"] = "1"  # (read where each table's board is made, in every job)
    if args.merge:
        return merge_files(args.merge, args.out)
    if args.mutations:
        return check_mutations(args)
    if args.hours is None:
        run = one(args.seed, args.minutes, args.game, not args.no_faults, args.mutation,
                  args.until_step, verbose=True, trace=args.trace, browser=args.browser)
        print(json.dumps(run, indent=1, sort_keys=True))
        return 1 if run["broken"] else 0
    return soak(args)


def soak(args) -> int:
    """Tables of --minutes with seeds from --seed on, --jobs at once (each
    table its own process: a table waits on its board, host and pages
    far more than it computes), until --hours simulated family-hours."""
    total = {"family_hours": 0.0, "games": 0, "actions": 0, "runs": 0, "verbs": {}, "faults": {},
             "broken": [], "games_by_name": {}, "seeds": [], "minutes_a_table": args.minutes,
             "jobs": args.jobs, "lag_steps": 0, "steps": 0, "commit": commit(),
             "command": " ".join(["python bench/simulate.py"] + sys.argv[1:])}
    start = time.monotonic()
    seed = args.seed
    pool = ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("spawn"))
    running = {}
    try:
        while True:
            planned = total["family_hours"] + len(running) * args.minutes / 60
            while len(running) < args.jobs and planned < args.hours:
                running[pool.submit(one, seed, args.minutes, args.game, not args.no_faults,
                                    args.mutation, traces=args.traces)] = seed
                seed += 1
                planned += args.minutes / 60
            if not running:
                break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in done:
                run_seed = running.pop(fut)
                try:
                    run = fut.result()
                except Exception as e:  # the simulator's own failure: said with its seed, the soak goes on
                    total.setdefault("simulator_failed", []).append(
                        {"seed": run_seed, "what": repr(e)[:300],
                         "replay": "python bench/simulate.py --seed %d --minutes %g" % (run_seed, args.minutes)})
                    print("seed %d: the simulator failed: %r" % (run_seed, e), flush=True)
                    continue
                merge(total, run)
                total["seeds"].append(run_seed)
                total["real_hours"] = round((time.monotonic() - start) / 3600, 3)
                print("seed %d (%s): %.1f simulated min in %.0f s; %.2f family-hours so far, %d broken"
                      % (run_seed, run["game"], run["minutes"], run["real_s"], total["family_hours"],
                         len(total["broken"])), flush=True)
                with open(args.out + ".tmp", "w") as f:
                    json.dump(total, f, indent=1, sort_keys=True)
                os.replace(args.out + ".tmp", args.out)
    finally:
        pool.shutdown(cancel_futures=True)
    return 1 if total["broken"] else 0


def commit() -> str | None:
    """The checkout's commit (None outside a git checkout)."""
    import subprocess

    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=os.path.dirname(os.path.abspath(__file__)), timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def merge_files(paths: list, out: str) -> int:
    """Soaks' results in one: the sums, every broken promise with the soak
    (its commit) that found it, and each soak's own figures."""
    total = {"family_hours": 0.0, "games": 0, "actions": 0, "runs": 0, "verbs": {}, "faults": {},
             "broken": [], "games_by_name": {}, "hours_played": {}, "seeds": [], "lag_steps": 0, "steps": 0,
             "real_hours": 0.0, "soaks": []}
    for path in paths:
        with open(path) as f:
            soak = json.load(f)
        total["soaks"].append({k: soak.get(k) for k in ("commit", "command", "jobs", "minutes_a_table",
                                                         "family_hours", "real_hours", "runs", "games",
                                                         "hours_played")}
                              | {"seeds": [min(soak["seeds"]), max(soak["seeds"])] if soak.get("seeds") else [],
                                 "broken": len(soak.get("broken", []))})
        for key in ("family_hours", "games", "actions", "runs", "lag_steps", "steps", "real_hours"):
            total[key] += soak.get(key) or 0
        for group in ("faults", "games_by_name", "hours_played"):
            for k, n in soak.get(group, {}).items():
                total[group][k] = total[group].get(k, 0) + n
        for surface, verbs in soak.get("verbs", {}).items():
            per = total["verbs"].setdefault(surface, {})
            for verb, n in verbs.items():
                per[verb] = per.get(verb, 0) + n
        total["broken"] += [dict(b, commit=soak.get("commit")) for b in soak.get("broken", [])]
        total["seeds"] += soak.get("seeds", [])
        total.setdefault("simulator_failed", []).extend(soak.get("simulator_failed", []))
    total["family_hours"] = round(total["family_hours"], 3)
    total["real_hours"] = round(total["real_hours"], 3)
    with open(out + ".tmp", "w") as f:
        json.dump(total, f, indent=1, sort_keys=True)
    os.replace(out + ".tmp", out)
    print("%d soaks: %.2f family-hours, %d games, %d broken promises"
          % (len(paths), total["family_hours"], total["games"], len(total["broken"])))
    return 0


def check_mutations(args) -> int:
    """Each mutation breaks one promise; the table must catch it within
    one simulated hour (tables of --minutes, seeds from --seed on). A table
    that breaks another promise first is played again without the mutation
    up to that step: unbroken there, the mutation was caught (by that
    promise); broken there too, it is the product's own fault, reported."""
    missed = 0
    report = {}
    for name in [args.mutation] if args.mutation else sorted(MUTATIONS):
        promise, words = MUTATIONS[name][:2]
        spent = 0.0
        seed = args.seed
        caught = None
        other = []  # promises broken without the mutation too: the product's own faults
        while spent < 60 and caught is None:
            run = one(seed, min(args.minutes, 60 - spent), args.game, not args.no_faults, name)
            spent += run["minutes"]
            caught = next((b for b in run["broken"] if b["promise"] == promise), None)
            if caught is None and run["broken"]:
                first = run["broken"][0]
                control = one(seed, args.minutes, run["game"], not args.no_faults, None,
                              until_step=first["step"] + 1)
                if control["broken"]:
                    other += control["broken"]
                else:
                    caught = dict(first, control="the same seed without the mutation kept every "
                                  "promise to step %d" % (first["step"] + 1))
            seed += 1
        report[name] = {"promise": promise, "mutation": words,
                        "caught": caught is not None, "after_minutes": round(spent, 1),
                        "by": caught, "product_faults": other}
        print("%s (promise %d): %s after %.1f simulated minutes%s"
              % (name, promise, "caught" if caught else "MISSED", spent,
                 " by promise %d" % caught["promise"] if caught else ""), flush=True)
        missed += caught is None
        out = os.path.join(os.path.dirname(args.out), "simulate-mutations.json")
        with open(out + ".tmp", "w") as f:  # after each mutation: a long run's report so far
            json.dump(report, f, indent=1, sort_keys=True)
        os.replace(out + ".tmp", out)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
