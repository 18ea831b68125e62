/*
 * rawthread.c - the sampling helper as a thread that glibc does not count.
 *
 * Note [A helper glibc does not count]: glibc runs a process as
 * single-threaded until pthread_create first makes a thread, and then
 * for good: every stdio call locks its stream, malloc takes its arena's
 * lock, and libstdc++ counts shared_ptr references with atomics
 * (__libc_single_threaded).  The sampler alone made a single-threaded
 * program pay all that: GNU objdump -d took 7 % more time with empty
 * hooks and a thread asleep beside it than with the empty hooks alone,
 * and nothing more once its stdout was set to FSETLOCKING_BYCALLER
 * (docs/performance.md, session 44).  The helper uses none of what glibc
 * guards: it takes no stdio stream and no malloc, and its locks shared
 * with the program's threads are the runtime's own (quietlock.c: glibc
 * takes a mutex without an atomic while it thinks itself alone).  So it
 * is made as glibc makes a thread, by clone3 (clone where that is
 * missing) with the same flags, but by us, so that glibc's count stays
 * as the program's own threads make it.
 *
 * What glibc gives a thread it makes, we give ours: a stack with a guard
 * page, and a thread pointer whose static TLS blocks are each module's
 * initial image (the runtime's thread-local variables are initial-exec,
 * and so is libc's errno) below a thread control block whose header is a
 * copy of the creator's (stack guard, pointer guard) pointing at itself,
 * with a dynamic thread vector of its own that is empty, so that nothing
 * reaches another thread's blocks through it.  The images are put
 * together once, as the runtime starts (rt_raw_thread_prepare), from
 * dl_iterate_phdr: a fork child that makes its helper must not walk the
 * list of modules, whose lock another thread of the parent may have held
 * as it forked.  The rest of glibc's struct pthread is zero: the helper
 * calls nothing that reads it but pthread_self, and runs none of the
 * program's code (alone, it ends the process by rt_end_as_last_thread,
 * not by exit: Note [Last thread] in lastthread.c).  Its end is a
 * kernel's clear of its tid word and a futex wake, which the join waits
 * for.  Under a seccomp filter it is made so too: the system calls are
 * those pthread_create makes (mmap, mprotect, clone3 then clone on
 * ENOSYS), with glibc 2.36's arguments (flags, protections, the size of
 * clone3's arguments), and the thread makes fewer of its own (no rseq,
 * no robust list).  Where any of this cannot be had (not
 * x86-64, a build under a sanitizer, a thread pointer whose blocks are
 * not where we find them, a clone refused), the caller makes a POSIX
 * thread as before; helper=pthread in CCPROF_OPTIONS asks for one.
 */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
	__has_feature(memory_sanitizer)
#define RT_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RT_SANITIZED 1
#endif

#if defined(__x86_64__) && defined(__linux__) && !defined(RT_SANITIZED)

/*
 * rt_clone_call(a1, a2, a3, a4, a5, nr): system call nr (clone or
 * clone3) with those arguments.  The parent returns its result; the
 * child starts on the stack the call gave it, whose two words at the
 * top are the function to call and its argument, calls it, and ends as
 * a thread.  In assembly because the child must not return into the
 * parent's frames; its return address is marked undefined so that an
 * unwinder stops there.
 */
long rt_clone_call(long a1, long a2, long a3, long a4, long a5, long nr) RT_HIDDEN;
__asm__(".text\n"
	".globl rt_clone_call\n"
	".hidden rt_clone_call\n"
	".type rt_clone_call,@function\n"
	".p2align 4\n"
	"rt_clone_call:\n"
	".cfi_startproc\n"
	"\tmov %rcx, %r10\n"
	"\tmov %r9, %rax\n"
	"\tsyscall\n"
	"\ttest %rax, %rax\n"
	"\tjz 1f\n"
	"\tret\n"
	"1:\n"
	".cfi_undefined rip\n"
	"\txor %ebp, %ebp\n"
	"\tpop %rax\n"
	"\tpop %rdi\n"
	"\tcall *%rax\n"
	"\txor %edi, %edi\n"
	"\tmov $60, %eax\n" /* exit: this thread only */
	"\tsyscall\n"
	"\thlt\n"
	".cfi_endproc\n"
	".size rt_clone_call, .-rt_clone_call\n");

/* The kernel's struct clone_args, as glibc 2.36 passes it (88 bytes: the
 * third version, set_tid and cgroup unused). */
struct rt_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	uint64_t set_tid, set_tid_size, cgroup;
};

/* glibc's own, for pthread_create (sysdeps/unix/sysv/linux/createthread.c). */
#define THREAD_FLAGS                                                                     \
	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SYSVSEM | CLONE_SIGHAND | CLONE_THREAD | \
	 CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

