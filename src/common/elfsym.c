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

#include "buildid.h"
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

/* Section i's header, copied out: e_shoff comes from the file and need
 * not be aligned for a Shdr, so the header is never read in place.
 * Returns 0, or -1 if it does not exist or lies outside the file. */
static int section(const struct image *im, const Ehdr *eh, unsigned i, Shdr *out)
{
	uint64_t off = eh->e_shoff + (uint64_t)i * sizeof(Shdr);

	if (i >= eh->e_shnum || !in_bounds(im, off, sizeof(Shdr)))
		return -1;
	memcpy(out, im->p + off, sizeof *out);
	return 0;
}

static int find_table(const struct image *im, const Ehdr *eh, uint32_t type, Shdr *out)
{
	unsigned i;

	for (i = 0; i < eh->e_shnum; i++)
		if (section(im, eh, i, out) == 0 && out->sh_type == type &&
		    out->sh_entsize == sizeof(Sym))
			return 0;
	return -1;
}

static int by_addr(const void *a, const void *b)
{
	const struct elfsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->global != y->global)
		return y->global - x->global; /* globals first: the name people know */
	/* Then the table's order, so that every sort keeps the same alias,
	 * whether it sorts the whole table or a few (elfsym_load_for). */
	return x->index < y->index ? -1 : x->index > y->index;
}

