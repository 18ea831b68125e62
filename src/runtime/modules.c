/*
 * modules.c - which loaded object each function lives in.
 *
 * A function is identified by its module (path, build-id) and its offset in
 * that module, not by its run-time address (docs/format.md, 3.3 MODULES
 * and 3.4 CCS): profiles of runs with different address layouts then
 * merge, and a library closed with dlclose keeps its names.  Modules are
 * recorded as they are first seen, when a function of theirs gets its CC
 * number (under the CC lock).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime.h"

#define MAX_MODULES 4096

static struct rt_module modules[MAX_MODULES];
static uint32_t nmodules;

struct search {
	uintptr_t addr;
	int32_t found;
};

/* The build-id of a loaded module, from its PT_NOTE segments, into out:
 * "" if it has none. */
static void module_build_id(const struct dl_phdr_info *info, char out[BUILDID_HEX_SIZE])
{
	out[0] = '\0';
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_NOTE &&
		    buildid_from_notes((const unsigned char *)(info->dlpi_addr + ph->p_vaddr),
				       ph->p_memsz, out))
			return;
	}
}

/*
 * Note [Absolute module paths]: the dynamic linker names a library by the
 * path it opened, which is relative when the search path or dlopen's
 * argument was (-Wl,-rpath,. gives "./libl.so").  Recorded so, the profile
 * would depend on the directory the tool runs from: it reads the module's
 * file for names (a crash profile has none), --only-exported and
 * --module compare paths.  A profile is to be read anywhere
 * (docs/format.md, 3.3 MODULES), so a module is recorded by an absolute
 * path: the kernel's name of the file mapped at the module's first
 * address, from readlink of /proc/self/map_files/START-END, or failing
 * that the path column of /proc/self/maps.  Not the path joined to the
 * working directory: the program may have changed it since the load,
 * and then a join names another file or none.  The kernel's name is the
 * file itself, symbolic links resolved, as /proc/self/exe is for the
 * program; a file deleted since the load loses the kernel's " (deleted)".
 * Without /proc, the path stays as the linker gave it.
 *
 * This runs once per module, when its first function gets its number,
 * never on the hooks' fast path, and under the cc lock, which also guards
 * the static buffers (a thread's stack may be small).  It takes only
 * open, read, readlink and close, as the rest of record() takes only
 * async-signal-safe calls: an instrumented signal handler may be the
 * first to enter a module.  The crash-time write only copies the path.
 */
static char maps_buf[8192];
static char column_buf[4096]; /* the path column of /proc/self/maps */
static char path_buf[4096];

