// SPDX-License-Identifier: GPL-2.0
/*
 * pprof output decoded back by a small independent protobuf reader: sample types, period,
 * labels, mappings with their has_* flags, locations (leaf first, return address - 1 for
 * callers, inlined frames as extra Lines innermost first), functions, string table, the
 * gzip file inflated, and identical bytes whatever the order samples were added in.
 */
#include <zlib.h>
#include "cmocka_inc.h"
#include "output/pprof.h"
#include "util/utf8safe.h"

/* ---- a minimal decoder: fields of one message ------------------------------------------ */

struct field {
	uint32_t num;
	uint64_t v;	  /* varint value */
	const uint8_t *p; /* length-delimited payload */
	size_t len;
};

static uint64_t rd_varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;

	for (int shift = 0; *p < end; shift += 7) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	fail_msg("truncated varint");
	return 0;
}

/* All fields of a message; *n gets their number. */
static struct field *fields(const uint8_t *p, size_t len, size_t *n)
{
	const uint8_t *end = p + len;
	struct field *v = NULL;
	size_t cap = 0;

	*n = 0;
	while (p < end) {
		uint64_t key = rd_varint(&p, end);
		struct field f = {.num = (uint32_t)(key >> 3)};

		if ((key & 7) == 0) {
			f.v = rd_varint(&p, end);
		} else if ((key & 7) == 2) {
			f.len = rd_varint(&p, end);
			f.p = p;
			p += f.len;
			assert_true(p <= end);
		} else {
			fail_msg("unexpected wire type %d", (int)(key & 7));
		}
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			v = realloc(v, cap * sizeof(*v));
			assert_non_null(v);
		}
		v[(*n)++] = f;
	}
	return v;
}

static uint64_t get_u(const struct field *v, size_t n, uint32_t num)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].num == num)
			return v[i].v;
	return 0;
}

struct decoded {
	struct field *top;
	size_t n_top;
	const char *strs[256];
	size_t n_strs;
};

static void decode(struct decoded *d, const struct pb *msg)
{
	d->top = fields(msg->buf, msg->len, &d->n_top);
	d->n_strs = 0;
	for (size_t i = 0; i < d->n_top; i++) {
		if (d->top[i].num != 6)
			continue;
		assert_true(d->n_strs < 256);
		d->strs[d->n_strs++] = strndup((const char *)d->top[i].p, d->top[i].len);
	}
}

static void decoded_free(struct decoded *d)
{
	for (size_t i = 0; i < d->n_strs; i++)
		free((void *)d->strs[i]);
	free(d->top);
}

static const char *str(const struct decoded *d, uint64_t i)
{
	assert_true(i < d->n_strs);
	return d->strs[i];
}

/* The k-th top-level field numbered num, decoded as a message. */
static struct field *sub(const struct decoded *d, uint32_t num, size_t k, size_t *n)
{
	for (size_t i = 0; i < d->n_top; i++)
		if (d->top[i].num == num && k-- == 0)
			return fields(d->top[i].p, d->top[i].len, n);
	return NULL;
}

static size_t count_top(const struct decoded *d, uint32_t num)
{
	size_t c = 0;

	for (size_t i = 0; i < d->n_top; i++)
		c += d->top[i].num == num;
	return c;
}

/* ---- the profile under test ------------------------------------------------------------ */

static const struct profile_meta meta = {
	.version = "9.9",
	.command_line = "cpuprof record -o x.pb.gz -- ./app",
	.event = "cpu-clock",
	.frequency = 499,
	.period_ns = 2004008,
	.start_unix_ns = 1764460800000000000ull,
	.duration_ns = 1500000000ull,
	.per_thread = true,
};

/* app: main -> run (-> inlined helper at one address) -> leaf; a kernel frame; an unnamed one */
static struct profile *make_profile(bool reversed)
{
	struct profile *p = profile__new();
	struct prof_mapping exe = {.pid = 7,
				   .kind = PMAP_FILE,
				   .start = 0x1000,
				   .limit = 0x2000,
				   .offset = 0x1000,
				   .path = "/bin/app",
				   .build_id = "abcd",
				   .go_version = "go1.21.11 X:nocoverageredesign"};
	struct prof_mapping lib = {.pid = 7,
				   .kind = PMAP_FILE,
				   .start = 0x7000,
				   .limit = 0x8000,
				   .path = "/lib/libx.so",
				   .build_id = ""};
	struct prof_mapping kern = {.pid = 0,
				    .kind = PMAP_KERNEL,
				    .start = 0xffff800000000000ull,
				    .limit = UINT64_MAX,
				    .path = "[kernel.kallsyms]"};
	uint32_t me, ml, mk, f[6];
	struct prof_frame fr[6] = {
		{.name = "main", .addr = 0x1100, .kind = FRAME_USER, .named = true},
		{.name = "run",
		 .addr = 0x1200,
		 .kind = FRAME_USER,
		 .named = true,
		 .file = "a.c",
		 .line = 10},
		{.name = "helper",
		 .addr = 0x1200,
		 .kind = FRAME_USER,
		 .named = true,
		 .inlined = true,
		 .file = "a.h",
		 .line = 3,
		 .mangled = "_Z6helperv"},
		{.name = "leaf", .addr = 0x1300, .kind = FRAME_USER, .named = true},
		{.name = "libx.so+0x10", .addr = 0x7010, .kind = FRAME_USER},
		{.name = "vfs_read",
		 .addr = 0xffffffff81000010ull,
		 .kind = FRAME_KERNEL,
		 .named = true},
	};

	assert_int_equal(profile__intern_mapping(p, reversed ? &kern : &exe, &me), 0);
	assert_int_equal(profile__intern_mapping(p, &lib, &ml), 0);
	assert_int_equal(profile__intern_mapping(p, reversed ? &exe : &kern, &mk), 0);
	if (reversed) {
		uint32_t t = me;

		me = mk;
		mk = t;
	}
	for (int k = 0; k < 6; k++) {
		int i = reversed ? 5 - k : k; /* other frame ids, same content */

		fr[i].mapping = (i == 4 ? ml : i == 5 ? mk : me) + 1;
		assert_int_equal(profile__intern_frame(p, &fr[i], &f[i]), 0);
	}
	uint32_t s1[] = {f[0], f[1], f[2], f[3]};
	uint32_t s2[] = {f[0], f[4], f[5]};

	if (reversed) {
		assert_int_equal(profile__add(p, 7, 8, "app", "worker", s2, 3, 2), 0);
		assert_int_equal(profile__add(p, 7, 8, "app", "worker", s1, 4, 5), 0);
	} else {
		assert_int_equal(profile__add(p, 7, 8, "app", "worker", s1, 4, 5), 0);
		assert_int_equal(profile__add(p, 7, 8, "app", "worker", s2, 3, 2), 0);
	}
	return p;
}

