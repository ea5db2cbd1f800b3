# When the garbage is collected, so that no collection falls between a
# sensor change and its `action` frame: in the cycle right after each commit
# (collect()), and in a quiet cycle once the board is still (the filesystem
# let rest then, where it can: hal/rp2.py); and once it has been still for
# seconds, the log area's sectors erased ahead, so that no log write meets
# an erase.

import gc

STILL_MS = 300         # the board this still after a change: a collection
PREPARE_MS = 2000      # this still: a sector of the log area erased ahead, one a cycle (~45 ms on a Pico)
COLLECT_EVERY = 1      # game changes without a still board: collect in a quiet cycle all the same


def collect(ctl):
    # The cycle after a commit (or a takeback) does only this (~12 ms on the
    # emulated Pico): a person lifts the next turtle 30 ms after the frame at
    # the quickest and puts it down 40 ms after that, so no move lands in it.
    # Later, between a lift and its put, one delayed the put's frame by its
    # length (fast chains: p99 36 ms from the put to its frame). A log in a
    # file writes the move's line here first (GameLog.write_behind()).
    ctl.collect_first = False
    log = ctl.session.log
    if log.behind is not None:
        try:
            log.write_behind()
        except Exception as e:
            ctl.link.error("log", "could not write the last move to the game log (%s); the next write "
                           "tries again, and after a power cut the board reads it again from the pieces" % (e,))
    gc.collect()
    ctl.collected = ctl.changes


def chores(ctl, now):
    # A garbage collection once the board has been still STILL_MS after a
    # change (~12 ms on the emulated Pico), so that no commit meets one; one
    # also after each game change (COLLECT_EVERY) when moves come quicker
    # than that: a heap left full of a few moves' garbage made every cycle
    # slower (on the emulated Pico the cycles that wait for a change to
    # settle grew from 1.2 to ~3 ms over four moves, the committing cycle by
    # ~2 ms: the sensor-to-`action` latency by ~3 ms). gc.mem_free() would
    # tell when the heap runs low, but it costs a collection's time.
    # Still PREPARE_MS: one sector of the log area erased ahead a cycle until
    # it has RESERVE ready (a move made meanwhile is seen when it ends).
    # True if this cycle did one of them.
    key = ctl.changes + ctl.seen_version  # grows with either
    still = ctl.hal.ticks_diff(now, ctl.stable_since)
    if ctl.hal.files_awake and still >= STILL_MS:  # woken for a file (a report acknowledged...)
        ctl.hal.rest_files()
    if key == ctl.chores_done:
        if ctl.prepared != key and still >= PREPARE_MS:
            try:
                if ctl.session.log.prepare():
                    return True
            except Exception:  # a write that finds no sector erased erases one itself
                pass
            ctl.prepared = key
        if ctl.changes - ctl.collected < COLLECT_EVERY:
            return False
    elif still < STILL_MS:
        if ctl.changes - ctl.collected < COLLECT_EVERY:
            return False
    else:
        ctl.chores_done = key
        if ctl.session.log.area is None:
            ctl.prepared = key  # (a log in a file: nothing to erase ahead)
    gc.collect()
    ctl.collected = ctl.changes
    return True
