/*
 * exec.c - write the profile before the process image is replaced.
 *
 * The exec family is interposed (these definitions take precedence over
 * libc's when libccprof is preloaded or linked): the profile of the part
 * of the run before the exec is written, then the real call is made.  If
 * the exec fails the program goes on and the profile is written again at
 * exit.  The next image, if it is profiled too, keeps the same pid and
 * output path; dump.c moves this profile aside (PATH.pre-exec.N) before
 * writing its own.  A forked child tells its image that path (Note [Exec
 * in a forked child]).
 *
 * A vfork child shares its parent's memory, so it must not write or
 * allocate anything: it is recognised by a pid that is not ours (vfork
 * runs no atfork handler, so rt_pid still holds the parent's).  For the
 * same reason the real functions are looked up once, at start-up.
 */
#include <alloca.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/procfs.h"
#include "runtime.h"

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[], char *const[]);

/* libc's own functions, as dlsym gives them (fexecve and execveat call
 * the system call themselves, not execve). */
static void *real_execve, *real_execvpe, *real_fexecve, *real_execveat;
static void *real_posix_spawn, *real_posix_spawnp;

/* glibc's own names for its spawn functions, which only libc.a has: in
 * a static program they are there if something linked them in (system,
 * popen, or -Wl,-u,__posix_spawn as `pkg-config --static` gives). */
extern int __posix_spawn(pid_t *, const char *, const posix_spawn_file_actions_t *,
			 const posix_spawnattr_t *, char *const[], char *const[]) __attribute__((weak));
extern int __posix_spawnp(pid_t *, const char *, const posix_spawn_file_actions_t *,
			  const posix_spawnattr_t *, char *const[], char *const[])
	__attribute__((weak));

void rt_exec_init(void)
{
	real_execve = rt_next_or("execve", (void *)rt_sys_execve);
	real_execvpe = rt_next_or("execvpe", (void *)rt_sys_execvpe);
	real_fexecve = rt_next_or("fexecve", (void *)rt_sys_fexecve);
	real_execveat = rt_next_or("execveat", (void *)rt_sys_execveat);
	real_posix_spawn = rt_next_or("posix_spawn", (void *)__posix_spawn);
	real_posix_spawnp = rt_next_or("posix_spawnp", (void *)__posix_spawnp);
}

static void before_exec(void)
{
	if (rt_config.disabled || getpid() != rt_pid || !rt_anything_recorded())
		return;
	rt_sampler_stop();
	rt_dump();
	rt_sampler_restart(); /* in case the exec fails (Note [Sandboxed]) */
}

/* Ready to call the real function (rt_real_ready), and the profile
 * written. */
static int ready(void *const *real)
{
	if (!rt_real_ready(real, rt_exec_init))
		return 0;
	before_exec();
	return 1;
}

/*
 * Note [Exec in a forked child]: a forked child writes OUT.<pid> (dump.c),
 * so as not to replace the profile OUT of the process it was forked from.
 * The image it execs starts afresh from CCPROF_OPTIONS and would write
 * OUT, replacing that profile or being replaced by it at the parent's
 * exit.  So the child passes its image output=OUT.%p, the name the child
 * had (exec keeps the pid); the child's own profile of before the exec
 * then moves aside to OUT.<pid>.pre-exec.1, as at any exec.  A child of a
 * process that ran no instrumented code (a shell, make: record preloads
 * them too) passes nothing: its image's profile is the run's OUT, as
 * `ccprof record sh -c ...` expects (under record, the first such image
 * to write takes OUT, a later one OUT.<pid>: Note [One OUT per run] in
 * dump.c); but not a child forked from one that
 * had, whose OUT is taken (dump.c, out_taken).  CCPROF_OPTIONS becomes the old
 * value with output= appended (the last value wins), unless that would
 * be longer than the runtime reads.  posix_spawn makes its child without
 * fork()'s handlers, so it is interposed too, and the parent passes the
 * child's image output=OUT.%p itself.  A vfork child does the same as
 * posix_spawn's parent (it is the parent's memory that ran the code, and
 * the parent stays), but in its parent's memory, where an exec that
 * succeeds would leave a mapping behind: it builds the environment on its
 * own stack, if it fits there.  system() and popen() call glibc's spawn
 * from inside libc, out of our reach: Note [Shell children] in
 * shellspawn.c.
 */

/* Room for the image's environment in a vfork child, and for the
 * output path it names: 4 KB of its stack (its parent's, below the
 * vfork), and the environment's pointers beyond (vfork_room_bytes). */
#define VFORK_ENV_BYTES 4096

