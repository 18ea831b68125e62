/*
 * elfsym.c - see elfsym.h.
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsym.h"

typedef ElfW(Ehdr) Ehdr;
typedef ElfW(Shdr) Shdr;
typedef ElfW(Sym) Sym;

struct image {
	const unsigned char *p;
	size_t len;
};

static int in_bounds(const struct image *im, uint64_t off, uint64_t size)
{
	return off <= im->len && size <= im->len - off;
}

static const Shdr *section(const struct image *im, const Ehdr *eh, unsigned i)
{
	uint64_t off = eh->e_shoff + (uint64_t)i * sizeof(Shdr);

	if (i >= eh->e_shnum || !in_bounds(im, off, sizeof(Shdr)))
		return NULL;
	return (const Shdr *)(im->p + off);
}

static const Shdr *find_table(const struct image *im, const Ehdr *eh, uint32_t type)
{
	unsigned i;

	for (i = 0; i < eh->e_shnum; i++) {
		const Shdr *sh = section(im, eh, i);

		if (sh && sh->sh_type == type && sh->sh_entsize == sizeof(Sym))
			return sh;
	}
	return NULL;
}

static int by_addr(const void *a, const void *b)
{
	const struct elfsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return y->global - x->global; /* globals first: the name people know */
}

static int is_function(const Sym *s)
{
	int type = ELF64_ST_TYPE(s->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF;
}

/* A symbol table and its string table, both checked to lie in the file. */
struct symbols {
	const Sym *syms;
	size_t n;
	const char *strings;
	size_t strings_size;
};

static int open_symbols(const struct image *im, const Ehdr *eh, const Shdr *symtab,
			struct symbols *out)
{
	const Shdr *strtab = section(im, eh, symtab->sh_link);

	if (strtab == NULL || !in_bounds(im, symtab->sh_offset, symtab->sh_size) ||
	    !in_bounds(im, strtab->sh_offset, strtab->sh_size) || strtab->sh_size == 0)
		return -1;
	out->syms = (const Sym *)(im->p + symtab->sh_offset);
	out->n = symtab->sh_size / sizeof(Sym);
	out->strings = (const char *)im->p + strtab->sh_offset;
	out->strings_size = strtab->sh_size;
	return 0;
}

static int collect(const struct image *im, const Ehdr *eh, const Shdr *symtab,
		   struct elfsym_table *t)
{
	struct symbols st;
	size_t i, n, total = 0;
	const Sym *syms;

	if (open_symbols(im, eh, symtab, &st) != 0)
		return -1;
	syms = st.syms;
	n = st.n;
	t->syms = calloc(n ? n : 1, sizeof *t->syms);
	t->strings = malloc(st.strings_size + 1);
	if (t->syms == NULL || t->strings == NULL)
		return -1;
	memcpy(t->strings, st.strings, st.strings_size);
	t->strings[st.strings_size] = '\0';
	for (i = 0; i < n; i++) {
		const Sym *s = &syms[i];
		struct elfsym *e = &t->syms[total];

		if (!is_function(s) || s->st_name >= st.strings_size || s->st_value == 0)
			continue;
		e->addr = s->st_value;
		e->size = s->st_size;
		e->name = t->strings + s->st_name;
		e->global = ELF64_ST_BIND(s->st_info) == STB_GLOBAL;
		if (e->name[0])
			total++;
	}
	t->n = total;
	qsort(t->syms, total, sizeof *t->syms, by_addr);
	return 0;
}

static int parse(const struct image *im, struct elfsym_table *t)
{
	const Ehdr *eh = (const Ehdr *)im->p;
	const Shdr *tab;

	if (im->len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh->e_shentsize != sizeof(Shdr))
		return -1;
	tab = find_table(im, eh, SHT_SYMTAB);
	if (tab == NULL)
		tab = find_table(im, eh, SHT_DYNSYM);
	if (tab == NULL)
		return -1;
	return collect(im, eh, tab, t);
}

/* Map a regular file at least an ELF header long.  System calls only, so
 * that elfsym_find_unbuffered stays async-signal-safe. */
static int map_image(const char *path, struct image *im)
{
	struct stat st;
	void *map;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY); /* a FIFO must not block */

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Ehdr)) {
		close(fd);
		return -1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	im->p = map;
	im->len = (size_t)st.st_size;
	return 0;
}

static void unmap_image(struct image *im)
{
	munmap((void *)im->p, im->len);
}

/* The NT_GNU_BUILD_ID of an ELF image, in lowercase hex as the runtime
 * records it (at most 20 bytes), into out[41]; "" if it has none.  From
 * the SHT_NOTE sections, every offset checked. */
