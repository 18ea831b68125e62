/*
 * sqlite_drv.c - a workload for SQLite's amalgamation (tests/sqlite.py):
 * inserts through a prepared statement, an index, a join, aggregates,
 * a recursive CTE and string functions, on an in-memory database.
 *
 * usage: sqlite_drv ROWS THREADS [ROUNDS]
 *
 * Each thread runs the whole workload on its own connection and writes
 * its rows to a buffer of its own; the buffers are printed in thread
 * order, so the output does not depend on scheduling.  THREADS 0 runs it
 * once in the main thread: a program that starts no thread allocates the
 * same bytes under the profiler as without it (docs/alloc.md).  The program
 * counts the rows its callback saw and prints that on stderr
 * ("rows N"), for the profile's count of row_seen to be checked against.
 * ROUNDS (default 1) runs the whole workload that many times, each on a
 * fresh database: the work grows faster than ROWS (the join), so make
 * bench (bench/bench.py) scales its input by rounds; 0 runs none, for the
 * bench's empty input (start-up and exit alone).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "sqlite3.h"

static atomic_long rows_seen;

struct job {
	int rows;
	int rounds;
	char *text;
	size_t len;
	int failed;
};

/* sqlite3_exec's callback: SQLite calls it through a pointer, once per row. */
static int row_seen(void *arg, int n, char **val, char **col)
{
	FILE *out = arg;

	(void)col;
	atomic_fetch_add(&rows_seen, 1);
	for (int i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? "|" : "", val[i] ? val[i] : "NULL");
	fputc('\n', out);
	return 0;
}

static int exec(sqlite3 *db, FILE *out, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, row_seen, out, &err) == SQLITE_OK)
		return 0;
	fprintf(stderr, "sqlite_drv: %s\n", err);
	sqlite3_free(err);
	return -1;
}

static int fill(sqlite3 *db, int rows)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "INSERT INTO t(b, c, d) VALUES (?1, ?2, ?3)", -1, &st, NULL))
		return -1;
	for (int i = 0; i < rows; i++) {
		char name[64];

		snprintf(name, sizeof name, "name-%d-%x", i, (unsigned)i * 2654435761u);
		sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_double(st, 2, i * 0.5);
		sqlite3_bind_int(st, 3, i % 97);
		if (sqlite3_step(st) != SQLITE_DONE)
			break;
		sqlite3_reset(st);
	}
	return sqlite3_finalize(st) == SQLITE_OK ? 0 : -1;
}

static const char *const queries[] = {
	"SELECT d, count(*), sum(c), min(b) FROM t GROUP BY d ORDER BY 2 DESC, 1 LIMIT 5",
	"SELECT count(*) FROM t JOIN u ON t.d = u.x WHERE t.b LIKE '%7%'",
	("WITH RECURSIVE f(n, v) AS (SELECT 1, 1 UNION ALL"
	 " SELECT n + 1, (v * 31 + n) % 1000003 FROM f WHERE n < 20000) SELECT max(v), sum(v) FROM f"),
	"SELECT upper(substr(b, 1, 8)), length(b), printf('%.2f', c) FROM t ORDER BY b DESC LIMIT 3",
	"SELECT d FROM t WHERE a % 500 = 1 ORDER BY d",
};

static int workload(sqlite3 *db, FILE *out, int rows)
{
	if (exec(db, out, "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL, d INTEGER);"
			  "CREATE TABLE u(x INTEGER, y TEXT); BEGIN") ||
	    fill(db, rows) ||
	    exec(db, out, "INSERT INTO u SELECT d, b FROM t WHERE a % 3 = 0; COMMIT;"
			  "CREATE INDEX td ON t(d); CREATE INDEX ux ON u(x)"))
		return -1;
	for (size_t i = 0; i < sizeof queries / sizeof *queries; i++)
		if (exec(db, out, queries[i]))
			return -1;
	return 0;
}

static void *run_job(void *arg)
{
	struct job *job = arg;
	FILE *out = open_memstream(&job->text, &job->len);

	job->failed = out == NULL;
	for (int r = 0; r < job->rounds && !job->failed; r++) {
		sqlite3 *db;

		job->failed = sqlite3_open(":memory:", &db) != SQLITE_OK;
		if (job->failed)
			break;
		job->failed = workload(db, out, job->rows) != 0;
		sqlite3_close(db);
	}
	if (out != NULL)
		fclose(out);
	return NULL;
}

int main(int argc, char **argv)
{
	int rows = argc > 1 ? atoi(argv[1]) : 5000;
	int nthreads = argc > 2 ? atoi(argv[2]) : 1;
	int rounds = argc > 3 ? atoi(argv[3]) : 1;
	struct job jobs[16] = {{0}};
	pthread_t tid[16];
	int failed = 0;

	if (rows < 1 || nthreads < 0 || nthreads > 16 || rounds < 0) {
		fprintf(stderr, "usage: sqlite_drv ROWS THREADS (0-16) [ROUNDS]\n");
		return 2;
	}
	/* Before the threads: SQLite initialises itself on first use, and
	 * threads racing to do that would make counts depend on timing. */
	if (sqlite3_initialize() != SQLITE_OK)
		return 1;
	for (int i = 0; i < nthreads; i++) {
		jobs[i].rows = rows + i;
		jobs[i].rounds = rounds;
		if (pthread_create(&tid[i], NULL, run_job, &jobs[i]) != 0)
			return 1;
	}
	if (nthreads == 0) {
		jobs[0].rows = rows;
		jobs[0].rounds = rounds;
		run_job(&jobs[0]);
	}
	for (int i = 0; i < (nthreads ? nthreads : 1); i++) {
		if (nthreads)
			pthread_join(tid[i], NULL);
		failed |= jobs[i].failed;
		printf("thread %d\n%s", i, jobs[i].text ? jobs[i].text : "");
		free(jobs[i].text);
	}
	fprintf(stderr, "rows %ld\n", atomic_load(&rows_seen));
	return failed;
}
