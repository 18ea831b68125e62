/*
 * sources.h - where each profiled function is defined (file and line),
 * read from the debug information of the module files.
 *
 * The runtime records a function as module and offset: it cannot afford
 * DWARF, and a crash handler cannot either.  The tool looks the rest up
 * afterwards, as pprof and perf do, in the module files named by the
 * profile, when they are still there and still the same build (Note
 * [Source lines] in sources.c).  Built with libdw (elfutils) when the
 * build finds it; without it sources_resolve does nothing.
 */
#ifndef CCPROF_MODEL_SOURCES_H
#define CCPROF_MODEL_SOURCES_H

#include "format/profile.h"

/* Fill in file and line of the function cost centres of p that have none,
 * from their modules' debug information.  Strings go into p's arena.
 * Returns how many cost centres it filled in. */
unsigned sources_resolve(struct ccp_profile *p);

/* What reads the debug information in this build ("libdw 0.188"), or
 * NULL if it was built without. */
const char *sources_library(void);

#endif