/*
 * Note [A large environment in a vfork child]: the room was 4 KB
 * whatever the environment, and held its pointers with the path and the
 * CCPROF_OPTIONS entry: past about 480 variables the image got the
 * environment unchanged, without a word, and wrote OUT, which its
 * parent's profile then replaced (helper-181: GNU make built to vfork,
 * 500 variables exported).  Now the room is 4 KB for the path and the
 * entry and, beyond, the pointers the environment has, as glibc's own
 * execl puts its argument array on the stack whatever its length.  Only
 * where that is known to be free: the thread's stack (struct
 * rt_thread's bounds; not known in a thread that made no call yet, whose
 * rt_self is NULL) has it and 64 KB more for the exec itself (execvpe
 * builds each path it tries on the stack), and this child runs below
 * the stack pointer its parent's thread waits at, which the kernel shows
 * in /proc/PID/task/TID/syscall: a child clone(CLONE_VM | CLONE_VFORK)
 * made on a stack inside a frame of its parent's runs above it, and a
 * room sized by the thread's bounds wrote over the parent's frames
 * below (helper-183).  Elsewhere the room stays 4 KB, and a child whose
 * environment does not fit says so.
 */
#define VFORK_STACK_SPARE ((size_t)64 << 10)

/* Whether sp lies below the stack pointer at which thread t of the
 * parent waits for this child: 0 if that cannot be read.  The file is
 * "NR ARG1 ... ARG6 SP PC" for a thread in a system call. */
static int below_waiting_parent(const struct rt_thread *t, uintptr_t sp)
{
	char path[64], buf[256], *end, *last, *prev;
	ssize_t n;
	int fd;

	/* By getppid's number: not in another namespace's /proc (Note [A
	 * /proc of another PID namespace] in src/common/procfs.h). */
	if (!ccp_proc_numbers_ours())
		return 0;
	snprintf(path, sizeof path, "/proc/%d/task/%llu/syscall", (int)getppid(),
		 (unsigned long long)t->tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	end = buf + strcspn(buf, "\n");
	*end = '\0';
	if ((last = strrchr(buf, ' ')) == NULL)
		return 0;
	*last = '\0';
	if ((prev = strrchr(buf, ' ')) == NULL)
		return 0;
	return sp < (uintptr_t)strtoull(prev + 1, NULL, 16);
}

/* The room's size for envp, on this stack or (on_stack = 0) mapped. */
static size_t vfork_room_bytes(char *const envp[], int on_stack)
{
	size_t n = 0, bytes;
	const struct rt_thread *t = rt_self;
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);

	while (envp && envp[n])
		n++;
	bytes = (VFORK_ENV_BYTES + (n + 2) * sizeof(char *) + 15) & ~(size_t)15;
	if (!on_stack)
		return bytes;
	if ((n + 2) * sizeof(char *) <= VFORK_ENV_BYTES / 2)
		return VFORK_ENV_BYTES; /* room enough, as always: nothing to ask */
	if (t == NULL || t->stack_lo == 0 || !rt_sp_on_stack(t, sp) ||
	    sp - t->stack_lo < bytes + VFORK_STACK_SPARE || !below_waiting_parent(t, sp))
		return VFORK_ENV_BYTES;
	return bytes;
}

/*
 * The room, in the frame of the interposed function, which lasts until
 * the real call returns; taken only in a vfork child (a pid not ours:
 * vfork runs no atfork handler), as a thread's stack may have no 4 KB to
 * spare otherwise (PTHREAD_STACK_MIN, tests/progs/smallstack.c).
 *
 * Note [A child's small stack]: a child that clone() made without
 * CLONE_VM has a pid not ours too, and may run on a stack of its own as
 * small as googletest's "threadsafe" death tests give it, two pages, from
 * which it execs: the room and a path buffer beside it took 8.3 KB, and
 * killed such a child by SIGSEGV where it ran bare from 4 KB (helper-172;
 * tests/progs/forkexec.c clone).  Its memory is its own, so its room is
 * mapped, as the kernel tells: kcmp against its parent, the process a
 * vfork child shares its memory with (not rt_pid: a clone()d child's
 * vfork child has its parent's rt_pid still).  Where the program has a
 * seccomp filter, which may kill a system call it does not expect
 * (Note [Sandboxed] in sandbox.c), or kcmp fails, the room stays on the
 * stack.  And the output path goes into the room before the environment
 * (env_with_output), never into a buffer on the stack of a pid not ours.
 * Missed: a clone(CLONE_VM | CLONE_PARENT) child, whose parent is not the
 * process whose memory it shares, maps its room there, and an exec that
 * succeeds leaves those 4 KB behind (helper-177).
 */