static int is_function(const Sym *s)
{
	int type = ELF64_ST_TYPE(s->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF;
}

/* A symbol table and its string table, both checked to lie in the file.
 * The entries stay bytes: sh_offset comes from the file and need not be
 * aligned for a Sym, so each is copied out (symbol) before it is read. */
struct symbols {
	const unsigned char *syms;
	size_t n;
	const char *strings;
	size_t strings_size;
};

static int open_symbols(const struct image *im, const Ehdr *eh, const Shdr *symtab,
			struct symbols *out)
{
	Shdr strtab;

	if (section(im, eh, symtab->sh_link, &strtab) != 0 ||
	    !in_bounds(im, symtab->sh_offset, symtab->sh_size) ||
	    !in_bounds(im, strtab.sh_offset, strtab.sh_size) || strtab.sh_size == 0)
		return -1;
	out->syms = im->p + symtab->sh_offset;
	out->n = symtab->sh_size / sizeof(Sym);
	out->strings = (const char *)im->p + strtab.sh_offset;
	out->strings_size = strtab.sh_size;
	return 0;
}

static void symbol(const struct symbols *st, size_t i, Sym *out)
{
	memcpy(out, st->syms + i * sizeof *out, sizeof *out);
}

/* The offsets a table is loaded for (elfsym_load_for): sorted, distinct,
 * and a bit per hash of each, which tells most other addresses apart
 * without a binary search (whose mispredicted branches cost 10 ns a
 * symbol).  NULL for the whole table. */
#define WANTED_BITS 4096
struct wanted {
	const uint64_t *offsets;
	size_t n;
	uint64_t bits[WANTED_BITS / 64];
};

static unsigned wanted_bit(uint64_t addr)
{
	return (unsigned)((addr * 0x9e3779b97f4a7c15u) >> 52); /* 12 bits */
}

static void wanted_init(struct wanted *w, const uint64_t *offsets, size_t n)
{
	size_t i;

	memset(w, 0, sizeof *w);
	w->offsets = offsets;
	w->n = n;
	for (i = 0; i < n; i++)
		w->bits[wanted_bit(offsets[i]) / 64] |= 1ull << (wanted_bit(offsets[i]) % 64);
}

static int is_wanted(const struct wanted *w, uint64_t addr)
{
	size_t lo = 0, hi = w->n;

	if (!(w->bits[wanted_bit(addr) / 64] >> (wanted_bit(addr) % 64) & 1))
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->offsets[mid] == addr)
			return 1;
		if (w->offsets[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/*
 * Whether symbol s is a named function the table keeps.  The tests that
 * read only the entry come first, and the name's first byte, a read at
 * a random place in the string table, last: when a write names a few
 * functions of a large program, most symbols fail is_wanted's bit test
 * before it (GNU objdump's 4,270 symbols for 164 functions took 110 us
 * to load, in two passes, against 44 now; docs/performance.md, session
 * 29).
 */
static int kept_symbol(const struct symbols *st, const Sym *s, const struct wanted *w)
{
	return is_function(s) && s->st_value != 0 && (w == NULL || is_wanted(w, s->st_value)) &&
	       s->st_name < st->strings_size && st->strings[s->st_name] != '\0';
}

/* The table's memory (struct elfsym_mem): malloc without one. */
static void *mem_alloc(const struct elfsym_mem *mem, size_t n)
{
	return mem ? mem->alloc(mem->ctx, n) : malloc(n);
}

static void mem_free(const struct elfsym_mem *mem, void *p)
{
	if (mem == NULL)
		free(p);
	else if (p != NULL)
		mem->release(mem->ctx, p);
}

/* realloc of p, `old` bytes, to n bytes (n > 0). */
static void *mem_resize(const struct elfsym_mem *mem, void *p, size_t old, size_t n)
{
	void *q;

	if (mem == NULL)
		return realloc(p, n);
	q = mem->alloc(mem->ctx, n);
	if (q == NULL)
		return NULL;
	if (p != NULL)
		memcpy(q, p, old < n ? old : n);
	mem_free(mem, p);
	return q;
}

static void swap_bytes(unsigned char *a, unsigned char *b, size_t size)
{
	while (size--) {
		unsigned char c = *a;

		*a++ = *b;
		*b++ = c;
	}
}

static void sift_down(unsigned char *base, size_t root, size_t n, size_t size,
		      int (*cmp)(const void *, const void *))
{
	for (;;) {
		size_t child = 2 * root + 1;

		if (child >= n)
			return;
		if (child + 1 < n && cmp(base + child * size, base + (child + 1) * size) < 0)
			child++;
		if (cmp(base + root * size, base + child * size) >= 0)
			return;
		swap_bytes(base + root * size, base + child * size, size);
		root = child;
	}
}

void elfsym_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	unsigned char *b = base;
	size_t i;

	if (n < 2)
		return;
	for (i = n / 2; i-- > 0;)
		sift_down(b, i, n, size, cmp);
	for (i = n - 1; i > 0; i--) {
		swap_bytes(b, b + i * size, size);
		sift_down(b, 0, i, size, cmp);
	}
}

/* qsort where malloc may be called, elfsym_sort where not. */
static void sort(const struct elfsym_mem *mem, void *base, size_t n, size_t size,
		 int (*cmp)(const void *, const void *))
{
	if (mem == NULL)
		qsort(base, n, size, cmp);
	else
		elfsym_sort(base, n, size, cmp);
}

/* Room for one more symbol in *out, which holds n of *room: doubled when
 * full.  0, or -1 without memory (*out unchanged). */
static int room_for_one(const struct elfsym_mem *mem, struct elfsym **out, size_t n,
			size_t *room)
{
	struct elfsym *bigger;

	if (n < *room)
		return 0;
	bigger = mem_resize(mem, *out, *room * sizeof *bigger, 2 * *room * sizeof *bigger);
	if (bigger == NULL)
		return -1;
	*out = bigger;
	*room *= 2;
	return 0;
}

/* The named function symbols of st (those at w's offsets only, unless w
 * is NULL) into *out, an array of *room (grown as needed), sorted by
 * address and only the preferred one (by_addr) of those at one address:
 * a lookup then needs no walk over aliases, which 200,000 symbols at one
 * address made cost 200,000 steps each.  Names still point into st.
 * Returns how many, or -1 without memory. */
static ssize_t gather(const struct symbols *st, const struct wanted *w,
		      const struct elfsym_mem *mem, struct elfsym **out, size_t *room)
{
	size_t i, n = 0, kept = 0;

	for (i = 0; i < st->n; i++) {
		Sym s;

		symbol(st, i, &s);
		if (!kept_symbol(st, &s, w))
			continue;
		if (room_for_one(mem, out, n, room) != 0)
			return -1;
		(*out)[n].addr = s.st_value;
		(*out)[n].size = s.st_size;
		(*out)[n].name = st->strings + s.st_name;
		(*out)[n].global = ELF64_ST_BIND(s.st_info) == STB_GLOBAL;
		(*out)[n].index = (uint32_t)i;
		n++;
	}
	sort(mem, *out, n, sizeof **out, by_addr);
	for (i = 0; i < n; i++)
		if (kept == 0 || (*out)[i].addr != (*out)[kept - 1].addr)
			(*out)[kept++] = (*out)[i];
	return (ssize_t)kept;
}

static int by_name(const void *a, const void *b)
{
	const char *x = (*(struct elfsym *const *)a)->name;
	const char *y = (*(struct elfsym *const *)b)->name;

	return x < y ? -1 : x > y;
}

/* One walk over the names of `order` (symbols sorted by where their name
 * lies in a string table ending at `end`): each run of bytes up to a NUL,
 * or to the table's end, taken once, so a name that is the tail of
 * another, or shared, costs nothing more.  With buf, copies each run
 * there and points the symbols at the copies.  Returns the bytes needed. */
static size_t walk_names(struct elfsym **order, size_t n, const char *end, char *buf)
{
	const char *run = NULL, *run_end = NULL;
	char *copy = NULL;
	size_t i, total = 0;

	for (i = 0; i < n; i++) {
		const char *name = order[i]->name;

		if (run == NULL || name > run_end) { /* not in the last run */
			size_t len = strnlen(name, (size_t)(end - name));

			if (buf) {
				copy = buf + total;
				memcpy(copy, name, len);
				copy[len] = '\0';
			}
			run = name;
			run_end = name + len;
			total += len + 1;
		}
		if (buf)
			order[i]->name = copy + (name - run);
	}
	return total;
}

/* Copy the names of t's symbols out of st's string table into one buffer
 * t owns: only those names, never the whole table, which a file may make
 * far larger (a sparse 8 KB file with a 1 GiB table cost 2 GiB). */
static int own_names(struct elfsym_table *t, const struct symbols *st)
{
	const char *end = st->strings + st->strings_size;
	struct elfsym **order = mem_alloc(t->mem, (t->n ? t->n : 1) * sizeof *order);
	size_t i, total;

	if (order == NULL)
		return -1;
	for (i = 0; i < t->n; i++)
		order[i] = &t->syms[i];
	sort(t->mem, order, t->n, sizeof *order, by_name);
	total = walk_names(order, t->n, end, NULL);
	t->strings = mem_alloc(t->mem, total ? total : 1);
	if (t->strings)
		walk_names(order, t->n, end, t->strings);
	mem_free(t->mem, order);
	return t->strings ? 0 : -1;
}

static int collect(const struct image *im, const Ehdr *eh, const Shdr *symtab,
		   const struct wanted *w, struct elfsym_table *t)
{
	struct symbols st;
	/* One pass: room for every symbol of a whole table, for about the
	 * offsets asked for otherwise (aliases grow it). */
	size_t room;
	ssize_t n;

	if (open_symbols(im, eh, symtab, &st) != 0)
		return -1;
	room = w == NULL ? st.n : w->n + 16;
	if (room == 0)
		room = 1;
	t->syms = mem_alloc(t->mem, room * sizeof *t->syms);
	if (t->syms == NULL)
		return -1;
	if ((n = gather(&st, w, t->mem, &t->syms, &room)) < 0)
		return -1;
	t->n = (size_t)n;
	if (t->n < room && t->mem == NULL) { /* give back the room of what gather dropped */
		struct elfsym *fit = realloc(t->syms, (t->n ? t->n : 1) * sizeof *fit);

		if (fit)
			t->syms = fit;
	}
	return own_names(t, &st);
}

static int parse(const struct image *im, const struct wanted *w, struct elfsym_table *t)
{
	const Ehdr *eh = (const Ehdr *)im->p;
	Shdr tab;

	if (im->len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh->e_shentsize != sizeof(Shdr))
		return -1;
	if (find_table(im, eh, SHT_SYMTAB, &tab) != 0 &&
	    find_table(im, eh, SHT_DYNSYM, &tab) != 0)
		return -1;
	return collect(im, eh, &tab, w, t);
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
 * records it, into out; "" if it has none.  From the SHT_NOTE sections,
 * every offset checked. */
static void image_build_id(const struct image *im, char out[BUILDID_HEX_SIZE])
{
	const Ehdr *eh = (const Ehdr *)im->p;
	unsigned i;

	out[0] = '\0';
	for (i = 0; i < eh->e_shnum; i++) {
		Shdr sh;

		if (section(im, eh, i, &sh) == 0 && sh.sh_type == SHT_NOTE &&
		    in_bounds(im, sh.sh_offset, sh.sh_size) &&
		    buildid_from_notes(im->p + sh.sh_offset, sh.sh_size, out))
			return;
	}
}

/* An ELF image of our class whose section headers we can read. */
static int image_is_elf(const struct image *im)
{
	const Ehdr *eh = (const Ehdr *)im->p;

	return memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_shentsize == sizeof(Shdr);
}

/* Whether an ELF image has this build-id ("" for none). */
static int image_has_build(const struct image *im, const char *build_id)
{
	char id[BUILDID_HEX_SIZE];

	image_build_id(im, id);
	return strcmp(id, build_id) == 0;
}

int elfsym_is_build(const char *path, const char *build_id)
{
	struct image im;
	int same;

	if (map_image(path, &im) != 0)
		return 0;
	same = image_is_elf(&im) && image_has_build(&im, build_id);
	unmap_image(&im);
	return same;
}

int elfsym_load(const char *path, struct elfsym_table *t)
{
	return elfsym_load_as(path, NULL, t);
}

/* elfsym_load_as, of the symbols at w's offsets only if w is not NULL. */
static int load(const char *path, const char *build_id, const struct wanted *w,
		struct elfsym_table *t, const struct elfsym_mem *mem)
{
	struct image im;
	int rc;

	memset(t, 0, sizeof *t);
	t->mem = mem;
	if (map_image(path, &im) != 0)
		return -1;
	if (build_id && !image_is_elf(&im)) {
		unmap_image(&im);
		return -1;
	}
	if (build_id && !image_has_build(&im, build_id)) {
		unmap_image(&im);
		return -2;
	}
	rc = parse(&im, w, t);
	if (rc == 0 && w && t->n < w->n) {
		/* An offset at no symbol's address: the whole table, in which
		 * a lookup may find the function around it. */
		elfsym_free(t);
		rc = parse(&im, NULL, t);
	}
	unmap_image(&im);
	if (rc != 0)
		elfsym_free(t);
	return rc;
}

int elfsym_load_as(const char *path, const char *build_id, struct elfsym_table *t)
{
	return load(path, build_id, NULL, t, NULL);
}

int elfsym_load_for(const char *path, const char *build_id, const uint64_t *offsets, size_t n,
		    struct elfsym_table *t)
{
	return elfsym_load_for_in(path, build_id, offsets, n, t, NULL);
}

int elfsym_load_for_in(const char *path, const char *build_id, const uint64_t *offsets, size_t n,
		       struct elfsym_table *t, const struct elfsym_mem *mem)
{
	struct wanted w;

	wanted_init(&w, offsets, n);
	return load(path, build_id, &w, t, mem);
}

const char *elfsym_find(const struct elfsym_table *t, uint64_t offset)
{
	const struct elfsym *s = elfsym_lookup(t, offset);

	return s ? s->name : NULL;
}

/* One symbol per address (gather), so the one below the first above
 * offset is the only candidate. */
const struct elfsym *elfsym_lookup(const struct elfsym_table *t, uint64_t offset)
{
	size_t lo = 0, hi = t->n;
	const struct elfsym *s;

	while (lo < hi) { /* first symbol above offset */
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	s = &t->syms[lo - 1];
	return s->addr == offset || offset - s->addr < s->size ? s : NULL;
}

void elfsym_free(struct elfsym_table *t)
{
	const struct elfsym_mem *mem = t->mem;

	mem_free(mem, t->syms);
	mem_free(mem, t->strings);
	memset(t, 0, sizeof *t);
	t->mem = mem; /* load's second parse, of the whole table, uses it too */
}

/* Best match in one symbol table, by linear scan (elfsym_find_unbuffered). */
static const char *scan_table(const struct image *im, const Ehdr *eh, const Shdr *symtab,
			      uint64_t offset)
{
	Sym best = {0};
	int found = 0;
	struct symbols st;
	size_t i;

	if (open_symbols(im, eh, symtab, &st) != 0)
		return NULL;
	for (i = 0; i < st.n; i++) {
		Sym s;

		symbol(&st, i, &s);
		if (!is_function(&s) || s.st_name >= st.strings_size || s.st_value > offset)
			continue;
		if (s.st_value != offset && offset - s.st_value >= s.st_size)
			continue;
		if (!found || s.st_value > best.st_value)
			best = s;
		found = 1;
	}
	return found ? st.strings + best.st_name : NULL;
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

	if (len == 0 || map_image(path, &im) != 0)
		return -1;
	eh = (const Ehdr *)im.p;
	if (image_is_elf(&im) && (build_id == NULL || image_has_build(&im, build_id))) {
		Shdr tab;

		if (find_table(&im, eh, SHT_SYMTAB, &tab) == 0)
			name = scan_table(&im, eh, &tab, offset);
		if (name == NULL && find_table(&im, eh, SHT_DYNSYM, &tab) == 0)
			name = scan_table(&im, eh, &tab, offset);
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
