#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/interop/corpus.py - ringtrace's reader over babeltrace's CTF test traces.

    corpus.py CORPUS RINGTRACE [--mutants N] [--not-yet KIND/NAME ...]

CORPUS is babeltrace's tests/data/ctf-traces (../shared/reference/
babeltrace-ctf-traces); babeltrace2 is the oracle.

succeed/*: each trace is compared with babeltrace2's text by
tests/interop/lttng/compare.py (the same events in the same order, every
value, every time to the nanosecond, the losses of every stream), and
`RINGTRACE check` must call it readable (exit 0: "check: ok", with losses
or warnings said).  Where babeltrace2 itself aborts (killed by a signal:
succeed/meta-ctx-sequence with 2.0.4), there is no oracle: `dump` and
`check` must read it (exit 0), and that is reported apart.

intersection/*, packet-seq-num/*, deterministic-ordering/*: where
babeltrace2 reads one, read alike; where it refuses, refused with a
located message; a packet whose uuid is not the metadata's is refused on
purpose (Documentation/ctf.rst), with a located message.

fail/*: babeltrace2 refuses each; `RINGTRACE dump` and `RINGTRACE check`
must refuse it too (exit 1), with a located message: the path of a file of
the trace, then a line ("line N"), a byte offset ("offset N") or a
metadata packet.

--mutants N: each succeed/ trace is also read in N mutated copies (a byte
replaced, bits flipped, a file cut, in its stream files or metadata):
dump and check must end with 0 or 1, 1 with a message naming a file of
the copy; never a crash, a hang or a sanitizer's report.

Every command ringtrace runs here must leave no sanitizer report on its
standard error (the test runs under ASan+UBSan too).

--not-yet KIND/NAME: a trace the reader does not read as it should yet (a
gap being worked on): it must still come out wrong (said "not yet"); one
that comes out right is a failure until it leaves the list.

Prints one line per trace ("ok NAME: ..." or "BAD NAME: ..."), then
"corpus: S of S' succeed traces alike, A where babeltrace2 aborts read,
F of F' fail traces refused with a located message"; exits 0 when every
trace is as it should be, 1 otherwise.
"""
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
COMPARE = os.path.join(HERE, 'lttng', 'compare.py')
LOCATED = re.compile(r'(^|\s)(\S*/)?[^\s:]+: (line \d+|offset \d+|metadata packet \d+)',
                     re.M)


SANITIZER = re.compile(r'Sanitizer|runtime error:')


def run(args):
    p = subprocess.run(args, capture_output=True, timeout=600)
    out, err = p.stdout.decode('utf-8', 'replace'), p.stderr.decode('utf-8', 'replace')
    if SANITIZER.search(err) and args[0] != 'babeltrace2':
        return 99, out, 'sanitizer report: ' + err[-1500:]
    return p.returncode, out, err


def succeed(trace, rt):
    st, _, _ = run(['babeltrace2', trace])
    if st < 0:
        # babeltrace2 aborts: no oracle; ringtrace must read it
        for cmd in ('dump', 'check'):
            c, out, err = run([rt, cmd, trace])
            if c:
                return 'BAD', '%s exits %d: %s' % (cmd, c, (err or out)[-400:])
        return 'aborts', 'babeltrace2 killed by signal %d; dump and check read it' % -st
    c, out, err = run([sys.executable, COMPARE, trace, rt])
    if c:
        return 'BAD', out.strip()[-1500:]
    c, _, err = run([rt, 'dump', trace])
    if c:
        return 'BAD', 'dump exits %d: %s' % (c, err[-600:])
    msg = out.strip().splitlines()[-1]
    c, out, err = run([rt, 'check', trace])
    if c or not re.search(r'^check: ok', out, re.M):
        return 'BAD', 'check exits %d: %s' % (c, (out + err)[-600:])
    return 'ok', msg + '; ' + re.search(r'^check: .*$', out, re.M).group(0)


def mutate(trace, rt, rounds):
    """@rounds mutated copies of @trace (a byte replaced, bits flipped, a
    file cut; in its stream files and metadata, chosen by a seeded random):
    dump and check end with 0 or 1, 1 with a message naming a file of the
    copy, never a crash, a hang or a sanitizer's report.  Return (bad, damaged)."""
    rng = random.Random(trace)
    bad, damaged = [], 0
    with tempfile.TemporaryDirectory(prefix='rtr-corpus-') as tmp:
        for i in range(rounds):
            copy = os.path.join(tmp, 'm%d' % i)
            shutil.copytree(trace, copy)
            files = sorted(os.path.join(d, f) for d, _, fs in os.walk(copy) for f in fs
                           if 'index' not in d and os.path.getsize(os.path.join(d, f)))
            if not files:
                continue
            f = rng.choice(files)
            os.chmod(f, 0o600)
            data = bytearray(open(f, 'rb').read())
            pos = rng.randrange(len(data))
            how = i % 3
            if how == 0:
                data[pos] = rng.randrange(256)
            elif how == 1:
                data[pos] ^= 1 << rng.randrange(8)
            else:
                del data[pos:]
            open(f, 'wb').write(data)
            for cmd in ('check', 'dump'):
                try:
                    c, out, err = run([rt, cmd, copy])
                except subprocess.TimeoutExpired:
                    bad.append('%s hangs on %s (round %d)' % (cmd, f, i))
                    continue
                if c not in (0, 1):
                    bad.append('%s exits %d on %s at %d (round %d): %s' %
                               (cmd, c, f, pos, i, err[-300:]))
                elif c == 1:
                    damaged += 1
                    if copy not in err:
                        bad.append('%s: no file named: %s' % (cmd, err[-300:]))
            shutil.rmtree(copy)
    return bad, damaged


