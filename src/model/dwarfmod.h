/*
 * dwarfmod.h - a module file's DWARF, opened for model/sources.c only if
 * it is the build that ran, and so that nothing a profile or a binary
 * names can block the tool or send it to the network (Note [Debug files]
 * in dwarfmod.c).  Only with libdw (CCPROF_HAVE_LIBDW).
 */
#ifndef CCPROF_MODEL_DWARFMOD_H
#define CCPROF_MODEL_DWARFMOD_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

/* A module file open for DWARF lookups at its link-time addresses. */
struct dwarf_module {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias; /* of its ELF file */
	Dwarf *dw;
	Dwarf_Addr dw_bias; /* of the file of its DWARF */
	char *dir;          /* dwarf_dir */
};

/* Open the module file at path if it is the build whose GNU build-id is
 * build_id (lowercase hex) and has DWARF that libdw can read without
 * blocking (its debug files found as in Note [Debug files]).  1 with *m
 * filled in, to be closed with dwarfmod_close; 0 if not. */
int dwarfmod_open(const char *path, const char *build_id, struct dwarf_module *m);
void dwarfmod_close(struct dwarf_module *m);

/* libdw reads a split unit (-gsplit-dwarf) from the .dwo file its
 * skeleton names, DW_AT_dwo_name, in dir (the module's dwarf_dir) and
 * then in the compile directory, with a plain open(2).  Are both safe to
 * open (absent, or regular files)? */
int dwarfmod_dwo_safe(Dwarf_Die *skeleton, const char *dir);

#endif
