/* SPDX-License-Identifier: MIT */
/*
 * format/classes.h - the task model's event classes (enum rtr_event_id) as
 * CTF describes them: the built-in schema the writer emits and the reader
 * recognises classes by (by name and layout, never by id).
 */
#ifndef RTR_FORMAT_CLASSES_H
#define RTR_FORMAT_CLASSES_H

#include <stdint.h>
#include "format/ctf.h"

/*
 * rtr_event_builtin() - the class of built-in event @id (enum
 * rtr_event_id): its name, id and fields, as written into every trace; the
 * counter event's enum without its labels (the registry's counter names).
 * NULL if @id is not a built-in event.
 */
const struct rtr_ctf_event *rtr_event_builtin(uint32_t id);

/*
 * The kernel's events about the traced threads (`record --sched`,
 * consumer/kernel.c; Documentation/ctf.rst, "The kernel's streams"): ids
 * from RTR_KEV_ID_BASE, far above the typed events' (numbered from 22),
 * written with the extended record header into streams of their own,
 * stream_instance_id RTR_KSTREAM_BASE + the CPU.
 *   kernel:switch  u32 pid, u32 tid, enum u8 what: the thread came onto
 *                  the CPU (in), or left it, blocked or preempted
 *   kernel:fork    u32 parent_pid, parent_tid, pid, tid, string comm: a
 *                  thread or process made, its name the parent's
 *   kernel:exit    u32 pid, tid
 *   kernel:comm    u32 pid, tid, enum u8 how (rename, exec), string comm
 *   kernel:mmap    u32 pid, tid, u64 start, len, pgoff, string build_id
 *                  (hex, "" if the kernel gave none), string filename: an
 *                  executable mapping of a file, for symbols at read time
 *   kernel:sample  u32 pid, tid, bytes stack: a CPU sample (record
 *                  --sample) of a thread running its own code; the stack
 *                  is little-endian u64 addresses, the sampled instruction
 *                  first, then the return addresses of its callers (the
 *                  kernel's walk of the frame pointers)
 */
#define RTR_KEV_ID_BASE		0x10000u
#define RTR_KSTREAM_BASE	32768u
enum rtr_kernel_event {
	RTR_KEV_SWITCH, RTR_KEV_FORK, RTR_KEV_EXIT, RTR_KEV_COMM, RTR_KEV_MMAP,
	RTR_KEV_SAMPLE,
	RTR_KEV_COUNT
};
enum rtr_kswitch_what {
	RTR_KSWITCH_IN = 0, RTR_KSWITCH_BLOCKED = 1, RTR_KSWITCH_PREEMPTED = 2,
};

/* rtr_event_kernel() - kernel event class @k (enum rtr_kernel_event), or NULL. */
const struct rtr_ctf_event *rtr_event_kernel(uint32_t k);

/*
 * rtr_event_pthread_hold() - the pthread wrapper's typed event
 * pthread:hold (events/pthread/sync.c, record --hold-times): u64 lock (the
 * mutex's task id), u64 held_ns (how long the thread that signals it next
 * had held it).  A typed event: its id is the registry's; the readers know
 * it by its name and layout.
 */
const struct rtr_ctf_event *rtr_event_pthread_hold(void);

#endif /* RTR_FORMAT_CLASSES_H */
