/*
 * embed.c - a build tool: turn the HTML report's scripts and style sheet
 * (src/output/html/) into a C file, so that `ccprof convert --to html`
 * writes a self-contained page with nothing to install beside the binary.
 *
 *   embed OUT.c FILE...
 *
 * OUT.c defines html_assets[] (src/output/html_assets.h): one entry per
 * FILE, named by its base name, its bytes as an array, and the SHA-256 of
 * the element it becomes ("\n" and the file: export_html.c writes the
 * tag, a newline, the file), for the page's Content-Security-Policy, which
 * then runs no inline script and applies no inline style but these.  An
 * asset that would end the element it is pasted into (`</script`,
 * `</style`, `<!--`, in any case) fails the build instead of breaking the
 * page.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const forbidden[] = {"</script", "</style", "<!--"};

/* ---- SHA-256 (FIPS 180-4), for the policy's hashes ---------------------- */

struct sha256 {
	uint32_t h[8];
	unsigned char block[64];
	size_t used;     /* bytes in block */
	uint64_t length; /* bytes hashed so far */
};

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void sha256_block(struct sha256 *c)
{
	uint32_t w[64], v[8];
	for (unsigned i = 0; i < 16; i++)
		w[i] = (uint32_t)c->block[4 * i] << 24 | (uint32_t)c->block[4 * i + 1] << 16 |
		       (uint32_t)c->block[4 * i + 2] << 8 | c->block[4 * i + 3];
	for (unsigned i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, c->h, sizeof v);
	for (unsigned i = 0; i < 64; i++) {
		uint32_t t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
			      ((v[4] & v[5]) ^ (~v[4] & v[6])) + sha256_k[i] + w[i];
		uint32_t t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
			      ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof *v);
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (unsigned i = 0; i < 8; i++)
		c->h[i] += v[i];
}

static void sha256_init(struct sha256 *c)
{
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	memcpy(c->h, h0, sizeof h0);
	c->used = 0;
	c->length = 0;
}

static void sha256_add(struct sha256 *c, const unsigned char *p, size_t n)
{
	c->length += n;
	while (n--) {
		c->block[c->used++] = *p++;
		if (c->used == 64) {
			sha256_block(c);
			c->used = 0;
		}
	}
}

static void sha256_end(struct sha256 *c, unsigned char out[32])
{
	uint64_t bits = c->length * 8;
	unsigned char pad = 0x80;
	sha256_add(c, &pad, 1);
	pad = 0;
	while (c->used != 56)
		sha256_add(c, &pad, 1);
	for (int i = 7; i >= 0; i--) {
		unsigned char b = (unsigned char)(bits >> (8 * i));
		sha256_add(c, &b, 1);
	}
	for (unsigned i = 0; i < 32; i++)
		out[i] = (unsigned char)(c->h[i / 4] >> (24 - 8 * (i % 4)));
}

/* "sha256-BASE64" of "\n" and the asset, as CSP writes a hash source. */
static void csp_hash(const unsigned char *data, size_t len, char out[52])
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char d[33];
	struct sha256 c;
	sha256_init(&c);
	sha256_add(&c, (const unsigned char *)"\n", 1);
	sha256_add(&c, data, len);
	sha256_end(&c, d);
	d[32] = 0;
	char *o = out + sprintf(out, "sha256-");
	for (unsigned i = 0; i < 33; i += 3) {
		uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | d[i + 2];
		*o++ = b64[v >> 18 & 63];
		*o++ = b64[v >> 12 & 63];
		*o++ = i + 1 < 32 ? b64[v >> 6 & 63] : '=';
		*o++ = i + 2 < 32 ? b64[v & 63] : '=';
	}
	*o = '\0';
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static int slurp(const char *path, unsigned char **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf = malloc(cap);

	if (!f || !buf) {
		fprintf(stderr, "embed: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		free(buf);
		return -1;
	}
	for (;;) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		unsigned char *bigger = realloc(buf, cap *= 2);
		if (!bigger) {
			fprintf(stderr, "embed: %s: out of memory\n", path);
			fclose(f);
			free(buf);
			return -1;
		}
		buf = bigger;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		fprintf(stderr, "embed: %s: read error\n", path);
		free(buf);
		return -1;
	}
	*data = buf;
	*len = n;
	return 0;
}

/* Whether data holds s, ignoring ASCII case. */
static int holds(const unsigned char *data, size_t len, const char *s)
{
	size_t k = strlen(s);
	for (size_t i = 0; i + k <= len; i++) {
		size_t j = 0;
		while (j < k && tolower(data[i + j]) == s[j])
			j++;
		if (j == k)
			return 1;
	}
	return 0;
}

static int emit_asset(FILE *out, unsigned idx, const char *path)
{
	unsigned char *data;
	size_t len;

	if (slurp(path, &data, &len) != 0)
		return -1;
	for (size_t i = 0; i < sizeof forbidden / sizeof forbidden[0]; i++) {
		if (holds(data, len, forbidden[i])) {
			fprintf(stderr, "embed: %s holds '%s', which would end the page's element\n",
				path, forbidden[i]);
			free(data);
			return -1;
		}
	}
	char hash[52];
	csp_hash(data, len, hash);
	fprintf(out, "static const char hash%u[] = \"%s\";\n", idx, hash);
	fprintf(out, "static const char asset%u[%zu] = {", idx, len + 1);
	for (size_t i = 0; i < len; i++)
		fprintf(out, "%s%d,", i % 16 ? "" : "\n\t", data[i]);
	fprintf(out, "\n\t0};\n\n");
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: embed OUT.c FILE...\n");
		return 2;
	}
	FILE *out = fopen(argv[1], "w");
	if (!out) {
		fprintf(stderr, "embed: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	fprintf(out, "/* Generated by tools/embed.c from src/output/html/: do not edit. */\n"
		     "#include \"output/html_assets.h\"\n\n");
	for (int i = 2; i < argc; i++) {
		if (emit_asset(out, (unsigned)i, argv[i]) != 0) {
			fclose(out);
			remove(argv[1]);
			return 1;
		}
	}
	fprintf(out, "const struct html_asset html_assets[] = {\n");
	for (int i = 2; i < argc; i++)
		fprintf(out, "\t{\"%s\", asset%d, sizeof asset%d - 1, hash%d},\n", base_name(argv[i]),
			i, i, i);
	fprintf(out, "\t{0, 0, 0, 0},\n};\n");
	if (fclose(out) != 0) {
		fprintf(stderr, "embed: %s: write error\n", argv[1]);
		remove(argv[1]);
		return 1;
	}
	return 0;
}
