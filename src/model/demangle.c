/*
 * demangle.c - see demangle.h.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#include "model/demangle.h"

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

static cxa_demangle_fn load(void)
{
	static int tried;
	static cxa_demangle_fn fn;
	void *lib;

	if (tried)
		return fn;
	tried = 1;
	lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (lib)
		*(void **)&fn = dlsym(lib, "__cxa_demangle");
	return fn;
}

char *demangle(const char *name)
{
	cxa_demangle_fn fn;
	int status = -1;
	char *out;

	if (name == NULL || strncmp(name, "_Z", 2) != 0 || (fn = load()) == NULL)
		return NULL;
	out = fn(name, NULL, NULL, &status);
	return status == 0 ? out : NULL;
}