#define TCB_SIZE 16384u    /* glibc's struct pthread is about 2.3 KB */
#define TCB_HEADER 0x50u   /* tcbhead_t up to feature_1, as glibc 2.36 lays it out */
#define TLS_MAX (1u << 20) /* static TLS blocks lie nearer the thread pointer */
#define DTV_AT 8192u       /* the helper's dynamic thread vector, in its TCB area:
			      16-byte entries, [0] its length, [1] its generation */

/* The static TLS blocks' initial images, laid out as below a thread
 * pointer: tls_below bytes, the thread pointer at their end. */
static char *tls_template;
static size_t tls_below;

static uintptr_t thread_pointer(void)
{
	uintptr_t tp;

	__asm__("mov %%fs:0, %0" : "=r"(tp));
	return tp;
}

struct tls_walk {
	uintptr_t tp;     /* this thread's */
	char *image_tp;   /* where the template's thread pointer is; NULL while measuring */
	size_t below;     /* bytes of static TLS below the thread pointer */
};

/* A module's static TLS block: its offset below thread pointer tp, or 0
 * if it has none there (none at all, or in dynamic TLS). */
static size_t static_offset(const struct dl_phdr_info *m, uintptr_t tp)
{
	uintptr_t at = (uintptr_t)m->dlpi_tls_data;

	if (m->dlpi_tls_modid == 0 || at == 0 || at >= tp || tp - at > TLS_MAX)
		return 0;
	return tp - at;
}

static int tls_module(struct dl_phdr_info *m, size_t size, void *data)
{
	struct tls_walk *w = data;
	size_t off = static_offset(m, w->tp);
	int i;

	(void)size;
	if (off == 0)
		return 0;
	for (i = 0; i < m->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &m->dlpi_phdr[i];

		if (ph->p_type != PT_TLS)
			continue;
		if (w->image_tp == NULL) {
			if (off > w->below)
				w->below = off;
		} else if (off <= w->below && ph->p_filesz <= off) { /* not one loaded since */
			memcpy(w->image_tp - off, (const void *)(m->dlpi_addr + ph->p_vaddr),
			       ph->p_filesz);
		}
	}
	return 0;
}

/* Whether `var`, a thread-local variable of the creator's, lies in the
 * static TLS we copy. */
static int covered(const void *var, uintptr_t tp, size_t below)
{
	uintptr_t at = (uintptr_t)var;

	return at < tp && tp - at <= below;
}

static size_t page_round(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (n + page - 1) / page * page;
}

/* The stack a new thread of the program's gets, as at start-up (Note
 * [Last thread]: glibc may run the program's exit handlers on the
 * helper).  Read once there: pthread_getattr_default_np takes a lock of
 * glibc's, which a write from a signal handler (Note [At the descriptor
 * limit] in dump.c) would wait for for ever if the handler interrupted
 * pthread_create inside it (helper-190).  A default the program sets
 * later is not followed. */
static size_t raw_stack;

static size_t default_stack(void)
{
	pthread_attr_t a;
	size_t size = 0;

	if (pthread_getattr_default_np(&a) == 0) {
		pthread_attr_getstacksize(&a, &size);
		pthread_attr_destroy(&a);
	}
	return page_round(size >= 65536 ? size : 2u << 20);
}

/* At start-up: the template, or none (and no helper of ours) if the
 * runtime's own thread-local variables or errno are not in it. */
void rt_raw_thread_prepare(void)
{
	struct tls_walk w = {thread_pointer(), NULL, 0};
	char *template;

	if (tls_template != NULL)
		return;
	dl_iterate_phdr(tls_module, &w);
	if (!covered(&errno, w.tp, w.below) || !covered(&rt_self, w.tp, w.below) ||
	    (template = rt_map(w.below)) == NULL)
		return;
	w.image_tp = template + w.below;
	dl_iterate_phdr(tls_module, &w);
	tls_below = w.below;
	raw_stack = default_stack();
	__atomic_store_n(&tls_template, template, __ATOMIC_RELEASE);
}

/* The control block: the creator's header, pointing at itself, and an
 * empty vector of its own (generation 0: glibc finds no block in it). */
static void make_tcb(char *new_tp)
{
	uintptr_t *words = (uintptr_t *)new_tp;

	memcpy(new_tp, (const void *)thread_pointer(), TCB_HEADER);
	words[0] = (uintptr_t)new_tp; /* tcb */
	words[1] = (uintptr_t)(new_tp + DTV_AT + 16); /* dtv: [-1] its length, [0] generation */
	words[2] = (uintptr_t)new_tp; /* self, pthread_self() */
	((int *)new_tp)[7] = 0; /* gscope_flag */
}