#define VFORK_ROOM(e, envp)                                                              \
	(rt_pid_not_ours() && !own_memory() ? alloca((e)->room_bytes = vfork_room_bytes(envp, 1)) \
					 : NULL)

/* Whether this process, whose pid is not ours, has memory of its own,
 * not its parent's: 1, 0, or -1 if that cannot be told. */
int rt_own_memory(void)
{
	long r;

	if (!rt_sandbox_none())
		return -1;
	r = syscall(SYS_kcmp, (long)getpid(), (long)getppid(), 1L /* KCMP_VM */, 0L, 0L);
	return r < 0 ? -1 : r > 0;
}

static int own_memory(void)
{
	return rt_own_memory() == 1;
}

struct exec_env {
	char **room;   /* VFORK_ROOM(), or mapped: env_start */
	size_t room_bytes; /* its size */
	int room_mapped;
	size_t used;   /* bytes of it the output path took */
	char **envp;   /* the environment for the image, or NULL: unchanged */
	size_t mapped; /* bytes mapped for it (no malloc, as in gather below), or 0 */
};

int rt_is_options_entry(const char *entry)
{
	return strncmp(entry, RT_OPTIONS_VAR, RT_OPTIONS_VAR_LEN) == 0;
}

/* e for an exec: its room stack_room, VFORK_ROOM()'s, or mapped in a
 * child with a pid not ours and memory of its own (Note [A child's small
 * stack]). */
static void env_start(struct exec_env *e, void *stack_room, char *const envp[])
{
	e->room = stack_room;
	e->room_mapped = 0;
	if (stack_room == NULL && rt_pid_not_ours()) {
		e->room_bytes = vfork_room_bytes(envp, 0);
		e->room = rt_map(e->room_bytes);
		e->room_mapped = e->room != NULL;
	}
}

/* Where the image's environment of `bytes` goes: mapped, or in a vfork
 * child on its stack. */
static char **env_room(struct exec_env *e, size_t bytes)
{
	char **room;

	if (e->room != NULL)
		return bytes <= e->room_bytes - e->used ? e->room + e->used / sizeof *room : NULL;
	room = rt_map(bytes);
	e->mapped = room != NULL ? bytes : 0;
	return room;
}

/* What goes between an old CCPROF_OPTIONS value and the output= added
 * after it: nothing after none, and a backslash more after one that
 * ends in an odd run of them (the last would escape the ':'; options.c
 * keeps a lone one at the very end, so doubled it says the same). */
static const char *separator_after(const char *value)
{
	size_t n = strlen(value), k = 0;

	while (k < n && value[n - 1 - k] == '\\')
		k++;
	return n == 0 ? "" : k % 2 ? "\\:" : ":";
}

int rt_child_entry(struct rt_child_entry *c, const char *value, const char *out)
{
	c->value = value;
	c->sep = separator_after(value);
	c->out = out;
	c->bytes = RT_OPTIONS_VAR_LEN + strlen(value) + strlen(c->sep) + sizeof "output=" +
		   strlen(out);
	return c->bytes > RT_OPTIONS_VAR_LEN + RT_OPTIONS_MAX ? -1 : 0;
}

void rt_child_entry_write(const struct rt_child_entry *c, char *to)
{
	snprintf(to, c->bytes, "%s%s%soutput=%s", RT_OPTIONS_VAR, c->value, c->sep, c->out);
}

/*
 * Note [An environment the program makes]: a program may exec with an
 * environment it builds, without CCPROF_OPTIONS: nginx's binary upgrade
 * passes its own variables, and LD_PRELOAD if its configuration keeps
 * it.  The image ran with output= alone and the defaults for the rest:
 * under `record --clock=wall` the new master sampled the cpu clock, and
 * merge refused its profile (helper-116).  So such an image gets this
 * process's options, then output=.  But an environment without LD_PRELOAD
 * either gets nothing: an image that is not linked with libccprof.a does
 * not load the runtime, and the variable was all the program saw changed
 * (`env` printed it).  One that is (a static image) then runs with its
 * defaults, and writes <program>.ccprof in its own directory, not beside
 * the run's: a program that builds an environment without our variables
 * chose that.  This process linked with libccprof.a adds them as before.
 */
static int needs_options(const char *old, int preloads)
{
	return old != NULL || preloads || rt_linked_in();
}

static int is_preload_entry(const char *entry)
{
	return strncmp(entry, "LD_PRELOAD=", sizeof "LD_PRELOAD=" - 1) == 0;
}

/* image_env's work, the output path written into out (size bytes)
 * first. */
