// SPDX-License-Identifier: GPL-2.0
/*
 * The profile readers: a Go runtime/pprof profile, round trips through cpuprof's own folded,
 * JSON and pprof writers (read back, written as folded: the same text), and the refusal of
 * damaged input with one message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmocka_inc.h"
#include <zlib.h>
#include "input/folded_read.h"
#include "input/input.h"
#include "output/folded.h"
#include "output/json_out.h"
#include "output/pprof.h"

#define PERIOD 2004008ull

static uint32_t frame(struct profile *p, const char *name, enum frame_kind kind, bool inl,
		      const char *file, uint32_t line)
{
	struct prof_mapping km = {.kind = PMAP_KERNEL,
				  .start = 0xffffffff81000000ull,
				  .limit = 0xffffffff83000000ull,
				  .path = "[kernel.kallsyms]",
				  .build_id = ""};
	uint32_t mid;
	struct prof_frame f = {.name = name,
			       .kind = kind,
			       .inlined = inl,
			       .file = file,
			       .line = line,
			       .named = true,
			       .module = kind == FRAME_KERNEL ? "[kernel.kallsyms]" : "app",
			       .addr = 0x1000 + line};
	uint32_t id;

	/* kernel frames in the kernel's mapping, as the recorder makes them */
	if (kind == FRAME_KERNEL) {
		assert_int_equal(profile__intern_mapping(p, &km, &mid), 0);
		f.mapping = mid + 1;
		f.addr = 0xffffffff81234567ull;
	}

	assert_int_equal(profile__intern_frame(p, &f, &id), 0);
	return id;
}

/* Three stacks of two processes, with kernel and inlined frames; per thread if asked. */
static struct profile *build(bool per_thread)
{
	struct profile *p = profile__new();
	uint32_t m = frame(p, "main", FRAME_USER, false, "/src/app.c", 40);
	uint32_t r = frame(p, "run", FRAME_USER, false, "/src/app.c", 30);
	uint32_t l = frame(p, "leaf", FRAME_USER, true, "/src/app.h", 3);
	uint32_t k = frame(p, "vfs_read", FRAME_KERNEL, false, NULL, 0);
	uint32_t s1[] = {m, r, l}, s2[] = {m, r, k}, s3[] = {m};

	assert_non_null(p);
	assert_int_equal(
		profile__add(p, 10, per_thread ? 11 : 0, "app", per_thread ? "w1" : "", s1, 3, 40),
		0);
	assert_int_equal(
		profile__add(p, 10, per_thread ? 12 : 0, "app", per_thread ? "w2" : "", s2, 3, 7),
		0);
	assert_int_equal(
		profile__add(p, 20, per_thread ? 20 : 0, "other", per_thread ? "o" : "", s3, 1, 1),
		0);
	/* goroutine labels: the same stacks apart by their labels */
	assert_int_equal(profile__add_labeled(p, 10, per_thread ? 11 : 0, "app",
					      per_thread ? "w1" : "",
					      "span_id=00f067aa0ba902b7,"
					      "trace_id=4bf92f3577b34da6a3ce929d0e0e4736",
					      s1, 3, 5),
			 0);
	assert_int_equal(profile__add_labeled(p, 10, per_thread ? 12 : 0, "app",
					      per_thread ? "w2" : "", "k%2C=v%3B", s2, 3, 2),
			 0);
	return p;
}

static struct profile_meta meta(bool per_thread)
{
	return (struct profile_meta){.version = "test",
				     .command_line = "cpuprof record",
				     .event = "cpu-clock",
				     .frequency = 499,
				     .period_ns = PERIOD,
				     .per_thread = per_thread};
}

static char *folded(const struct profile *p, bool per_thread, bool lines)
{
	/* labels too: a round trip that lost them differs */
	struct folded_opts o = {.per_thread = per_thread, .lines = lines, .labels = true};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(folded_write(p, &o, f), 0);
	fclose(f);
	return buf;
}

