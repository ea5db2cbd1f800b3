"""A small scripted peer on a real pseudo-terminal, for link-level tests.

It plays the far end of a serial port: the test opens `peer.path` with the
real Link (real pyserial on a real pty); the peer answers frames the way the
`handlers` dict says. It is not a board: end-to-end tests use the virtual
device (`turtleboard sim`).
"""

from __future__ import annotations

import os
import select
import threading
import tty

from controller import frames


class Peer:
    def __init__(self, hello=None, handlers=None, banner: bytes = b""):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.hello = hello  # payload answered to a host hello (None: stay silent)
        self.handlers = handlers or {}  # kind -> fn(seq, payload) -> list of bytes lines
        self.banner = banner
        self.received: list = []
        self.seq = 0
        self.reader = frames.LineReader()
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        if banner:
            self.write(banner)

    def frame(self, kind, payload=None) -> bytes:
        self.seq += 1
        return (frames.encode(self.seq, kind, payload or {}) + "\r\n").encode()

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def _run(self) -> None:
        while not self._stop:
            try:
                r, _, _ = select.select([self.master], [], [], 0.05)
                if not r:
                    continue
                data = os.read(self.master, 4096)
            except OSError:
                return
            for line in self.reader.feed(data):
                if line == "":
                    continue  # (a host ends any partial line as it connects)
                if line is None or not frames.is_frame(line):
                    self.received.append(("raw", line))
                    continue
                try:
                    seq, kind, payload = frames.decode(line)
                except frames.FrameError as e:  # as a board does: no `re`, it knows no seq
                    self.received.append(("bad", line))
                    self.write(self.frame("error", {"code": "bad-frame", "msg": "dropped a damaged frame: %s" % e}))
                    continue
                self.received.append((kind, payload))
                if kind == "hello" and self.hello is not None and "hello" not in self.handlers:
                    self.write(self.frame("hello", self.hello))
                elif kind in self.handlers:
                    for out in self.handlers[kind](seq, payload) or []:
                        self.write(out)

    def unplug(self) -> None:
        """Close our end: the host's next read sees the port vanish, and its
        path is gone. Our copy of the far end stays open until close(), so
        the system cannot give the pty's number to another test's pty (a
        reopen would find that one) while this test runs."""
        self._stop = True
        self._thread.join(1)
        self._close("master")

    def close(self) -> None:
        self.unplug()
        self._close("slave")

    def _close(self, end: str) -> None:
        fd = getattr(self, end)
        setattr(self, end, -1)  # closed once: the number may soon be another file's
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass
