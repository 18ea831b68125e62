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
 * interposed, as unshare is (namespaces.c): after one that succeeds, in
 * the process the helper samples (not a vfork child), a helper glibc does
 * not count is stopped and made again by the calling thread, whose new
 * credentials it takes.  initgroups too: glibc's calls setgroups inside
 * libc, where no interposer sees it.  A POSIX helper needs nothing: glibc
 * changes its credentials with the rest.  Only in the shared runtime: in a
 * static executable these would take the place of libc's, and dlsym would
 * find none to call; a program linked with libccprof.a that gives up its
 * privileges wants helper=pthread (docs/options.md).
 */
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <sys/types.h>
#include <unistd.h>

#include "runtime.h"

static void credentials_init(void);

/* NAME's real function, and NAME itself: libc's, then the helper made
 * anew if it succeeded. */
#define CREDENTIAL_CALL(name, params, args)                                  \
	static void *real_##name;                                            \
	RT_API int name params                                               \
	{                                                                    \
		int rc;                                                      \
                                                                             \
		if (!rt_real_ready(&real_##name, credentials_init))          \
			return -1;                                           \
		rc = ((int(*) params)real_##name) args;                      \
		if (rc == 0)                                                 \
			rt_sampler_renew();                                  \
		return rc;                                                   \
	}

CREDENTIAL_CALL(setuid, (uid_t u), (u))
CREDENTIAL_CALL(setgid, (gid_t g), (g))
CREDENTIAL_CALL(seteuid, (uid_t u), (u))
CREDENTIAL_CALL(setegid, (gid_t g), (g))
CREDENTIAL_CALL(setreuid, (uid_t r, uid_t e), (r, e))
CREDENTIAL_CALL(setregid, (gid_t r, gid_t e), (r, e))
CREDENTIAL_CALL(setresuid, (uid_t r, uid_t e, uid_t s), (r, e, s))
CREDENTIAL_CALL(setresgid, (gid_t r, gid_t e, gid_t s), (r, e, s))
CREDENTIAL_CALL(setgroups, (size_t n, const gid_t *list), (n, list))
CREDENTIAL_CALL(initgroups, (const char *user, gid_t group), (user, group))

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
