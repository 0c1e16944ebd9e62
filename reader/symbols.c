// SPDX-License-Identifier: MIT
/*
 * reader/symbols.c - addresses of a traced process to its symbols' names
 * (symbols.h), with elfutils' libdwfl: one Dwfl per process, its modules
 * reported at its first lookup, each file once, at the load bias its
 * executable mapping gives.
 */
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "reader/symbols.h"

/*
 * A trace may be hostile: it names this many processes, and this many
 * files in each, at most (the rest are not named; a real process maps a
 * few hundred), so that neither the lookups nor the files opened grow
 * without bound.
 */
#define MAX_PROCS	1024
#define MAX_MAPS	4096

struct smap {
	uint64_t start, len, pgoff;
	char *build_id;
	char *path;
};

struct sproc {
	uint32_t pid;
	struct smap *maps;
	uint32_t nmaps, cap;
	Dwfl *dwfl;
	bool reported;
};

struct tr_syms {
	struct sproc *procs;
	uint32_t nprocs, cap;
	uint32_t first;		/* the first process with mappings, or UINT32_MAX */
};

static const Dwfl_Callbacks callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct tr_syms *tr_syms_new(void)
{
	struct tr_syms *s = calloc(1, sizeof(*s));

	if (s)
		s->first = UINT32_MAX;
	return s;
}