static struct profile *read_ok(const void *data, size_t len, struct input_info *info)
{
	struct input_error err;
	struct profile *p;
	int rc = input_read_mem(data, len, &p, info, &err);

	if (rc)
		fail_msg("read failed (%d): %s", rc, err.msg);
	return p;
}

static void test_go_pprof(void **state)
{
	const char *dir = getenv("CPUPROF_TESTDATA");
	char path[4096], *text;
	struct input_error err;
	struct input_info info;
	struct profile *p;

	(void)state;
	snprintf(path, sizeof(path), "%s/go_cpu.pb.gz", dir && *dir ? dir : "tests/data");
	if (input_read_file(path, &p, &info, &err))
		fail_msg("%s: %s", path, err.msg);
	assert_int_equal(info.format, INPUT_PPROF);
	/* runtime/pprof: 100 Hz, samples/count and cpu/nanoseconds */
	assert_int_equal(info.period_ns, 10000000);
	assert_string_equal(info.value, "samples");
	/* the committed fixture: 108 samples (go tool pprof: Total samples = 1080ms) */
	assert_int_equal(profile__total(p), 108);
	text = folded(p, false, false);
	/* stacks root first, the process named after the main executable */
	assert_non_null(strstr(text, "burn;runtime.main;main.main;main.work;main.hot;main.spin "));
	assert_non_null(strstr(text, "burn;runtime.main;main.main;main.work;main.cold;main.spin "));
	free(text);
	/* source positions come along */
	text = folded(p, false, true);
	assert_non_null(strstr(text, "main.hot (burn.go:"));
	free(text);
	profile__free(p);
}

/* folded text -> profile -> folded text, with marks and source positions */
static void test_folded_round_trip(void **state)
{
	const char *in = "app;[labels k=v%3B,trace_id=ab];main (app.c:40) 3\n"
			 "app;main (app.c:40);run (app.c:30);leaf (app.h:3)_[i] 40\n"
			 "app;main (app.c:40);run (app.c:30);vfs_read_[k] 7\n"
			 "my_app;[user stack lost: hash collision] 2\n"
			 "other;main (app.c:40) 1\n";
	struct input_info info;
	struct profile *p;
	char *out;

	(void)state;
	p = read_ok(in, strlen(in), &info);
	assert_int_equal(info.format, INPUT_FOLDED);
	assert_int_equal(profile__total(p), 53);
	out = folded(p, false, true);
	assert_string_equal(out, in);
	free(out);
	/* the marks became kinds: kernel and inlined frames */
	out = folded(p, false, false);
	assert_string_equal(out, "app;[labels k=v%3B,trace_id=ab];main 3\n"
				 "app;main;run;leaf_[i] 40\n"
				 "app;main;run;vfs_read_[k] 7\n"
				 "my_app;[user stack lost: hash collision] 2\n"
				 "other;main 1\n");
	free(out);
	profile__free(p);
}

/* profile -> JSON -> profile: the same folded text, per process and per thread */
static void test_json_round_trip(void **state)
{
	(void)state;
	for (int pt = 0; pt < 2; pt++) {
		struct profile *p = build(pt), *q;
		struct profile_meta m = meta(pt);
		struct input_info info;
		char *buf = NULL, *a, *b;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_int_equal(json_write(p, &m, f), 0);
		fclose(f);
		q = read_ok(buf, len, &info);
		assert_int_equal(info.format, INPUT_JSON);
		assert_int_equal(info.period_ns, PERIOD);
		assert_int_equal(info.per_thread, pt);
		a = folded(p, pt, true);
		b = folded(q, pt, true);
		assert_string_equal(a, b);
		free(a);
		free(b);
		free(buf);
		profile__free(p);
		profile__free(q);
	}
}

