/*
 * model_output.c - the output side of the model: the escaper tables, the
 * JSON writer, and the text and JSON reports of Spivey's example, written
 * to memory and checked for the lines and members they must contain.
 */
#include "model_fixture.h"
#include "output/escape.h"
#include "output/json.h"
#include "output/report.h"

#define ELLIPSIS_UTF8 "\xe2\x80\xa6"

/* Escape s with table t into a static buffer. */
static const char *esc(const struct escape_table *t, const char *s, size_t len)
{
	static char buf[4096];
	size_t n = escape_mem(buf, t, s, len);
	buf[n] = '\0';
	return buf;
}

#define ESC(t, lit) esc(&(t), (lit), sizeof(lit) - 1)

static void escaping(void)
{
	CHECK(strcmp(ESC(escape_json, "plain name_1"), "plain name_1") == 0, "plain text copied");
	CHECK(strcmp(ESC(escape_json, "a\"b\\c"), "a\\\"b\\\\c") == 0, "quote and backslash");
	CHECK(strcmp(ESC(escape_json, "\n\t\r\b\f"), "\\n\\t\\r\\b\\f") == 0, "short escapes");
	CHECK(strcmp(ESC(escape_json, "\x01\x1f\x7f"), "\\u0001\\u001f\\u007f") == 0,
	      "other control characters as \\u00XX");
	CHECK(strcmp(ESC(escape_json, "a\0b"), "a\\u0000b") == 0, "NUL byte");
	CHECK(strcmp(ESC(escape_json, "</script>&"), "\\u003c/script\\u003e\\u0026") == 0,
	      "<, > and & escaped for HTML");
	CHECK(strcmp(ESC(escape_json, "caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x98\x80"),
		     "caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x98\x80") == 0,
	      "valid UTF-8 copied");
	CHECK(strcmp(ESC(escape_json, "\xe2\x80\xa8\xe2\x80\xa9"), "\\u2028\\u2029") == 0,
	      "JavaScript line separators escaped");
	CHECK(strcmp(ESC(escape_json, "a\xff" "b\xc3"), "a\\ufffdb\\ufffd") == 0,
	      "invalid and truncated UTF-8 replaced");
	CHECK(strcmp(ESC(escape_json, "\xc0\xaf\xed\xa0\x80"),
		     "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd") == 0,
	      "overlong and surrogate encodings replaced byte by byte");
	CHECK(strcmp(ESC(escape_text, "a\x1b[31mb\xff" "c\xc3\xa9"), "a?[31mb?c\xc3\xa9") == 0,
	      "text: control and invalid bytes become ?");
	CHECK(strcmp(ESC(escape_text, "a\xc2\x80" "b\xc2\x9b" "2Jc\xc2\x9f" "d\xc2\xa0" "e"),
		     "a?b?2Jc?d\xc2\xa0" "e") == 0,
	      "text: C1 controls U+0080..U+009F become ?, U+00A0 stays");
	CHECK(strcmp(ESC(escape_json, "\xc2\x9b\xc2\x85"), "\xc2\x9b\xc2\x85") == 0,
	      "JSON: C1 controls are valid, copied");
	CHECK(strcmp(ESC(escape_xml, "\xc2\x9b"), "\xc2\x9b") == 0, "XML: C1 controls copied");
	CHECK_EQ_U(escape_text_width("caf\xc3\xa9"), 4, "text width counts characters");
}

