/* SPDX-License-Identifier: MIT */
/*
 * reader/symbols.h - addresses of a traced process to the names of its
 * symbols, at read time: from the executable mappings the recording kept
 * (record --sched's kernel:mmap events: file, where, build id) and the
 * files themselves, through elfutils' libdwfl (their symbol tables, or the
 * separate debug files of /usr/lib/debug that its standard search finds).
 *
 * A file that is no longer what was mapped (its build id differs, or it is
 * gone) names nothing: a wrong name is worse than an address.  Only
 * regular files are opened, never followed into a FIFO or a device: the
 * paths come from a trace, which may be hostile.
 */
#ifndef RTR_READER_SYMBOLS_H
#define RTR_READER_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tr_syms;

/* tr_syms_new() - an empty table.  Return: it, or NULL without memory. */
struct tr_syms *tr_syms_new(void);

/*
 * tr_syms_map() - process @pid mapped @len bytes of file @path (build id
 * @build_id in hex, "" if unknown) at @start, from file offset @pgoff.
 * The files are opened only at the first tr_syms_name() of @pid.  Past
 * 1024 processes, or 4096 files in one, the mapping is ignored (a hostile
 * trace's).  Return: 0, or -ENOMEM.
 */
int tr_syms_map(struct tr_syms *s, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		const char *build_id, const char *path);

/*
 * tr_syms_name() - the symbol of process @pid at @addr, into @buf: "name"
 * where @addr is its start, else "name+0xOFF" (inside it, as a member of a
 * static struct is).  A process with no mappings of its own (a forked
 * child: it inherited its parent's without an event) is looked up in the
 * first process that has some.  Return: true if named.
 */
bool tr_syms_name(struct tr_syms *s, uint32_t pid, uint64_t addr, char *buf, size_t len);

/*
 * tr_syms_function() - the function of process @pid at @addr, into @buf:
 * its name without an offset or a symbol version (C++'s demangled, without
 * parameters), else
 * "[FILE]" where @addr is in a mapped file whose symbols do not cover it.
 * Return: true if named.
 */
bool tr_syms_function(struct tr_syms *s, uint32_t pid, uint64_t addr, char *buf, size_t len);

/*
 * tr_syms_site() - a call site in process @pid, given as @n return
 * addresses, the call's and its callers' (@rets[0] the innermost): into
 * @buf, "function+0xOFF (file.c:LINE)" (OFF the return address's offset,
 * the line where the debug information has it) of the first call whose
 * line is in the program's own sources, not in a system header (a
 * std::unique_lock's unlock() that was not inlined is named by its
 * caller's line), else of the first that can be named.  Return: true if
 * named.
 */
bool tr_syms_site(struct tr_syms *s, uint32_t pid, const uint64_t *rets, unsigned n, char *buf,
		  size_t len);

void tr_syms_free(struct tr_syms *s);

#endif /* RTR_READER_SYMBOLS_H */
