#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/interop/ctf_gaps.py - small CTF 1.8 traces in the shapes that
babeltrace's test corpus showed ringtrace's reader refusing (issue 21),
written here so that the tests stand without the corpus.

    ctf_gaps.py DIR NAME     write the trace NAME into DIR/NAME
    ctf_gaps.py list         the names

Every trace is one babeltrace2 2.0.4 reads; the tests compare ringtrace's
`dump` with it value by value (tests/interop/lttng/compare.py) and look at
what `check` says.  The metadata texts and the bytes are ours; the shapes
are those of the producers named with each.
"""
import os
import struct
import sys

MAGIC = 0xC1FC1FC1
UUID = bytes(range(0xa0, 0xb0))
UUID_TEXT = 'a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf'

TYPES = '''typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 32; align = 8; signed = true; } := int32_t;
'''

CLOCK = '''clock {
	name = monotonic;
	freq = 1000000000;
	offset_s = 1600000000;
};
typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := clock64_t;
'''


def trace_block(header=True, uuid_text=UUID_TEXT):
    h = ('\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n'
         '\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t};\n') if header else ''
    return ('trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = "%s";\n\tbyte_order = le;\n%s};\n'
            % (uuid_text, h))


def u8(v):
    return struct.pack('<B', v)


def u32(v):
    return struct.pack('<I', v)


def i32(v):
    return struct.pack('<i', v)


def u64(v):
    return struct.pack('<Q', v)


def cstr(s):
    return s.encode() + b'\0'


def packet(events, ts_begin, ts_end, seq=0, discarded=0, instance=0, cpu=0, pad=16,
           content_extra_bits=0, uuid=UUID):
    """A packet of LTTng's shape: header (magic, uuid, stream_id,
    stream_instance_id), context (timestamp_begin, timestamp_end,
    content_size, packet_size, packet_seq_num, events_discarded, cpu_id),
    then @events (bytes); @pad bytes of padding after the content.
    content_size is @content_extra_bits less than whole bytes when asked."""
    head = u32(MAGIC) + uuid + u32(0) + u64(instance)
    ctx_len = 8 * 6 + 4
    body = b''.join(events)
    content = len(head) + ctx_len + len(body)
    size = content + pad
    ctx = (u64(ts_begin) + u64(ts_end) + u64(content * 8 - content_extra_bits) +
           u64(size * 8) + u64(seq) + u64(discarded) + u32(cpu))
    return head + ctx + body + b'\0' * pad


STREAM = '''stream {
	id = 0;
	packet.context := struct {
		clock64_t timestamp_begin;
		clock64_t timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
		uint64_t packet_seq_num;
		uint64_t events_discarded;
		uint32_t cpu_id;
	};
	event.header := struct {
		uint32_t id;
		clock64_t timestamp;
	};
};
'''

EVENT = '''event {
	name = "tick";
	id = 0;
	stream_id = 0;
	fields := struct {
		uint32_t n;
		int32_t d;
	};
};
'''


def tick(ts, n):
    return u32(0) + u64(ts) + u32(n) + i32(-n)


def lttng_like(extra_meta='', streams=None, uuid_text=UUID_TEXT, clock=CLOCK):
    meta = ('/* CTF 1.8 */\n' + TYPES + trace_block(uuid_text=uuid_text) + clock + STREAM + EVENT +
            extra_meta)
    return meta, streams


# ---- the traces ---------------------------------------------------------------------------

def no_stream_block():
    """No stream block, no packet header nor context: one event class; the
    stream file its records, back to back (babeltrace's smalltrace,
    no-packet-context, meta-variant-* shapes)."""
    meta = ('/* CTF 1.8 */\n' + TYPES +
            'trace {\n\tmajor = 1;\n\tminor = 8;\n\tbyte_order = le;\n};\n'
            'event {\n\tname = "rec";\n\tfields := struct {\n\t\tuint8_t a;\n'
            '\t\tint32_t b;\n\t\tstring s;\n\t\tuint16_t c[2];\n\t};\n};\n')
    recs = b''.join(u8(i) + i32(-1000 * i) + cstr('r%d' % i) + struct.pack('<HH', i, 7 * i)
                    for i in range(12))
    return meta, {'stream': recs}


def env(name, major, minor, patch=0):
    return ('env {\n\tdomain = "ust";\n\ttracer_name = "%s";\n\ttracer_major = %d;\n'
            '\ttracer_minor = %d;\n\ttracer_patch = %d;\n};\n' % (name, major, minor, patch))


def before_packet():
    """barectf 2.3's event before its packet's timestamp_begin (babeltrace's
    barectf-event-before-packet): the second packet's first event 842 ns
    early, after the first packet's end."""
    t = 1000000
    p0 = packet([tick(t + 10, 0), tick(t + 20, 1)], t, t + 100, seq=0)
    p1 = packet([tick(t + 1000 - 842, 2), tick(t + 1010, 3)], t + 1000, t + 1100, seq=1)
    return lttng_like(env('barectf', 2, 3), {'chan_0': p0 + p1})


