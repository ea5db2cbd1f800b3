# Deterministic JSON text: sorted keys, no spaces. MicroPython's json keeps
# dict order of its own, so views, hashes and logs go through this instead.


def dumps(obj):
    out = []
    _write(obj, out)
    return "".join(out)


def _write(obj, out):
    if obj is None:
        out.append("null")
    elif obj is True:
        out.append("true")
    elif obj is False:
        out.append("false")
    elif isinstance(obj, int):
        out.append(str(obj))
    elif isinstance(obj, str):
        out.append(quote(obj))
    elif isinstance(obj, (list, tuple)):
        out.append("[")
        first = True
        for item in obj:
            if not first:
                out.append(",")
            first = False
            _write(item, out)
        out.append("]")
    elif isinstance(obj, dict):
        out.append("{")
        first = True
        for key in sorted(obj):
            if not first:
                out.append(",")
            first = False
            out.append(quote(str(key)))
            out.append(":")
            _write(obj[key], out)
        out.append("}")
    else:
        raise TypeError("cannot write %r as JSON text" % (obj,))


def plain(s):
    # Is `s` printable ASCII with nothing to escape in a JSON string?
    b = s.encode()  # min/max over bytes: 10x faster than over str on MicroPython
    return len(b) == len(s) and (not b or (min(b) >= 32 and max(b) <= 126)) and '"' not in s and "\\" not in s


def quote(s):
    # A JSON string of `s`, as dumps() writes one.
    if plain(s):
        return '"' + s + '"'  # nothing to escape
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif o < 0x20 or o > 0x7E:
            if o > 0xFFFF:
                o -= 0x10000
                out.append("\\u%04x\\u%04x" % (0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)))
            else:
                out.append("\\u%04x" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)
