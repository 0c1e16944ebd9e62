#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/data/lttng-kernel/make-traces.py - LTTng kernel traces for the
reader's tests, written once and kept (the kernel tracer cannot run on the
machines that build ringtrace).

    make-traces.py DIR

writes three traces, DIR/x86_64, DIR/ppc64-be and DIR/contexts, each a
metadata file as lttng-modules 2.13 writes a session's (src/metadata-
ctf-1-8.c: its typealiases, one of two words; the trace, env and clock
blocks; the named packet context and event header structures; a stream
block per channel, with compact and large event headers and, in
"contexts", an event context of `lttng add-context -k`) and the events of
its instrumentation as it declares them (char arrays, task-state
enumerations with ranges, sequences after their length field, a variant
chosen by a tag enumeration over network headers of 4-bit fields and
big-endian integers, an aligned array behind its padding structure), and
per CPU a stream file of packets holding a few rounds of every event,
with extended headers, 27-bit timestamps that wrap, discarded events and a
lost packet.  Only the text and the bytes are ours; the shapes are
lttng-modules'.  The tests read them with ringtrace and babeltrace2 and
compare the two.

It writes two more, DIR/sched and DIR/sched-odd: the scheduler's events
(sched_switch, _process_fork, _exit, _free, _waking, _wakeup) on two CPUs
with fields that tell one story (SCHED_STORY), which the task model turns
into threads, runs, a fork, an exit and a wake-up; and the same with a
thread id of another type in three classes (a string, missing, an
enumeration), which stay markers, and sched_waking's comm a string.
"""
import sys


class Int:
    def __init__(self, size, signed=False, base=10, align=8, enc='none', be=False,
                 tsdl=None, clock=False):
        self.size, self.signed, self.base, self.align = size, signed, base, align
        self.enc, self.be, self.alias, self.clock = enc, be, tsdl, clock

    def tsdl(self, tabs=0):
        if self.alias:
            return self.alias
        bo = ' byte_order = be;' if self.be is True else ' byte_order = le;' \
            if self.be is None else ''
        return ('integer { size = %d; align = %d; signed = %d; encoding = %s; base = %d;%s }'
                % (self.size, self.align, 1 if self.signed else 0, self.enc, self.base, bo))

    def encode(self, w, v):
        w.int(v, self.size, self.align, True if self.be else TRACE_BE[0])

    def sample(self, i, k):
        bits = self.size
        v = (i * 2654435761 + k * 40503) % (1 << bits)
        if self.signed and v >> (bits - 1):
            v -= 1 << bits
        return v


TRACE_BE = [False]      # the trace's byte order: the native one


class Enum:
    def __init__(self, container, labels, tag=False):
        self.c, self.labels, self.tag = container, labels, tag

    def tsdl(self, tabs=0):
        out = 'enum : %s {\n' % self.c.tsdl()
        for lab in self.labels:
            name = ('_' if self.tag else '') + lab[0]
            if len(lab) == 2:
                out += '\t' * (tabs + 1) + '"%s" = %d,\n' % (name, lab[1])
            else:
                out += '\t' * (tabs + 1) + '"%s" = %d ... %d,\n' % (name, lab[1], lab[2])
        return out + '\t' * tabs + '}'

    def encode(self, w, v):
        self.c.encode(w, v)

    def sample(self, i, k):
        lab = self.labels[(i + k) % len(self.labels)]
        return lab[1] if len(lab) == 2 else lab[1] + (i % (lab[2] - lab[1] + 1))


class Str:
    def __init__(self, enc=''):
        self.enc = enc

    def tsdl(self, tabs=0):
        return 'string' + (' { encoding = %s; }' % self.enc if self.enc else '')

    def encode(self, w, v):
        w.align(8)
        for b in v + b'\0':
            w.int(b, 8, 8, False)

    def sample(self, i, k):
        return [b'swapper/0', b'kworker/1:2', b'', b'a "quoted" \\ name'][(i + k) % 4]


class Struct:
    def __init__(self, fields, align=None):
        self.fields, self.salign = fields, align

    def tsdl(self, tabs=0):
        out = 'struct {' + ('\n' if self.fields else ' ')
        for name, t in self.fields:
            out += decl(t, name, tabs + 1)
        out += ('\t' * tabs if self.fields else '') + '}'
        return out + (' align(%d)' % self.salign if self.salign else '')

    def alignment(self):
        return max([self.salign or 1] + [alignment(t) for n, t in self.fields])

    def encode(self, w, v):
        w.align(self.alignment())
        for (name, t), x in zip(self.fields, v):
            t.encode(w, x)

    def sample(self, i, k):
        return [t.sample(i, k + n) for n, (name, t) in enumerate(self.fields)]


class Array:
    def __init__(self, elem, n):
        self.elem, self.n = elem, n

    def encode(self, w, v):
        for x in v:
            self.elem.encode(w, x)

    def sample(self, i, k):
        if isinstance(self.elem, Int) and self.elem.enc != 'none':
            text = [b'swapper/0', b'kworker/1:2', b'systemd', b''][(i + k) % 4]
            return list((text + b'\0' * self.n)[:self.n])
        return [self.elem.sample(i, k + j) for j in range(self.n)]


class Seq:
    def __init__(self, elem, length):
        self.elem, self.length = elem, length

    def encode(self, w, v):
        for x in v:
            self.elem.encode(w, x)


class Variant:
    def __init__(self, tag, options):
        self.tag, self.options = tag, options

    def tsdl(self, tabs=0):
        out = 'variant <_%s> {\n' % self.tag
        for name, t in self.options:
            out += decl(t, name, tabs + 1)
        return out + '\t' * tabs + '}'

    def encode(self, w, v):
        which, x = v
        self.options[which][1].encode(w, x)


def alignment(t):
    """CTF 1.8: a structure aligns on its largest member's alignment."""
    if isinstance(t, Int):
        return t.align
    if isinstance(t, Enum):
        return t.c.align
    if isinstance(t, Str):
        return 8
    if isinstance(t, (Array, Seq)):
        return alignment(t.elem)
    if isinstance(t, Struct):
        return t.alignment()
    return 1


def decl(t, name, tabs):
    pad = '\t' * tabs
    if isinstance(t, Array):
        return pad + '%s _%s[%d];\n' % (t.elem.tsdl(tabs), name, t.n)
    if isinstance(t, Seq):
        return pad + '%s _%s[ __%s_length ];\n' % (t.elem.tsdl(tabs), name, name)
    return pad + '%s _%s;\n' % (t.tsdl(tabs), name)


class Writer:
    """Bits in CTF's order: LSB first in little-endian, MSB first in big-endian."""

    def __init__(self):
        self.buf = bytearray()
        self.pos = 0

    def align(self, a):
        self.pos = (self.pos + a - 1) // a * a

    def int(self, v, size, align, be):
        self.align(align)
        v &= (1 << size) - 1
        need = (self.pos + size + 7) // 8
        if len(self.buf) < need:
            self.buf += bytes(need - len(self.buf))
        for i in range(size):
            p = self.pos + i
            if be:
                bit = (v >> (size - 1 - i)) & 1
                self.buf[p // 8] |= bit << (7 - p % 8)
            else:
                bit = (v >> i) & 1
                self.buf[p // 8] |= bit << (p % 8)
        self.pos += size


TASK_STATE = [('TASK_RUNNING', 0), ('TASK_INTERRUPTIBLE', 1), ('TASK_UNINTERRUPTIBLE', 2),
              ('TASK_STOPPED', 4), ('TASK_TRACED', 8), ('EXIT_DEAD', 16), ('EXIT_ZOMBIE', 32),
              ('TASK_PARKED', 64), ('TASK_DEAD', 128), ('TASK_WAKEKILL', 256),
              ('TASK_WAKING', 512), ('TASK_NOLOAD', 1024), ('TASK_NEW', 2048),
              ('TASK_STATE_MAX', 4096), ('TASK_IDLE', 1026, 1026)]


def schema(be, long_bits):
    def I(size, signed=False, base=10, align=8, enc='none', bo=False):
        return Int(size, signed, base, align, enc, True if bo else False)
    chars = Array(I(8, True, enc='UTF8'), 16)
    net = I(16, bo=True)
    ipv4 = Struct([('version', I(4, align=1)), ('ihl', I(4, align=1)), ('tos', I(8)),
                   ('tot_len', net), ('id', I(16, base=16, bo=True)), ('frag_off', net),
                   ('ttl', I(8)),
                   ('protocol', Enum(I(8), [('_unknown', 0), ('_tcp', 6), ('_udp', 17)])),
                   ('checksum', I(16, base=16, bo=True)), ('saddr', Array(I(8), 4)),
                   ('daddr', Array(I(8), 4))])
    ipv6 = Struct([('version', I(4, align=1)), ('prio', I(4, align=1)),
                   ('flow_lbl', Array(I(8, base=16), 3)), ('payload_len', net),
                   ('nexthdr', I(8)), ('hop_limit', I(8)),
                   ('saddr', Array(I(16, base=16, bo=True), 8)),
                   ('daddr', Array(I(16, base=16, bo=True), 8))])
    ulong = I(long_bits, base=16)
    return [
        ('sched_switch', 0, [('prev_comm', chars), ('prev_tid', I(32, True)),
                             ('prev_prio', I(32, True)),
                             ('prev_state', Enum(I(long_bits, True), TASK_STATE)),
                             ('next_comm', chars), ('next_tid', I(32, True)),
                             ('next_prio', I(32, True))]),
        ('sched_process_fork', 0, [('parent_comm', chars), ('parent_tid', I(32, True)),
                                   ('parent_pid', I(32, True)), ('parent_ns_inum', I(32)),
                                   ('child_comm', chars), ('child_tid', I(32, True)),
                                   ('_vtids_length', I(8)), ('vtids', Seq(I(32, True), 8)),
                                   ('child_pid', I(32, True)), ('child_ns_inum', I(32))]),
        ('syscall_entry_openat', 0, [('dfd', I(32, True)), ('filename', Str()),
                                     ('flags', I(32, True)), ('mode', I(16))]),
        ('syscall_exit_openat', 0, [('ret', I(long_bits, True))]),
        ('irq_handler_entry', 1, [('irq', I(32, True)), ('name', Str('ASCII'))]),
        ('net_if_receive_skb', 1, [('skbaddr', ulong), ('len', I(32)), ('name', Str()),
                                   ('network_header_type',
                                    Enum(I(8), [('unknown', 0), ('ipv4', 1), ('ipv6', 2)],
                                         tag=True)),
                                   ('network_header',
                                    Variant('network_header_type',
                                            [('unknown', Struct([])), ('ipv4', ipv4),
                                             ('ipv6', ipv6)]))]),
        ('timer_hrtimer_start', 1, [('hrtimer', ulong), ('function', ulong),
                                    ('expires', I(64, True)), ('softexpires', I(64, True)),
                                    ('cpus_padding', Struct([], 64)),
                                    ('cpus', Array(I(64, base=16, align=64), 2))]),
        ('block_rq_issue', 1, [('dev', I(32)), ('sector', I(64)), ('nr_sector', I(32)),
                               ('bytes', I(32)), ('tid', I(32, True)),
                               ('rwbs', Enum(I(32), [('RWBS_FLAG_WRITE', 1),
                                                     ('RWBS_FLAG_DISCARD', 2),
                                                     ('RWBS_FLAG_READ', 4),
                                                     ('RWBS_FLAG_RAHEAD', 8)])),
                               ('comm', chars)]),
        ('lttng_logger', 1, [('_msg_length', I(long_bits)),
                             ('msg', Seq(I(8, True, enc='UTF8'), None))]),
    ]


def sample(name, fields, i):
    """The values of event @name's round @i, in field order."""
    out = []
    lengths = {}
    for k, (fname, t) in enumerate(fields):
        if fname.startswith('_') and fname.endswith('_length'):
            n = (i * 3 + k) % 6
            lengths[fname[1:-7]] = n
            out.append(n)
        elif isinstance(t, Seq):
            n = lengths[fname]
            if isinstance(t.elem, Int) and t.elem.enc != 'none':
                out.append(list(b'hello!'[:n]))
            else:
                out.append([t.elem.sample(i, k + j) for j in range(n)])
        elif isinstance(t, Variant):
            which = out[-1]
            out.append((which, t.options[which][1].sample(i, k)))
        elif isinstance(t, Enum) and t.tag:
            out.append(i % 3)
        else:
            out.append(t.sample(i, k))
    return out


def header(be, long_bits):
    return ('/* CTF 1.8 */\n\n'
            'typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n'
            'typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n'
            'typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n'
            'typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n'
            'typealias integer { size = %d; align = 8; signed = false; } := unsigned long;\n'
            'typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n'
            'typealias integer { size = 27; align = 1; signed = false; } := uint27_t;\n\n'
            % long_bits)


def metadata(be, long_bits, contexts, uuid, events):
    out = header(be, long_bits)
    out += ('trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = "%s";\n\tbyte_order = %s;\n'
            '\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t  uuid[16];\n'
            '\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t};\n};\n\n'
            % (uuid, 'be' if be else 'le'))
    out += ('env {\n\thostname = "builder";\n\tdomain = "kernel";\n\tsysname = "Linux";\n'
            '\tkernel_release = "6.1.0-13-amd64";\n'
            '\tkernel_version = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 (2023-09-29)";\n'
            '\ttracer_name = "lttng-modules";\n\ttracer_major = 2;\n\ttracer_minor = 13;\n'
            '\ttracer_patchlevel = 9;\n\ttrace_buffering_scheme = "global";\n'
            '\ttrace_name = "kernel-session";\n'
            '\ttrace_creation_datetime = "20231101T120000+0000";\n'
            '\tproduct_uuid = "6ab3c8ee-0a86-4c5f-8fd1-0d3ba0c5c0d5";\n};\n\n')
    out += ('clock {\n\tname = "monotonic";\n\tuuid = "f0ab3d2e-5c41-4a37-91b2-c1ba1f7b5e11";\n'
            '\tdescription = "Monotonic Clock";\n\tfreq = 1000000000; /* Frequency, in Hz */\n'
            '\t/* clock value offset from Epoch is: offset * (1/freq) */\n'
            '\toffset = 1698836400123456789;\n};\n\n')
    out += ('typealias integer {\n\tsize = 27; align = 1; signed = false;\n'
            '\tmap = clock.monotonic.value;\n} := uint27_clock_monotonic_t;\n\n'
            'typealias integer {\n\tsize = 32; align = 8; signed = false;\n'
            '\tmap = clock.monotonic.value;\n} := uint32_clock_monotonic_t;\n\n'
            'typealias integer {\n\tsize = 64; align = 8; signed = false;\n'
            '\tmap = clock.monotonic.value;\n} := uint64_clock_monotonic_t;\n\n')
    out += ('struct packet_context {\n\tuint64_clock_monotonic_t timestamp_begin;\n'
            '\tuint64_clock_monotonic_t timestamp_end;\n\tuint64_t content_size;\n'
            '\tuint64_t packet_size;\n\tuint64_t packet_seq_num;\n'
            '\tunsigned long events_discarded;\n\tuint32_t cpu_id;\n};\n\n')
    for name, idt, ts32 in (('compact', 'uint5_t { compact = 0 ... 30, extended = 31 }',
                             'uint27_clock_monotonic_t'),
                            ('large', 'uint16_t { compact = 0 ... 65534, extended = 65535 }',
                             'uint32_clock_monotonic_t')):
        out += ('struct event_header_%s {\n\tenum : %s id;\n\tvariant <id> {\n'
                '\t\tstruct {\n\t\t\t%s timestamp;\n\t\t} compact;\n'
                '\t\tstruct {\n\t\t\tuint32_t id;\n\t\t\tuint64_clock_monotonic_t timestamp;\n'
                '\t\t} extended;\n\t} v;\n} align(8);\n\n' % (name, idt, ts32))
    for sid, hdr in ((0, 'compact'), (1, 'large')):
        out += ('stream {\n\tid = %d;\n\tevent.header := struct event_header_%s;\n'
                '\tpacket.context := struct packet_context;\n' % (sid, hdr))
        if contexts:
            out += '\tevent.context := struct {\n'
            for name, t in contexts:
                out += decl(t, name, 2)
            out += '\t};\n'
        out += '};\n\n'
    for name, sid, eid, fields in events:
        out += ('event {\n\tname = "%s";\n\tid = %d;\n\tstream_id = %d;\n'
                '\tfields := struct {\n' % (name, eid, sid))
        for fname, t in fields:
            out += decl(t, fname, 2)
        out += '\t};\n};\n\n'
    return out


def packet(be, long_bits, uuid, sid, cpu, seq, discarded, events, contexts, ts0):
    """A packet of @events [(event, values, ts, extended)], as lttng-modules lays it out."""
    w = Writer()
    w.int(0xC1FC1FC1, 32, 8, be)
    for b in uuid:
        w.int(b, 8, 8, be)
    w.int(sid, 32, 8, be)
    w.int(cpu, 64, 8, be)
    ctx_at = w.pos
    for _ in range(4):
        w.int(0, 64, 8, be)       # timestamps and sizes, below
    w.int(seq, 64, 8, be)
    w.int(discarded, long_bits, 8, be)
    w.int(cpu, 32, 8, be)
    clock = ts0
    for (name, esid, eid, fields), values, ts, ext in events:
        w.align(8)
        if sid == 0:
            if ext or eid > 30 or ts - clock >= 1 << 27:
                w.int(31, 5, 1, be)
                w.align(8)
                w.int(eid, 32, 8, be)
                w.int(ts, 64, 8, be)
            else:
                w.int(eid, 5, 1, be)
                w.int(ts % (1 << 27), 27, 1, be)
        else:
            if ext or ts - clock >= 1 << 32:
                w.int(65535, 16, 8, be)
                w.int(eid, 32, 8, be)
                w.int(ts, 64, 8, be)
            else:
                w.int(eid, 16, 8, be)
                w.int(ts % (1 << 32), 32, 8, be)
        clock = ts
        if contexts:
            Struct(contexts).encode(w, context_values(ts))
        Struct(fields).encode(w, values)
    content = w.pos
    w.align(8)
    size = (len(w.buf) + 511) // 512 * 512      # padded, as a subbuffer is
    w.buf += bytes(size - len(w.buf))
    end = Writer()
    for v in (ts0, clock, content, size * 8):
        end.int(v, 64, 8, be)
    w.buf[ctx_at // 8:ctx_at // 8 + 32] = end.buf
    return bytes(w.buf)


def context_values(ts):
    return [1000 + ts % 7, 1000 + ts % 7 + (ts % 3) * 100, [b'bash', b'sshd', b'kworker/0:1'][ts % 3],
            120 - ts % 40, ts % 2]


def write_trace(d, name, be, long_bits, with_contexts, uuid_str):
    import os
    TRACE_BE[0] = be
    os.makedirs('%s/%s' % (d, name), exist_ok=True)
    sch = schema(be, long_bits)
    events, ids = [], [0, 0]
    for ename, sid, fields in sch:
        events.append((ename, sid, ids[sid], fields))
        ids[sid] += 1
    contexts = None
    if with_contexts:
        contexts = [('pid', Int(32, True, be=False)), ('tid', Int(32, True, be=False)),
                    ('procname', Str()),
                    ('prio', Int(32, True, be=False)),
                    ('state_ctx', Enum(Int(8, be=False), [('RUNNING', 0), ('SLEEPING', 1)]))]
    with open('%s/%s/metadata' % (d, name), 'w') as f:
        f.write(metadata(be, long_bits, contexts, uuid_str, events))
    uuid = bytes.fromhex(uuid_str.replace('-', ''))
    for sid in (0, 1):
        for cpu in (0, 1):
            data = b''
            ts = 1000000 + cpu * 333 + sid * 17
            seq = 0
            discarded = 0
            for rnd in range(3):
                pkt, t0 = [], ts
                for i in range(4):
                    for ev in events:
                        if ev[1] != sid:
                            continue
                        # a jump past 2^27 ns now and then: an extended header
                        ts += 1 + (i * 7919 + rnd) % 5000 + (200000000 if i == 3 else 0)
                        values = sample(ev[0], ev[3], rnd * 10 + i + cpu)
                        pkt.append((ev, values, ts, rnd == 1 and i == 0))
                data += packet(be, long_bits, uuid, sid, cpu, seq, discarded, pkt, contexts, t0)
                seq += 2 if (rnd == 1 and cpu == 1) else 1     # a packet lost
                discarded += 3 if rnd == 0 else 0
                ts += 10
            with open('%s/%s/channel%d_%d' % (d, name, sid, cpu), 'wb') as f:
                f.write(data)


def sched_schema(odd):
    """The scheduler's events as lttng-modules declares them; @odd: with fields of other types."""
    def I(size, signed=False):
        return Int(size, signed)
    chars = Array(I(8, True), 16)
    chars.elem.enc = 'UTF8'
    pid = I(32, True)
    task = [('comm', chars), ('tid', pid), ('prio', I(32, True))]
    wake = task + [('target_cpu', I(32, True))]
    sch = [e for e in schema(False, 64) if e[0] in ('sched_switch', 'sched_process_fork',
                                                     'syscall_entry_openat')]
    sch += [('sched_process_exit', 0, task), ('sched_process_free', 0, task),
            ('sched_waking', 0, wake), ('sched_wakeup', 0, wake)]
    if odd:
        # next_tid a string, no child_tid, an exiting tid that is an enumeration
        sch[0] = ('sched_switch', 0, [(n, Str() if n == 'next_tid' else t)
                                      for n, t in sch[0][2]])
        sch[1] = ('sched_process_fork', 0, [(n, t) for n, t in sch[1][2] if n != 'child_tid'])
        sch[3] = ('sched_process_exit', 0, [(n, Enum(pid, [('a', 100)]) if n == 'tid' else t)
                                            for n, t in task])
        # and a comm that is a string: the thread id after it is found by a walk
        sch[5] = ('sched_waking', 0, [(n, Str() if n == 'comm' else t) for n, t in wake])
    return sch


# What sched/ holds, per CPU: (time after 1 ms, event, its values by field name).  Two CPUs:
# bash (100) forks a child (101) that runs on CPU 1, execs ls and exits; a kworker (7) runs
# between, and is preempted (prev_state 0x100, lttng-modules' TASK_REPORT_MAX); bash waits
# (prev_state 1) until woken; sshd (50) was running on CPU 1 before its first event; bash forks again, and the
# kernel gives the new child the ended one's thread id.  tests/tools/test_model.c
# checks the model built from it against this story.
SCHED_STORY = {
    0: [(1000, 'sched_switch', dict(prev_comm=b'swapper/0', prev_tid=0, prev_state=0,
                                    next_comm=b'bash', next_tid=100)),
        (2000, 'sched_process_fork', dict(parent_comm=b'bash', parent_tid=100, parent_pid=100,
                                          child_comm=b'bash', child_tid=101, child_pid=101,
                                          vtids=[101])),
        (2500, 'sched_waking', dict(comm=b'bash', tid=101, target_cpu=1)),
        (2600, 'sched_wakeup', dict(comm=b'bash', tid=101, target_cpu=1)),
        (3000, 'sched_switch', dict(prev_comm=b'bash', prev_tid=100, prev_state=1,
                                    next_comm=b'kworker/0:1', next_tid=7)),
        (4000, 'sched_switch', dict(prev_comm=b'kworker/0:1', prev_tid=7, prev_state=256,
                                    next_comm=b'swapper/0', next_tid=0)),
        (9000, 'sched_waking', dict(comm=b'bash', tid=100, target_cpu=0)),
        (9500, 'sched_switch', dict(prev_comm=b'swapper/0', prev_tid=0, prev_state=0,
                                    next_comm=b'bash', next_tid=100)),
        (9600, 'sched_process_fork', dict(parent_comm=b'bash', parent_tid=100, parent_pid=100,
                                          child_comm=b'bash', child_tid=101, child_pid=101,
                                          vtids=[101])),
        (11000, 'syscall_entry_openat', dict(dfd=-100, filename=b'/etc/passwd'))],
    1: [(1200, 'syscall_entry_openat', dict(dfd=-100, filename=b'/etc/ssh/sshd_config')),
        (1500, 'sched_switch', dict(prev_comm=b'sshd', prev_tid=50, prev_state=1,
                                    next_comm=b'swapper/1', next_tid=0)),
        (2700, 'sched_switch', dict(prev_comm=b'swapper/1', prev_tid=0, prev_state=0,
                                    next_comm=b'bash', next_tid=101)),
        (4800, 'sched_process_exit', dict(comm=b'ls', tid=101)),
        (5000, 'sched_switch', dict(prev_comm=b'ls', prev_tid=101, prev_state=128,
                                    next_comm=b'swapper/1', next_tid=0)),
        (8000, 'sched_process_free', dict(comm=b'ls', tid=101))],
}


def sched_value(t, name, story):
    v = story.get(name)
    if name == '_vtids_length':
        return len(story.get('vtids', []))
    if v is None:
        v = b'' if isinstance(t, Str) else 0
    if isinstance(t, Array):
        return list((v + b'\0' * t.n)[:t.n])
    if isinstance(t, Str) and isinstance(v, int):
        return str(v).encode()
    return v


def write_sched_trace(d, name, odd, uuid_str):
    """A small kernel trace of the scheduler's events whose fields tell one story."""
    import os
    TRACE_BE[0] = False
    os.makedirs('%s/%s' % (d, name), exist_ok=True)
    events = [(ename, 0, i, fields) for i, (ename, sid, fields) in
              enumerate(sched_schema(odd))]
    with open('%s/%s/metadata' % (d, name), 'w') as f:
        f.write(metadata(False, 64, None, uuid_str, events))
    uuid = bytes.fromhex(uuid_str.replace('-', ''))
    by_name = {e[0]: e for e in events}
    for cpu, story in SCHED_STORY.items():
        pkt = [(by_name[ev], [sched_value(t, n, vals) for n, t in by_name[ev][3]],
                1000000 + ts, False) for ts, ev, vals in story]
        with open('%s/%s/channel0_%d' % (d, name, cpu), 'wb') as f:
            f.write(packet(False, 64, uuid, 0, cpu, 0, 0, pkt, None, 1000000))


def main():
    d = sys.argv[1]
    write_trace(d, 'x86_64', False, 64, False, '2a6422d0-6cee-11e0-8c08-cb07d7b3a564')
    write_trace(d, 'ppc64-be', True, 64, False, '3b7533e1-7dff-42f1-9d19-dc18e8c4b675')
    write_trace(d, 'contexts', False, 32, True, '4c8644f2-8e00-4302-ae2a-ed29f9d5c786')
    write_sched_trace(d, 'sched', False, '5d9755a3-9f11-4413-bf3b-fe3ae6e6d897')
    write_sched_trace(d, 'sched-odd', True, '6ea866b4-a022-4524-80cc-0f4bf7f7e9a8')


if __name__ == '__main__':
    main()