static struct sproc *proc_of(struct tr_syms *s, uint32_t pid, bool add)
{
	for (uint32_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	if (!add || s->nprocs == MAX_PROCS)
		return NULL;
	if (s->nprocs == s->cap) {
		uint32_t cap = s->cap ? 2 * s->cap : 4;
		struct sproc *p = realloc(s->procs, cap * sizeof(*p));

		if (!p)
			return NULL;
		s->procs = p;
		s->cap = cap;
	}
	s->procs[s->nprocs] = (struct sproc){ .pid = pid };
	return &s->procs[s->nprocs++];
}

int tr_syms_map(struct tr_syms *s, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		const char *build_id, const char *path)
{
	struct sproc *p;
	struct smap *m;

	if (!(p = proc_of(s, pid, false))) {
		if (s->nprocs == MAX_PROCS)
			return 0;
		if (!(p = proc_of(s, pid, true)))
			return -ENOMEM;
	}
	if (p->nmaps == MAX_MAPS)
		return 0;
	for (uint32_t i = 0; i < p->nmaps; i++)
		if (!strcmp(p->maps[i].path, path))
			return 0;	/* each file once: its first executable mapping */
	if (p->nmaps == p->cap) {
		uint32_t cap = p->cap ? 2 * p->cap : 16;
		struct smap *n = realloc(p->maps, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->maps = n;
		p->cap = cap;
	}
	m = &p->maps[p->nmaps];
	*m = (struct smap){ .start = start, .len = len, .pgoff = pgoff,
			    .build_id = strdup(build_id), .path = strdup(path) };
	if (!m->build_id || !m->path) {
		free(m->build_id);
		free(m->path);
		return -ENOMEM;
	}
	p->nmaps++;
	if (s->first == UINT32_MAX)
		s->first = (uint32_t)(p - s->procs);
	return 0;
}

/* The file's build id in hex is @want (or @want is ""). */
static bool same_build(Elf *e, const char *want)
{
	const void *bits;
	ssize_t n;
	char hex[2 * 64 + 1];

	if (!*want)
		return true;
	n = dwelf_elf_gnu_build_id(e, &bits);
	if (n <= 0 || n > 64)
		return false;
	for (ssize_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", ((const uint8_t *)bits)[i]);
	return !strcmp(hex, want);
}

/*
 * The load bias of @m's file: the mapping at @m->start holds file offset
 * @m->pgoff, which its PT_LOAD segment puts at p_vaddr - p_offset + pgoff.
 */
static bool bias_of(Elf *e, const struct smap *m, uint64_t *bias)
{
	size_t n;

	if (elf_getphdrnum(e, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (m->pgoff + 4096 > ph.p_offset && m->pgoff < ph.p_offset + ph.p_filesz) {
			*bias = m->start - (ph.p_vaddr - ph.p_offset + m->pgoff);
			return true;
		}
	}
	return false;
}

/* Report @m's file to @p's Dwfl if it is still the file that was mapped. */
static void report(struct sproc *p, const struct smap *m)
{
	int fd = open(m->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	uint64_t bias;
	bool ok;
	Elf *e;

	if (fd < 0)
		return;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !(e = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		close(fd);
		return;
	}
	ok = elf_kind(e) == ELF_K_ELF && same_build(e, m->build_id) && bias_of(e, m, &bias);
	elf_end(e);
	/* libdwfl owns the descriptor of a module it took. */
	if (!ok || !dwfl_report_elf(p->dwfl, m->path, m->path, fd, bias, true))
		close(fd);
}

static Dwfl *dwfl_of(struct tr_syms *s, uint32_t pid)
{
	struct sproc *p = proc_of(s, pid, false);

	if (!p || !p->nmaps) {
		/* A forked child's mappings are its parent's: the first process's. */
		if (s->first == UINT32_MAX)
			return NULL;
		p = &s->procs[s->first];
	}
	if (!p->reported) {
		p->reported = true;
		elf_version(EV_CURRENT);
		if (!(p->dwfl = dwfl_begin(&callbacks)))
			return NULL;
		dwfl_report_begin(p->dwfl);
		for (uint32_t i = 0; i < p->nmaps; i++)
			report(p, &p->maps[i]);
		dwfl_report_end(p->dwfl, NULL, NULL);
	}
	return p->dwfl;
}

/*
 * C++'s names demangled by the C++ runtime's own __cxa_demangle (found in
 * libstdc++ at run time: without it, names stay mangled), their parameter
 * list dropped: "(anonymous namespace)::work", not "_ZN12_GLOBAL__N_14work...".
 */
typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
static demangle_fn demangle;
static pthread_once_t demangle_once = PTHREAD_ONCE_INIT;

static void demangle_find(void)
{
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	void *fn = h ? dlsym(h, "__cxa_demangle") : NULL;

	memcpy(&demangle, &fn, sizeof(fn));
}

static void put_name(char *buf, size_t len, const char *name, uint64_t off)
{
	char *d = NULL, *end;
	int status = -1;

	if (!strncmp(name, "_Z", 2)) {
		pthread_once(&demangle_once, demangle_find);
		if (demangle)
			d = demangle(name, NULL, NULL, &status);
	}
	if (d && !status) {
		/* the parameters: from the '(' that matches the last ')' */
		end = d + strlen(d);
		if (end > d && end[-1] == ')') {
			int depth = 0;

			while (end > d) {
				end--;
				depth += *end == ')' ? 1 : *end == '(' ? -1 : 0;
				if (!depth)
					break;
			}
			if (end > d)
				*end = 0;
		}
		name = d;
	}
	if (off)
		snprintf(buf, len, "%s+0x%" PRIx64, name, off);
	else
		snprintf(buf, len, "%s", name);
	free(d);
}

bool tr_syms_name(struct tr_syms *s, uint32_t pid, uint64_t addr, char *buf, size_t len)
{
	Dwfl *d = dwfl_of(s, pid);
	Dwfl_Module *mod;
	const char *name;
	GElf_Off off;
	GElf_Sym sym;

	if (!d || !(mod = dwfl_addrmodule(d, addr)))
		return false;
	name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	if (!name || !*name || (sym.st_size ? off >= sym.st_size : off != 0))
		return false;
	put_name(buf, len, name, off);
	return true;
}

bool tr_syms_function(struct tr_syms *s, uint32_t pid, uint64_t addr, char *buf, size_t len)
{
	Dwfl *d = dwfl_of(s, pid);
	Dwfl_Module *mod;
	const char *name, *file = NULL, *slash;
	GElf_Off off;
	GElf_Sym sym;

	if (!d || !(mod = dwfl_addrmodule(d, addr)))
		return false;
	name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	if (name && *name && (sym.st_size ? off < sym.st_size : off == 0)) {
		char *at;

		put_name(buf, len, name, 0);
		/* a version ("clock_gettime@@GLIBC_2.17"): the function is the same */
		if (buf[0] != '@' && (at = strchr(buf, '@')))
			*at = 0;
		return true;
	}
	name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &file, NULL);
	if (file)
		name = file;
	if (!name)
		return false;
	slash = strrchr(name, '/');
	snprintf(buf, len, "[%s]", slash ? slash + 1 : name);
	return true;
}

/*
 * The DIE of @parent's children (namespaces searched through) whose code
 * holds @pc, into @out.  Return: true if found.
 */
static bool child_at(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out, int depth)
{
	Dwarf_Die c;

	if (depth > 16 || dwarf_child(parent, &c))
		return false;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_namespace) {
			if (child_at(&c, pc, out, depth + 1))
				return true;
		} else if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
			    tag == DW_TAG_lexical_block) && dwarf_haspc(&c, pc) == 1) {
			*out = c;
			return true;
		}
	} while (!dwarf_siblingof(&c, &c));
	return false;
}