def after_packet():
    """LTTng-UST 2.10's event 1 ns after its packet's timestamp_end (babeltrace's
    lttng-event-after-packet)."""
    t = 1000000
    p0 = packet([tick(t + 10, 0), tick(t + 101, 1)], t, t + 100, seq=0)
    p1 = packet([tick(t + 200, 2), tick(t + 250, 3)], t + 200, t + 300, seq=1)
    return lttng_like(env('lttng-ust', 2, 10), {'chan_0': p0 + p1})


def end_zero():
    """lttng-crash's packets, never closed: timestamp_end 0 (babeltrace's
    lttng-crash)."""
    t = 1000000
    p0 = packet([tick(t + 10, 0), tick(t + 20, 1)], t, t + 100, seq=0)
    p1 = packet([tick(t + 200, 2), tick(t + 250, 3)], t + 200, 0, seq=1)
    p2 = packet([tick(t + 300, 4)], t + 300, 0, seq=2)
    return lttng_like(env('lttng-ust', 2, 11), {'chan_0': p0 + p1 + p2})


def seq_again():
    """Two packets with the same packet_seq_num (babeltrace's
    lttng-event-after-packet has its packet twice): nothing lost."""
    t = 1000000
    p0 = packet([tick(t + 10, 0)], t, t + 100, seq=0)
    p1 = packet([tick(t + 200, 1)], t + 200, t + 300, seq=0)
    return lttng_like('', {'chan_0': p0 + p1})


def metadata_packets(text, per=200):
    """@text in metadata packets of @per bytes of text each (CTF 1.8, 7.1)."""
    out = b''
    for i in range(0, len(text), per):
        part = text[i:i + per]
        content = 37 + len(part)
        size = (content + 63) // 64 * 64
        out += (struct.pack('<I', 0x75d11d57) + UUID + u32(0) + u32(content * 8) +
                u32(size * 8) + bytes([0, 0, 0, 1, 8]) + part + b'\0' * (size - content))
    return out


def packet_metadata():
    """Packetised metadata whose text has no "/" "* CTF 1.8" line (LTTng-UST
    2.0, lttng-modules 2.10: babeltrace's wk-heartbeat-u), over two packets;
    the env of a process's own buffers (procname, vpid), which babeltrace2
    prints after the host."""
    t = 1000000
    meta, streams = lttng_like('env {\n\thostname = "box";\n\tprocname = "app";\n'
                               '\tvpid = 4321;\n};\n',
                               {'chan_0': packet([tick(t + 1, 0), tick(t + 2, 1)], t, t + 10)})
    text = meta[meta.index('\n') + 1:].encode()
    return metadata_packets(text), streams


def signature_lines():
    """Text metadata whose signature comment closes on a later line."""
    t = 1000000
    meta, streams = lttng_like('', {'chan_0': packet([tick(t + 1, 0)], t, t + 10)})
    meta = meta.replace('/* CTF 1.8 */', '/* CTF 1.8\n * written by ctf_gaps.py,\n * over '
                        'three lines */', 1)
    return meta, streams


def grammar():
    """TSDL as babeltrace's succeed3, succeed4 and warnings write it:
    a character constant ('\\n') and unary + as values, string escapes
    (babeltrace2 2.0.4 takes no character constant as an enumeration's
    value), and attributes no reader knows (babeltrace2 warns: 8 of them
    here)."""
    meta = ('/* CTF 1.8 */\n'
            'typealias integer { size = 8; align = 8; signed = false; aa = bb; } := uint8_t;\n'
            'typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n'
            'typealias integer { size = 32; align = 8; signed = true; zz = 1; } := int32_t;\n'
            'trace {\n\tmajor = 1;\n\tminor = +8;\n\tbyte_order = le;\n'
            '\ttest = \'\\n\';\n\ttest2 = "?\\x20\\040?";\n\tblah = "aaa";\n};\n'
            'stream {\n\tpacket.context := struct {\n\t\tuint32_t content_size;\n'
            '\t\tuint32_t packet_size;\n\t};\n\tmystery = 1;\n};\n'
            'event {\n\tname = "g";\n\tfields := struct {\n'
            '\t\tenum : uint8_t { ZERO = 0, NL = +10, SP = 0x20, PCT = 045, A = +65, '
            'BIG = +200 ... +210 } e;\n'
            '\t\tint32_t v;\n\t};\n\tunknown := struct { uint8_t x; };\n'
            '\tnote = "?";\n};\n')
    vals = [0, 10, 32, 37, 65, 200, 205, 210, 99]
    body = b''.join(u8(v) + i32(-v) for v in vals)
    size = (8 + len(body)) * 8
    return meta, {'stream': u32(size) + u32(size) + body}


def hostile(kind):
    """Metadata that must be refused, the line named (issue 21's defects)."""
    base = ('/* CTF 1.8 */\n' + TYPES +
            'typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n'
            'trace {\n\tmajor = 1;\n\tminor = 8;\n\tbyte_order = le;\n};\n')
    if kind == 'freq-twice':
        meta = (base + 'clock {\n\tname = c;\n\tfreq = 1000000000;\n\tfreq = 1000;\n};\n'
                'event {\n\tname = "e";\n\tfields := struct { uint8_t a; };\n};\n')
    elif kind == 'size-twice':
        meta = (base + 'event {\n\tname = "e";\n\tfields := struct {\n'
                '\t\tinteger { size = 8; size = 16; } a;\n\t};\n};\n')
    elif kind == 'enum-past-max':
        meta = (base + 'event {\n\tname = "e";\n\tfields := struct {\n'
                '\t\tenum : int64_t { TOP = 9223372036854775807, NEXT } a;\n\t};\n};\n')
    elif kind == 'seq-no-length':
        meta = (base + 'event {\n\tname = "e";\n\tfields := struct {\n'
                '\t\tuint8_t n;\n\t\tuint8_t x[len];\n\t};\n};\n'
                'event {\n\tname = "f";\n\tid = 1;\n\tfields := struct { uint8_t a; };\n};\n')
    return meta, {'stream': b'\0' * 8}


def enum_max():
    """An enumeration whose last label is the container's largest value."""
    meta = ('/* CTF 1.8 */\n' + TYPES +
            'typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n'
            'trace {\n\tmajor = 1;\n\tminor = 8;\n\tbyte_order = le;\n};\n'
            'event {\n\tname = "e";\n\tfields := struct {\n'
            '\t\tenum : int64_t { LOW = -9223372036854775808, MID, '
            'TOP = 9223372036854775807 } a;\n\t};\n};\n')
    vals = [-(1 << 63), -(1 << 63) + 1, (1 << 63) - 1, 5]
    return meta, {'stream': b''.join(struct.pack('<q', v) for v in vals)}


def tracefile_size():
    """LTTng's --tracefile-size: each stream in several files (NAME_CPU_N),
    its packets' sequence numbers going on from file to file, one
    stream_instance_id; the files' names sort otherwise than their times
    (chan_0_10 before chan_0_9 by strcmp).  Nothing is lost."""
    t = 1000000
    files = {}
    for cpu in range(2):
        for k, seq in enumerate([0, 1, 2]):
            name = 'chan_%d_%d' % (cpu, [9, 10, 11][k])
            ts = t + 1000 * seq + cpu
            files[name] = packet([tick(ts + 5, 10 * cpu + seq), tick(ts + 7, 100 + seq)],
                                 ts, ts + 100, seq=seq, instance=cpu, cpu=cpu)
    return lttng_like('', files)