static void test_structure(void **state)
{
	struct profile *p = make_profile(false);
	struct pb msg = PB_INIT;
	struct decoded d;
	struct field *f, *g;
	size_t n, m;
	uint64_t loc_ids[8];
	size_t nloc = 0;

	(void)state;
	assert_int_equal(pprof_encode(p, &meta, &msg), 0);
	decode(&d, &msg);
	assert_string_equal(str(&d, 0), "");
	/* sample types: samples/count then cpu/nanoseconds, cpu the default */
	assert_int_equal(count_top(&d, 1), 2);
	f = sub(&d, 1, 1, &n);
	assert_string_equal(str(&d, get_u(f, n, 1)), "cpu");
	assert_string_equal(str(&d, get_u(f, n, 2)), "nanoseconds");
	free(f);
	assert_string_equal(str(&d, get_u(d.top, d.n_top, 14)), "cpu");
	assert_int_equal(get_u(d.top, d.n_top, 9), meta.start_unix_ns);
	assert_int_equal(get_u(d.top, d.n_top, 10), meta.duration_ns);
	assert_int_equal(get_u(d.top, d.n_top, 12), 2004008);
	assert_int_equal(count_top(&d, 9), 1); /* a second time_nanos reads as two profiles */

	/* samples: the one with 5 counts has 3 locations (run+helper share one), leaf first */
	assert_int_equal(count_top(&d, 2), 2);
	for (size_t k = 0; k < 2; k++) {
		uint64_t vals[2] = {0, 0};
		const uint8_t *q, *end;

		f = sub(&d, 2, k, &n);
		for (size_t i = 0; i < n; i++) {
			if (f[i].num != 2)
				continue;
			q = f[i].p;
			end = q + f[i].len;
			vals[0] = rd_varint(&q, end);
			vals[1] = rd_varint(&q, end);
		}
		assert_int_equal(vals[1], vals[0] * 2004008);
		if (vals[0] == 5) {
			for (size_t i = 0; i < n; i++) {
				if (f[i].num != 1)
					continue;
				q = f[i].p;
				end = q + f[i].len;
				while (q < end)
					loc_ids[nloc++] = rd_varint(&q, end);
			}
		}
		/* labels: pid 7, tid 8 (numbers), comm app, thread_name worker (strings) */
		int labels = 0;
		for (size_t i = 0; i < n; i++) {
			if (f[i].num != 3)
				continue;
			g = fields(f[i].p, f[i].len, &m);
			const char *key = str(&d, get_u(g, m, 1));

			if (!strcmp(key, "pid"))
				assert_int_equal(get_u(g, m, 3), 7);
			else if (!strcmp(key, "tid"))
				assert_int_equal(get_u(g, m, 3), 8);
			else if (!strcmp(key, "comm"))
				assert_string_equal(str(&d, get_u(g, m, 2)), "app");
			else if (!strcmp(key, "thread_name"))
				assert_string_equal(str(&d, get_u(g, m, 2)), "worker");
			else
				fail_msg("unexpected label %s", key);
			labels++;
			free(g);
		}
		assert_int_equal(labels, 4);
		free(f);
	}
	assert_int_equal(nloc, 3);

	/* locations, by id: leaf at its exact address; callers at return address - 1 */
	bool saw_user_leaf = false;
	uint64_t want_addr[3] = {0x1300, 0x1200 - 1, 0x1100 - 1};
	size_t want_lines[3] = {1, 2, 1};
	for (size_t k = 0; k < count_top(&d, 4); k++) {
		f = sub(&d, 4, k, &n);
		for (size_t j = 0; j < 3; j++) {
			if (get_u(f, n, 1) != loc_ids[j])
				continue;
			assert_int_equal(get_u(f, n, 3), want_addr[j]);
			size_t lines = 0;
			for (size_t i = 0; i < n; i++) {
				if (f[i].num != 4)
					continue;
				g = fields(f[i].p, f[i].len, &m);
				/* the inlined helper comes first (innermost), then run */
				if (j == 1)
					assert_int_equal(get_u(g, m, 2), lines == 0 ? 3 : 10);
				lines++;
				free(g);
			}
			assert_int_equal(lines, want_lines[j]);
		}
		/*
		 * the unnamed frame keeps its address and mapping, no Line; under the kernel's
		 * vfs_read it is the interrupted instruction, not a return address: as is
		 */
		assert_int_not_equal(get_u(f, n, 3), 0x7010 - 1);
		if (get_u(f, n, 3) == 0x7010) {
			for (size_t i = 0; i < n; i++)
				assert_int_not_equal(f[i].num, 4);
			assert_int_not_equal(get_u(f, n, 2), 0);
			saw_user_leaf = true;
		}
		free(f);
	}
	assert_true(saw_user_leaf);

	/* mappings: the executable first, kernel last; has_functions only when all are named */
	assert_int_equal(count_top(&d, 3), 3);
	f = sub(&d, 3, 0, &n);
	assert_string_equal(str(&d, get_u(f, n, 5)), "/bin/app");
	assert_string_equal(str(&d, get_u(f, n, 6)), "abcd");
	assert_int_equal(get_u(f, n, 2), 0x1000);
	assert_int_equal(get_u(f, n, 3), 0x2000);
	assert_int_equal(get_u(f, n, 4), 0x1000);
	assert_int_equal(get_u(f, n, 7), 1);
	assert_int_equal(get_u(f, n, 9), 0); /* main and leaf have no line */
	free(f);
	f = sub(&d, 3, 1, &n);
	assert_string_equal(str(&d, get_u(f, n, 5)), "/lib/libx.so");
	assert_int_equal(get_u(f, n, 7), 0);
	free(f);
	f = sub(&d, 3, 2, &n);
	assert_string_equal(str(&d, get_u(f, n, 5)), "[kernel.kallsyms]");
	assert_int_equal(get_u(f, n, 7), 1);
	free(f);

	/* functions: helper keeps its mangled name as system_name */
	bool saw_helper = false;
	for (size_t k = 0; k < count_top(&d, 5); k++) {
		f = sub(&d, 5, k, &n);
		if (!strcmp(str(&d, get_u(f, n, 2)), "helper")) {
			assert_string_equal(str(&d, get_u(f, n, 3)), "_Z6helperv");
			assert_string_equal(str(&d, get_u(f, n, 4)), "a.h");
			saw_helper = true;
		}
		assert_int_not_equal(get_u(f, n, 1), 0);
		free(f);
	}
	assert_true(saw_helper);
	decoded_free(&d);
	pb_free(&msg);
	profile__free(p);
}

