/*
 * handled_signals.h - the signals the runtime writes a profile on, shared
 * by the runtime (runtime/signals.c installs handlers for them) and the
 * tool (`ccprof record` explains a death by one of them without a
 * profile differently from a death by another).
 */
#ifndef CCPROF_HANDLED_SIGNALS_H
#define CCPROF_HANDLED_SIGNALS_H

#include <signal.h>

/* Crashes: the cost-centre stack is printed, the profile written. */
#define CCP_CRASH_SIGNALS SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS

/* Whose default action ends the process: the profile is written, then the
 * default action taken. */
#define CCP_TERM_SIGNALS                                                          \
	SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGVTALRM, \
		SIGXCPU, SIGXFSZ

#endif
