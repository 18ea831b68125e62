/*
 * demangle.h - readable C++ names.
 */
#ifndef CCPROF_DEMANGLE_H
#define CCPROF_DEMANGLE_H

/*
 * The demangled form of an Itanium-ABI name ("_Z..."), malloc'd, or NULL
 * when `name` is not mangled or cannot be demangled.  Uses libstdc++'s
 * __cxa_demangle, loaded on first use, so the tool needs no C++ runtime
 * to build and still works (with mangled names) where there is none.
 */
char *demangle(const char *name);

#endif
