/*
 * sqlite_driver.c - exercise Debian's static libsqlite3 and print deterministic results.
 *
 * Built once natively and once linked by objrt; tests/suites/40-debian-libs.sh compares the
 * two outputs byte for byte, so nothing printed may depend on addresses, time or argv[0].
 * -DPERTURB changes exactly one printed line (the suite's negative control).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

/* Print a failure (and count it) instead of aborting, so one bad step shows all others. */
static void must(sqlite3 *db, int rc, const char *what)
{
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        printf("ERROR %s: rc=%d %s\n", what, rc, sqlite3_errmsg(db));
        failures++;
    }
}

static void exec(sqlite3 *db, const char *sql)
{
    char *err = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
    if (rc != SQLITE_OK) {
        printf("ERROR exec: rc=%d %s\n", rc, err ? err : "?");
        failures++;
    }
    sqlite3_free(err);
}

/* Print every row of a query as "label: col|col|...". */
static void query(sqlite3 *db, const char *label, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    must(db, rc, label);
    if (rc != SQLITE_OK)
        return;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        printf("%s:", label);
        for (int i = 0; i < sqlite3_column_count(st); i++) {
            const unsigned char *t = sqlite3_column_text(st, i);
            printf("%s%s", i ? "|" : " ", t ? (const char *)t : "NULL");
        }
        printf("\n");
    }
    must(db, rc, label);
    sqlite3_finalize(st);
}

/* User function checksum(text, k): a driver-side hash, so SQLite calls back into this file. */
static unsigned long driver_hash(const unsigned char *s, int k)
{
    unsigned long h = 5381u + (unsigned long)k;
    while (s && *s)
        h = (h * 33u) ^ *s++;
    return h & 0xffffffu;
}

static int udf_calls;

static void udf_checksum(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    (void)argc;
    udf_calls++;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
        sqlite3_result_error(cx, "checksum: NULL argument", -1);
        return;
    }
    sqlite3_result_int64(cx, (sqlite3_int64)driver_hash(sqlite3_value_text(argv[0]),
                                                          sqlite3_value_int(argv[1])));
}

/* Aggregate user function longest(text): exercises the step/final callbacks. */
static void agg_step(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    (void)argc;
    char **best = sqlite3_aggregate_context(cx, sizeof *best);
    const char *t = (const char *)sqlite3_value_text(argv[0]);
    if (best && t && (!*best || strlen(t) > strlen(*best))) {
        sqlite3_free(*best);
        *best = sqlite3_mprintf("%s", t);
    }
}

static void agg_final(sqlite3_context *cx)
{
    char **best = sqlite3_aggregate_context(cx, 0);
    if (best && *best) {
        sqlite3_result_text(cx, *best, -1, SQLITE_TRANSIENT);
        sqlite3_free(*best);
    } else {
        sqlite3_result_null(cx);
    }
}

/* Collation "rev": reverse byte order, so ORDER BY ... COLLATE rev calls back into us. */
static int coll_rev(void *arg, int n1, const void *a, int n2, const void *b)
{
    (void)arg;
    int n = n1 < n2 ? n1 : n2;
    int c = memcmp(a, b, (size_t)n);
    return c ? -c : -(n1 - n2);
}

static const char *const cities[] = {"Lisbon", "Oslo", "Quito", "Nairobi", "Hanoi", "Lima", "Perth"};

