#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/interop/lttng/compare.py - `ringtrace dump` against babeltrace2's text.

    compare.py TRACE RINGTRACE

Runs `babeltrace2 --clock-seconds TRACE` and `RINGTRACE dump --clock-seconds
TRACE` and compares them event by event: the same events in the same order,
each with the same time (to the nanosecond; within one nanosecond of
babeltrace2's rounding when the clock is not 1 GHz), host, CPU, name,
contexts and fields, every value exactly.  The two print values their own
way (babeltrace2: enumerations as ( "LABEL" : container = N ), arrays as
[ [0] = a, ... ], hexadecimal in capitals, floats with %g, UTF-8 bytes as
they are); both are parsed back into values first.  Floats compare as
babeltrace2 prints them: ringtrace's exact value, formatted with %g.

One exception, counted and reported: babeltrace2 2.0 gives an empty string,
or an empty text sequence, the previous event's value of that field
(efficios/babeltrace pull request #116, fixed after 2.0.4, Debian 12's
version).  Where ringtrace reads an empty string and babeltrace2 another,
babeltrace2 is taken to be wrong; the tests check those values against
what the program wrote.

Losses: babeltrace2's "Tracer discarded N events|packets ... within stream
"FILE"" warnings, summed per stream file, against the events-lost and
packets-lost columns of `RINGTRACE check TRACE`.

A trace without a clock: babeltrace2 prints no time, ringtrace prints
time 0; that is compared.

Prints "compare: N events alike; losses alike: E events, P packets" and
exits 0, or names the first difference and exits 1.
"""
import re
import subprocess
import sys


class Parser:
    """A value of either printer, as Python values:
    int, ('float', text), bytes, ('enum', label or None, int), list, dict."""

    def __init__(self, s, pos=0):
        self.s = s
        self.i = pos

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] == ' ':
            self.i += 1

    def peek(self, t):
        self.ws()
        return self.s.startswith(t, self.i)

    def eat(self, t):
        self.ws()
        if not self.s.startswith(t, self.i):
            raise ValueError("expected %r at %d: %r" % (t, self.i, self.s[self.i:self.i + 40]))
        self.i += len(t)

    def string(self):
        self.eat('"')
        out = bytearray()
        while True:
            c = self.s[self.i]
            self.i += 1
            if c == '"':
                return bytes(out)
            if c != '\\':
                out += c.encode('utf-8', 'surrogateescape')
                continue
            e = self.s[self.i]
            self.i += 1
            if e == 'x':
                out.append(int(self.s[self.i:self.i + 2], 16))
                self.i += 2
            else:
                out += {'n': b'\n', 't': b'\t', 'r': b'\r', '0': b'\0', 'v': b'\v',
                        'f': b'\f', 'a': b'\a', 'b': b'\b', 'e': b'\x1b'}.get(
                            e, e.encode())

    NUM = re.compile(r'-?(0x[0-9a-fA-F]+|0b[01]+|[0-9.]+(e[-+]?[0-9]+)?|inf|nan)')

    def number(self):
        self.ws()
        m = self.NUM.match(self.s, self.i)
        if not m:
            raise ValueError("no value at %d: %r" % (self.i, self.s[self.i:self.i + 40]))
        self.i = m.end()
        t = m.group(0)
        neg = t.startswith('-')
        u = t[1:] if neg else t
        if u.startswith('0x'):
            v = int(u, 16)
        elif u.startswith('0b'):
            v = int(u[2:], 2)
        elif re.fullmatch(r'0[0-7]+', u):
            v = int(u, 8)
        elif re.fullmatch(r'[0-9]+', u):
            v = int(u)
        else:
            return ('float', t)
        return -v if neg else v

    def value(self):
        self.ws()
        c = self.s[self.i]
        if c == '"':
            v = self.string()
            m = re.compile(r' \((-?[0-9]|0x)').match(self.s, self.i)
            if m:
                # ringtrace's enumeration whose label is no identifier: "LABEL" (N)
                self.eat('(')
                n = self.number()
                self.eat(')')
                return ('enum', v.decode('utf-8', 'surrogateescape'), n)
            return v
        if c == '{':
            return self.struct()
        if c == '[':
            return self.array()
        if c == '(':
            # babeltrace2's enumeration: ( "L" : container = N ), ( { "A", "B" } : ... ),
            # ( <unknown> : container = N )
            self.eat('(')
            labels = []
            if self.peek('"'):
                labels.append(self.string())
            elif self.peek('{'):
                self.eat('{')
                while not self.peek('}'):
                    labels.append(self.string())
                    if self.peek(','):
                        self.eat(',')
                self.eat('}')
            else:
                self.eat('<unknown>')
            self.eat(':')
            self.eat('container')
            self.eat('=')
            v = self.number()
            self.eat(')')
            return ('enum', labels[0].decode() if labels else None, v)
        m = re.compile(r'[A-Za-z_][A-Za-z0-9_]* \(').match(self.s, self.i)
        if m:
            # ringtrace's enumeration: LABEL (N)
            label = self.s[self.i:m.end() - 2]
            self.i = m.end()
            v = self.number()
            self.eat(')')
            return ('enum', label, v)
        return self.number()

    def array(self):
        self.eat('[')
        out = []
        while not self.peek(']'):
            if self.peek('[') and re.compile(r'\[\d+\] = ').match(self.s, self.i):
                self.i = self.s.index('] = ', self.i) + 4
            out.append(self.value())
            if self.peek(','):
                self.eat(',')
        self.eat(']')
        return out

    def struct(self):
        self.eat('{')
        out = {}
        self.ws()
        if self.s[self.i] in '{["(-0123456789':
            # babeltrace2's variant: { VALUE }, its option's value without its name
            v = self.value()
            self.eat('}')
            return ('variant', v)
        while not self.peek('}'):
            self.ws()
            m = re.compile(r'[A-Za-z_][A-Za-z0-9_]*').match(self.s, self.i)
            if not m:
                raise ValueError("no field name at %d: %r" % (self.i, self.s[self.i:self.i + 40]))
            self.i = m.end()
            self.eat('=')
            out[m.group(0)] = self.value()
            if self.peek(','):
                self.eat(',')
        self.eat('}')
        return out

    def groups(self):
        out = [self.struct()]
        while self.peek(','):
            self.eat(',')
            out.append(self.struct())
        return out


HEAD = re.compile(r'\[(-?\d+)\.(\d{9})\] \(\+[?0-9.]+\) (.*)$')


def parse_bt2(line):
    m = HEAD.match(line)
    if m:
        sec, nsec, rest = int(m.group(1)), int(m.group(2)), m.group(3)
    else:
        # a trace without a clock: babeltrace2 prints no time
        sec, nsec, rest = None, 0, line
    # HOST NAME: { cpu_id = N }, { ... }; an event with no field at all, not
    # even a context: HOST NAME:, its empty payload as ringtrace prints it, { }
    if ': {' not in rest and rest.rstrip().endswith(':'):
        head = rest.rstrip()[:-1]
        host, name = head.split(' ', 1) if ' ' in head else ('', head)
        return (None if sec is None else sec * 10**9 + nsec, host, None, name, [{}])
    brace = rest.index(': {')
    head = rest[:brace]
    host, name = head.split(' ', 1) if ' ' in head else ('', head)
    groups = Parser(rest, brace + 1).groups()
    cpu = groups[0].pop('cpu_id', None) if groups else None
    if groups and not groups[0]:
        groups.pop(0)
    return (None if sec is None else sec * 10**9 + nsec, host, cpu, name, groups)


def parse_rt(line):
    m = HEAD.match(line)
    sec, nsec, rest = int(m.group(1)), int(m.group(2)), m.group(3)
    brace = rest.index(': {')
    parts = rest[:brace].split(' ')
    # HOST cpu N NAME (the host may be empty)
    i = parts.index('cpu')
    host, cpu, name = ' '.join(parts[:i]), int(parts[i + 1]), ' '.join(parts[i + 2:])
    groups = Parser(rest, brace + 1).groups()
    return (sec * 10**9 + nsec, host, cpu, name, groups)


STALE = [0]


def same(b, r):
    """babeltrace2's value @b and ringtrace's @r alike?"""
    if isinstance(b, bytes) and r == b'' and b != b'':
        STALE[0] += 1       # babeltrace2 2.0's empty string: the previous value
        return True
    if isinstance(b, tuple) and b[0] == 'float':
        if isinstance(r, tuple) and r[0] == 'float':
            rv = float(r[1])
        elif isinstance(r, int):
            rv = float(r)
        else:
            return False
        return '%g' % rv == b[1] or float(b[1]) == float('%g' % rv)
    if isinstance(b, int) and isinstance(r, tuple) and r[0] == 'float':
        return '%g' % float(r[1]) == str(b)
    if isinstance(b, tuple) and b[0] == 'enum':
        if isinstance(r, tuple) and r[0] == 'enum':
            return b[2] == r[2] and b[1] == r[1]
        return b[1] is None and b[2] == r
    if isinstance(b, int) and isinstance(r, int):
        return b == r or b % (1 << 64) == r % (1 << 64)
    if isinstance(b, list) and isinstance(r, (list, bytes)):
        if isinstance(r, bytes):
            return False
        return len(b) == len(r) and all(same(x, y) for x, y in zip(b, r))
    if isinstance(b, tuple) and b[0] == 'variant':
        # ringtrace names the option: { option = VALUE }
        return isinstance(r, dict) and len(r) == 1 and same(b[1], list(r.values())[0])
    if isinstance(b, dict) and isinstance(r, dict):
        return list(b) == list(r) and all(same(b[k], r[k]) for k in b)
    return b == r


# "between [T1] and [T2]", or "(unknown time range)" when the packets have no times
LOSS = re.compile(r'Tracer discarded (\d+) (event|packet)s? (between |\(unknown time range\)).* '
                  r'within stream "([^"]*)"')


def losses(bt_stderr, rt, trace):
    """(ok, message): per stream file, babeltrace2's losses against ringtrace check's."""
    want = {}
    for line in bt_stderr.splitlines():
        m = LOSS.search(line)
        if m:
            k = (m.group(4).rsplit('/', 1)[-1], m.group(2))
            # babeltrace2 2.0 reports a producer's events_discarded that went
            # down as 2^64 minus the drop; the sum modulo 2^64 telescopes to
            # the stream's true total, which ringtrace check counts
            want[k] = (want.get(k, 0) + int(m.group(1))) % (1 << 64)
    out = subprocess.run([rt, 'check', trace], capture_output=True, timeout=600)
    got = {}
    stream = None
    for line in out.stdout.decode(errors='replace').splitlines():
        f = line.split()
        if len(f) == 7 and f[6] in ('ok', 'DAMAGED') and f[2].isdigit():
            stream = f[0].rsplit('/', 1)[-1]   # under its trace's directory, if several
            got[(stream, 'event')] = int(f[4])
            got[(stream, 'packet')] = int(f[5])
        m = re.match(r'  lost before its first packet: (\d+) packets and (\d+) events', line)
        if m and stream:
            # babeltrace2 counts losses between packets only
            got[(stream, 'packet')] -= int(m.group(1))
            got[(stream, 'event')] -= int(m.group(2))
    got = {k: v for k, v in got.items() if v}
    if want != got:
        return False, "losses differ: babeltrace2 %r, ringtrace check %r" % (want, got)
    return True, "losses alike: %d events, %d packets" % (
        sum(v for k, v in want.items() if k[1] == 'event'),
        sum(v for k, v in want.items() if k[1] == 'packet'))


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    trace, rt = sys.argv[1], sys.argv[2]
    bt = subprocess.run(['babeltrace2', '--clock-seconds', trace], capture_output=True,
                        timeout=600)
    rd = subprocess.run([rt, 'dump', '--clock-seconds', trace], capture_output=True,
                        timeout=600)
    if bt.returncode or rd.returncode:
        print("compare: babeltrace2 exit %d, ringtrace dump exit %d\n%s%s" %
              (bt.returncode, rd.returncode, bt.stderr.decode(errors='replace')[-2000:],
               rd.stderr.decode(errors='replace')[-2000:]))
        return 1
    bl = bt.stdout.decode('utf-8', 'surrogateescape').splitlines()
    rl = [x for x in rd.stdout.decode('utf-8', 'surrogateescape').splitlines()
          if ': lost ' not in x]
    for n, (b, r) in enumerate(zip(bl, rl)):
        try:
            pb, pr = parse_bt2(b), parse_rt(r)
        except (ValueError, IndexError, AttributeError) as e:
            print("compare: event %d does not parse (%s):\n  babeltrace2: %s\n  ringtrace:   %s"
                  % (n, e, b, r))
            return 1
        tb, tr = pb[0], pr[0]
        # no clock: babeltrace2 prints no time, ringtrace time 0
        ok = (tr == 0 if tb is None else abs(tb - tr) <= 1) and pb[1] == pr[1] and pb[3] == pr[3] and \
            (pb[2] is None or pb[2] == pr[2]) and len(pb[4]) == len(pr[4]) and \
            all(same(x, y) for x, y in zip(pb[4], pr[4]))
        if not ok:
            print("compare: event %d differs:\n  babeltrace2: %s\n  ringtrace:   %s" % (n, b, r))
            return 1
    if len(bl) != len(rl):
        print("compare: babeltrace2 prints %d events, ringtrace %d" % (len(bl), len(rl)))
        return 1
    ok, msg = losses(bt.stderr.decode(errors='replace'), rt, trace)
    if not ok:
        print("compare: " + msg)
        return 1
    print("compare: %d events alike%s; %s" % (len(bl), "" if not STALE[0] else
          " (%d empty strings babeltrace2 2.0 prints with a previous value)" % STALE[0], msg))
    return 0


if __name__ == '__main__':
    sys.exit(main())