/* profile -> pprof (gzipped and raw) -> profile: the same folded text */
static void test_pprof_round_trip(void **state)
{
	(void)state;
	for (int pt = 0; pt < 2; pt++) {
		struct profile *p = build(pt), *q;
		struct profile_meta m = meta(pt);
		struct input_info info;
		struct pb raw = {0};
		char *buf = NULL, *a, *b;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_int_equal(pprof_write(p, &m, f), 0);
		fclose(f);
		q = read_ok(buf, len, &info);
		assert_int_equal(info.format, INPUT_PPROF);
		assert_int_equal(info.per_thread, pt);
		assert_int_equal(info.period_ns, PERIOD);
		a = folded(p, pt, true);
		b = folded(q, pt, true);
		assert_string_equal(a, b);
		free(b);
		profile__free(q);
		assert_int_equal(pprof_encode(p, &m, &raw), 0);
		q = read_ok(raw.buf, raw.len, &info);
		b = folded(q, pt, true);
		assert_string_equal(a, b);
		free(a);
		free(b);
		pb_free(&raw);
		free(buf);
		profile__free(p);
		profile__free(q);
	}
}

static void expect_error(const void *data, size_t len, const char *msg_part)
{
	struct input_error err;
	struct input_info info;
	struct profile *p = (struct profile *)1;

	assert_int_equal(input_read_mem(data, len, &p, &info, &err), -EINVAL);
	assert_null(p);
	if (!strstr(err.msg, msg_part))
		fail_msg("message '%s' lacks '%s'", err.msg, msg_part);
	assert_null(strchr(err.msg, '\n'));
}

/* a string literal without its terminating NUL */
#define EXPECT_TEXT(s, msg) expect_error(s, sizeof(s) - 1, msg)

static void test_bad_input(void **state)
{
	struct profile *p = build(false);
	struct profile_meta m = meta(false);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	/* string_table = ["x"]: index 0 must be "" */
	static const unsigned char bad_strtab[] = {0x32, 0x01, 'x'};
	/* one sample type, one sample of value 1 that names location 5, string table [""] */
	static const unsigned char bad_loc[] = {0x0a, 0x00, 0x12, 0x04, 0x08,
						0x05, 0x10, 0x01, 0x32, 0x00};

	(void)state;
	expect_error("", 0, "empty file");
	expect_error("a;b 12\nnot a line\n", 18, "line 2");
	expect_error("a;b 1.5\n", 8, "line 1");
	expect_error("{\"x\": ", 6, "json");
	expect_error("{\"shared\": {}}", 14, "neither");
	/* what jansson refused, the in-place JSON reader refuses too */
	EXPECT_TEXT("{\"a\": \"\\u0000\"}", "json: line 1");
	EXPECT_TEXT("{\"a\": \"\\ud800\"}", "json: line 1");
	EXPECT_TEXT("{\"a\": \"\xed\xa0\x80\"}", "json: line 1");
	EXPECT_TEXT("{\"a\": 99999999999999999999}", "too big integer");
	EXPECT_TEXT("{\"a\": 1e999}", "overflow");
	EXPECT_TEXT("{\"a\": 1,\n\"a\": 2}", "json: line 2: duplicate");
	EXPECT_TEXT("{\"shared\": {\"frames\": [{\"name\": \"a\", \"name\": \"b\"}]}}",
		    "duplicate");
	EXPECT_TEXT("{\"a\": 1} x", "end of file expected");
	EXPECT_TEXT("{\"a\": [1,]}", "json: line 1");
	expect_error(bad_strtab, sizeof(bad_strtab), "string table");
	expect_error(bad_loc, sizeof(bad_loc), "location 5");
	expect_error("\x0a\xff\xff\xff", 4, "protobuf");
	/* a gzipped profile cut anywhere */
	assert_int_equal(pprof_write(p, &m, f), 0);
	fclose(f);
	for (size_t cut = 2; cut < len; cut += 7)
		expect_error(buf, cut, "gzip");
	free(buf);
	profile__free(p);
}

/*
 * Counts past 2^63-1, one alone or summed, are refused: 2^64-1 plus 1 used to wrap round to
 * "0 samples" (and JSON "samples": -2).
 */
