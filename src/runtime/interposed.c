/*
 * interposed.c - the real function behind one the runtime interposes:
 * libc's, which dlsym finds.
 */
#include <errno.h>

#include "runtime.h"

/* Interposed functions (exec.c, namespaces.c, dlclose.c and the shared
 * runtime's exitgate.c, shellspawn.c, longjmp.c, catch.c) call libc's own,
 * which `lookup` finds with dlsym, at start-up or late if a constructor
 * that ran before ours calls one.  0 with errno ENOSYS if libc has none. */
int rt_real_ready(void *const *real, void (*lookup)(void))
{
	if (*real == NULL)
		lookup();
	if (*real == NULL)
		errno = ENOSYS;
	return *real != NULL;
}