static void fill(sqlite3 *db)
{
    exec(db, "CREATE TABLE city(id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, pop INTEGER);"
             "CREATE TABLE reading(id INTEGER PRIMARY KEY, city INTEGER REFERENCES city(id),"
             " day INTEGER, temp REAL, note TEXT);");
    exec(db, "BEGIN");
    sqlite3_stmt *st = NULL;
    must(db, sqlite3_prepare_v2(db, "INSERT INTO city(name, pop) VALUES(?1, ?2)", -1, &st, NULL), "prep city");
    for (size_t i = 0; i < sizeof cities / sizeof *cities; i++) {
        sqlite3_bind_text(st, 1, cities[i], -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, (int)(100000 + 37321 * (i * i + 3) % 900000));
        must(db, sqlite3_step(st), "insert city");
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    must(db, sqlite3_prepare_v2(db, "INSERT INTO reading(city, day, temp, note) VALUES(?,?,?,?)", -1, &st, NULL),
         "prep reading");
    unsigned x = 12345u;
    for (int i = 0; i < 2000; i++) {
        x = x * 1103515245u + 12345u;                /* fixed LCG: same data every run */
        sqlite3_bind_int(st, 1, (int)(x >> 16) % 7 + 1);
        sqlite3_bind_int(st, 2, i / 7);
        sqlite3_bind_double(st, 3, (double)((int)(x >> 8) % 4000 - 1000) / 100.0);
        if (i % 5 == 0)
            sqlite3_bind_null(st, 4);
        else
            sqlite3_bind_text(st, 4, i % 3 ? "clear sky" : "light rain and wind", -1, SQLITE_STATIC);
        must(db, sqlite3_step(st), "insert reading");
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    exec(db, "COMMIT");
    exec(db, "CREATE INDEX reading_city_day ON reading(city, day)");
}

static void queries(sqlite3 *db)
{
    query(db, "count", "SELECT count(*), count(note), sum(day) FROM reading");
    query(db, "join", "SELECT c.name, count(*), printf('%.2f', avg(r.temp)), min(r.temp), max(r.temp)"
                      " FROM city c JOIN reading r ON r.city = c.id GROUP BY c.id ORDER BY c.name");
    query(db, "having", "SELECT city, count(*) AS n FROM reading WHERE temp > 20 GROUP BY city"
                        " HAVING n > 40 ORDER BY n DESC, city");
    query(db, "window", "SELECT day, city, temp, rank() OVER (PARTITION BY day ORDER BY temp DESC)"
                        " FROM reading WHERE day BETWEEN 10 AND 11 ORDER BY day, 4, city LIMIT 6");
    query(db, "cte", "WITH RECURSIVE fib(a, b, n) AS (SELECT 0, 1, 0 UNION ALL"
                     " SELECT b, a + b, n + 1 FROM fib WHERE n < 60) SELECT n, a FROM fib WHERE n % 15 = 0");
    query(db, "math", "SELECT printf('%.6f', sqrt(2)), printf('%.6f', pow(2.5, 3.5)), printf('%.6f', atan2(1, 2)),"
                      " printf('%.4f', exp(1)), printf('%.4f', log(10)), 7 % 3, 1e308 * 10");
    query(db, "json", "SELECT json_object('city', name, 'pop', pop), json_extract('{\"a\":[1,2,{\"b\":3}]}', '$.a[2].b')"
                      " FROM city WHERE id IN (2, 5) ORDER BY id");
    query(db, "strings", "SELECT upper(name), substr(name, 2, 3), replace(name, 'o', '0'), hex(name), length(name)"
                         " FROM city ORDER BY name LIMIT 3");
    query(db, "udf", "SELECT name, checksum(name, id) FROM city ORDER BY id");
    query(db, "udf-agg", "SELECT longest(note), longest(name) FROM reading JOIN city ON city.id = reading.city");
    query(db, "collate", "SELECT name FROM city ORDER BY name COLLATE rev");
    query(db, "plan", "SELECT count(*) FROM reading INDEXED BY reading_city_day WHERE city = 3 AND day > 100");
}

static void fulltext(sqlite3 *db)
{
    exec(db, "CREATE VIRTUAL TABLE doc USING fts5(title, body);"
             "INSERT INTO doc VALUES('relocation', 'the linker applies each relocation to the section');"
             "INSERT INTO doc VALUES('archive', 'an archive member is pulled in when it defines a symbol');"
             "INSERT INTO doc VALUES('unwind', 'eh_frame is registered so exceptions unwind through the section');"
             "CREATE VIRTUAL TABLE box USING rtree(id, x0, x1, y0, y1);"
             "INSERT INTO box VALUES(1, 0, 10, 0, 10), (2, 5, 15, 5, 15), (3, 20, 30, 20, 30);");
    query(db, "fts5", "SELECT title, snippet(doc, 1, '[', ']', '...', 4) FROM doc WHERE doc MATCH 'section' ORDER BY rank, title");
    query(db, "rtree", "SELECT id FROM box WHERE x1 >= 8 AND x0 <= 12 AND y1 >= 8 AND y0 <= 12 ORDER BY id");
}

static void formatting(void)
{
    char *s = sqlite3_mprintf("%d|%5.2f|%q|%Q|%Q|%lld|%x|%-6s|%.3e|%c|%w",
                              -42, 3.14159, "it's", "o'k", (char *)NULL, 1234567890123LL, 48879u,
                              "ab", 6.02214076e23, 'Z', "a\"b");
    printf("mprintf: %s\n", s);
    sqlite3_free(s);
    char buf[32];
    sqlite3_snprintf((int)sizeof buf, buf, "%.10s/%04d/%!.15g", "truncated-string", 7, 0.1);
    printf("snprintf: %s\n", buf);
}

static void errors(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELEC name FROM city", -1, &st, NULL);
    printf("syntax: rc=%d %s\n", rc, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    char *err = NULL;
    rc = sqlite3_exec(db, "INSERT INTO city(name, pop) VALUES('Oslo', 1)", NULL, NULL, &err);
    printf("unique: rc=%d ext=%d %s\n", rc, sqlite3_extended_errcode(db), err ? err : "?");
    sqlite3_free(err);
    err = NULL;
    rc = sqlite3_exec(db, "SELECT checksum(NULL, 1)", NULL, NULL, &err);
    printf("udf-error: rc=%d %s\n", rc, err ? err : "?");
    sqlite3_free(err);
    err = NULL;
    rc = sqlite3_exec(db, "SELECT * FROM no_such_table", NULL, NULL, &err);
    printf("missing: rc=%d %s\n", rc, err ? err : "?");
    sqlite3_free(err);
}

int main(void)
{
    sqlite3 *db = NULL;
    printf("sqlite %s threadsafe=%d\n", sqlite3_libversion(), sqlite3_threadsafe());
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
        printf("open failed\n");
        return 1;
    }
    must(db, sqlite3_create_function(db, "checksum", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                     udf_checksum, NULL, NULL), "create checksum");
    must(db, sqlite3_create_function(db, "longest", 1, SQLITE_UTF8, NULL, NULL, agg_step, agg_final),
         "create longest");
    must(db, sqlite3_create_collation(db, "rev", SQLITE_UTF8, NULL, coll_rev), "create rev");
    fill(db);
    queries(db);
    fulltext(db);
    formatting();
    errors(db);
#ifdef PERTURB
    printf("udf calls: %d\n", udf_calls + 1);
#else
    printf("udf calls: %d\n", udf_calls);
#endif
    printf("changes: %d total: %d\n", sqlite3_changes(db), sqlite3_total_changes(db));
    must(db, sqlite3_close(db), "close");
    printf("failures: %d\n", failures);
    return failures ? 1 : 0;
}