/*
 * The line of the call at @pc in the function's own code: where @pc lies in
 * code inlined into it (std::mutex::lock(), a condition_variable's wait),
 * the call site of the outermost inlined function, not a line of a header.
 * (dwarf_getscopes() follows an inlined function to its abstract
 * definition, not to the function it was inlined into: the concrete
 * scopes are walked down from the unit.)  Return: the file (a path), or
 * NULL where the debug information has none.
 */
static const char *own_line(Dwfl_Module *mod, uint64_t pc, int *lineno)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias), die, in;
	Dwarf_Attribute at;
	Dwarf_Word fi, li;
	Dwarf_Files *files;
	size_t nfiles;

	if (!cu)
		return NULL;
	die = *cu;
	for (int depth = 0; depth < 64; depth++) {
		if (!child_at(&die, pc - bias, &in, 0))
			return NULL;
		if (dwarf_tag(&in) == DW_TAG_inlined_subroutine)
			break;
		die = in;
	}
	if (dwarf_tag(&in) != DW_TAG_inlined_subroutine ||
	    dwarf_formudata(dwarf_attr(&in, DW_AT_call_file, &at), &fi) ||
	    dwarf_formudata(dwarf_attr(&in, DW_AT_call_line, &at), &li) ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) || fi >= nfiles || li == 0 || li > INT32_MAX)
		return NULL;
	*lineno = (int)li;
	return dwarf_filesrc(files, fi, NULL, NULL);
}

/*
 * One call: "function+0xOFF (file.c:LINE)" into @buf; @own set if its line
 * is in a file of the program's sources (not a system header such as
 * /usr/include/c++/12/bits/unique_lock.h).  Return: true if named.
 */
static bool site_one(Dwfl *d, uint64_t ret, char *buf, size_t len, bool *own)
{
	Dwfl_Module *mod;
	Dwfl_Line *line;
	const char *name, *file = NULL, *base;
	GElf_Off off;
	GElf_Sym sym;
	int lineno = 0;

	/* The call is the instruction before the return address: its function, its line. */
	*own = false;
	if (!ret || !(mod = dwfl_addrmodule(d, ret - 1)))
		return false;
	name = dwfl_module_addrinfo(mod, ret - 1, &off, &sym, NULL, NULL, NULL);
	if (!name || !*name || (sym.st_size && off >= sym.st_size))
		return false;
	if (!(file = own_line(mod, ret - 1, &lineno)) && (line = dwfl_module_getsrc(mod, ret - 1)))
		file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	put_name(buf, len, name, (uint64_t)off + 1);
	if (file && lineno > 0) {
		size_t n = strlen(buf);

		base = strrchr(file, '/');
		snprintf(buf + n, len - n, " (%s:%d)", base ? base + 1 : file, lineno);
		*own = strncmp(file, "/usr/include/", 13) != 0;
	}
	return true;
}

bool tr_syms_site(struct tr_syms *s, uint32_t pid, const uint64_t *rets, unsigned n, char *buf,
		  size_t len)
{
	Dwfl *d = dwfl_of(s, pid);
	char cur[512];
	bool named = false, own;

	for (unsigned i = 0; d && len && i < n; i++) {
		if (!site_one(d, rets[i], cur, sizeof(cur), &own) || (named && !own))
			continue;
		snprintf(buf, len, "%s", cur);	/* the first named, or the first of our own */
		named = true;
		if (own)
			break;
	}
	return named;
}

void tr_syms_free(struct tr_syms *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->nprocs; i++) {
		struct sproc *p = &s->procs[i];

		for (uint32_t j = 0; j < p->nmaps; j++) {
			free(p->maps[j].build_id);
			free(p->maps[j].path);
		}
		free(p->maps);
		if (p->dwfl)
			dwfl_end(p->dwfl);
	}
	free(s->procs);
	free(s);
}
