# What a quiet cycle does once the board is still: the game log written
# behind the moves the sensors committed, and a garbage collection, so that
# neither falls between a sensor change and its `action` frame.

import gc

STILL_MS = 300         # the board this still after a change: the log written behind, a collection
COLLECT_EVERY = 4      # game changes without a still board: collect in a quiet cycle all the same


def chores(ctl, now):
    # Once the board has been still STILL_MS after a change: the actions
    # the sensors committed to flash (a write stalls the cycle: on a Pico
    # ~0.8 ms a page, ~45 ms a sector erased), then in the next such
    # cycle a garbage collection (~12 ms on the emulated Pico), so that
    # no commit meets one; one also after COLLECT_EVERY game changes
    # when moves come quicker than that (gc.mem_free() would tell when
    # the heap runs low, but it costs a collection's time). True if this
    # cycle did one of them.
    key = ctl.changes + ctl.seen_version  # grows with either
    if key == ctl.chores_done or ctl.hal.ticks_diff(now, ctl.stable_since) < STILL_MS:
        if ctl.changes - ctl.collected < COLLECT_EVERY:
            return False
    elif ctl.session.log.pending():
        log = ctl.session.log
        try:
            log.write_pending()
        except Exception as e:
            ctl.chores_done = key  # tried again after the next change
            ctl.link.error("log", "could not write %d actions to the game log (%s); a power cut "
                            "before they are written loses them" % (log.pending(), e))
        return True
    else:
        ctl.chores_done = key
    gc.collect()
    ctl.collected = ctl.changes
    return True
