/*
 * export_heap_svg.c - the live heap over time as an area chart drawn by
 * ccprof (docs/exports.md, "heap-svg"): one self-contained SVG file (no
 * script, no external reference), the picture hp2ps draws of an .hp file
 * without needing GHC.
 *
 * x is the time since the runtime started, y the live bytes.  The bands
 * are export_hp.c's (heap_bands.h: one per stack of the view, threads
 * merged, named alike): the HEAP_SVG_TOP with the largest area, stacked
 * from the bottom largest first, then "other" for the rest and
 * "(outside)" for the bytes live in no context.  Ranked by area (bytes x
 * time) because that is what the eye weighs: a band large for the whole
 * run before another's short spike.
 *
 * Samples are values at instants: between two of them the heap is
 * unknown, so the edges are straight lines from sample to sample, as
 * hp2ps draws them, from an empty heap at 0 when the first sample is
 * later (as the .hp file starts).
 *
 * The exact peak (profile.heap.peak_bytes) is a dashed line: the samples
 * may all miss it.  The legend gives each band's bytes at the largest
 * sample (heap_largest_sample, as report --heap).  Every string from the
 * profile goes through escape_xml; the ticks, bands and peak line carry
 * their exact values in data-* attributes, for tests and scripts.
 * Colours come from a hash of the stack's name, so a stack has the same
 * colour in every view and every file.
 */
#include "output/export.h"

#include <stdlib.h>
#include <string.h>

#include "model/heap.h"
#include "model/xalloc.h"
#include "output/escape.h"
#include "output/heap_bands.h"
#include "output/names.h"
#include "output/ob.h"

#define HEAP_SVG_TOP 20 /* stacks with a band of their own: hp2ps's key has 20 */

#define W 1200
#define H 660
#define PX0 90.0  /* the plot's left edge */
#define PX1 800.0 /* its right edge */
#define PY0 90.0  /* its top */
#define PY1 590.0 /* its bottom, y = 0 */
#define LX 820    /* the legend's left edge */
#define ROW_H 18  /* a legend row */
#define FONT_SIZE 12
#define CHAR_W (FONT_SIZE * 0.59) /* average glyph width of Verdana */

enum { ROW_OTHER = HEAP_SVG_TOP, ROW_OUTSIDE, NROWS }; /* past the stacks' rows */

struct hsvg {
	struct ob *o;
	const struct model *m;
	const struct ccp_heap *heap;
	struct heap_bands bands;
	uint32_t npts;        /* points on each edge: the samples, and 0 first */
	uint32_t lead;        /* 1 when that first point at 0 is added */
	uint64_t *time;       /* per point, ns */
	uint64_t *val;        /* per row and point: val[row * npts + i] */
	uint32_t nstacks;     /* rows 0 .. nstacks - 1 are stacks */
	uint32_t row_band[HEAP_SVG_TOP]; /* their bands */
	char *name[NROWS];    /* each row's name, UTF-8 repaired; NULL: no band */
	uint32_t largest;     /* the largest sample's point, or UINT32_MAX */
	double xs, ys;        /* px per ns, px per byte */
	uint64_t ytop, tend;  /* the axes' ends: bytes, ns */
	unsigned yk;          /* the y labels' unit: 1024^yk bytes */
	double ystep;         /* between y ticks, in that unit */
};

/* ---- the bands --------------------------------------------------------------- */

/* Sample k's point (after the point at 0, when there is one). */
static uint32_t point_of(const struct hsvg *s, uint32_t k)
{
	return k + s->lead;
}

/* Points and their times: the samples, after an empty one at 0 when the
 * first is later (or there is none), as the .hp file starts. */
static void points(struct hsvg *s)
{
	const struct ccp_heap *h = s->heap;
	s->lead = h->nsamples == 0 || h->samples[0].time_ns > 0;
	s->npts = h->nsamples + s->lead;
	s->time = xcalloc(s->npts, sizeof *s->time);
	for (uint32_t k = 0; k < h->nsamples; k++)
		s->time[point_of(s, k)] = h->samples[k].time_ns;
	uint32_t big = heap_largest_sample(s->m);
	s->largest = big == HEAP_AT_END ? UINT32_MAX : point_of(s, big);
}