static char *const *env_with_output(char *const envp[], struct exec_env *e, int spawn,
				    char *out, size_t size)
{
	const char *old = NULL;
	struct rt_child_entry c;
	size_t n, k = 0;
	int vforked = e->room != NULL, preloads = 0;
	char *value;

	e->envp = NULL;
	e->mapped = 0;
	e->used = 0;
	if ((spawn || vforked ? rt_dump_spawn_output : rt_dump_exec_output)(out, size) != 0)
		return envp;
	if (vforked) /* out is the room's start: the environment follows it */
		e->used = (strlen(out) + sizeof(char *)) / sizeof(char *) * sizeof(char *);
	for (n = 0; envp && envp[n]; n++) {
		if (old == NULL && rt_is_options_entry(envp[n]))
			old = envp[n] + RT_OPTIONS_VAR_LEN; /* the one getenv finds */
		preloads |= is_preload_entry(envp[n]);
	}
	if (n == 0) /* asked for none (clearenv, a NULL envp): none it gets */
		return envp;
	if (!needs_options(old, preloads)) /* Note [An environment the program makes] */
		return envp;
	if (rt_child_entry(&c, old ? old : rt_config.options, out) != 0)
		return envp;
	e->envp = env_room(e, (n + 2) * sizeof(char *) + c.bytes);
	if (e->envp == NULL) { /* Note [A large environment in a vfork child] */
		rt_warn("exec: no room to pass the new image its output name (%zu variables); "
			"its profile may take another's name", n);
		return envp;
	}
	value = (char *)(e->envp + n + 2);
	rt_child_entry_write(&c, value);
	e->envp[k++] = value;
	for (size_t i = 0; i < n; i++)
		if (!rt_is_options_entry(envp[i]))
			e->envp[k++] = envp[i];
	e->envp[k] = NULL;
	return e->envp;
}

/* The output path on this stack: not in a vfork child (Note [A child's
 * small stack]), so never inlined into image_env. */
static __attribute__((noinline)) char *const *env_own_stack(char *const envp[],
							     struct exec_env *e, int spawn)
{
	char out[RT_OPTIONS_MAX];

	return env_with_output(envp, e, spawn, out, sizeof out);
}

/* envp with output= for the image of a forked child (spawn = 0), or of a
 * child posix_spawn or vfork makes (spawn = 1, or a vfork child), or envp
 * itself. */
static char *const *image_env(char *const envp[], struct exec_env *e, int spawn)
{
	if (e->room != NULL)
		return env_with_output(envp, e, spawn, (char *)e->room, e->room_bytes);
	return env_own_stack(envp, e, spawn);
}

/* After an exec that failed, or a spawn: the edited environment is given
 * back (a spawn returns once its child has exec'd). */
static int env_done(struct exec_env *e, int rc)
{
	int err = errno;

	if (e->mapped != 0)
		rt_unmap(e->envp, e->mapped);
	if (e->room_mapped)
		rt_unmap(e->room, e->room_bytes);
	errno = err;
	return rc;
}

RT_API int execve(const char *path, char *const argv[], char *const envp[])
{
	struct exec_env e;

	if (!ready(&real_execve))
		return -1;
	env_start(&e, VFORK_ROOM(&e, envp), envp);
	return env_done(&e, ((execve_fn)real_execve)(path, argv, image_env(envp, &e, 0)));
}

RT_API int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

RT_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	struct exec_env e;

	if (!ready(&real_execvpe))
		return -1;
	env_start(&e, VFORK_ROOM(&e, envp), envp);
	return env_done(&e, ((execve_fn)real_execvpe)(file, argv, image_env(envp, &e, 0)));
}

/* execvpe with the process's environment, as glibc's execvp is. */
RT_API int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* p is null, although the declaration (nonnull) says it cannot be: the
 * compiler is not to take its word for it. */
static int given_null(const void *p)
{
	__asm__("" : "+r"(p));
	return p == NULL;
}

RT_API int fexecve(int fd, char *const argv[], char *const envp[])
{
	struct exec_env e;

	/* glibc's checks, before image_env puts an environment in place of
	 * a null one (and execveat, in a static program, runs the file). */
	if (fd < 0 || given_null(argv) || given_null(envp)) {
		errno = EINVAL;
		return -1;
	}
	if (!ready(&real_fexecve))
		return -1;
	env_start(&e, VFORK_ROOM(&e, envp), envp);
	return env_done(&e, ((fexecve_fn)real_fexecve)(fd, argv, image_env(envp, &e, 0)));
}

