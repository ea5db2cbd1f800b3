"""Where the live heap goes, read from OUTSIDE the emulated RP2040 (issue 36):
the allocation table and the pool copied out of the emulated SRAM at an
instant the heap holds only what is live (1 s after an `action` frame: the
firmware collects once the board has been still 300 ms), each allocation
named by what it is:

- an object whose first word is a type in flash: that type (`dict`,
  `fun_bc`, `tuple`, `bytearray`...);
- a class made by the firmware (its first word `mp_type_type`): `class X`,
  and an object whose first word is such a class: `X` (an instance);
- MicroPython's interned names' pools (`qstr pool`) and their text;
- anything else (a dict's table, a list's items, a bytearray's bytes, a
  closure's cells) by the object that points at it: `[dict] via X`.

The names of the firmware's classes are its interned names, read through the
pools from the emulated memory; the types and MicroPython's state come from
the image's ELF (DWARF, read by gdb).

    python bench/pico_emu_heapwatch.py romfs MOVES --map
"""

import subprocess
from collections import Counter

BLOCK = 16


def elf_facts(elf):
    # -> ({address: type name} of the types in flash, {what: address})
    types = {}
    out = subprocess.run(["arm-none-eabi-nm", elf], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "rRdD" and ("_type" in parts[2]):
            name = parts[2]
            for cut in ("mp_type_", "machine_", "mp_"):
                if name.startswith(cut):
                    name = name[len(cut):]
                    break
            types[int(parts[0], 16)] = name
    g = subprocess.run(["gdb", "-batch", "-ex", "print/x (int)&mp_state_ctx.vm.last_pool",
                        "-ex", "print/x (int)&mp_type_type", elf],
                       capture_output=True, text=True, check=True).stdout
    vals = [int(x.split("=")[1], 16) for x in g.splitlines() if x.startswith("$")]
    return types, {"last_pool": vals[0], "type_type": vals[1]}


class Memory:
    def __init__(self, ctl):
        self.ctl = ctl

    def read(self, at, n):
        out = b""
        while n > 0:  # in pieces: the control socket answers in hex
            k = min(n, 65536)
            out += bytes.fromhex(self.ctl.cmd(mem=[[at, k]])["mem"][0])
            at += k
            n -= k
        return out

    def word(self, at):
        return int.from_bytes(self.read(at, 4), "little")


def qstrs(mem, last_pool, in_ram=None):
    # -> {qstr id: text} from every pool (MicroPython's own in flash, the
    # firmware's in the heap), and the pools' addresses; `in_ram` (a list)
    # gets the names whose text is in SRAM (made at run time, not read
    # from flash)
    names, pools = {}, []
    p = mem.word(last_pool)
    while p:
        head = mem.read(p, 24)
        w = [int.from_bytes(head[i:i + 4], "little") for i in range(0, 24, 4)]
        prev, total_prev, n, lengths = w[0], w[1] & 0x7FFFFFFF, w[3], w[5]
        pools.append(p)
        ptrs = mem.read(p + 24, 4 * n)
        lens = mem.read(lengths, n)
        for i in range(n):
            at = int.from_bytes(ptrs[4 * i:4 * i + 4], "little")
            names[total_prev + i] = mem.read(at, lens[i]).decode("utf-8", "replace") if lens[i] < 200 else "?"
            if in_ram is not None and at >= 0x20000000:
                in_ram.append(names[total_prev + i])
        p = prev
    return names, pools


def allocations(atb, pool_start):
    # -> [(address, bytes)] of every allocation (a head block and its tails)
    out = []
    start = None
    for i in range(len(atb) * 4):
        kind = atb[i // 4] >> (2 * (i % 4)) & 3
        if kind == 2 and start is not None:  # a tail
            continue
        if start is not None:
            out.append((pool_start + start * BLOCK, (i - start) * BLOCK))
            start = None
        if kind in (1, 3):  # a head (3: marked)
            start = i
    if start is not None:
        out.append((pool_start + start * BLOCK, (len(atb) * 4 - start) * BLOCK))
    return out


def breakdown(ctl, heap, elf):
    mem = Memory(ctl)
    types, facts = elf_facts(elf)
    atb = mem.read(heap.atb, heap.atb_len)
    pool = mem.read(heap.pool, heap.pool_end - heap.pool)
    in_ram = []
    names, pools = qstrs(mem, facts["last_pool"], in_ram)
    allocs = allocations(atb, heap.pool)
    at = {a: n for a, n in allocs}

    def words(a, n):
        o = a - heap.pool
        return [int.from_bytes(pool[o + i:o + i + 4], "little") for i in range(0, n, 4)]

    first = {a: words(a, 4)[0] for a, _ in allocs}
    label = {}
    for a, _n in allocs:
        w0 = first[a]
        if a in pools:
            label[a] = "qstr pool"
        elif w0 == facts["type_type"]:
            q = int.from_bytes(pool[a - heap.pool + 6:a - heap.pool + 8], "little")
            label[a] = "class " + names.get(q, "#%d" % q)
        elif w0 in types:
            label[a] = types[w0]
    for a, _n in allocs:  # instances of the firmware's classes
        w0 = first[a]
        if a not in label and w0 in at and first.get(w0) == facts["type_type"]:
            label[a] = label[w0][6:]
    holder = {}  # who holds each allocation: the first that points at it
    for a, n in allocs:
        for w in words(a, n):
            if w in at and w != a and w not in holder:
                holder[w] = a
    for _ in range(4):  # anything else by what holds it
        for a, _n in allocs:
            if a not in label and holder.get(a) in label:
                label[a] = "[raw] via " + label[holder[a]]
    # Whose each allocation is: every module's objects found from it (its
    # globals, its functions and classes, what they hold), the nearest
    # module first, never through another module.
    qname = {v: k for k, v in names.items()}
    name_q = (qname.get("__name__", -1) << 3) | 2
    owner = {}
    frontier = []
    for a, _n in allocs:
        if label.get(a) == "module":
            g = words(a, 8)[1]  # the module's globals dict
            mod = "?"
            if g in at:
                table = words(g, 16)[3]
                if table in at:
                    ws = words(table, at[table])
                    for i in range(0, len(ws) - 1, 2):
                        if ws[i] == name_q and ws[i + 1] & 7 == 2:
                            mod = names.get(ws[i + 1] >> 3, "?")
            owner[a] = mod
            frontier.append(a)
    while frontier:
        nxt = []
        for a in frontier:
            for w in words(a, at[a]):
                if w in at and w not in owner and label.get(w) != "module":
                    owner[w] = owner[a]
                    nxt.append(w)
        frontier = nxt
    # The firmware's object each built-in one belongs to (up three holders).
    builtin = set(types.values()) | {"qstr pool"}
    held_by = Counter()
    for a, n in allocs:
        k = label.get(a, "unknown")
        if k.split(" via ")[-1] in builtin or k.startswith("[raw]") or k == "unknown":
            h, up = holder.get(a), 0
            while h is not None and up < 3 and (label.get(h, "unknown").split(" via ")[-1] in builtin
                                                or label.get(h, "unknown").startswith("[raw]")):
                h, up = holder.get(h), up + 1
            who = label.get(h, "?") if h is not None else "-"
            held_by[(k if not k.startswith("[raw]") else "[raw]", who, owner.get(a, "(no module)"))] += n
    by_module = Counter()
    for a, n in allocs:
        by_module[owner.get(a, "(no module)")] += n
    by = Counter()
    count = Counter()
    for a, n in allocs:
        k = label.get(a, "unknown")
        if k.startswith("[raw] via [raw] via"):
            k = "[raw] via " + k.rsplit(" via ", 1)[1]
        by[k] += n
        count[k] += 1
    return {"total_bytes": sum(n for _, n in allocs), "allocations": len(allocs),
            "qstrs": len(names),
            "names_made_at_run_time": [len(in_ram), sum(len(x) + 1 for x in in_ram), in_ram[:400]],
            "by_what": [[k, v, count[k]] for k, v in by.most_common()],
            "by_module": by_module.most_common(),
            "largest": [[label.get(a, "unknown"), owner.get(a, "(no module)"), n]
                        for a, n in sorted(allocs, key=lambda x: -x[1])[:60]],
            "held_by": [[k[0], k[1], k[2], v] for k, v in held_by.most_common(80)],
            "by_module_and_what": sorted([[m, w, v] for (m, w), v in _sum_by(allocs, owner, label).items()], key=lambda x: -x[2])[:120]}


def _sum_by(allocs, owner, label):
    out = Counter()
    for a, n in allocs:
        k = label.get(a, "unknown")
        if " via " in k:
            k = "[raw] via " + k.rsplit(" via ", 1)[1]
        out[(owner.get(a, "(no module)"), k)] += n
    return out
