#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/interop/lttng/expect.py - `ringtrace dump` of an rtr-lttng-app trace
against what the program wrote.

    expect.py TRACE RINGTRACE THREADS ROUNDS

Every event's fields are recomputed from its round and thread (the
formulas of tp.h and app.c) and compared with what `ringtrace dump`
prints: every value exactly, every event there once (THREADS x ROUNDS
rounds of the four events), the vpid/vtid/procname contexts consistent.
Exits 0 ("expect: N events as written"), or 1 naming the first mismatch.
"""
import ctypes
import struct
import subprocess
import sys

sys.path.insert(0, __file__.rsplit('/', 1)[0])
from compare import Parser, HEAD  # noqa: E402

STRINGS = [b"hello", b"", b"quote\" backslash\\ tab\t newline\n",
           b"\xc3\xa9t\xc3\xa9 \x01\x7f",
           b"a longer string, to span more than the eight bytes of the fixed text", b"x"]


def wrap(v, bits, signed):
    v &= (1 << bits) - 1
    if signed and v >> (bits - 1):
        v -= 1 << bits
    return v


def bswap(v, bits, signed):
    """A value given in host order to a network-order field reads back swapped:
    LTTng records its bytes as they are and declares them big-endian."""
    u = int.from_bytes(wrap(v, bits, False).to_bytes(bits // 8, 'little'), 'big')
    return wrap(u, bits, signed)


def f32(x):
    return struct.unpack('f', struct.pack('f', x))[0]


def color(v):
    return {0: 'RED', 6: 'BLUE', -3: 'MINUS'}.get(v, 'GREEN' if 1 <= v <= 5 else None)


def state(v):
    return {0: 'idle', 1: 'busy'}.get(v, 'gone' if 200 <= v <= 255 else None)


def enum(label, v):
    return ('enum', label, v) if label else v


def expected(name, i):
    if name == 'rtrtest:ints':
        c = (i % 9) - 3
        s = wrap(i * 29, 8, False)
        x = f32(f32(float(i)) / f32(3.0))
        return {
            's8': wrap(i * 37, 8, True), 'u8': wrap(i * 37, 8, False),
            's16': wrap(i * -4099, 16, True), 'u16': wrap(i * 4099, 16, False),
            's32': wrap(i * -268435459, 32, True), 'u32': wrap(i * 268435459, 32, False),
            's64': wrap(i * -1152921504606846977, 64, True),
            'u64': wrap(i * 1152921504606846977, 64, False),
            'x32': wrap(i * 2654435761, 32, False),
            'x64': wrap(i * -7046029254386353131, 64, False),
            'n16': bswap(i * 257, 16, False), 'n32': bswap(i * -16777259, 32, True),
            'n64': bswap(i * 0x0102030405060708, 64, False),
            'color': enum(color(c), c), 'state': enum(state(s), s),
            'f32': ('f32', f32(x - f32(1000.0))), 'f64': i * 1.0e-300 + i / 7.0,
        }
    if name == 'rtrtest:text':
        s = STRINGS[(i // 16) % 6]
        room = (s + b'\0' * 16)[:15] + b'\0'
        n = i % 9
        return {'str': s, 'empty': b'', 'fixed': room[:8].split(b'\0')[0],
                '_var_length': n, 'var': (s + b'\0' * 9)[:n].split(b'\0')[0], 'i': i}
    if name == 'rtrtest:seqs':
        a = [wrap(i, 32, True), wrap(-i, 32, True), 2**31 - 1, -2**31]
        b = [wrap(i, 16, False), 0xffff, 0, 0xbeef]
        return {'arr': a, 'hexarr': b[:3], '_seq_length': i % 5, 'seq': b[:i % 5],
                '_seq2_length': i % 4, 'seq2': a[:i % 4], '_hexseq_length': i % 3,
                'hexseq': b[:i % 3]}
    if name == 'rtrtest:empty':
        return {}
    raise ValueError("unknown event " + name)


def alike(want, got):
    if isinstance(want, tuple) and want[0] == 'f32':
        g = float(got[1]) if isinstance(got, tuple) else float(got)
        return f32(g) == want[1]
    if isinstance(want, float):
        return isinstance(got, tuple) and got[0] == 'float' and float(got[1]) == want or \
            isinstance(got, int) and float(got) == want
    if isinstance(want, list):
        return isinstance(got, list) and len(want) == len(got) and \
            all(alike(x, y) for x, y in zip(want, got))
    return want == got


def main():
    trace, rt, threads, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    out = subprocess.run([rt, 'dump', '--clock-seconds', trace], capture_output=True,
                         timeout=600)
    if out.returncode:
        print("expect: ringtrace dump exit %d: %s" % (out.returncode, out.stderr[-500:]))
        return 1
    seen = {}
    last_i = {}
    pending = {}

    def check(name, i, fields, line):
        want = expected(name, i)
        if list(want) != list(fields) or not all(alike(want[k], fields[k]) for k in want):
            print("expect: %s i=%d is not as written:\n  want %r\n  got  %r\n  %s" %
                  (name, i, want, fields, line))
            return False
        seen[(name, i)] = seen.get((name, i), 0) + 1
        return True

    for line in out.stdout.decode('utf-8', 'surrogateescape').splitlines():
        rest = HEAD.match(line).group(3)
        brace = rest.index(': {')
        name = rest[:brace].split(' ')[-1]
        groups = Parser(rest, brace + 1).groups()
        ctx, fields = groups[0], groups[-1]
        if ctx.get('procname') != b'rtr-lttng-app':
            print("expect: bad context: " + line)
            return 1
        tid = ctx['vtid']
        # A round is ints, text (which carries i), seqs, empty, per thread.
        if name == 'rtrtest:ints':
            pending.setdefault(tid, []).append((fields, line))
            continue
        if name == 'rtrtest:text':
            last_i[tid] = fields['i']
            for pf, pl in pending.pop(tid, []):
                if not check('rtrtest:ints', last_i[tid], pf, pl):
                    return 1
        if tid not in last_i:
            print("expect: %s before its round's text event: %s" % (name, line))
            return 1
        if not check(name, last_i[tid], fields, line):
            return 1
    if any(pending.values()):
        print("expect: ints events without their round's text event")
        return 1
    total = sum(seen.values())
    if total != threads * rounds * 4 or any(n != 1 for n in seen.values()):
        print("expect: %d events, %d expected (each once)" % (total, threads * rounds * 4))
        return 1
    print("expect: %d events as written" % total)
    return 0


if __name__ == '__main__':
    sys.exit(main())