UUID2 = bytes(range(0xc0, 0xd0))
UUID2_TEXT = 'c0c1c2c3-c4c5-c6c7-c8c9-cacbcccdcecf'
CLOCK2 = CLOCK.replace('offset_s = 1600000000;', 'offset_s = 1599999999;\n\toffset = 250000;\n'
                       '\tfreq = 500000000;').replace('\tfreq = 1000000000;\n', '')


def several_traces():
    """A directory of traces (LTTng's domains; a rotated session's archives):
    kernel/ and ust/ with clocks of other offsets and frequencies and the
    same file names, merged in time; archive/1 and archive/2, one trace (one
    UUID) rotated, its stream going on from one to the other."""
    t = 1000000
    out = {}
    meta, s = lttng_like('', {'chan_0': packet([tick(t + 10, 1), tick(t + 700, 2)], t, t + 800)})
    out['ust/metadata'] = meta
    out['ust/chan_0'] = s['chan_0']
    # the other clock (500 MHz, offset_s one less, offset 250000 cycles): its event 3
    # 300 ns after the ust trace's first, between its two
    k0 = (1000000000 + t + 300) // 2 - 250000 - 300
    meta, s = lttng_like('', {'chan_0': packet([tick(k0 + 2 * 300, 3), tick(k0 + 2 * 900, 4)],
                                               k0, k0 + 2000, uuid=UUID2)},
                         uuid_text=UUID2_TEXT, clock=CLOCK2)
    out['kernel/metadata'] = meta
    out['kernel/chan_0'] = s['chan_0']
    u3 = bytes(range(0xe0, 0xf0))
    u3_text = 'e0e1e2e3-e4e5-e6e7-e8e9-eaebecedeeef'
    for n, seq in ((1, 0), (2, 1)):
        ts = t + 1000 * n
        meta, s = lttng_like('', {'chan_1': packet([tick(ts + 1, 50 + n)], ts, ts + 100,
                                                   seq=seq, instance=7, cpu=1, uuid=u3)},
                             uuid_text=u3_text)
        out['archive/%d/metadata' % n] = meta
        out['archive/%d/chan_1' % n] = s['chan_1']
    return None, out


def bit_content():
    """Records of 3 + 7 bits, bit-packed, in packets whose content_size is
    no whole number of bytes (CTF sizes are in bits): 64 bits of context
    and 5 records, 114 bits, in packets of 128."""
    meta = ('/* CTF 1.8 */\n' + TYPES +
            'trace {\n\tmajor = 1;\n\tminor = 8;\n\tbyte_order = le;\n};\n'
            'stream {\n\tpacket.context := struct {\n\t\tuint32_t content_size;\n'
            '\t\tuint32_t packet_size;\n\t};\n};\n'
            'event {\n\tname = "bits";\n\tfields := struct {\n'
            '\t\tinteger { size = 3; align = 1; signed = false; } a;\n'
            '\t\tinteger { size = 7; align = 1; signed = true; } b;\n\t};\n};\n')
    out = b''
    for k in range(2):
        bits = []

        def put(v, n):
            bits.extend((v >> i) & 1 for i in range(n))
        put(114, 32)
        put(128, 32)
        for i in range(5):
            put((i + k) % 8, 3)
            put((-13 * i + 29 * k) & 0x7f, 7)
        bits += [0] * (128 - len(bits))
        out += bytes(sum(bits[8 * j + i] << i for i in range(8)) for j in range(16))
    return meta, {'stream': out}


