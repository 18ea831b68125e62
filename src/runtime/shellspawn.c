/*
 * shellspawn.c - system() and popen(): their shell's children write a
 * profile of their own, OUT.<pid>, as a posix_spawn child's image does
 * (Note [Shell children] below).
 *
 * libc's functions do the work, with the environment's CCPROF_OPTIONS
 * entry replaced in its slot, for the while, by one with output= added
 * (environ itself stays).
 *
 * Note [Shell children in libccprof.a]: the archive has popen too, weak
 * (the Makefile): linked with a shared libc, libc's is dlsym's; under
 * -static, libc.a's popen is a weak alias in the object that defines
 * _IO_popen, a public name in libc.so too, which the strong reference
 * below pulls in, after ours (as fork's __fork: Note [fork in a static
 * program] in forkchild.c).  system is weak there too; under -static,
 * where no libc system is left to call, the runtime's own does its work
 * (Note [system in a static program] in ownsystem.c).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"

/*
 * Note [Shell children]: glibc's system and popen run /bin/sh through its
 * own posix_spawn, inside libc, with the process's environ: no
 * interposition reaches that spawn.  An instrumented program the shell
 * runs wrote OUT, and the parent's profile replaced it at exit.  So while
 * libc's function runs (system, popen below), the environment's
 * CCPROF_OPTIONS entry (the one getenv finds) is replaced in its slot by
 * one with output=OUT.%p appended, as posix_spawn's child gets; the shell
 * passes it on to the program.  Only the slot's pointer changes, as glibc's own
 * setenv changes a variable that exists: a thread reading the environment
 * meanwhile (POSIX lets getenv run beside system and popen) finds the old
 * entry or the new, each a whole string, in an array that stays.  (A copy
 * of the array, environ pointed at it and unmapped afterwards, crashed
 * such a reader.)  getenv hands out pointers into the entries, so the new
 * ones are never freed: one is made per distinct old entry and kept for
 * the next call.  Threads inside system or popen at the same time share
 * one replacement (a count under a lock); the last to leave puts the old
 * entry back wherever the new one is then (a setenv meanwhile may have
 * moved the array, or replaced the entry: then it stays).  Without a
 * CCPROF_OPTIONS entry there is no slot and the shell's children get
 * none: each program then writes a profile named after itself.
 */
struct shell_entry {
	struct shell_entry *next;
	char text[]; /* "CCPROF_OPTIONS=old:output=OUT.%p" */
};

static pthread_mutex_t shell_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned shell_users;        /* threads inside system or popen */
static char *shell_old, *shell_new; /* the slot's entry before, and ours; or NULL */
static struct shell_entry *shell_kept; /* every replacement made, never freed */

static char **options_slot(void)
{
	for (char **e = environ; e && *e; e++)
		if (rt_is_options_entry(*e))
			return e;
	return NULL;
}

/* Whether text is c's entry. */
static int shell_entry_is(const char *text, const struct rt_child_entry *c)
{
	size_t n = strlen(c->value), m = strlen(c->sep);

	text += RT_OPTIONS_VAR_LEN;
	if (strncmp(text, c->value, n) != 0 || strncmp(text + n, c->sep, m) != 0)
		return 0;
	text += n + m;
	return strncmp(text, "output=", 7) == 0 && strcmp(text + 7, c->out) == 0;
}

/* The replacement of old, a CCPROF_OPTIONS entry, or NULL: none needed
 * (Note [Exec in a forked child] in exec.c) or too long.  Only out on the
 * stack: a thread's may be PTHREAD_STACK_MIN (tests/progs/smallstack.c). */
static char *shell_entry_for(const char *old)
{
	char out[RT_OPTIONS_MAX];
	struct rt_child_entry c;
	struct shell_entry *k;

	if (rt_dump_spawn_output(out, sizeof out) != 0 ||
	    rt_child_entry(&c, old + RT_OPTIONS_VAR_LEN, out) != 0)
		return NULL;
	for (k = shell_kept; k != NULL; k = k->next)
		if (shell_entry_is(k->text, &c))
			return k->text;
	if ((k = rt_map(sizeof *k + c.bytes)) == NULL)
		return NULL;
	rt_child_entry_write(&c, k->text);
	k->next = shell_kept;
	shell_kept = k;
	return k->text;
}

static void shell_enter(void)
{
	pthread_mutex_lock(&shell_lock);
	if (shell_users++ == 0) {
		char **slot = options_slot();

		shell_new = slot ? shell_entry_for(*slot) : NULL;
		if (shell_new != NULL) {
			shell_old = *slot;
			__atomic_store_n(slot, shell_new, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&shell_lock);
}

/* The old entry back in the slot that holds ours, if one does. */
static void shell_restore(void)
{
	for (char **e = environ; shell_new != NULL && e && *e; e++)
		if (*e == shell_new) {
			__atomic_store_n(e, shell_old, __ATOMIC_RELEASE);
			break;
		}
	shell_new = NULL;
}

static void shell_leave(void)
{
	int err = errno;

	pthread_mutex_lock(&shell_lock);
	if (--shell_users == 0)
		shell_restore();
	pthread_mutex_unlock(&shell_lock);
	errno = err;
}

/* In a fork child (init.c's handler): the threads inside system or
 * popen are the parent's. */
void rt_shell_after_fork(void)
{
	pthread_mutex_init(&shell_lock, NULL);
	shell_restore();
	shell_users = 0;
}

typedef int (*system_fn)(const char *);
typedef FILE *(*popen_fn)(const char *, const char *);

static void *real_system, *real_popen;

/* libc's popen under its other name: Note [Shell children in libccprof.a]. */
extern FILE *_IO_popen(const char *, const char *);

static void system_lookup(void)
{
	__atomic_store_n(&real_system, rt_next_or("system", (void *)rt_own_system),
			 __ATOMIC_RELEASE);
}

static void popen_lookup(void)
{
	__atomic_store_n(&real_popen, rt_next_or("popen", (void *)_IO_popen), __ATOMIC_RELEASE);
}

/* Whether this call's shell gets the new entry: not in a vfork child (the
 * parent's memory), nor before the runtime started or when it is off. */
static int ours(void)
{
	return !rt_config.disabled && rt_pid != 0 && getpid() == rt_pid;
}

static void leave(void *unused)
{
	(void)unused;
	shell_leave();
}

/* system is a cancellation point: a thread cancelled in it leaves too. */
RT_API int system(const char *command)
{
	int rc;

	if (!rt_real_ready(&real_system, system_lookup))
		return -1;
	if (command == NULL || !ours()) /* NULL: is there a shell? */
		return ((system_fn)real_system)(command);
	shell_enter();
	pthread_cleanup_push(leave, NULL);
	rc = ((system_fn)real_system)(command);
	pthread_cleanup_pop(1);
	return rc;
}

RT_API FILE *popen(const char *command, const char *mode)
{
	FILE *f;

	if (!rt_real_ready(&real_popen, popen_lookup))
		return NULL;
	if (!ours())
		return ((popen_fn)real_popen)(command, mode);
	shell_enter();
	pthread_cleanup_push(leave, NULL); /* popen may be a cancellation point */
	f = ((popen_fn)real_popen)(command, mode);
	pthread_cleanup_pop(1);
	return f;
}