def fail(trace, rt):
    st, _, _ = run(['babeltrace2', trace])
    if st == 0:
        return 'BAD', 'babeltrace2 reads it: not a fail trace for this oracle'
    said = []
    for cmd in ('dump', 'check'):
        c, out, err = run([rt, cmd, trace])
        if c != 1:
            return 'BAD', '%s exits %d (not 1): %s' % (cmd, c, (err or out)[-400:])
        m = LOCATED.search(err + out)
        if not m or trace not in err + out:
            return 'BAD', '%s: no located message: %s' % (cmd, (err or out)[-400:])
        said.append(m.group(0).strip())
    return 'ok', said[0]


# What ringtrace refuses on purpose where babeltrace2 reads on (Documentation/ctf.rst)
ON_PURPOSE = re.compile(r'packet uuid differs from the metadata')


def other(trace, rt):
    """intersection/, packet-seq-num/, deterministic-ordering/: as babeltrace2
    does, read alike where it reads, refused where it refuses; a packet of
    another trace's uuid refused on purpose, with a located message."""
    st, _, _ = run(['babeltrace2', trace])
    if st:
        return fail(trace, rt)
    verdict, msg = succeed(trace, rt)
    if verdict == 'BAD':
        c, out, err = run([rt, 'check', trace])
        m = LOCATED.search(err)
        if c == 1 and m and ON_PURPOSE.search(err):
            return 'ok', 'refused on purpose: ' + err.strip().splitlines()[0][-200:]
    return verdict, msg


def main():
    args = sys.argv[3:]
    if len(sys.argv) < 3 or len(args) % 2 or \
            any(a not in ('--not-yet', '--mutants') for a in args[0::2]):
        print(__doc__, file=sys.stderr)
        return 2
    corpus, rt = sys.argv[1], sys.argv[2]
    not_yet = {v for k, v in zip(args[0::2], args[1::2]) if k == '--not-yet'}
    mutants = sum(int(v) for k, v in zip(args[0::2], args[1::2]) if k == '--mutants')
    mutated = damaged = 0
    counts = {'ok succeed': 0, 'succeed': 0, 'aborts': 0, 'ok fail': 0, 'fail': 0}
    bad = 0
    counts['ok other'] = counts['other'] = 0
    for kind, judge in (('succeed', succeed), ('fail', fail), ('intersection', other),
                        ('packet-seq-num', other), ('deterministic-ordering', other)):
        top = os.path.join(corpus, kind)
        if kind not in ('succeed', 'fail') and not os.path.isdir(top):
            continue
        for name in sorted(os.listdir(top)):
            trace = os.path.join(top, name)
            if not os.path.isdir(trace):
                continue
            verdict, msg = judge(trace, rt)
            if kind == 'succeed' and mutants:
                mbad, mdamaged = mutate(trace, rt, mutants)
                mutated += mutants
                damaged += mdamaged
                for b in mbad:
                    print('BAD %s/%s mutated: %s' % (kind, name, b))
                bad += len(mbad)
            if kind + '/' + name in not_yet:
                not_yet.discard(kind + '/' + name)
                if verdict == 'BAD':
                    print('not yet %s/%s: %s' % (kind, name, msg.splitlines()[-1][:200]))
                    counts[kind] += 1
                    continue
                verdict, msg = 'BAD', 'reads as it should now: take it off the --not-yet list'
            print('%s %s/%s: %s' % (verdict, kind, name, msg), flush=True)
            if verdict == 'aborts':
                counts['aborts'] += 1
                continue
            group = kind if kind in ('succeed', 'fail') else 'other'
            counts[group] += 1
            if verdict == 'ok':
                counts['ok ' + group] += 1
            else:
                bad += 1
    print('corpus: %d of %d succeed traces alike, %d where babeltrace2 aborts read, '
          '%d of %d fail traces refused with a located message, %d of %d others as '
          'babeltrace2 or refused on purpose' %
          (counts['ok succeed'], counts['succeed'], counts['aborts'], counts['ok fail'],
           counts['fail'], counts['ok other'], counts['other']))
    if mutants:
        print('corpus: %d mutated copies read, %d reads refused them with a named file, '
              'none crashed' % (mutated, damaged) if not bad else
              'corpus: %d mutated copies read' % mutated)
    for name in sorted(not_yet):
        print('BAD %s: on the --not-yet list, not in the corpus' % name)
        bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