static void json_writer(void)
{
	char *buf;
	size_t size;
	FILE *f = open_memstream(&buf, &size);
	static struct ob o;
	struct json j;
	ob_init(&o, f);
	json_init(&j, &o);
	json_begin_object(&j);
	json_kstring(&j, "s", "x\"y");
	json_key(&j, "a");
	json_begin_array(&j);
	json_uint(&j, 18446744073709551615ULL);
	json_double(&j, 0.5);
	json_double(&j, 1.0 / 0.0);
	json_string(&j, NULL);
	json_begin_object(&j);
	json_end_object(&j);
	json_begin_array(&j);
	json_end_array(&j);
	json_bool(&j, 1);
	json_seconds(&j, 1500000001, 1000000000);
	json_seconds(&j, 2, 3);
	json_seconds(&j, 7, 0);
	json_end_array(&j);
	json_newline(&j);
	json_kdouble(&j, "z", -0.0);
	json_end_object(&j);
	ob_flush(&o);
	fclose(f);
	const char *want = "{\"s\":\"x\\\"y\",\"a\":[18446744073709551615,0.5,null,null,{},[],"
			   "true,1.500000001,0.666666667,0],\n  \"z\":0}";
	CHECK(strcmp(buf, want) == 0, "JSON writer: separators, nesting, null for inf, seconds");
	if (strcmp(buf, want) != 0)
		printf("# got %s\n", buf);
	free(buf);
}

static void numbers(void)
{
	char *buf;
	size_t size;
	FILE *f = open_memstream(&buf, &size);
	static struct ob o;
	ob_init(&o, f);
	ob_u64(&o, 42, 5);
	ob_putc(&o, '|');
	ob_ratio(&o, 110, 1000, 0, 3, 7);      /* 0.110 seconds */
	ob_putc(&o, '|');
	ob_ratio(&o, 73, 365, 2, 1, 6);        /* 20.0 % */
	ob_putc(&o, '|');
	ob_ratio(&o, 1, 2000, 0, 3, 0);        /* 0.0005 rounds half up */
	ob_putc(&o, '|');
	ob_ratio(&o, 5, 0, 2, 1, 0);           /* zero total */
	ob_putc(&o, '|');
	ob_ratio(&o, UINT64_MAX, 1, 2, 1, 0);  /* no overflow */
	ob_flush(&o);
	fclose(f);
	CHECK(strcmp(buf, "   42|  0.110|  20.0|0.001|0.0|1844674407370955161500.0") == 0,
	      "integer and fixed-point formatting: %s", buf);
	CHECK_EQ_U(ob_ratio_len(123456, 1000, 0, 3), 7, "width of 123.456");
	free(buf);
}

static char *render(report_writer *w, const struct model *m, const struct report_opts *o)
{
	char *buf;
	size_t size;
	FILE *f = open_memstream(&buf, &size);
	CHECK(w(f, m, o) == 0, "writer reports success");
	fclose(f);
	return buf;
}