/* The hexadecimal number at *s, and *s after it. */
static uintptr_t parse_hex(const char **s)
{
	uintptr_t v = 0;

	for (;; (*s)++) {
		char c = **s;

		if (c >= '0' && c <= '9')
			v = v * 16 + (uintptr_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (uintptr_t)(c - 'a' + 10);
		else
			return v;
	}
}

static char *put_hex(char *p, uintptr_t v)
{
	char digits[2 * sizeof v];
	int n = 0;

	do {
		digits[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	while (n > 0)
		*p++ = digits[--n];
	return p;
}

/* One line of /proc/self/maps (without its newline): if its mapping holds
 * addr, its path (absolute, or "" if none) into column_buf, and 1. */
static int map_line(const char *line, const char *end, uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
	const char *p = line;
	size_t n;
	int field;

	*lo = parse_hex(&p);
	if (*p++ != '-')
		return 0;
	*hi = parse_hex(&p);
	if (addr < *lo || addr >= *hi)
		return 0;
	for (field = 0; field < 5 && p < end; field++) { /* range, perms, offset, dev, inode */
		while (p < end && *p != ' ')
			p++;
		while (p < end && *p == ' ')
			p++;
	}
	n = (size_t)(end - p);
	column_buf[0] = '\0';
	/* The kernel writes a newline in a name as \012, and a backslash as
	 * itself: such a column is not taken. */
	if (p < end && *p == '/' && n < sizeof column_buf && memmem(p, n, "\\012", 4) == NULL) {
		memcpy(column_buf, p, n);
		column_buf[n] = '\0';
	}
	return 1;
}

/* The mapping of /proc/self/maps that holds addr: 1 and its range, its
 * path column in column_buf; 0 if none or no /proc. */
static int find_mapping(uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	int found = 0, skip = 0; /* skip: the rest of a line too long for the buffer */

	if (fd < 0)
		return 0;
	while (!found) {
		ssize_t r = read(fd, maps_buf + len, sizeof maps_buf - len);
		char *line = maps_buf, *nl;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		while (!found && (nl = memchr(line, '\n', len - (size_t)(line - maps_buf))) != NULL) {
			if (!skip)
				found = map_line(line, nl, addr, lo, hi);
			skip = 0;
			line = nl + 1;
		}
		len -= (size_t)(line - maps_buf);
		memmove(maps_buf, line, len);
		if (len == sizeof maps_buf) {
			skip = 1;
			len = 0;
		}
	}
	close(fd);
	return found;
}

/* /proc/self/map_files/START-END into link[RT_MAP_FILES_LEN]. */
static void map_files_link(char *link, uintptr_t start, uintptr_t end)
{
	static const char dir[] = "/proc/self/map_files/";
	char *p = link + sizeof dir - 1;

	memcpy(link, dir, sizeof dir);
	p = put_hex(p, start);
	*p++ = '-';
	p = put_hex(p, end);
	*p = '\0';
}

/* Under the cc lock, which guards find_mapping's buffers; the write's
 * name lookup (dump.c) runs outside it. */
int rt_map_files_path(uintptr_t addr, char *link)
{
	uintptr_t start, end;
	int found;

	rt_cc_lock();
	found = find_mapping(addr, &start, &end);
	rt_cc_unlock();
	if (found)
		map_files_link(link, start, end);
	return found;
}

/* The absolute path of the file mapped at lo, named name by the dynamic
 * linker (relative): in path_buf, or NULL (Note [Absolute module paths]). */
static const char *mapped_path(const char *name, uintptr_t lo)
{
	static const char deleted[] = " (deleted)";
	char link[RT_MAP_FILES_LEN];
	uintptr_t start, end;
	size_t n, dn = sizeof deleted - 1, nn = strlen(name);
	ssize_t r;

	if (!find_mapping(lo, &start, &end))
		return NULL;
	map_files_link(link, start, end);
	r = readlink(link, path_buf, sizeof path_buf - 1);
	if (r > 0 && r < (ssize_t)sizeof path_buf - 1 && path_buf[0] == '/')
		path_buf[r] = '\0';
	else /* not allowed, or too long: the column */
		memcpy(path_buf, column_buf, strlen(column_buf) + 1);
	n = strlen(path_buf);
	if (n == 0)
		return NULL;
	if (n > dn && strcmp(path_buf + n - dn, deleted) == 0 &&
	    !(nn >= dn && strcmp(name + nn - dn, deleted) == 0))
		path_buf[n - dn] = '\0';
	return path_buf;
}

/* The path to record for the object info describes, lowest mapped address
 * lo: its own for the program, as the dynamic linker gave it if absolute,
 * else the kernel's (Note [Absolute module paths]). */
static const char *module_path(const struct dl_phdr_info *info, uintptr_t lo)
{
	const char *name = info->dlpi_name, *abs;

	if (name == NULL || name[0] == '\0') { /* the main program */
		ssize_t r = readlink("/proc/self/exe", path_buf, sizeof path_buf - 1);

		if (r <= 0) /* no /proc: the path found at the start (dump.c) */
			return rt_program_path();
		path_buf[r] = '\0';
		return path_buf;
	}
	if (name[0] == '/' || (abs = mapped_path(name, lo)) == NULL)
		return name;
	return abs;
}

static char *copy_path(const char *name)
{
	size_t n = strlen(name) + 1;
	char *s = rt_map(n);

	if (s)
		memcpy(s, name, n);
	return s;
}

/* The file at path, as recorded for a module without a build-id. */
static void stat_module(struct rt_module *m)
{
	struct stat st;

	m->stat_ok = stat(m->path, &st) == 0;
	if (m->stat_ok) {
		m->dev = (uint64_t)st.st_dev;
		m->ino = (uint64_t)st.st_ino;
		m->size = (uint64_t)st.st_size;
		m->mtime_sec = (int64_t)st.st_mtim.tv_sec;
		m->mtime_nsec = (int64_t)st.st_mtim.tv_nsec;
	}
}

/* Whether an unloaded module is the file now loaded (at path, as
 * module_path gives it): same path, same
 * build-id, or, neither having one, the same file at the path as when
 * the module was recorded. */
static int same_file(const struct rt_module *m, const struct dl_phdr_info *info, const char *path)
{
	char id[BUILDID_HEX_SIZE];

	if (m->path == NULL || strcmp(m->path, path) != 0)
		return 0;
	module_build_id(info, id);
	if (strcmp(id, m->build_id) != 0)
		return 0;
	if (id[0] == '\0' && m->stat_ok) {
		struct rt_module now = *m;

		stat_module(&now);
		return now.stat_ok && now.dev == m->dev && now.ino == m->ino && now.size == m->size &&
		       now.mtime_sec == m->mtime_sec && now.mtime_nsec == m->mtime_nsec;
	}
	return 1;
}

/*
 * Note [A library loaded again elsewhere]: a library that is closed and
 * opened again (a plugin loop) mostly lands somewhere else, since the
 * program mapped memory meanwhile.  It is the same file, so the same
 * module (docs/format.md, 3.3 MODULES: "A module is a file"): an
 * unloaded module of the same path and build-id (or, without build-ids,
 * the same file: same_file) and the same layout takes the new base, and
 * its functions' numbers follow (cctable.c, rt_cc_rebase_module), so that
 * each function keeps one cost centre and its contexts, whatever the
 * base, and the module table (MAX_MODULES) does not fill up with one
 * module per dlopen, after which functions went unnamed.  Contexts know
 * functions by address, but those of an unloaded module were all given
 * &rt_no_context (Note [Unloaded functions] in machine.c): a call finds
 * its context again by its history and gives it the new address, and a
 * transition remembered for the old address misses, as its target's
 * address is not the old one any more.
 *
 * Races are those of dlclose.c, no others: an entry is taken only once
 * its library was seen gone (retired), and only by the same file.  A
 * library closed by one thread while another opens a different one at
 * its addresses, before the first thread retired it, is still charged to
 * the first module, as before: two threads each opening, calling and
 * closing its own library in a loop see a few calls of one library's
 * function charged to the other's (dlclose.c takes no lock across the
 * real dlclose).
 */
static int32_t record(struct dl_phdr_info *info)
{
	struct rt_module *m;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	const char *path;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD) {
			uintptr_t a = info->dlpi_addr + ph->p_vaddr;

			if (a < lo)
				lo = a;
			if (a + ph->p_memsz > hi)
				hi = a + ph->p_memsz;
		}
	}
	for (i = 0; i < (int)nmodules; i++) /* seen before, still loaded there */
		if (!modules[i].retired && modules[i].base == info->dlpi_addr && modules[i].lo == lo &&
		    modules[i].hi == hi)
			return i;
	path = module_path(info, lo);
	for (i = 0; i < (int)nmodules; i++) {
		if (!modules[i].retired || modules[i].base != info->dlpi_addr || modules[i].lo != lo ||
		    modules[i].hi != hi)
			continue;
		if (same_file(&modules[i], info, path)) {
			/* Loaded again where it was (dlopen after dlclose): the
			 * same module, so that its functions get their own
			 * cost-centre numbers back (cctable.c), not one more set
			 * per dlopen, and the table does not fill up. */
			modules[i].retired = 0;
			return i;
		}
	}
	for (i = 0; i < (int)nmodules; i++) { /* Note [A library loaded again elsewhere] */
		if (!modules[i].retired || modules[i].hi - modules[i].lo != hi - lo ||
		    modules[i].lo - modules[i].base != lo - info->dlpi_addr ||
		    !same_file(&modules[i], info, path))
			continue;
		if (rt_cc_rebase_module(i, modules[i].base, info->dlpi_addr) != 0)
			break;
		modules[i].base = info->dlpi_addr;
		modules[i].lo = lo;
		modules[i].hi = hi;
		modules[i].retired = 0;
		return i;
	}
	if (nmodules == MAX_MODULES)
		return -1;
	m = &modules[nmodules];
	m->path = copy_path(path); /* Note [Absolute module paths] */
	m->main = info->dlpi_name == NULL || info->dlpi_name[0] == '\0';
	m->base = info->dlpi_addr;
	m->lo = lo;
	m->hi = hi;
	module_build_id(info, m->build_id);
	if (m->build_id[0] == '\0' && m->path) /* Note [Names from the loaded file], dump.c */
		stat_module(m);
	return (int32_t)nmodules++;
}

/* Whether the object's loaded segments hold [p, p + n).  n is 64 bits
 * wide, so that a count times a size from a damaged table cannot wrap. */
int rt_object_holds(const struct dl_phdr_info *info, uintptr_t p, uint64_t n)
{
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && p >= lo && p - lo <= ph->p_memsz && n <= ph->p_memsz - (p - lo))
			return 1;
	}
	return 0;
}

static int visit(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct search *s = arg;

	(void)size;
	if (!rt_object_holds(info, s->addr, 1))
		return 0;
	s->found = record(info);
	return 1;
}

/* The module of the function at addr, recorded if new; errno as it was
 * (the program's, between a call it made and its check). */
int32_t rt_module_of(uintptr_t addr)
{
	struct search s = { addr, -1 };
	int saved = errno;

	dl_iterate_phdr(visit, &s);
	errno = saved;
	return s.found;
}

/* The module loaded at base has been unloaded (dlclose.c): it keeps its
 * entry, for the names of its functions, but no longer claims its range.
 * Its index, or -1 if none of its functions was ever entered. */
int32_t rt_module_retire(uintptr_t base)
{
	uint32_t i;

	for (i = 0; i < nmodules; i++)
		if (!modules[i].retired && modules[i].base == base) {
			modules[i].retired = 1;
			return (int32_t)i;
		}
	return -1;
}

uint32_t rt_module_count(void)
{
	return nmodules;
}

const struct rt_module *rt_module_get(uint32_t i)
{
	return &modules[i];
}
