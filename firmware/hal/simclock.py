# The sim HAL's stepped clock: time as a simulator gives it
# (docs/simulation.md), for the simulated table only; `turtleboard sim`
# and the device never load it. The simulator owns the time: the firmware
# asks through two pipes in the world folder (clock.out, clock.in) and
# blocks in sleep_ms until the simulator grants the moment it sleeps to.
# Serial input comes in counted amounts (the grant says how many bytes the
# simulator has put on the port), so the firmware reads the same bytes in
# the same cycle however busy the machine is. A Pico's ticks wrap at 2**30:
# so do these.
#
#   firmware -> simulator   w <until ms> <bytes written> <bytes read> <boot> <now ms>
#   simulator -> firmware   g <now ms> <bytes put in> <horizon ms> <boot>
#
# Until the horizon the firmware sleeps without asking, as long as it has
# written nothing since the last grant, or wrote it less than USB_MS ago
# (the host may answer what it wrote: it hears it within USB_MS, as a
# Pico's USB and a PC's reader take some milliseconds too); <now> is when
# it asks, which the simulator's clock takes before the people see what it
# wrote.

PERIOD = 1 << 30
MASK = PERIOD - 1
HALF = PERIOD >> 1
USB_MS = 20


class SteppedClock:
    def __init__(self, world, boot, stdin, stdout):
        self.boot = boot.encode()
        self._ask_to = open(world + "/clock.out", "wb")
        self._grants = open(world + "/clock.in", "rb")
        self._stdin = stdin
        self._stdout = stdout
        self.now = 0
        self.horizon = 0
        self.put = 0      # serial bytes the simulator has put on the port for this boot
        self.taken = 0    # ... of which read
        self.written = 0  # serial bytes written this boot
        self.told = 0     # `written` as the simulator last heard it
        self.wrote_at = 0  # when the first byte it has not heard of was written
        self.ask(-1)

    def ask(self, until):
        line = "w %d %d %d %s %d\n" % (until, self.written, self.taken, self.boot.decode(), self.now)
        self._ask_to.write(line.encode())
        while True:
            parts = self._grants.readline().split()
            if not parts:
                raise SystemExit  # the simulator is gone: so is the power
            if len(parts) == 5 and parts[0] == b"g" and parts[4] == self.boot:
                self.now = int(parts[1])
                self.put = int(parts[2])
                self.horizon = int(parts[3])
                self.told = self.written
                return
            # a grant for a boot before this one (the power was cut): not ours

    def ticks_ms(self):
        return self.now & MASK

    def ticks_diff(self, a, b):
        d = (a - b) & MASK
        return d - PERIOD if d >= HALF else d

    def sleep_ms(self, ms):
        until = self.now + ms
        if until <= self.horizon and (self.written == self.told or until - self.wrote_at <= USB_MS):
            self.now = until
        else:
            self.ask(until)

    def serial_read(self):
        n = self.put - self.taken
        if n <= 0:
            return b""
        n = min(n, 256)
        data = b""
        while len(data) < n:
            more = self._stdin.read(n - len(data))
            if not more:
                raise SystemExit  # the port is gone
            data += more
        self.taken += n
        return data

    def serial_write(self, data):
        if self.written == self.told:
            self.wrote_at = self.now
        self.written += len(data)
        self._stdout.write(data)
        if hasattr(self._stdout, "flush"):
            self._stdout.flush()
