"""The simulator's time: one clock for the board, the world and the people,
and the actors that live by it (docs/simulation.md).

An actor is a generator. It yields how long it waits (milliseconds of
simulated time), or `Until(test, ms)`: it waits until test() holds (looked
at after every step of the table) or `ms` have passed, and is sent True or
False. Actors at the same moment run in the order they were scheduled, so
one seed gives one order.
"""

from __future__ import annotations

import heapq


class Until:
    def __init__(self, test, ms: int):
        self.test = test
        self.ms = ms


class Actor:
    def __init__(self, name: str, gen):
        self.name = name
        self.gen = gen
        self.done = False


class Clock:
    def __init__(self, start_ms: int):
        self.now = start_ms
        self.start = start_ms
        self._heap: list = []
        self._n = 0
        self.waiting: list = []  # [actor, test, deadline]

    def at(self, t: int, actor: Actor, value=None) -> None:
        self._n += 1
        heapq.heappush(self._heap, (t, self._n, actor, value))

    def spawn(self, name: str, gen, delay: int = 0) -> Actor:
        actor = Actor(name, gen)
        self.at(self.now + delay, actor)
        return actor

    def next_time(self) -> int | None:
        times = [w[2] for w in self.waiting]
        if self._heap:
            times.append(self._heap[0][0])
        return min(times) if times else None

    def wake(self) -> None:
        """Actors whose wait is over, due now."""
        still = []
        for w in self.waiting:
            actor, test, deadline = w
            if test():
                self.at(self.now, actor, True)
            elif deadline <= self.now:
                self.at(self.now, actor, False)
            else:
                still.append(w)
        self.waiting = still

    def due(self, until: int):
        """The next actor due at or before `until` (its time becomes now), or None."""
        self.wake()
        if not self._heap or self._heap[0][0] > until:
            return None
        t, _, actor, value = heapq.heappop(self._heap)
        self.now = max(self.now, t)
        return actor, value

    def resume(self, actor: Actor, value=None) -> None:
        try:
            what = actor.gen.send(value)
        except StopIteration:
            actor.done = True
            return
        if isinstance(what, Until):
            self.waiting.append([actor, what.test, self.now + what.ms])
        else:
            self.at(self.now + max(0, int(what)), actor)

    def cancel(self, actor: Actor) -> None:
        actor.done = True
        self._heap = [e for e in self._heap if e[2] is not actor]
        heapq.heapify(self._heap)
        self.waiting = [w for w in self.waiting if w[0] is not actor]
        try:
            actor.gen.close()
        except Exception:
            pass
