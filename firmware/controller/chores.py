# What a quiet cycle does once the board is still: the game log written
# behind the moves the sensors committed, and a garbage collection, so that
# neither falls between a sensor change and its `action` frame.

import gc

STILL_MS = 300         # the board this still after a change: the log written behind, a collection
COLLECT_EVERY = 1      # game changes without a still board: collect in a quiet cycle all the same


def chores(ctl, now):
    # The actions the sensors committed go to flash once the board has been
    # still STILL_MS after a change, or at once (in this quiet cycle, after
    # the last one's `action` frame has gone) when more than one waits: after
    # a power cut the pieces show only the last move again. A write stalls
    # the cycle (on a Pico ~0.8 ms a page, ~45 ms a sector erased). Then, in
    # the next still cycle, a garbage collection (~12 ms on the emulated
    # Pico), so that no commit meets one; one also after each game change
    # (COLLECT_EVERY) when moves come quicker than that: a heap left full of
    # a few moves' garbage made every cycle slower (on the emulated Pico the
    # cycles that wait for a change to settle grew from 1.2 to ~3 ms over
    # four moves, the committing cycle by ~2 ms: the sensor-to-`action`
    # latency by ~3 ms). gc.mem_free() would tell when the heap runs low,
    # but it costs a collection's time. True if this cycle did one of them.
    key = ctl.changes + ctl.seen_version  # grows with either
    log = ctl.session.log
    due = ctl.hal.ticks_diff(now, ctl.stable_since) >= STILL_MS
    waiting = log.pending()
    if waiting and key != ctl.chores_done and (due or waiting > 1):
        try:
            log.write_pending()
        except Exception as e:
            ctl.chores_done = key  # tried again after the next change
            ctl.link.error("log", "could not write %d actions to the game log (%s); a power cut "
                           "before they are written loses them" % (log.pending(), e))
        return True
    if key == ctl.chores_done or not due:
        if ctl.changes - ctl.collected < COLLECT_EVERY:
            return False
    else:
        ctl.chores_done = key
    gc.collect()
    ctl.collected = ctl.changes
    return True