static void image_build_id(const struct image *im, char out[41])
{
	const Ehdr *eh = (const Ehdr *)im->p;
	unsigned i;

	out[0] = '\0';
	for (i = 0; i < eh->e_shnum; i++) {
		const Shdr *sh = section(im, eh, i);
		uint64_t off, end;

		if (sh == NULL || sh->sh_type != SHT_NOTE ||
		    !in_bounds(im, sh->sh_offset, sh->sh_size))
			continue;
		off = sh->sh_offset;
		end = sh->sh_offset + sh->sh_size;
		while (end - off >= sizeof(ElfW(Nhdr))) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(im->p + off);
			uint64_t name = off + sizeof *n;
			uint64_t desc = name + (((uint64_t)n->n_namesz + 3) & ~(uint64_t)3);
			uint64_t next = desc + (((uint64_t)n->n_descsz + 3) & ~(uint64_t)3);

			if (next > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    memcmp(im->p + name, "GNU", 4) == 0) {
				uint32_t k, len = n->n_descsz > 20 ? 20 : n->n_descsz;
				const unsigned char *d = im->p + desc;

				for (k = 0; k < len; k++) {
					out[2 * k] = "0123456789abcdef"[d[k] >> 4];
					out[2 * k + 1] = "0123456789abcdef"[d[k] & 15];
				}
				out[2 * len] = '\0';
				return;
			}
			off = next;
		}
	}
}

int elfsym_load(const char *path, struct elfsym_table *t)
{
	return elfsym_load_as(path, NULL, t);
}

int elfsym_load_as(const char *path, const char *build_id, struct elfsym_table *t)
{
	struct image im;
	int rc;

	memset(t, 0, sizeof *t);
	if (map_image(path, &im) != 0)
		return -1;
	if (build_id) {
		const Ehdr *eh = (const Ehdr *)im.p;
		char id[41];

		if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_shentsize != sizeof(Shdr)) {
			unmap_image(&im);
			return -1;
		}
		image_build_id(&im, id);
		if (strcmp(id, build_id) != 0) {
			unmap_image(&im);
			return -2;
		}
	}
	rc = parse(&im, t);
	unmap_image(&im);
	if (rc != 0)
		elfsym_free(t);
	return rc;
}

const char *elfsym_find(const struct elfsym_table *t, uint64_t offset)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) { /* first symbol above offset */
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	{
		const struct elfsym *s = &t->syms[lo - 1];
		uint64_t a = s->addr;

		while (lo > 1 && t->syms[lo - 2].addr == a) /* globals sort first */
			s = &t->syms[--lo - 1];
		if (s->addr == offset || offset - s->addr < s->size)
			return s->name;
	}
	return NULL;
}

const struct elfsym *elfsym_lookup(const struct elfsym_table *t, uint64_t offset)
{
	size_t lo = 0, hi = t->n;
	const struct elfsym *s;

	while (lo < hi) { /* first symbol above offset, as in elfsym_find */
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	s = &t->syms[lo - 1];
	while (lo > 1 && t->syms[lo - 2].addr == s->addr) /* globals sort first */
		s = &t->syms[--lo - 1];
	return s->addr == offset || offset - s->addr < s->size ? s : NULL;
}

void elfsym_free(struct elfsym_table *t)
{
	free(t->syms);
	free(t->strings);
	memset(t, 0, sizeof *t);
}

/* Best match in one symbol table, by linear scan (elfsym_find_unbuffered). */
static const char *scan_table(const struct image *im, const Ehdr *eh, const Shdr *symtab,
			      uint64_t offset)
{
	const Sym *best = NULL;
	struct symbols st;
	size_t i;

	if (open_symbols(im, eh, symtab, &st) != 0)
		return NULL;
	for (i = 0; i < st.n; i++) {
		const Sym *s = &st.syms[i];

		if (!is_function(s) || s->st_name >= st.strings_size || s->st_value > offset)
			continue;
		if (s->st_value != offset && offset - s->st_value >= s->st_size)
			continue;
		if (best == NULL || s->st_value > best->st_value)
			best = s;
	}
	return best ? st.strings + best->st_name : NULL;
}

int elfsym_find_unbuffered(const char *path, uint64_t offset, char *buf, size_t len)
{
	return elfsym_find_unbuffered_as(path, NULL, offset, buf, len);
}

int elfsym_find_unbuffered_as(const char *path, const char *build_id, uint64_t offset, char *buf,
			      size_t len)
{
	struct image im;
	const Ehdr *eh;
	const char *name = NULL;
	char id[41];

	if (len == 0 || map_image(path, &im) != 0)
		return -1;
	eh = (const Ehdr *)im.p;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_shentsize == sizeof(Shdr) &&
	    (build_id == NULL || (image_build_id(&im, id), strcmp(id, build_id) == 0))) {
		const Shdr *tab = find_table(&im, eh, SHT_SYMTAB);

		if (tab)
			name = scan_table(&im, eh, tab, offset);
		if (name == NULL && (tab = find_table(&im, eh, SHT_DYNSYM)) != NULL)
			name = scan_table(&im, eh, tab, offset);
	}
	if (name) {
		size_t i;

		for (i = 0; i + 1 < len && name + i < (const char *)im.p + im.len && name[i]; i++)
			buf[i] = name[i];
		buf[i] = '\0';
	}
	unmap_image(&im);
	return name ? 0 : -1;
}
