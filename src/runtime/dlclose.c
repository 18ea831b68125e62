/*
 * dlclose.c - forget the addresses of a library that is unloaded.
 *
 * dlclose is interposed like the exec family (exec.c).  When a library
 * is really gone (not merely one reference fewer), and so is any
 * dependency that went with it, its module stops claiming its address
 * range (modules.c), its functions' cost-centre numbers their addresses
 * (cctable.c), and every thread's contexts of them their fn (Note
 * [Unloaded functions] in machine.c): a library loaded at the same
 * addresses afterwards gets cost centres of its own instead of being
 * charged to the old one's.  The old functions keep their names and
 * counts.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <unistd.h>

#include "runtime.h"

typedef int (*dlclose_fn)(void *);

static void *real_dlclose;

/* libc.a's own name for it: in a static program ours took the name
 * "dlclose", and dlsym finds nothing (dlclose failed with ENOSYS there;
 * helper-200).  Weak: libc.so does not export it, and libc.a's comes
 * with its dlopen. */
extern int __dlclose(void *) __attribute__((weak));

void rt_dlclose_init(void)
{
	real_dlclose = rt_next_or("dlclose", (void *)__dlclose);
}

/* The base addresses of the loaded objects, up to a bound (a program
 * with more objects loses the check for the rest). */
#define MAX_OBJECTS 512

struct objects {
	uintptr_t base[MAX_OBJECTS];
	unsigned n;
};

static int collect(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct objects *o = arg;

	(void)size;
	if (o->n < MAX_OBJECTS)
		o->base[o->n++] = info->dlpi_addr;
	return 0;
}

static int loaded_at(const struct objects *o, uintptr_t base)
{
	unsigned i;

	for (i = 0; i < o->n; i++)
		if (o->base[i] == base)
			return 1;
	return 0;
}

static void forget(uintptr_t base)
{
	const struct rt_module *m;
	int32_t i;

	rt_cc_lock();
	i = rt_module_retire(base);
	if (i >= 0)
		rt_cc_retire_module(i);
	rt_cc_unlock();
	if (i < 0)
		return; /* none of its functions was ever entered */
	m = rt_module_get((uint32_t)i);
	rt_retire_contexts(m->lo, m->hi);
}

/* The objects loaded before and gone after are the ones unloaded: the
 * library closed, unless other references keep it, and any dependency
 * it alone kept.  The handle itself is not looked into (it may be bad;
 * the real dlclose says so). */
RT_API int dlclose(void *handle)
{
	struct objects before = { { 0 }, 0 }, after = { { 0 }, 0 };
	int ours = getpid() == rt_pid; /* not a vfork child, in our memory */
	int rc, saved;
	unsigned i;

	if (!rt_real_ready(&real_dlclose, rt_dlclose_init))
		return -1;
	if (ours)
		dl_iterate_phdr(collect, &before);
	rc = ((dlclose_fn)real_dlclose)(handle);
	saved = errno;
	if (rc == 0 && ours) {
		dl_iterate_phdr(collect, &after);
		for (i = 0; i < before.n; i++)
			if (!loaded_at(&after, before.base[i]))
				forget(before.base[i]);
	}
	errno = saved;
	return rc;
}
