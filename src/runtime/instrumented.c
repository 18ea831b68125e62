/*
 * instrumented.c - whether the code loaded in the process calls the
 * runtime: the hooks (-finstrument-functions; gcc's -minstrument-return,
 * whose __return__ only the runtime defines) or the region API
 * (ccprof.h), as an undefined symbol of some loaded object's (shared
 * runtime only).
 *
 * Note [A helper for code that calls the hooks]: `ccprof record`
 * preloads the runtime into every process of a run, and most of them (a
 * shell, make, the compilers and tools it runs) contain no instrumented
 * code at all.  Each made the sampling helper at start-up and ended it at
 * exit, a thread that never took a sample: /bin/true took 1.55 times its
 * bare CPU time under the runtime, and 1.40 made without it; a shell
 * running it 50 times, 1.51 and 1.29 (bench/ab.py, 21 and 15 rounds;
 * docs/performance.md, session 32).  An object that calls the
 * hooks or the region API has the symbol undefined in its dynamic symbol
 * table, resolved to ours or glibc's at load.  So at start-up the
 * runtime looks through the objects loaded then (the program, its
 * libraries, what else was preloaded; not the runtime itself, which
 * defines them), and where none has such a symbol the helper is made at
 * the first thread state instead (rt_sampler_go): code loaded later, by
 * dlopen, can still call the hooks.  That first hook may run where
 * making a thread is not safe, inside a signal handler or the program's
 * own malloc (Note [The sampler waits for the first call] in sampler.c):
 * a program whose own malloc or signal handlers are instrumented has the
 * symbols at start-up and makes the helper then, as before, so only code
 * that is both loaded later and first run in such a place could meet it.
 * That first call makes the helper only in the process itself, not in a
 * vfork child, which shares our memory and would make it for itself; and
 * not under a seccomp filter the program installed since start-up, which
 * the helper, made by that call's thread, would inherit: one line says
 * no time will be recorded (rt_sampler_go).  A fork child whose forking
 * thread has its state makes its helper at once.  Whatever cannot be
 * read (no hash table, a table out of the object's segments) counts as
 * calling the hooks: the helper is made at start-up.
 * The look stops at the first object that calls (an instrumented program
 * is the first); through a program that does not, it took 4 us with libc
 * alone and 15-20 us with libstdc++ and libcrypto loaded too.
 */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "runtime.h"

struct scan {
	uintptr_t self; /* an address in the runtime's own object */
	int calls;
};

/* A dynamic entry's address: glibc relocates the program's and the
 * libraries' in place, not the vDSO's. */
static uintptr_t dyn_address(const struct dl_phdr_info *info, ElfW(Addr) ptr)
{
	return ptr < info->dlpi_addr ? info->dlpi_addr + ptr : ptr;
}

/* The number of dynamic symbols from a GNU hash table: one past the
 * highest index a bucket or chain reaches, or 0 if the table cannot be
 * read.  (The undefined symbols usually come first, below the table's
 * symoffset, but not always: in 578 of 1,070 programs and libraries of
 * a Debian system some were above it.) */
static size_t gnu_hash_symbols(const struct dl_phdr_info *info, const uint32_t *h)
{
	uint32_t nbuckets, symoffset, bloom, i, top = 0;
	const uint32_t *buckets, *chain;

	if (!rt_object_holds(info, (uintptr_t)h, 4 * sizeof *h))
		return 0;
	nbuckets = h[0];
	symoffset = h[1];
	bloom = h[2];
	if (!rt_object_holds(info, (uintptr_t)(h + 4), (uint64_t)bloom * sizeof(ElfW(Addr))))
		return 0;
	buckets = h + 4 + (size_t)bloom * (sizeof(ElfW(Addr)) / sizeof *h);
	if (!rt_object_holds(info, (uintptr_t)buckets, (uint64_t)nbuckets * sizeof *buckets))
		return 0;
	for (i = 0; i < nbuckets; i++)
		top = buckets[i] > top ? buckets[i] : top;
	if (top < symoffset)
		return symoffset;
	chain = buckets + nbuckets;
	for (;; top++) {
		if (!rt_object_holds(info, (uintptr_t)&chain[top - symoffset], sizeof *chain))
			return 0;
		if (chain[top - symoffset] & 1)
			return (size_t)top + 1;
	}
}

/* The number of dynamic symbols from a SysV hash table (its chain's
 * length), or 0. */
static size_t sysv_symbols(const struct dl_phdr_info *info, const uint32_t *h)
{
	return rt_object_holds(info, (uintptr_t)h, 2 * sizeof *h) ? h[1] : 0;
}

/* Whether the name at strs + at (strsz bytes in all) begins with one of
 * ours, read no further than the table. */
static int names_runtime(const char *strs, size_t strsz, size_t at)
{
	static const char *const ours[] = { "__cyg_profile_func_", "ccprof__", "__return__" };
	size_t i, n;

	for (i = 0; i < sizeof ours / sizeof *ours; i++) {
		n = strlen(ours[i]);
		if (at < strsz && strsz - at >= n && memcmp(strs + at, ours[i], n) == 0)
			return 1;
	}
	return 0;
}

/* Whether one object has a symbol of ours undefined (the hooks, the
 * region API); 1 also where its tables cannot be read. */
static int object_calls(const struct dl_phdr_info *info)
{
	const ElfW(Dyn) *d = NULL;
	const ElfW(Sym) *syms = NULL;
	const uint32_t *sysv = NULL, *gnu = NULL;
	const char *strs = NULL;
	size_t nsyms, strsz = 0, i;
	int k;

	for (k = 0; k < info->dlpi_phnum; k++)
		if (info->dlpi_phdr[k].p_type == PT_DYNAMIC)
			d = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[k].p_vaddr);
	if (d == NULL)
		return 0; /* nothing dynamic: no symbol to take from us */
	for (; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_SYMTAB)
			syms = (const ElfW(Sym) *)dyn_address(info, d->d_un.d_ptr);
		else if (d->d_tag == DT_STRTAB)
			strs = (const char *)dyn_address(info, d->d_un.d_ptr);
		else if (d->d_tag == DT_STRSZ)
			strsz = d->d_un.d_val;
		else if (d->d_tag == DT_HASH)
			sysv = (const uint32_t *)dyn_address(info, d->d_un.d_ptr);
		else if (d->d_tag == DT_GNU_HASH)
			gnu = (const uint32_t *)dyn_address(info, d->d_un.d_ptr);
	}
	/* SysV's count is exact; GNU's is worked out. */
	nsyms = sysv != NULL ? sysv_symbols(info, sysv) : gnu != NULL ? gnu_hash_symbols(info, gnu) : 0;
	if (syms == NULL || strs == NULL || nsyms == 0 ||
	    !rt_object_holds(info, (uintptr_t)syms, (uint64_t)nsyms * sizeof *syms) ||
	    !rt_object_holds(info, (uintptr_t)strs, strsz))
		return 1;
	for (i = 1; i < nsyms; i++)
		if (syms[i].st_shndx == SHN_UNDEF && names_runtime(strs, strsz, syms[i].st_name))
			return 1;
	return 0;
}

static int visit(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan *s = arg;

	(void)size;
	if (rt_object_holds(info, s->self, 1))
		return 0; /* the runtime defines them */
	s->calls = object_calls(info);
	return s->calls; /* stop at the first that calls */
}

int rt_loaded_code_calls_runtime(void)
{
	struct scan s = { (uintptr_t)&rt_loaded_code_calls_runtime, 0 };

	dl_iterate_phdr(visit, &s);
	return s.calls;
}
