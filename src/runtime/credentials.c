/*
 * credentials.c - the set*id family, with the sampling helper made anew.
 *
 * Note [The helper's credentials]: the kernel keeps credentials per
 * thread, and glibc makes setuid and the rest act on the whole process
 * by running the system call in every thread it knows of.  It does not
 * know the helper (Note [A helper glibc does not count] in rawthread.c),
 * so a daemon that dropped root would have kept one thread as root, ours:
 * /proc showed it with uid 0, and a profile it wrote (Note [A leader that
 * died alone] in lastthread.c) was root's.  So these calls are
 * interposed: after one that succeeds, in the process the helper samples
 * (not a vfork child), a helper glibc does not count makes the same system
 * call (Note [Credentials by request] in sampler.c).  The same call, not
 * the credentials it ends with: the helper's were the caller's before it,
 * so what the call was allowed to do it may do, in the same order
 * (a seteuid(0) back from an unprivileged user must come before a
 * setgroups); where it may not (what else is per thread: capabilities
 * raised by capset), the helper is made anew.  initgroups too: glibc's calls setgroups inside libc, where
 * no interposer sees it; the helper is given the list it set.  A POSIX
 * helper needs nothing: glibc changes its credentials with the rest.
 * Only in the shared runtime: in a static executable these would take the
 * place of libc's, and dlsym would find none to call; a program linked
 * with libccprof.a that gives up its privileges wants helper=pthread
 * (docs/options.md).
 */
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "runtime.h"

static void credentials_init(void);

/* NAME's real function, and NAME itself: libc's, then, if it succeeded,
 * the same system call in the helper (the call `mirror`). */
#define CREDENTIAL_CALL(name, params, args, mirror)                          \
	static void *real_##name;                                            \
	RT_API int name params                                               \
	{                                                                    \
		int rc, held;                                                \
                                                                             \
		if (!rt_real_ready(&real_##name, credentials_init))          \
			return -1;                                           \
		held = rt_credentials_hold();                                \
		rc = ((int(*) params)real_##name) args;                      \
		if (rc == 0 && held)                                         \
			mirror;                                              \
		rt_credentials_release(held);                                \
		return rc;                                                   \
	}

#define ASK(call, a0, a1, a2) rt_sampler_credentials(call, (long)(a0), (long)(a1), (long)(a2))

static void ask_groups(void);

CREDENTIAL_CALL(setuid, (uid_t u), (u), ASK(SYS_setuid, u, 0, 0))
CREDENTIAL_CALL(setgid, (gid_t g), (g), ASK(SYS_setgid, g, 0, 0))
CREDENTIAL_CALL(seteuid, (uid_t u), (u), ASK(SYS_setresuid, -1, u, -1))
CREDENTIAL_CALL(setegid, (gid_t g), (g), ASK(SYS_setresgid, -1, g, -1))
CREDENTIAL_CALL(setreuid, (uid_t r, uid_t e), (r, e), ASK(SYS_setreuid, r, e, 0))
CREDENTIAL_CALL(setregid, (gid_t r, gid_t e), (r, e), ASK(SYS_setregid, r, e, 0))
CREDENTIAL_CALL(setresuid, (uid_t r, uid_t e, uid_t s), (r, e, s), ASK(SYS_setresuid, r, e, s))
CREDENTIAL_CALL(setresgid, (gid_t r, gid_t e, gid_t s), (r, e, s), ASK(SYS_setresgid, r, e, s))
CREDENTIAL_CALL(setgroups, (size_t n, const gid_t *list), (n, list), ASK(SYS_setgroups, n, list, 0))
CREDENTIAL_CALL(initgroups, (const char *user, gid_t group), (user, group), ask_groups())

/* The groups initgroups set, from getgroups, in memory from mmap. */
static void ask_groups(void)
{
	int saved = errno, n = getgroups(0, NULL);
	size_t size = (size_t)(n > 0 ? n : 1) * sizeof(gid_t);
	gid_t *list = n >= 0 ? rt_map(size) : NULL;

	if (list != NULL && (n = getgroups(n, list)) >= 0)
		ASK(SYS_setgroups, n, list, 0);
	if (list != NULL)
		munmap(list, size);
	errno = saved;
}

/* At start-up (credentials_at_start), or late, from the first call, if a
 * constructor that ran before ours makes one; not from a vfork child's
 * first call, which would share our memory with dlsym's. */
static void credentials_init(void)
{
	static const struct {
		void **real;
		const char *name;
	} calls[] = {
		{&real_setuid, "setuid"},       {&real_setgid, "setgid"},
		{&real_seteuid, "seteuid"},     {&real_setegid, "setegid"},
		{&real_setreuid, "setreuid"},   {&real_setregid, "setregid"},
		{&real_setresuid, "setresuid"}, {&real_setresgid, "setresgid"},
		{&real_setgroups, "setgroups"}, {&real_initgroups, "initgroups"},
	};
	size_t i;

	for (i = 0; i < sizeof calls / sizeof calls[0]; i++)
		__atomic_store_n(calls[i].real, dlsym(RTLD_NEXT, calls[i].name), __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void credentials_at_start(void)
{
	credentials_init();
}