static void test_count_overflow(void **state)
{
	static const char one[] = "a;b 18446744073709551615\n";
	static const char sum[] = "a;b 18446744073709551615\na;c 1\n";
	static const char sum63[] = "a;b 9223372036854775807\na;c 1\n";
	static const char max[] = "a;b 9223372036854775806\na;c 1\n";
	static const char speedscope[] =
		"{\"shared\": {\"frames\": [{\"name\": \"app\"}, {\"name\": \"f\"}]}, "
		"\"profiles\": [{\"type\": \"sampled\", \"samples\": [[0, 1], [0]], "
		"\"weights\": [6e18, 6e18]}]}";
	struct profile *p = profile__new(), *q;
	struct profile_meta m = meta(false);
	struct input_info info;
	struct pb raw = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	uint32_t id;

	(void)state;
	expect_error(one, sizeof(one) - 1,
		     "folded: line 1: count 18446744073709551615 is more "
		     "than 2^63-1");
	expect_error(sum, sizeof(sum) - 1, "folded: line 1: count");
	expect_error(sum63, sizeof(sum63) - 1,
		     "folded: line 2: the counts add up to more than "
		     "2^63-1");
	q = read_ok(max, sizeof(max) - 1, &info);
	assert_true(profile__total(q) == 9223372036854775807ull);
	profile__free(q);
	expect_error(speedscope, sizeof(speedscope) - 1, "json: the counts add up to more than");
	/* cpuprof's JSON, and pprof: two stacks of 2^62 + 2^62 = 2^63 samples */
	assert_non_null(p);
	id = frame(p, "main", FRAME_USER, false, NULL, 0);
	assert_int_equal(profile__add(p, 1, 0, "app", "", &id, 1, 1ull << 62), 0);
	assert_int_equal(profile__add(p, 1, 0, "app", "", NULL, 0, 1ull << 62), 0);
	m.period_ns = 0;
	assert_int_equal(pprof_encode(p, &m, &raw), 0);
	expect_error(raw.buf, raw.len, "pprof: the counts add up to more than 2^63-1");
	pb_free(&raw);
	f = open_memstream(&buf, &len);
	assert_int_equal(json_write(p, &m, f), 0);
	fclose(f);
	expect_error(buf, len, "json: the counts add up to more than 2^63-1");
	free(buf);
	profile__free(p);
}

/* Write len bytes to a new file of the test's own directory, gzipped if asked. */
static void put_file(const char *path, const void *data, size_t len, bool gz)
{
	if (gz) {
		gzFile g = gzopen(path, "wb");

		assert_non_null(g);
		assert_int_equal(gzwrite(g, data, (unsigned int)len), (int)len);
		assert_int_equal(gzclose(g), Z_OK);
	} else {
		FILE *f = fopen(path, "wb");

		assert_non_null(f);
		assert_int_equal(fwrite(data, 1, len, f), len);
		assert_int_equal(fclose(f), 0);
	}
}

/* A file of each format, plain and gzipped, read in chunks: the profile it was written from. */
static void test_read_file(void **state)
{
	char dir[] = "/tmp/cpuprof-input.XXXXXX", path[64], *want, *got, *data;
	struct profile *p = build(true), *q;
	struct profile_meta m = meta(true);
	struct input_error err;
	struct input_info info;
	struct pb raw = {0};
	size_t len;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	want = folded(p, true, true);
	for (int fmt = 0; fmt < 3; fmt++) {
		data = NULL;
		len = 0;
		if (fmt == 2) {
			assert_int_equal(pprof_encode(p, &m, &raw), 0);
			data = malloc(raw.len);
			memcpy(data, raw.buf, raw.len);
			len = raw.len;
			pb_free(&raw);
		} else {
			f = open_memstream(&data, &len);
			if (fmt == 0)
				assert_int_equal(json_write(p, &m, f), 0);
			else
				assert_int_equal(
					folded_write(p,
						     &(struct folded_opts){.per_thread = true,
									   .lines = true},
						     f),
					0);
			fclose(f);
		}
		for (int gz = 0; gz < 2; gz++) {
			snprintf(path, sizeof(path), "%s/p%d%d", dir, fmt, gz);
			put_file(path, data, len, gz);
			if (input_read_file(path, &q, &info, &err))
				fail_msg("%s: %s", path, err.msg);
			assert_int_equal(info.format, fmt == 0	 ? INPUT_JSON
						      : fmt == 1 ? INPUT_FOLDED
								 : INPUT_PPROF);
			got = folded(q, true, true);
			/* folded text has no thread ids: compare the stacks and counts */
			if (fmt != 1)
				assert_string_equal(got, want);
			else
				assert_true(profile__total(q) == profile__total(p));
			free(got);
			profile__free(q);
			unlink(path);
		}
		/* a gzipped file cut short */
		snprintf(path, sizeof(path), "%s/cut", dir);
		put_file(path, data, len, true);
		assert_int_equal(truncate(path, 30), 0);
		assert_int_equal(input_read_file(path, &q, &info, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "gzip"));
		unlink(path);
		free(data);
	}
	free(want);
	profile__free(p);
	assert_int_equal(rmdir(dir), 0);
}

