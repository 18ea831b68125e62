/*
 * dwarfmod.c - a module file's DWARF, opened safely (see dwarfmod.h).
 * Compiled to nothing without libdw.
 */
#ifdef CCPROF_HAVE_LIBDW
#include "model/dwarfmod.h"

#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <libelf.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* An fd for path if it is a regular file: a FIFO or a device named by a
 * hostile profile must not block or be read (O_NONBLOCK for the open). */
static int open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Note [Debug files]: the DWARF may be in another file, which the module
 * names: .gnu_debuglink (objcopy --add-gnu-debuglink) and
 * .gnu_debugaltlink (dwz).  libdwfl's standard search opens each
 * candidate with a plain open(2), so a FIFO of that name beside the
 * binary would block the report for ever, and it ends by asking the
 * debuginfod servers of DEBUGINFOD_URLS over the network.  So we search
 * ourselves: first the build-id path under /usr/lib/debug (libdwfl's
 * dwfl_build_id_find_debuginfo: system directories, never the network),
 * then for a debuglink NAME, as gdb does, DIR/NAME, DIR/.debug/NAME and
 * /usr/lib/debug/DIR/NAME, DIR being the binary's directory (and that of
 * the file a symlink names), taking only a regular file with the
 * module's build-id.  A dwz file is found by its build-id path only.
 */

/* Does the ELF file open on fd carry the build-id bits[0..n)? */
static int has_build_id(int fd, const unsigned char *bits, int n)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *id = NULL;
	int same = elf != NULL && dwelf_elf_gnu_build_id(elf, &id) == n &&
		   memcmp(id, bits, (size_t)n) == 0;
	elf_end(elf);
	return same;
}

/* The debuglink file name in the directory of file, per Note [Debug
 * files]; its path goes into *found (malloc'd, as libdwfl wants). */
static int debuglink_in(const char *file, const char *name, const unsigned char *bits, int n,
			char **found)
{
	static const char *const where[] = {"%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s"};
	char dir[PATH_MAX], path[PATH_MAX];
	if (snprintf(dir, sizeof dir, "%s", file) >= (int)sizeof dir)
		return -1;
	const char *d = dirname(dir);
	for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
		int len = snprintf(path, sizeof path, where[i], strcmp(d, "/") ? d : "", name);
		if (len < 0 || len >= (int)sizeof path)
			continue;
		int fd = open_regular(path);
		if (fd < 0)
			continue;
		if (has_build_id(fd, bits, n)) {
			*found = strdup(path);
			return fd;
		}
		close(fd);
	}
	return -1;
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file, const char *link, GElf_Word crc, char **found)
{
	int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file, link, crc, found);
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &bits, &vaddr);
	if (fd >= 0 || file == NULL || link == NULL || n <= 0)
		return fd;
	fd = debuglink_in(file, link, bits, n, found);
	char *real = fd < 0 ? realpath(file, NULL) : NULL;
	if (real != NULL)
		fd = debuglink_in(real, link, bits, n, found);
	free(real);
	return fd;
}

static char *debuginfo_path; /* NULL: /usr/lib/debug, for the build-id paths */

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* Can libdw open path (name, or dir/name if relative) without blocking:
 * absent, or a regular file?  For the files libdw opens itself. */
static int safe_to_open(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;
	if (name[0] != '/' && snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
		return 0;
	return stat(name[0] == '/' ? name : path, &st) != 0 || S_ISREG(st.st_mode);
}

/* The directory of the file the module's DWARF was read from, as libdw
 * sees it (the real path, from the open file): where it looks for the
 * files it opens itself.  malloc'd; NULL if unknown. */
static char *dwarf_dir(Dwfl_Module *mod)
{
	const char *main_file = NULL, *debug_file = NULL;
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &main_file, &debug_file);
	char *real = debug_file || main_file ? realpath(debug_file ? debug_file : main_file, NULL)
					     : NULL;
	char *slash = real ? strrchr(real, '/') : NULL;
	if (slash != NULL)
		slash[slash == real] = '\0';
	return real;
}

/* libdw itself looks for the dwz file when a DIE refers to it and libdwfl
 * did not find it: the build-id path, then the .gnu_debugaltlink name
 * relative to dir, with a plain open(2) (Note [Debug files]).  Is that
 * name safe to open? */
static int altlink_safe(Dwarf *dw, const char *dir)
{
	const char *name;
	const void *id;
	if (dwelf_dwarf_gnu_debugaltlink(dw, &name, &id) <= 0)
		return 1;
	return dir != NULL && safe_to_open(dir, name);
}

int dwarfmod_dwo_safe(Dwarf_Die *skeleton, const char *dir)
{
	Dwarf_Attribute attr;
	const char *name = dwarf_formstring(dwarf_attr(skeleton, DW_AT_dwo_name, &attr));
	if (name == NULL)
		name = dwarf_formstring(dwarf_attr(skeleton, DW_AT_GNU_dwo_name, &attr));
	const char *comp = dwarf_formstring(dwarf_attr(skeleton, DW_AT_comp_dir, &attr));
	char in_dir[PATH_MAX];
	if (name == NULL)
		return 1;
	if (dir == NULL || !safe_to_open(dir, name))
		return 0;
	if (comp == NULL)
		return 1;
	if (comp[0] == '/')
		return safe_to_open(comp, name);
	int len = snprintf(in_dir, sizeof in_dir, "%s/%s", dir, comp);
	return len >= 0 && len < (int)sizeof in_dir && safe_to_open(in_dir, name);
}

/* Does the module's build-id equal want (lowercase hex)? */
static int same_build(Dwfl_Module *mod, const char *want)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &bits, &vaddr);
	if (n <= 0 || strlen(want) != (size_t)n * 2)
		return 0;
	for (int i = 0; i < n; i++) {
		char hex[3];
		snprintf(hex, sizeof hex, "%02x", bits[i]);
		if (want[2 * i] != hex[0] || want[2 * i + 1] != hex[1])
			return 0;
	}
	return 1;
}

void dwarfmod_close(struct dwarf_module *m)
{
	dwfl_end(m->dwfl);
	free(m->dir);
}

int dwarfmod_open(const char *path, const char *build_id, struct dwarf_module *m)
{
	*m = (struct dwarf_module){0};
	if (!path[0] || !build_id[0])
		return 0;
	int fd = open_regular(path);
	if (fd < 0)
		return 0;
	m->dwfl = dwfl_begin(&offline_callbacks);
	if (m->dwfl == NULL) {
		close(fd);
		return 0;
	}
	/* Placed at its p_vaddr: module addresses are ELF addresses.  On
	 * success libdwfl owns fd. */
	m->mod = dwfl_report_elf(m->dwfl, path, path, fd, 0, true);
	if (m->mod == NULL)
		close(fd);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (m->mod != NULL && dwfl_module_getelf(m->mod, &m->bias) != NULL &&
	    same_build(m->mod, build_id))
		m->dw = dwfl_module_getdwarf(m->mod, &m->dw_bias);
	if (m->dw != NULL)
		m->dir = dwarf_dir(m->mod);
	if (m->dw == NULL || !altlink_safe(m->dw, m->dir)) {
		dwarfmod_close(m);
		return 0;
	}
	return 1;
}

#else
typedef int dwarfmod_needs_libdw; /* ISO C wants a declaration */
#endif
