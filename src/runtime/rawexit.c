/*
 * rawexit.c - _exit and _Exit write the profile first.
 *
 * Note [Ending by _exit]: a process that ends by _exit runs no exit
 * handler and no destructor, so the write at exit (init.c) never came,
 * and it left no profile.  That is how many programs end: dash ends
 * every shell and subshell so, and a forked child that must not flush
 * its parent's stdio buffers does.  (daemon(3)'s parent ends by libc's
 * own _exit, which no interposer reaches: Note [daemon's parent] in
 * forkchild.c.)  So the preloaded runtime interposes both names and
 * writes the profile before it ends the process, with the write of a
 * deadly signal (rt_write_before_exit in signals.c): async-signal-safe,
 * as _exit is called from signal handlers; once, if other threads end the process at the same time; and
 * not at all in a vfork child (a pid not ours), whose parent's profile
 * it would write, nor after exit's write in this process (a destructor
 * that calls _exit).  exit() itself, and glibc's own ends of processes
 * (posix_spawn's child, exit's last step), call _exit inside libc, out
 * of the interposer's reach, as they should.
 *
 * libccprof.a has them too, weak (the Makefile): linked with a shared
 * libc, a program's own calls come here and libc's _exit is dlsym's; in
 * a program linked with -static there is none to find, and the system
 * call below ends the process as libc's _exit would.  There libc's own
 * calls of _exit (exit's last step among them) come here too, which
 * writes nothing after exit's write, nor in a vfork child (daemon's
 * parent it writes, as the shared runtime's daemon does).  libc.a's
 * _exit, strong, alone in its object, is never pulled in: ours defines
 * both of that object's names first.
 */
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"

typedef void (*exit_fn)(int);

static void *real_exit;

/* No libc _exit to call (-static): end as it does, writing nothing. */
_Noreturn void rt_sys_exit_group(int status)
{
	for (;;)
		syscall(SYS_exit_group, status);
}

/* Found once: in a -static program dlsym finds nothing, and looked up
 * again at each _exit it allocated, which a handler that interrupted
 * malloc waited on for ever (helper-164), and did so in posix_spawn's
 * and vfork's children, on their parent's heap and errno. */
static void rawexit_lookup_now(void)
{
	real_exit = rt_next_or("_exit", (void *)rt_sys_exit_group);
}

/* Looked up before main: _exit may come from a signal handler, where
 * dlsym is no safe call. */
__attribute__((constructor)) static void rawexit_lookup(void)
{
	rawexit_lookup_now();
}

static _Noreturn void end_process(int status)
{
	rt_write_before_exit();
	if (rt_real_ready(&real_exit, rawexit_lookup_now))
		((exit_fn)real_exit)(status);
	rt_sys_exit_group(status);
}

RT_API void _exit(int status)
{
	end_process(status);
}

RT_API void _Exit(int status)
{
	end_process(status);
}