/* A point's weight in a band's area: half the time to each neighbour
 * (the trapezoids the edges draw). */
static double point_width(const struct hsvg *s, uint32_t i)
{
	uint64_t lo = s->time[i ? i - 1 : 0], hi = s->time[i + 1 < s->npts ? i + 1 : i];
	return (double)(hi - lo) / 2;
}

/* Each band's area under its edge (bytes x ns), and whether it ever has
 * bytes (a band in one sample of zero width still counts). */
static void band_areas(struct hsvg *s, double *area, uint8_t *seen)
{
	struct heap_bands *b = &s->bands;
	for (uint32_t k = 0; k < s->heap->nsamples; k++) {
		double w = point_width(s, point_of(s, k));
		heap_bands_sample(b, &s->heap->samples[k]);
		for (uint32_t i = 0; i < b->ntouched; i++) {
			area[b->touched[i]] += (double)b->bytes[b->touched[i]] * w;
			seen[b->touched[i]] = 1;
		}
		heap_bands_clear(b);
	}
}

static const double *sort_area; /* for by_area */

/* Largest area first, then band number: the same order every run. */
static int by_area(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	if (sort_area[a] != sort_area[b])
		return sort_area[a] > sort_area[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The stacks with bands of their own: row_band, nstacks, and per band its
 * row (ROW_OTHER for the rest). */
static uint32_t *choose_rows(struct hsvg *s)
{
	uint32_t n = s->bands.nbands, nseen = 0;
	double *area = xcalloc(n + 1, sizeof *area);
	uint8_t *seen = xcalloc(n + 1, 1);
	uint32_t *order = xnmalloc(n + 1, sizeof *order);
	uint32_t *row = xnmalloc(n + 1, sizeof *row);
	band_areas(s, area, seen);
	for (uint32_t k = 0; k < n; k++) {
		row[k] = ROW_OTHER;
		if (seen[k])
			order[nseen++] = k;
	}
	sort_area = area;
	qsort(order, nseen, sizeof *order, by_area);
	s->nstacks = nseen < HEAP_SVG_TOP ? nseen : HEAP_SVG_TOP;
	for (uint32_t r = 0; r < s->nstacks; r++) {
		s->row_band[r] = order[r];
		row[order[r]] = r;
	}
	free(area);
	free(seen);
	free(order);
	return row;
}

/* Every row's bytes at every point. */
static void fill_rows(struct hsvg *s, const uint32_t *row)
{
	struct heap_bands *b = &s->bands;
	s->val = xcalloc((size_t)NROWS * s->npts, sizeof *s->val);
	for (uint32_t k = 0; k < s->heap->nsamples; k++) {
		const struct ccp_heap_sample *x = &s->heap->samples[k];
		uint32_t i = point_of(s, k);
		heap_bands_sample(b, x);
		for (uint32_t t = 0; t < b->ntouched; t++)
			s->val[(size_t)row[b->touched[t]] * s->npts + i] += b->bytes[b->touched[t]];
		heap_bands_clear(b);
		if (heap_bands_outside(b))
			s->val[(size_t)ROW_OUTSIDE * s->npts + i] = x->outside_bytes;
	}
}

static int row_empty(const struct hsvg *s, uint32_t r)
{
	for (uint32_t i = 0; i < s->npts; i++)
		if (s->val[(size_t)r * s->npts + i])
			return 0;
	return 1;
}

/* A band's name as a string (heap_bands_name into memory). */
static char *band_string(const struct hsvg *s, const struct names *nm, uint32_t band)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return xstrdup("?");
	struct ob *o = ob_open(f);
	heap_bands_name(o, &s->bands, nm, band, 0);
	ob_close(o);
	fclose(f);
	return buf;
}

/* The names of the rows that have a band: names UTF-8 repaired only, for
 * escape_xml to escape as it writes, and to cut by characters. */
static void name_rows(struct hsvg *s)
{
	struct names nm;
	names_init(&nm, s->m, &escape_utf8, 0);
	for (uint32_t r = 0; r < s->nstacks; r++)
		s->name[r] = band_string(s, &nm, s->row_band[r]);
	names_free(&nm);
	if (!row_empty(s, ROW_OTHER))
		s->name[ROW_OTHER] = xstrdup("other");
	if (!row_empty(s, ROW_OUTSIDE))
		s->name[ROW_OUTSIDE] = xstrdup("(outside)");
}

/* ---- scales and units -------------------------------------------------------- */

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* v rounded, at most UINT64_MAX: converting a larger double is undefined
 * (a hostile profile's bytes or times can be near 2^64). */
static uint64_t round_u64(double v)
{
	return v + 0.5 >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)(v + 0.5);
}

/* A tick step of 1, 2 or 5 times a power of ten (of unit), at least
 * range / 6 units: 4 to 7 ticks. */
static double nice_step(double range)
{
	double p = 1, want = range / 6;
	while (p * 10 <= want)
		p *= 10;
	while (p > want && p > 1e-9)
		p /= 10;
	return want <= p ? p : want <= 2 * p ? 2 * p : want <= 5 * p ? 5 * p : 10 * p;
}

/* Decimals that show a multiple of step exactly (step = m x 10^-d). */
static int decimals(double step)
{
	int d = 0;
	for (double q = step; q - (double)(uint64_t)(q + 1e-9) > 1e-9 && d < 9; q *= 10)
		d++;
	return d;
}

static const char *const byte_unit[] = {"B", "KB", "MB", "GB", "TB"};

/* The power of 1024 that shows v with 1 to 4 digits before the point. */
static unsigned byte_power(uint64_t v)
{
	unsigned k = 0;
	while (k < 4 && v >= (uint64_t)1024 << (10 * k))
		k++;
	return k;
}

static double pow1024(unsigned k)
{
	return (double)((uint64_t)1 << (10 * k));
}

/* "12.3 MB" (KB = 1024 bytes), "512 B". */
static void human_bytes(struct ob *o, uint64_t v)
{
	unsigned k = byte_power(v);
	if (k == 0)
		ob_printf(o, "%llu B", (unsigned long long)v);
	else
		ob_printf(o, "%.1f %s", (double)v / pow1024(k), byte_unit[k]);
}

/* The axes' ends: y from 0 to a tick above the largest of the peak and
 * the samples (5 % above, for the peak's label), x from 0 to the last point. */
static void scales(struct hsvg *s)
{
	uint64_t ymax = max_u64(s->heap->peak_bytes, 1), room;
	for (uint32_t i = 0; i < s->npts; i++) {
		uint64_t sum = 0;
		for (uint32_t r = 0; r < NROWS; r++)
			sum += s->val[(size_t)r * s->npts + i];
		ymax = max_u64(ymax, sum);
	}
	room = ymax > UINT64_MAX / 2 ? ymax : ymax + ymax / 20; /* the peak's label under the top */
	s->yk = byte_power(room);
	s->ystep = nice_step((double)room / pow1024(s->yk));
	if (s->ystep * pow1024(s->yk) < 1) /* whole bytes */
		s->ystep = 1 / pow1024(s->yk);
	double step = s->ystep * pow1024(s->yk);
	s->ytop = max_u64(round_u64((double)round_u64((double)room / step + 0.499999) * step), room);
	s->tend = max_u64(s->time[s->npts - 1], 1);
	s->ys = (PY1 - PY0) / (double)s->ytop;
	s->xs = (PX1 - PX0) / (double)s->tend;
}

static double x_of(const struct hsvg *s, uint64_t ns)
{
	return PX0 + (double)ns * s->xs;
}

static double y_of(const struct hsvg *s, uint64_t bytes)
{
	return PY1 - (double)bytes * s->ys;
}

/* ---- drawing ----------------------------------------------------------------- */

/* hue (0 to 6, a sixth of the circle each), saturation and value
 * (0 to 1) as rgb(). */
static void hsv(struct ob *o, double hue, double sat, double val)
{
	int i = (int)hue % 6;
	double f = hue - (double)(int)hue;
	double p = val * (1 - sat), q = val * (1 - sat * f), t = val * (1 - sat * (1 - f));
	const double rgb[6][3] = {{val, t, p}, {q, val, p}, {p, val, t},
				  {p, q, val}, {t, p, val}, {val, p, q}};
	ob_printf(o, "rgb(%d,%d,%d)", (int)(rgb[i][0] * 255 + 0.5), (int)(rgb[i][1] * 255 + 0.5),
		  (int)(rgb[i][2] * 255 + 0.5));
}

/* A band's colour from its stack's name (without the "(k)", which
 * changes with the view): any hue, pastel, so labels stay readable. */
static void colour(struct ob *o, const char *name, uint32_t r)
{
	if (r == ROW_OTHER || r == ROW_OUTSIDE) {
		ob_puts(o, r == ROW_OTHER ? "rgb(190,190,190)" : "rgb(150,170,200)");
		return;
	}
	const char *stack = strchr(name, ')');
	uint32_t h = export_name_hash(stack ? stack + 1 : name);
	hsv(o, (double)(h % 360) / 60, 0.35 + (double)((h >> 9) % 30) / 100,
	    0.80 + (double)((h >> 17) % 16) / 100);
}

/* The tooltip of a band: its name, its bytes at the largest sample and
 * its most in any sample. */
static void band_title(struct hsvg *s, uint32_t r)
{
	struct ob *o = s->o;
	uint64_t most = 0;
	for (uint32_t i = 0; i < s->npts; i++)
		most = max_u64(most, s->val[(size_t)r * s->npts + i]);
	ob_puts(o, "<title>");
	escape_puts(o, &escape_xml, s->name[r]);
	if (s->largest != UINT32_MAX) {
		ob_puts(o, "\n");
		ob_u64(o, s->val[(size_t)r * s->npts + s->largest], 0);
		ob_puts(o, " bytes at the largest sample (");
		ob_ratio(o, s->time[s->largest], 1000000000u, 0, 6, 0);
		ob_puts(o, " s)");
	}
	ob_puts(o, "\nat most ");
	ob_u64(o, most, 0);
	ob_puts(o, " bytes in a sample</title>");
}

/* One band: its top edge left to right, then its bottom (the top of the
 * bands under it, in under[]) right to left; under[] becomes its top. */
static void draw_band(struct hsvg *s, uint32_t r, uint64_t *under)
{
	struct ob *o = s->o;
	const uint64_t *v = &s->val[(size_t)r * s->npts];
	ob_printf(o, "<g class=\"band\" data-row=\"%u\">", r);
	band_title(s, r);
	ob_puts(o, "<polygon points=\"");
	for (uint32_t i = 0; i < s->npts; i++)
		ob_printf(o, "%.2f,%.2f ", x_of(s, s->time[i]), y_of(s, under[i] + v[i]));
	for (uint32_t i = s->npts; i-- > 0;)
		ob_printf(o, "%.2f,%.2f%s", x_of(s, s->time[i]), y_of(s, under[i]), i ? " " : "");
	ob_puts(o, "\" fill=\"");
	colour(o, s->name[r], r);
	ob_puts(o, "\"/></g>\n");
	for (uint32_t i = 0; i < s->npts; i++)
		under[i] += v[i];
}

/* The rows drawn, bottom first: the stacks largest first, other, outside. */
static void draw_bands(struct hsvg *s)
{
	uint64_t *under = xcalloc(s->npts, sizeof *under);
	for (uint32_t r = 0; r < NROWS; r++)
		if (s->name[r])
			draw_band(s, r, under);
	free(under);
}

/* The ticks of an axis at multiples of a round step, with labels and
 * exact values: grid lines across the plot for y (bytes), marks under it
 * for x (time, in ms under 2 s, else in s). */
static void ticks(struct hsvg *s, int is_x)
{
	struct ob *o = s->o;
	int ms = s->tend < 2000000000u;
	double unit = is_x ? (ms ? 1e6 : 1e9) : pow1024(s->yk);
	double step = is_x ? nice_step((double)s->tend / unit) : s->ystep;
	uint64_t end = is_x ? s->tend : s->ytop;
	if (step * unit < 1) /* whole ns, whole bytes */
		step = 1 / unit;
	int d = decimals(step);
	for (uint32_t i = 0; (double)i * step * unit <= (double)end + 0.5; i++) {
		uint64_t v = round_u64((double)i * step * unit);
		double at = is_x ? x_of(s, v) : y_of(s, v);
		/* line from (g[0], g[1]) to (g[2], g[3]), label at (g[4], g[5]) */
		double g[6] = {at, PY1, at, PY1 + 5, at, PY1 + 19};
		if (!is_x)
			g[0] = PX0 - 4, g[1] = at, g[2] = PX1, g[3] = at, g[4] = PX0 - 7, g[5] = at + 4;
		ob_printf(o, "<g class=\"%s\" data-%s=\"%llu\"><line x1=\"%.2f\" y1=\"%.2f\" "
			     "x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\"/><text x=\"%.2f\" y=\"%.2f\" "
			     "text-anchor=\"%s\">%.*f %s</text></g>\n",
			  is_x ? "xtick" : "ytick", is_x ? "ns" : "bytes", (unsigned long long)v, g[0],
			  g[1], g[2], g[3], is_x ? "#000" : "#ddd", g[4], g[5], is_x ? "middle" : "end",
			  d, (double)i * step, is_x ? (ms ? "ms" : "s") : byte_unit[s->yk]);
	}
}

static void axes(struct hsvg *s)
{
	struct ob *o = s->o;
	ob_printf(o, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
		     "stroke=\"#000\"/>\n",
		  PX0, PY0, PX1 - PX0, PY1 - PY0);
	ob_printf(o, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">time since the start"
		     "</text>\n",
		  (PX0 + PX1) / 2, PY1 + 40);
	ob_printf(o, "<text x=\"20\" y=\"%.2f\" text-anchor=\"middle\" "
		     "transform=\"rotate(-90 20 %.2f)\">live heap (KB = 1024 bytes)</text>\n",
		  (PY0 + PY1) / 2, (PY0 + PY1) / 2);
}

/* The exact peak, which the samples may all miss. */
static void peak_line(struct hsvg *s)
{
	struct ob *o = s->o;
	uint64_t p = s->heap->peak_bytes;
	double y = y_of(s, p);
	ob_printf(o, "<g class=\"peak\" data-bytes=\"%llu\"><line x1=\"%.2f\" y1=\"%.2f\" "
		     "x2=\"%.2f\" y2=\"%.2f\" stroke=\"#c00\" stroke-dasharray=\"6,3\"/>"
		     "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" fill=\"#c00\">peak ",
		  (unsigned long long)p, PX0, y, PX1, y, PX1 - 4, y - 4);
	human_bytes(o, p);
	ob_printf(o, " (%llu bytes, exact)</text></g>\n", (unsigned long long)p);
}

/* One legend row: swatch, bytes at the largest sample, the name cut to
 * the room left (whole in the tooltip). */
static void legend_row(struct hsvg *s, uint32_t r, int y)
{
	struct ob *o = s->o;
	uint64_t v = s->largest == UINT32_MAX ? 0 : s->val[(size_t)r * s->npts + s->largest];
	ob_printf(o, "<g class=\"key\" data-row=\"%u\" data-bytes=\"%llu\">", r,
		  (unsigned long long)v);
	band_title(s, r);
	ob_printf(o, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"", LX, y - 10);
	colour(o, s->name[r], r);
	ob_printf(o, "\" stroke=\"#666\"/><text class=\"v\" x=\"%d\" y=\"%d\" "
		     "text-anchor=\"end\">",
		  LX + 88, y);
	human_bytes(o, v);
	ob_printf(o, "</text><text class=\"n\" x=\"%d\" y=\"%d\">", LX + 96, y);
	export_xml_cut(o, s->name[r], (size_t)((W - 10 - LX - 96) / CHAR_W));
	ob_puts(o, "</text></g>\n");
}

/* The legend, in the order of the bands on the picture: the top first. */
static void legend(struct hsvg *s)
{
	struct ob *o = s->o;
	int y = (int)PY0 + 4;
	if (s->largest == UINT32_MAX) {
		ob_printf(o, "<text x=\"%d\" y=\"%d\">no samples</text>\n", LX, y);
		return;
	}
	ob_printf(o, "<text x=\"%d\" y=\"%d\">at the largest sample, ", LX, y);
	ob_ratio(o, s->time[s->largest], 1000000000u, 0, 3, 0);
	ob_puts(o, " s:</text>\n");
	for (uint32_t r = NROWS; r-- > 0;)
		if (s->name[r])
			legend_row(s, r, y += ROW_H);
}

/* The title: the program, the command line, what the picture shows. */
static void title(struct hsvg *s)
{
	struct ob *o = s->o;
	const struct ccp_profile *p = s->m->prof;
	size_t len = 1;
	for (uint32_t i = 0; i < p->argc; i++)
		len += strlen(p->argv[i]) + 1;
	char *cmd = xmalloc(len), *e = cmd;
	*e = '\0';
	for (uint32_t i = 0; i < p->argc; i++)
		e += sprintf(e, i ? " %s" : "%s", p->argv[i]);
	ob_printf(o, "<text class=\"h\" x=\"%d\" y=\"24\">Live heap: ", W / 2);
	escape_puts(o, &escape_xml, export_program(s->m));
	ob_printf(o, "</text>\n<text class=\"c\" x=\"%d\" y=\"46\">", W / 2);
	export_xml_cut(o, cmd, (size_t)((W - 20) / CHAR_W));
	free(cmd);
	ob_printf(o, "</text>\n<text class=\"i\" x=\"%d\" y=\"68\">%u samples, every ", W / 2,
		  s->heap->nsamples);
	ob_decimal(o, s->heap->interval_ns, 1000000u);
	ob_printf(o, " ms; the %d stacks with the largest area in bands of their own (innermost "
		     "function first), the rest in \"other\"; hover for exact bytes</text>\n",
		  HEAP_SVG_TOP);
}

static void hsvg_free(struct hsvg *s)
{
	heap_bands_free(&s->bands);
	for (uint32_t r = 0; r < NROWS; r++)
		free(s->name[r]);
	free(s->time);
	free(s->val);
}

/* The command refuses a profile without heap data; one still draws (the
 * fuzz harness writes every format): an empty picture. */
int export_heap_svg(FILE *f, const struct export_input *in, const struct export_opts *opts)
{
	struct hsvg s = {.m = in->m, .heap = &in->m->prof->heap};
	(void)opts;
	heap_bands_init(&s.bands, s.m);
	points(&s);
	uint32_t *row = choose_rows(&s);
	fill_rows(&s, row);
	free(row);
	name_rows(&s);
	scales(&s);
	s.o = ob_open(f);
	ob_printf(s.o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		       "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		       "height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		  W, H, W, H);
	ob_printf(s.o, "<style>text{font-family:Verdana,sans-serif;font-size:%dpx;fill:#000}"
		       ".h{font-size:17px;text-anchor:middle}.c,.i{text-anchor:middle}.i{fill:#444}"
		       "g.band:hover polygon{stroke:#000;stroke-width:0.8}</style>\n"
		       "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
		  FONT_SIZE);
	title(&s);
	ticks(&s, 0);
	draw_bands(&s);
	ticks(&s, 1);
	axes(&s);
	peak_line(&s);
	legend(&s);
	ob_puts(s.o, "</svg>\n");
	int ret = ob_close(s.o);
	hsvg_free(&s);
	return ret;
}