/*
 * Folded text fed in chunks of any size gives the same profile; a line longer than a chunk,
 * and one past the first 64 KiB with a control byte, refused by its number.
 */
static void test_folded_chunks(void **state)
{
	char dir[] = "/tmp/cpuprof-input.XXXXXX", path[64];
	struct input_error err;
	struct input_info info;
	struct profile *q;
	size_t n = 0, cap = 2000000, lines = 0;
	char *text = malloc(cap), *whole, *got;

	(void)state;
	assert_non_null(text);
	assert_non_null(mkdtemp(dir));
	/*
	 * 1 MB: lines of 1 to 50 frames across the 64 KiB head and the 256 KiB chunks, and every
	 * 40th line of 5000 frames with long names (325 KB: longer than a chunk)
	 */
	while (n < 1000000) {
		bool lng = lines % 40 == 39;
		size_t depth = lng ? 5000 : 1 + lines % 50;

		n += (size_t)snprintf(text + n, cap - n, "app");
		for (size_t d = 0; d < depth && n < cap - 128; d++)
			n += (size_t)snprintf(
				text + n, cap - n, ";%sf%zu",
				lng ? "a_long_name_of_sixty_bytes_or_so_xxxxxxxxxxxxxxxxxxxxxxxx_"
				    : "",
				(d * 7 + lines) % 97);
		n += (size_t)snprintf(text + n, cap - n, " %zu\n", lines + 1);
		lines++;
	}
	q = read_ok(text, n, &info);
	whole = folded(q, false, false);
	profile__free(q);
	for (size_t chunk = 1; chunk <= 4096; chunk *= 8) {
		struct folded_state st;
		struct profile *r = profile__new();

		assert_int_equal(folded_begin(&st, r, &err), 0);
		for (size_t pos = 0; pos < n; pos += chunk)
			assert_int_equal(
				folded_feed(&st, text + pos, n - pos < chunk ? n - pos : chunk), 0);
		assert_int_equal(folded_end(&st), 0);
		got = folded(r, false, false);
		assert_string_equal(got, whole);
		free(got);
		profile__free(r);
	}
	snprintf(path, sizeof(path), "%s/f", dir);
	put_file(path, text, n, false);
	assert_int_equal(input_read_file(path, &q, &info, &err), 0);
	got = folded(q, false, false);
	assert_string_equal(got, whole);
	free(got);
	profile__free(q);
	/* a control byte on the last line, far past what tells the format */
	text[n - 4] = '\x01';
	put_file(path, text, n, false);
	assert_int_equal(input_read_file(path, &q, &info, &err), -EINVAL);
	if (!strstr(err.msg, "control byte"))
		fail_msg("%s", err.msg);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	free(whole);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_go_pprof),	cmocka_unit_test(test_folded_round_trip),
		cmocka_unit_test(test_json_round_trip), cmocka_unit_test(test_pprof_round_trip),
		cmocka_unit_test(test_bad_input),	cmocka_unit_test(test_count_overflow),
		cmocka_unit_test(test_read_file),	cmocka_unit_test(test_folded_chunks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
