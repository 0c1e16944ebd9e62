#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check, with babeltrace2, the traces of ringtrace-test-emit a real-Xen run made.

    check_trace.py [--threads N] [--attempted N] [--mode M] NAME DIR...

The DIRs are parts of one run, in order (what dom0 consumed, then what it
recovered).  Every rtrtest:ev event (tests/consumer/emit.h) must carry its
checksum, come from one of the N threads, appear once over all DIRs, and
come after the thread's previous one in its stream (CPU).  Each stream's
packets are numbered without a gap over all DIRs, but in overwrite mode,
where a gap is packets the producer lapped.  The events lost are each
stream's last events_discarded (events the ring refused: ring full in
discard mode, the CPU's buffer busy on the portable path).
  --attempted N  the events the guest emitted: present + lost must equal N
                 (with lapped packets, whose events no one counted: be less)
  --mode M       discard (the default) or overwrite
  --wakeups N    the events dom0's kernel delivered on consume's port
                 (/proc/interrupts), with consume's periodic flush off: at
                 most one per completed packet, plus the bind-time event, the
                 guest's stop and exit notifications and the answer to
                 consume's last flush (4)
  --min-wakeups N  and at least N (a paced run, where dom0 sleeps)
Prints one line of figures; exits 1 naming the first problems found.
Run with Debian's /usr/bin/python3, where python3-bt2 lives.
"""
import argparse
import glob
import os
import struct
import sys

import bt2

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "interop"))
from bt2_read import checksum  # noqa: E402


# The packet header and context, as events/ctf.c lays them out: magic,
# uuid, stream_id, stream_instance_id; timestamp_begin, packet_seq_num,
# cpu_id, timestamp_end, content_size, packet_size (bits), events_discarded;
# byte-aligned (CTF aligns in bits: align = 8), so packed.
PACKET = struct.Struct("<I16sIQQQIQQQQ")
CTF_MAGIC = 0xC1FC1FC1


def packets(d):
    """(cpu, packet_seq_num, events_discarded) of each packet of the trace @d,
    stream file by stream file."""
    for path in sorted(glob.glob(os.path.join(d, "stream_*"))):
        with open(path, "rb") as f:
            data = f.read()
        off = 0
        while off < len(data):
            if len(data) - off < PACKET.size:
                raise ValueError(f"{path}: a packet header cut short at byte {off}")
            (magic, _, _, _, _, seq, cpu, _, _, size, discarded) = PACKET.unpack_from(data, off)
            if magic != CTF_MAGIC or size < PACKET.size * 8 or size % 8:
                raise ValueError(f"{path}: no packet at byte {off}")
            yield cpu, seq, discarded
            off += size // 8


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--attempted", type=int)
    ap.add_argument("--mode", choices=("discard", "overwrite"), default="discard")
    ap.add_argument("--wakeups", type=int)
    ap.add_argument("--min-wakeups", type=int, default=0)
    ap.add_argument("name")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()

    problems = []

    def problem(text):
        if len(problems) < 10:
            problems.append(text)

    seen = [set() for _ in range(a.threads)]
    last = {}          # (cpu, thread) -> last seq in that stream
    pkt_seq = {}       # cpu -> last packet_seq_num
    discarded = {}     # cpu -> events_discarded of its last packet
    present = packets_n = lapped = 0
    consumed_packets = None
    for d in a.dirs:
        try:
            for cpu, num, disc in packets(d):
                if cpu in pkt_seq and num != pkt_seq[cpu] + 1:
                    if a.mode == "overwrite" and num > pkt_seq[cpu]:
                        lapped += num - pkt_seq[cpu] - 1
                    else:
                        problem(f"{d}: cpu {cpu}: packet {num} after packet {pkt_seq[cpu]}")
                pkt_seq[cpu] = num
                discarded[cpu] = disc
                packets_n += 1
        except (OSError, ValueError) as e:
            problem(str(e))
        if consumed_packets is None:
            consumed_packets = packets_n
        try:
            for msg in bt2.TraceCollectionMessageIterator(d):
                if type(msg) is not bt2._EventMessageConst or msg.event.name != "rtrtest:ev":
                    continue
                p = msg.event.payload_field
                t, s = int(p["thread"]), int(p["seq"])
                cpu = int(msg.event.packet.context_field["cpu_id"])
                present += 1
                if t >= a.threads:
                    problem(f"{d}: event from thread {t}")
                    continue
                if int(p["check"]) != checksum(t, s):
                    problem(f"{d}: thread {t} seq {s}: bad checksum")
                if s in seen[t]:
                    problem(f"{d}: thread {t} seq {s} twice")
                seen[t].add(s)
                if last.get((cpu, t), -1) >= s:
                    problem(f"{d}: cpu {cpu}: thread {t} seq {s} after {last[(cpu, t)]}")
                last[(cpu, t)] = s
        except bt2._Error as e:
            problem(f"babeltrace2 cannot read {d}: {e}")
    lost = sum(discarded.values())
    if a.attempted is not None and not lapped and present + lost != a.attempted:
        problem(f"{present} events + {lost} lost = {present + lost}, but {a.attempted} were emitted")
    if a.attempted is not None and lapped and present + lost >= a.attempted:
        problem(f"{present} events + {lost} lost = {present + lost} with {lapped} packets lapped, "
                f"but only {a.attempted} were emitted")
    if a.wakeups is not None:
        # Only the first DIR is consume's (what follows is recover's).
        completed = consumed_packets + lapped
        if a.wakeups > completed + 4:
            problem(f"dom0 was woken {a.wakeups} times for {completed} packets "
                    f"(at most one per packet, + 4)")
        if a.wakeups < a.min_wakeups:
            problem(f"dom0 was woken {a.wakeups} times, fewer than {a.min_wakeups}")
    print(f"  {a.name}: {present} events, {lost} lost, {packets_n} packets"
          f"{f' ({lapped} lapped)' if lapped else ''}"
          f"{'' if a.wakeups is None else f', dom0 woken {a.wakeups} times'}"
          f"{'' if a.attempted is None else f' ({a.attempted} emitted)'}: "
          f"{'verified' if not problems else 'FAILED'}")
    for p in problems:
        print(f"  {a.name}: FAIL: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