/*
 * An interpreter frame that could not be named ("py::[unknown]", issue 26) keeps a Line and its
 * Function's name and file: never a nameless location (go tool pprof's "<unknown>").
 */
static void test_unnamed_interpreter_frame(void **state)
{
	struct profile *p = profile__new();
	struct prof_frame fr[2] = {
		{.name = "py::[unknown]", .kind = FRAME_PYTHON, .file = "/srv/app.py"},
		{.name = "rb::[unknown]", .kind = FRAME_RUBY},
	};
	struct pb msg = PB_INIT;
	struct decoded d;
	struct field *f;
	uint32_t id[2];
	size_t n, lines = 0;
	bool py = false, rb = false;

	(void)state;
	assert_non_null(p);
	for (int i = 0; i < 2; i++)
		assert_int_equal(profile__intern_frame(p, &fr[i], &id[i]), 0);
	assert_int_equal(profile__add(p, 7, 8, "app", "worker", id, 2, 3), 0);
	assert_int_equal(pprof_encode(p, &meta, &msg), 0);
	decode(&d, &msg);
	for (size_t k = 0; k < count_top(&d, 4); k++) {
		f = sub(&d, 4, k, &n);
		for (size_t i = 0; i < n; i++)
			lines += f[i].num == 4;
		free(f);
	}
	assert_int_equal(lines, 2);
	for (size_t k = 0; k < count_top(&d, 5); k++) {
		f = sub(&d, 5, k, &n);
		if (!strcmp(str(&d, get_u(f, n, 2)), "py::[unknown]")) {
			assert_string_equal(str(&d, get_u(f, n, 4)), "/srv/app.py");
			py = true;
		}
		rb |= !strcmp(str(&d, get_u(f, n, 2)), "rb::[unknown]");
		free(f);
	}
	assert_true(py);
	assert_true(rb);
	decoded_free(&d);
	pb_free(&msg);
	profile__free(p);
}

static void test_deterministic(void **state)
{
	struct profile *a = make_profile(false), *b = make_profile(true);
	struct pb ma = PB_INIT, mb = PB_INIT;

	(void)state;
	assert_int_equal(pprof_encode(a, &meta, &ma), 0);
	assert_int_equal(pprof_encode(b, &meta, &mb), 0);
	assert_int_equal(ma.len, mb.len);
	assert_memory_equal(ma.buf, mb.buf, ma.len);
	pb_free(&ma);
	pb_free(&mb);
	profile__free(a);
	profile__free(b);
}