class Bits:
    """A stream of bits: big-endian fields packed from each byte's most
    significant bit, little-endian ones from its least (CTF 1.8, 4.1.5)."""

    def __init__(self):
        self.b = bytearray()
        self.pos = 0

    def align(self, a):
        self.pos = (self.pos + a - 1) // a * a

    def put(self, v, n, be=True, align=1):
        self.align(align)
        v &= (1 << n) - 1
        while len(self.b) * 8 < self.pos + n:
            self.b.append(0)
        for i in range(n):
            p = self.pos + i
            bit = (v >> (n - 1 - i)) & 1 if be else (v >> i) & 1
            self.b[p // 8] |= bit << (7 - p % 8 if be else p % 8)
        self.pos += n

    def raw(self, data, align=8):
        self.align(align)
        for c in data:
            self.put(c, 8, align=8)


def corners():
    """CTF 1.8's corners babeltrace's corpus leaves out: a big-endian trace
    of two stream classes on two clocks (1 GHz, and 100 MHz with an offset,
    its 32-bit timestamps wrapping), an enumeration-tagged variant of an
    integer, a string and a structure, 32- and 64-bit floats, bit-packed
    fields of 3, 13, 1 and 7 bits, a little-endian field, a sequence of
    structures; packets of the second stream without a content_size."""
    meta = ('''/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 32; align = 8; signed = true; } := int32_t;
trace {
	major = 1;
	minor = 8;
	uuid = "%s";
	byte_order = be;
	packet.header := struct {
		uint32_t magic;
		uint8_t uuid[16];
		uint32_t stream_id;
	};
};
clock { name = fast; freq = 1000000000; offset_s = 1600000000; };
clock { name = slow; freq = 100000000; offset_s = 1599999957; offset = 5136197; };
typealias integer { size = 64; align = 8; signed = false; map = clock.fast.value; } := fast_t;
typealias integer { size = 64; align = 8; signed = false; map = clock.slow.value; } := slow64_t;
typealias integer { size = 32; align = 8; signed = false; map = clock.slow.value; } := slow32_t;
stream {
	id = 0;
	packet.context := struct {
		fast_t timestamp_begin;
		fast_t timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
		uint64_t events_discarded;
		uint32_t cpu_id;
	};
	event.header := struct { uint16_t id; fast_t timestamp; };
};
stream {
	id = 1;
	packet.context := struct {
		slow64_t timestamp_begin;
		slow64_t timestamp_end;
		uint32_t packet_size;
	};
	event.header := struct { uint8_t id; slow32_t timestamp; };
};
event {
	name = "mix";
	id = 0;
	stream_id = 0;
	fields := struct {
		enum : uint8_t { INT = 0, STR = 1, PAIR = 2 ... 3 } tag;
		variant <tag> {
			int32_t INT;
			string STR;
			struct { uint8_t x; uint16_t y; } PAIR;
		} v;
		floating_point { exp_dig = 8; mant_dig = 24; align = 8; } f;
		floating_point { exp_dig = 11; mant_dig = 53; align = 8; } d;
	};
};
event {
	name = "bits";
	id = 1;
	stream_id = 0;
	fields := struct {
		integer { size = 3; align = 1; signed = false; } a;
		integer { size = 13; align = 1; signed = true; } b;
		integer { size = 1; align = 1; signed = false; } c;
		integer { size = 7; align = 1; signed = false; base = 16; } d;
		integer { size = 16; align = 8; signed = false; byte_order = le; } e;
		uint8_t n;
		struct { uint8_t k; string s; } items[n];
	};
};
event {
	name = "slow";
	id = 0;
	stream_id = 1;
	fields := struct { uint16_t v; string s; };
};
''' % UUID_TEXT)

    def head(w, sid):
        w.put(MAGIC, 32)
        w.raw(UUID)
        w.put(sid, 32)

    # stream 0: two packets
    f0 = b''
    base = 1000000
    for k in range(2):
        w = Bits()
        head(w, 0)
        t0 = base + 10000 * k
        w.put(t0, 64)
        w.put(t0 + 5000, 64)
        at = w.pos
        w.put(0, 64)
        w.put(0, 64)
        w.put(3 * k, 64)
        w.put(2, 32)
        for i in range(6):
            ts = t0 + 100 * i + 1
            if i % 2 == 0:
                w.put(0, 16)
                w.put(ts, 64)
                tag = i // 2 % 3 + (1 if k and i == 4 else 0)
                w.put(tag, 8)
                if tag == 0:
                    w.put(-7 * i - 1, 32)
                elif tag == 1:
                    w.raw(('s%d' % i).encode() + b'\0')
                else:
                    w.put(i, 8)
                    w.put(1000 + i, 16)
                w.raw(struct.pack('>f', 1.5 * i - 0.25))
                w.raw(struct.pack('>d', -2.0 ** (i + k) / 3))
            else:
                w.put(1, 16)
                w.put(ts, 64)
                w.put(i % 8, 3)
                w.put(-700 * i + k, 13)
                w.put(i & 1, 1)
                w.put(0x55 ^ i, 7)
                w.put(0x1234 + i, 16, be=False, align=8)
                w.put(i % 3, 8)
                for j in range(i % 3):
                    w.put(j + 10, 8)
                    w.raw(('item%d' % j).encode() + b'\0')
        content = w.pos
        w.align(8)
        w.b += b'\0' * 8
        size = len(w.b) * 8
        c = Bits()
        c.put(content, 64)
        c.put(size, 64)
        w.b[at // 8:at // 8 + 16] = c.b
        f0 += bytes(w.b)
    # stream 1: packets without content_size, full to their packet_size; its 32-bit
    # timestamps wrap (the clock passes 2^32 between two events)
    f1 = b''
    s0 = (1 << 32) - 3000
    for k in range(2):
        w = Bits()
        head(w, 1)
        t0 = s0 + 2000 * k
        w.put(t0, 64)
        w.put(t0 + 1500, 64)
        at = w.pos
        w.put(0, 32)
        for i in range(3):
            ts = t0 + 500 * i + 7
            w.put(0, 8)
            w.put(ts & 0xffffffff, 32)
            w.put(40000 + i + 10 * k, 16)
            w.raw(('slow%d%d' % (k, i)).encode() + b'\0')
        c = Bits()
        c.put(len(w.b) * 8, 32)
        w.b[at // 8:at // 8 + 4] = c.b
        f1 += bytes(w.b)
    return meta, {'a_0': f0, 'b_0': f1}


def ts_back():
    """Time going back between two records of a packet: damage, not a quirk."""
    t = 1000000
    p0 = packet([tick(t + 50, 0), tick(t + 40, 1)], t, t + 100)
    return lttng_like('', {'chan_0': p0})


def losses_no_times():
    """events_discarded without timestamp_begin/end (babeltrace's
    ev-disc-no-ts-begin-end): the losses are counted all the same."""
    meta = ('/* CTF 1.8 */\n' + TYPES +
            'trace {\n\tmajor = 1;\n\tminor = 8;\n\tbyte_order = le;\n};\n'
            'stream {\n\tpacket.context := struct {\n\t\tuint32_t packet_size;\n'
            '\t\tuint32_t events_discarded;\n\t};\n};\n'
            'event {\n\tname = "ev";\n\tfields := struct {\n\t\tstring s;\n\t};\n};\n')

    def pkt(disc, words):
        body = b''.join(cstr(w) for w in words)
        return u32((8 + len(body)) * 8) + u32(disc) + body
    return meta, {'stream': pkt(0, ['a', 'bb']) + pkt(5, ['ccc']) + pkt(12, ['d'])}


TRACES = {
    'no-stream-block': no_stream_block,
    'before-packet': before_packet,
    'after-packet': after_packet,
    'end-zero': end_zero,
    'seq-again': seq_again,
    'ts-back': ts_back,
    'corners': corners,
    'bit-content': bit_content,
    'tracefile-size': tracefile_size,
    'several-traces': several_traces,
    'grammar': grammar,
    'enum-max': enum_max,
    'freq-twice': lambda: hostile('freq-twice'),
    'size-twice': lambda: hostile('size-twice'),
    'enum-past-max': lambda: hostile('enum-past-max'),
    'seq-no-length': lambda: hostile('seq-no-length'),
    'packet-metadata': packet_metadata,
    'signature-lines': signature_lines,
    'losses-no-times': losses_no_times,
}


def write(top, name):
    meta, streams = TRACES[name]()
    d = os.path.join(top, name)
    os.makedirs(d, exist_ok=True)
    if meta is not None:    # else several traces, their metadata among the files
        with open(os.path.join(d, 'metadata'), 'wb') as f:
            f.write(meta if isinstance(meta, bytes) else meta.encode())
    for fname, data in streams.items():
        p = os.path.join(d, fname)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, 'wb') as f:
            f.write(data if isinstance(data, bytes) else data.encode())
    print(d)


def main():
    if len(sys.argv) == 2 and sys.argv[1] == 'list':
        print('\n'.join(TRACES))
        return 0
    if len(sys.argv) != 3 or sys.argv[2] not in TRACES:
        print(__doc__, file=sys.stderr)
        return 2
    write(sys.argv[1], sys.argv[2])
    return 0


if __name__ == '__main__':
    sys.exit(main())