static long make_thread(struct rt_raw_thread *t, char *stack, uintptr_t new_tp, char *top,
			unsigned long flags)
{
	struct rt_clone_args args;
	long r;

	memset(&args, 0, sizeof args);
	args.flags = flags;
	args.child_tid = (uint64_t)(uintptr_t)&t->tid;
	args.parent_tid = (uint64_t)(uintptr_t)&t->tid;
	args.stack = (uint64_t)(uintptr_t)stack;
	args.stack_size = (uint64_t)(top - stack);
	args.tls = new_tp;
	r = rt_clone_call((long)&args, (long)sizeof args, 0, 0, 0, SYS_clone3);
	if (r == -ENOSYS)
		r = rt_clone_call((long)flags, (long)top, (long)&t->tid, (long)&t->tid,
				  (long)new_tp, SYS_clone);
	return r;
}

/* The mapping is published in *t only once the thread exists: a fork
 * child of a process in the middle of this frees what *t says it has
 * (rt_sampler_after_fork). */
static int start(struct rt_raw_thread *t, void (*fn)(void *), void *arg, unsigned long flags)
{
	const char *template = __atomic_load_n(&tls_template, __ATOMIC_ACQUIRE);
	size_t guard = page_round(1), stack = raw_stack, tls, size;
	char *base, *new_tp, *top;
	void **words;

	memset(t, 0, sizeof *t);
	if (template == NULL)
		return 0;
	tls = page_round(tls_below);
	size = guard + stack + tls + TCB_SIZE;
	/* As glibc maps a thread's stack: none of it accessible, then all but
	 * the guard page (a filter that looks at the arguments sees glibc's). */
	base = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (base == MAP_FAILED)
		return 0;
	if (mprotect(base + guard, size - guard, PROT_READ | PROT_WRITE) != 0) {
		munmap(base, size);
		return 0;
	}
	new_tp = base + guard + stack + tls;
	memcpy(new_tp - tls_below, template, tls_below);
	make_tcb(new_tp);
	top = base + guard + stack - 16;
	words = (void **)top;
	words[0] = (void *)fn;
	words[1] = arg;
	if (make_thread(t, base + guard, (uintptr_t)new_tp, top, flags) <= 0) {
		munmap(base, size);
		memset(t, 0, sizeof *t);
		return 0;
	}
	t->size = size;
	t->self = (pthread_t)new_tp;
	__atomic_store_n(&t->map, (void *)base, __ATOMIC_RELEASE);
	return 1;
}

int rt_raw_thread_start(struct rt_raw_thread *t, void (*fn)(void *), void *arg)
{
	return start(t, fn, arg, THREAD_FLAGS);
}

/* A thread with a copy of the process's descriptor table, not the table
 * (Note [At the descriptor limit] in dump.c). */
int rt_raw_thread_start_own_files(struct rt_raw_thread *t, void (*fn)(void *), void *arg)
{
	return start(t, fn, arg, THREAD_FLAGS & ~(unsigned long)CLONE_FILES);
}

#else

void rt_raw_thread_prepare(void)
{
}

int rt_raw_thread_start(struct rt_raw_thread *t, void (*fn)(void *), void *arg)
{
	(void)fn;
	(void)arg;
	memset(t, 0, sizeof *t);
	return 0;
}

int rt_raw_thread_start_own_files(struct rt_raw_thread *t, void (*fn)(void *), void *arg)
{
	return rt_raw_thread_start(t, fn, arg);
}

#endif

/* Until the kernel has cleared the thread's tid word at its end
 * (CLONE_CHILD_CLEARTID, a shared futex's wake), then its memory goes. */
void rt_raw_thread_join(struct rt_raw_thread *t)
{
	int saved = errno;
	pid_t tid;

	while ((tid = __atomic_load_n(&t->tid, __ATOMIC_ACQUIRE)) != 0)
		syscall(SYS_futex, &t->tid, FUTEX_WAIT, tid, NULL, NULL, 0);
	errno = saved;
	rt_raw_thread_forget(t);
}

/* In a fork child, which has the helper's memory but not the helper.
 * Forgotten before it is unmapped: a fork child of a process in the
 * middle of this must not unmap what the parent may have mapped anew. */
void rt_raw_thread_forget(struct rt_raw_thread *t)
{
	void *map = __atomic_exchange_n(&t->map, NULL, __ATOMIC_ACQ_REL);
	size_t size = t->size;

	memset(t, 0, sizeof *t);
	if (map != NULL)
		munmap(map, size);
}