/*
 * A profile big enough for many deflate output buffers: 4000 stacks of 12 frames drawn from 64
 * names at 4 addresses each (frames of equal name, other address), added in either order.
 */
static struct profile *make_big(bool reversed)
{
	struct profile *p = profile__new();
	struct prof_mapping exe = {.pid = 7,
				   .kind = PMAP_FILE,
				   .start = 0x1000,
				   .limit = 0x100000,
				   .path = "/bin/big"};
	uint32_t m, ids[256], st[12];
	char name[32];

	assert_non_null(p);
	assert_int_equal(profile__intern_mapping(p, &exe, &m), 0);
	for (int k = 0; k < 256; k++) {
		int i = reversed ? 255 - k : k;
		struct prof_frame fr = {.name = name,
					.addr = 0x1000 + (uint64_t)(i % 4) * 16 +
						(uint64_t)(i / 4) * 256,
					.kind = FRAME_USER,
					.named = true,
					.mapping = m + 1};

		snprintf(name, sizeof(name), "fn_%02d", (i / 4) % 64);
		assert_int_equal(profile__intern_frame(p, &fr, &ids[i]), 0);
	}
	for (int k = 0; k < 4000; k++) {
		int s = reversed ? 3999 - k : k;
		uint32_t x = (uint32_t)s * 2654435761u;

		for (int j = 0; j < 12; j++) {
			st[j] = ids[(x >> (j % 4 * 8)) % 256];
			x = x * 1103515245u + 12345u;
		}
		assert_int_equal(profile__add(p, 7, 0, "big", "", st, 12, (uint64_t)s % 7 + 1), 0);
	}
	return p;
}

/* pprof_write's gzip stream holds exactly pprof_encode's bytes, in any insertion order. */
static void test_big_gzip(void **state)
{
	struct profile *a = make_big(false), *b = make_big(true);
	struct pb ma = PB_INIT, mb = PB_INIT;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned char *out;
	z_stream zs = {0};

	(void)state;
	assert_int_equal(pprof_encode(a, &meta, &ma), 0);
	assert_int_equal(pprof_encode(b, &meta, &mb), 0);
	assert_true(ma.len > 200000);
	assert_int_equal(ma.len, mb.len);
	assert_memory_equal(ma.buf, mb.buf, ma.len);
	assert_int_equal(pprof_write(b, &meta, f), 0);
	fclose(f);
	out = malloc(ma.len + 1);
	assert_non_null(out);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (unsigned char *)buf;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)ma.len + 1;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	assert_int_equal(zs.total_out, ma.len);
	assert_memory_equal(out, ma.buf, ma.len);
	inflateEnd(&zs);
	free(out);
	free(buf);
	pb_free(&ma);
	pb_free(&mb);
	profile__free(a);
	profile__free(b);
}

/*
 * A profile whose every part is many pieces of 256 KiB (30000 frames of distinct long names,
 * each the leaf of a sample): the pieces join into one valid message, every location, function
 * and name once, and the gzip file holds the same bytes.
 */