RT_API int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		    int flags)
{
	struct exec_env e;

	if (!ready(&real_execveat))
		return -1;
	env_start(&e, VFORK_ROOM(&e, envp), envp);
	return env_done(&e, ((execveat_fn)real_execveat)(dirfd, path, argv, image_env(envp, &e, 0),
							 flags));
}

/* The parent stays: nothing to write first (Note [Exec in a forked
 * child]).  These return an error number, not -1. */
static int spawn(void *const *real, pid_t *pid, const char *file,
		 const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attr,
		 char *const argv[], char *const envp[])
{
	struct exec_env e;

	if (!rt_real_ready(real, rt_exec_init)) {
		if (getpid() == rt_pid)
			rt_warn("posix_spawn is not linked into this static program: link it "
				"with -Wl,-u,__posix_spawn,-u,__posix_spawnp (pkg-config --static)");
		return ENOSYS;
	}
	env_start(&e, VFORK_ROOM(&e, envp), envp);
	return env_done(&e, ((spawn_fn)*real)(pid, file, actions, attr, argv,
					      image_env(envp, &e, 1)));
}

RT_API int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
		       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn(&real_posix_spawn, pid, path, actions, attr, argv, envp);
}

RT_API int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn(&real_posix_spawnp, pid, file, actions, attr, argv, envp);
}

/*
 * The list forms: count the arguments, gather them into an array that
 * fits, and call the vector form.  The array is on the stack when small;
 * a larger one is mapped (no malloc, which a vfork child must not call),
 * except in a vfork child, whose mappings would stay in the parent once
 * the exec succeeds: there it goes on the stack, as glibc's own execl
 * puts it (ARGS_ROOM, taken in the caller's frame).
 */
#define SMALL_ARGS 64
#define ARGS_ROOM(n) \
	((n) > SMALL_ARGS && getpid() != rt_pid ? alloca(((n) + 1) * sizeof(char *)) : NULL)

struct arglist {
	char **argv;
	char *small[SMALL_ARGS + 1];
	size_t mapped;
};

/* How many arguments, arg0 included, up to the terminating NULL. */
static size_t count_args(const char *arg0, va_list *ap)
{
	va_list count;
	size_t n = 1;

	va_copy(count, *ap);
	while (arg0 && va_arg(count, char *) != NULL)
		n++;
	va_end(count);
	return n;
}

static int gather(struct arglist *a, size_t n, char **room, const char *arg0, va_list *ap)
{
	size_t i;

	a->mapped = 0;
	a->argv = n > SMALL_ARGS ? room : a->small;
	if (a->argv == NULL) {
		a->mapped = (n + 1) * sizeof(char *);
		a->argv = rt_map(a->mapped);
		if (a->argv == NULL) {
			errno = E2BIG;
			return -1;
		}
	}
	a->argv[0] = (char *)arg0;
	for (i = 1; arg0 && i < n; i++)
		a->argv[i] = va_arg(*ap, char *);
	a->argv[arg0 ? n : 0] = NULL;
	if (arg0)
		(void)va_arg(*ap, char *); /* the terminating NULL: execle's envp follows */
	return 0;
}

static int release(struct arglist *a, int rc)
{
	int e = errno;

	if (a->mapped)
		rt_unmap(a->argv, a->mapped);
	errno = e;
	return rc;
}

RT_API int execl(const char *path, const char *arg, ...)
{
	struct arglist a;
	va_list ap;
	size_t n;
	char **room;
	int rc;

	va_start(ap, arg);
	n = count_args(arg, &ap);
	room = ARGS_ROOM(n);
	rc = gather(&a, n, room, arg, &ap);
	va_end(ap);
	if (rc != 0)
		return -1;
	return release(&a, execve(path, a.argv, environ));
}

RT_API int execlp(const char *file, const char *arg, ...)
{
	struct arglist a;
	va_list ap;
	size_t n;
	char **room;
	int rc;

	va_start(ap, arg);
	n = count_args(arg, &ap);
	room = ARGS_ROOM(n);
	rc = gather(&a, n, room, arg, &ap);
	va_end(ap);
	if (rc != 0)
		return -1;
	return release(&a, execvp(file, a.argv));
}

RT_API int execle(const char *path, const char *arg, ...)
{
	struct arglist a;
	char *const *envp;
	va_list ap;
	size_t n;
	char **room;
	int rc;

	va_start(ap, arg);
	n = count_args(arg, &ap);
	room = ARGS_ROOM(n);
	rc = gather(&a, n, room, arg, &ap);
	envp = va_arg(ap, char *const *);
	va_end(ap);
	if (rc != 0)
		return -1;
	return release(&a, execve(path, a.argv, envp));
}