static void reports(void)
{
	static struct fixture fx;
	struct model m;
	static const char *argv[] = {"./spivey", "two words", "it's"};
	fx_init(&fx, 1000);
	fx.p.argv = argv;
	fx.p.argc = 3;
	fx.p.stats.samples = 365;
	fx_ctx(&fx, "", 0, 0, 5);
	fx_ctx(&fx, "[main]", 1, 0, 10);
	fx_ctx(&fx, "[main] [P]", 1, 2, 20);
	fx_ctx(&fx, "[main] [P] [Q]", 1, 0, 30);
	fx_ctx(&fx, "[main] [P] [Q] [R]", 1, 0, 40);
	fx_ctx(&fx, "[main] P [Q] [R] [P]", 2, 0, 50);
	fx_ctx(&fx, "[main] P Q [R] [P] [Q]", 1, 0, 60);
	fx_ctx(&fx, "[main] P R [P] [Q] [R]", 1, 0, 70);
	fx_ctx(&fx, "[main] P [Q] [R] [P] [S]", 1, 3, 80);
	CHECK(fx_build(&m, &fx) == 0, "Spivey model for the writers");

	struct report_opts o = {.top = 2, .graph = 1, .contexts = 1};
	char *text = render(report_text, &m, &o);
	CHECK(strstr(text, "./spivey 'two words' 'it'\\''s'") != NULL, "command line shell-quoted");
	CHECK(strstr(text, "total time   0.365 secs  (cpu clock; the sampler woke 365 times, interval 1 ms)") != NULL,
	      "header: total time and clock");
	CHECK(strstr(text, "Top cost centres by self time (2 of 5)") != NULL, "--top limits rows");
	CHECK(strstr(text, "\nR             30.1    0.110      2         0.300\n") != NULL,
	      "flat row for R: %%time, self, calls, inherited");
	CHECK(strstr(text, "compressed stack") != NULL, "tree says it uses compressed stacks");
	CHECK(strstr(text, "\n     S            4    21.9  0.080    21.9  0.080\n") != NULL,
	      "tree row for main/Q/R/P/S");
	CHECK(strstr(text, "\n<root>            0     1.4  0.005   100.0  0.365\n") != NULL,
	      "tree root row");
	CHECK(strstr(text, "[main] P " ELLIPSIS_UTF8 " R [P] [Q] [R]") != NULL,
	      "contexts: elided path shown as an ellipsis");
	CHECK(strstr(text, "<spontaneous>") != NULL, "graph: spontaneous caller of main");
	CHECK(strstr(text, "\n[2]      95.9     0.070     0.280        3+2  P [2]\n") != NULL,
	      "graph: P's line with recursive calls as 3+2");
	CHECK(strstr(text, "\n                  0.050     0.210        2/3      R [4]\n") != NULL,
	      "graph: caller R->P with its incoming times, 2 of 3 calls");
	free(text);

	char *json = render(report_json, &m, &o);
	CHECK(strstr(json, "\"total_time_s\":0.365") != NULL, "json: total_time_s");
	CHECK(strstr(json, "\"argv\":[\"./spivey\",\"two words\",\"it's\"]") != NULL, "json: argv");
	CHECK(strstr(json, "\"caller\":null") == NULL, "json: no spontaneous arcs");
	CHECK(strstr(json, "\"name\":\"main\",\"module\":\"\",\"build_id\":\"\",\"offset\":4096,\"file\":\"\","
			   "\"line\":0,\"calls\":1,\"root_calls\":1,") != NULL,
	      "json: main, at offset 0x1000, was called once as a thread root");
	CHECK(strstr(json, "\"self_in_s\":0.05,\"child_in_s\":0.21") != NULL,
	      "json: arc R->P incoming times");
	CHECK(strstr(json, "{\"name\":\"P\",\"id\":1,\"marked\":false}") != NULL,
	      "json: unmarked history entry");
	CHECK(strstr(json, "\"tree\":\n  {\"name\":\"\\u003croot\\u003e\",\"id\":null") != NULL,
	      "json: tree root");
	free(json);
	model_free(&m);
}

/*
 * The header's command line quotes an argument the shell would need
 * quoted.  The text between the quotes was once escaped a byte at a time,
 * so each byte of a UTF-8 character looked invalid and became "?"; only
 * bytes that are invalid (or control characters) should:
 *
 *     ./prog 'café au lait' 'naïve' 'it'\''s …' 'bad??'
 */
static void command_line(void)
{
	static struct fixture fx;
	struct model m;
	static const char *argv[] = {"./prog", "caf\xc3\xa9 au lait", "na\xc3\xafve",
				     "it's \xe2\x80\xa6", "bad\xff\x1b"};
	fx_init(&fx, 1000);
	fx.p.argv = argv;
	fx.p.argc = 5;
	fx_ctx(&fx, "[main]", 1, 0, 10);
	CHECK(fx_build(&m, &fx) == 0, "model for the command line");
	struct report_opts o = {.top = 1};
	char *text = render(report_text, &m, &o);
	CHECK(strstr(text, "\n    command      ./prog 'caf\xc3\xa9 au lait' 'na\xc3\xafve' "
			   "'it'\\''s \xe2\x80\xa6' 'bad?\?'\n") != NULL,
	      "command line: UTF-8 kept whole inside quotes, invalid bytes as ?");
	free(text);
	model_free(&m);
}

int main(void)
{
	escaping();
	json_writer();
	numbers();
	reports();
	command_line();
	return check_failures != 0;
}