static void test_pieces(void **state)
{
	enum { N = 30000 };
	struct profile *p = profile__new();
	struct prof_mapping exe = {.pid = 9,
				   .kind = PMAP_FILE,
				   .start = 0x1000,
				   .limit = 0x10000000,
				   .path = "/bin/wide"};
	struct pb msg = PB_INIT;
	struct field *top;
	size_t n_top, n_names = 0;
	char name[64], *buf = NULL;
	bool *seen = calloc(N, 1);
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	z_stream zs = {0};
	unsigned char *out;
	uint32_t m;

	(void)state;
	assert_non_null(p);
	assert_non_null(seen);
	assert_int_equal(profile__intern_mapping(p, &exe, &m), 0);
	for (uint32_t i = 0; i < N; i++) {
		struct prof_frame fr = {.name = name,
					.addr = 0x1000 + (uint64_t)i * 16,
					.kind = FRAME_USER,
					.named = true,
					.mapping = m + 1};
		uint32_t id;

		snprintf(name, sizeof(name), "a_function_with_a_rather_long_name_%06u", i);
		assert_int_equal(profile__intern_frame(p, &fr, &id), 0);
		assert_int_equal(profile__add(p, 9, 0, "wide", "", &id, 1, i % 5 + 1), 0);
	}
	assert_int_equal(pprof_encode(p, &meta, &msg), 0);
	top = fields(msg.buf, msg.len, &n_top);
	for (size_t i = 0; i < n_top; i++) {
		unsigned int k;

		if (top[i].num != 6 || top[i].len != 41 ||
		    sscanf((const char *)top[i].p, "a_function_with_a_rather_long_name_%6u", &k) !=
			    1)
			continue;
		assert_true(k < N && !seen[k]);
		seen[k] = true;
		n_names++;
	}
	assert_int_equal(n_names, N);
	{
		struct decoded d = {.top = top, .n_top = n_top};

		assert_int_equal(count_top(&d, 2), N); /* samples */
		assert_int_equal(count_top(&d, 4), N); /* locations */
		assert_int_equal(count_top(&d, 5), N); /* functions */
		assert_int_equal(count_top(&d, 3), 1); /* the mapping */
	}
	assert_int_equal(pprof_write(p, &meta, f), 0);
	fclose(f);
	out = malloc(msg.len + 1);
	assert_non_null(out);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (unsigned char *)buf;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)msg.len + 1;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	assert_int_equal(zs.total_out, msg.len);
	assert_memory_equal(out, msg.buf, msg.len);
	inflateEnd(&zs);
	free(out);
	free(buf);
	free(top);
	free(seen);
	pb_free(&msg);
	profile__free(p);
}

/*
 * The first mapping is what pprof takes for the main program: a program's file before the
 * libraries (ld.so and libc.so.6 at lower pids and addresses), [vdso] (pid 0, address 0 in
 * its own addresses) after them, the kernel last.
 */
/*
 * A Go program's version: a comment "VERSION: PATH" after the two of every profile, once per
 * program, none for the others (a library, the kernel).
 */
static void test_go_comment(void **state)
{
	struct profile *p = make_profile(false);
	/* a second Go program: its comment is its own, not a copy of the last one written */
	struct prof_mapping tool = {.pid = 9,
				    .kind = PMAP_FILE,
				    .start = 0x1000,
				    .limit = 0x2000,
				    .offset = 0x1000,
				    .path = "/bin/tool",
				    .go_version = "go1.19.8"};
	struct prof_frame tf = {
		.name = "main.main", .addr = 0x1100, .kind = FRAME_USER, .named = true};
	struct pb msg = PB_INIT;
	struct decoded d;
	size_t go = 0, tools = 0;
	uint32_t mt, ft;

	(void)state;
	assert_int_equal(profile__intern_mapping(p, &tool, &mt), 0);
	tf.mapping = mt + 1;
	assert_int_equal(profile__intern_frame(p, &tf, &ft), 0);
	assert_int_equal(profile__add(p, 9, 9, "tool", "tool", &ft, 1, 1), 0);
	assert_int_equal(pprof_encode(p, &meta, &msg), 0);
	decode(&d, &msg);
	assert_int_equal(count_top(&d, 13), 4);
	for (size_t i = 0; i < d.n_top; i++) {
		if (d.top[i].num != 13)
			continue;
		go += !strcmp(str(&d, d.top[i].v), "go1.21.11 X:nocoverageredesign: /bin/app");
		tools += !strcmp(str(&d, d.top[i].v), "go1.19.8: /bin/tool");
	}
	assert_int_equal(go, 1);
	assert_int_equal(tools, 1);
	decoded_free(&d);
	pb_free(&msg);
	profile__free(p);
}

