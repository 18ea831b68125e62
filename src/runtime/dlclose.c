/*
 * dlclose.c - forget the addresses of a library that is unloaded.
 *
 * dlclose is interposed like the exec family (exec.c).  When the library
 * is really gone (not merely one reference fewer), its module stops
 * claiming its address range (modules.c), its functions' cost-centre
 * numbers their addresses (cctable.c), and every thread's contexts of
 * them their fn (Note [Unloaded functions] in machine.c): a library
 * loaded at the same addresses afterwards gets cost centres of its own
 * instead of being charged to the old one's.  The old functions keep
 * their names and counts.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"

#define API __attribute__((visibility("default"), no_instrument_function))

typedef int (*dlclose_fn)(void *);

static void *real_dlclose;

void rt_dlclose_init(void)
{
	real_dlclose = dlsym(RTLD_NEXT, "dlclose");
}

struct loaded {
	uintptr_t base;
	const char *name;
	int found;
};

static int still_there(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct loaded *l = arg;

	(void)size;
	if (info->dlpi_addr == l->base && strcmp(info->dlpi_name, l->name) == 0)
		l->found = 1;
	return l->found;
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

API int dlclose(void *handle)
{
	struct link_map *lm = NULL;
	struct loaded l = { 0, NULL, 0 };
	char name[4096];
	void *h = handle;
	int rc, saved;

	/* glibc declares handle non-null, but a program may pass NULL and get
	 * an error back: hide it from the compiler's assumption. */
	__asm__("" : "+r"(h));

	if (real_dlclose == NULL)
		rt_dlclose_init();
	if (real_dlclose == NULL) {
		errno = ENOSYS;
		return -1;
	}
	/* Not in a vfork child (our memory), nor for a handle dlinfo refuses. */
	if (getpid() == rt_pid && h != NULL && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm &&
	    lm->l_name && strlen(lm->l_name) < sizeof name) {
		l.base = lm->l_addr;
		l.name = strcpy(name, lm->l_name);
	}
	rc = ((dlclose_fn)real_dlclose)(handle);
	saved = errno;
	if (rc == 0 && l.name && l.name[0]) {
		dl_iterate_phdr(still_there, &l);
		if (!l.found)
			forget(l.base);
	}
	errno = saved;
	return rc;
}