static void test_main_mapping_first(void **state)
{
	static const struct prof_mapping maps[] = {
		{.pid = 0, .kind = PMAP_VDSO, .start = 0, .limit = 0x2000, .path = "[vdso]"},
		{.pid = 0,
		 .kind = PMAP_FILE,
		 .start = 0x1000,
		 .limit = 0x27000,
		 .offset = 0x1000,
		 .path = "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"},
		{.pid = 0,
		 .kind = PMAP_KERNEL,
		 .start = 0xffff800000000000,
		 .limit = UINT64_MAX,
		 .path = "[kernel.kallsyms]"},
		{.pid = 1,
		 .kind = PMAP_FILE,
		 .start = 0x26000,
		 .limit = 0x17c000,
		 .offset = 0x26000,
		 .path = "/usr/lib/libc.so.6"},
		{.pid = 2,
		 .kind = PMAP_FILE,
		 .start = 0x2f000,
		 .limit = 0x100000,
		 .offset = 0x2f000,
		 .path = "/usr/bin/bash"},
	};
	static const char *const want[] = {"/usr/bin/bash",
					   "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
					   "/usr/lib/libc.so.6", "[vdso]", "[kernel.kallsyms]"};
	struct profile *p = profile__new();
	struct pb msg = PB_INIT;
	struct decoded d;
	uint32_t st[5];

	(void)state;
	assert_non_null(p);
	for (int i = 0; i < 5; i++) {
		struct prof_frame fr = {.name = "f",
					.addr = maps[i].start + 0x10,
					.kind = FRAME_USER,
					.named = true};
		uint32_t m;

		assert_int_equal(profile__intern_mapping(p, &maps[i], &m), 0);
		fr.mapping = m + 1;
		fr.kind = maps[i].kind == PMAP_KERNEL ? FRAME_KERNEL : FRAME_USER;
		assert_int_equal(profile__intern_frame(p, &fr, &st[i]), 0);
	}
	assert_int_equal(profile__add(p, 2, 0, "bash", "", st, 5, 1), 0);
	assert_int_equal(pprof_encode(p, &meta, &msg), 0);
	decode(&d, &msg);
	assert_int_equal(count_top(&d, 3), 5);
	for (size_t k = 0; k < 5; k++) {
		size_t n;
		struct field *m = sub(&d, 3, k, &n);

		assert_int_equal(get_u(m, n, 1), k + 1);
		assert_string_equal(str(&d, get_u(m, n, 5)), want[k]);
		free(m);
	}
	decoded_free(&d);
	pb_free(&msg);
	profile__free(p);
}

/*
 * Strings the writer adds itself (the command line names the user's program, whatever its
 * name) are valid too: protobuf decoders refuse a whole profile for one invalid string.
 */
static void test_hostile_header(void **state)
{
	struct profile *p = make_profile(false);
	struct profile_meta m = meta;
	struct pb msg = PB_INIT;
	struct decoded d;
	bool found = false;

	(void)state;
	m.command_line = "cpuprof record -- ./x\xff\x1b]0;t\x07\xef\xbf\xbe";
	assert_int_equal(pprof_encode(p, &m, &msg), 0);
	decode(&d, &msg);
	for (size_t i = 0; i < d.n_strs; i++) {
		assert_true(utf8safe_ok(d.strs[i]));
		found |= !strcmp(d.strs[i], "cpuprof record -- ./x\xef\xbf\xbd\xef\xbf\xbd]0;t"
					    "\xef\xbf\xbd\xef\xbf\xbd");
	}
	assert_true(found);
	decoded_free(&d);
	pb_free(&msg);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_unnamed_interpreter_frame),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_big_gzip),
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_hostile_header),
		cmocka_unit_test(test_main_mapping_first),
		cmocka_unit_test(test_go_comment),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
