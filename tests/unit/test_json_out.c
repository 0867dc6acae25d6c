// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON writer: exact structure of the speedscope document and the cpuprof object, frame
 * deduplication, root-first stacks, weights, per-thread split, hex addresses, counters,
 * determinism, UTF-8 repair. With CPUPROF_JSON_DUMP_DIR set, every document written is also
 * saved there as NAME.json for tests/json/run.sh to validate against the real schemas.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmocka_inc.h"
#include "output/json_out.h"

#define FFFD   "\xef\xbf\xbd"
#define PERIOD 2004008ull

/* ---- building profiles from tables ---------------------------------------------------------- */

struct mspec {
	uint32_t pid;
	enum prof_map_kind kind;
	uint64_t start, limit, offset;
	const char *path, *build_id;
	const char *go_version;
};

struct fspec {
	const char *name, *module;
	uint64_t addr, rel;
	enum frame_kind kind;
	int map; /* index in the mapping table, -1 for none */
	bool named, inlined;
	const char *mangled, *file;
	uint32_t line, column;
};

struct sspec {
	uint32_t pid, tid;
	const char *comm, *thread;
	int frames[8]; /* indices in the frame table, root first */
	uint32_t n;
	uint64_t count;
};

struct tables {
	const struct mspec *maps;
	size_t n_maps;
	const struct fspec *frames;
	size_t n_frames;
	const struct sspec *samples;
	size_t n_samples;
};

/* Build the profile, interning everything in table order or in reverse. */
static struct profile *build(const struct tables *t, bool reverse)
{
	struct profile *p = profile__new();
	uint32_t mid[16], fid[32];

	assert_non_null(p);
	assert_true(t->n_maps <= 16 && t->n_frames <= 32);
	for (size_t k = 0; k < t->n_maps; k++) {
		size_t i = reverse ? t->n_maps - 1 - k : k;
		const struct mspec *s = &t->maps[i];
		struct prof_mapping m = {
			.pid = s->pid,
			.kind = s->kind,
			.start = s->start,
			.limit = s->limit,
			.offset = s->offset,
			.path = s->path,
			.build_id = s->build_id,
			.go_version = s->go_version,
		};

		assert_int_equal(profile__intern_mapping(p, &m, &mid[i]), 0);
	}
	for (size_t k = 0; k < t->n_frames; k++) {
		size_t i = reverse ? t->n_frames - 1 - k : k;
		const struct fspec *s = &t->frames[i];
		struct prof_frame f = {
			.name = s->name,
			.module = s->module,
			.addr = s->addr,
			.rel = s->rel,
			.kind = s->kind,
			.mapping = s->map < 0 ? 0 : mid[s->map] + 1,
			.named = s->named,
			.inlined = s->inlined,
			.mangled = s->mangled,
			.file = s->file,
			.line = s->line,
			.column = s->column,
		};

		assert_int_equal(profile__intern_frame(p, &f, &fid[i]), 0);
	}
	for (size_t k = 0; k < t->n_samples; k++) {
		size_t i = reverse ? t->n_samples - 1 - k : k;
		const struct sspec *s = &t->samples[i];
		uint32_t st[8];

		for (uint32_t j = 0; j < s->n; j++)
			st[j] = fid[s->frames[j]];
		assert_int_equal(
			profile__add(p, s->pid, s->tid, s->comm, s->thread, st, s->n, s->count), 0);
	}
	return p;
}

static const struct prof_counter counters[] = {
	{"idle", 7},
	{"user stack collision", 3},
	{"idle", 2}, /* the same reason twice: summed */
	{"lost", 0},
};

static struct profile_meta meta(bool per_thread)
{
	return (struct profile_meta){
		.version = "0.1.0-test",
		.command_line = "cpuprof record -o 'a b.json' -- ./app",
		.event = "cpu-clock",
		.frequency = 499,
		.period_ns = PERIOD,
		.start_unix_ns = 1764460800123456789ull,
		.duration_ns = 1500000000ull,
		.per_thread = per_thread,
		.counters = counters,
		.n_counters = sizeof(counters) / sizeof(counters[0]),
	};
}

/* ---- writing and reading back ---------------------------------------------------------------- */

static void dump(const char *name, const char *text)
{
	const char *dir = getenv("CPUPROF_JSON_DUMP_DIR");
	char path[4096];
	FILE *f;

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/%s.json", dir, name);
	f = fopen(path, "w");
	if (!f)
		fail_msg("cannot write %s: %s", path, strerror(errno));
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The document as text: one line, ending in a newline. */
static char *render(const struct profile *p, const struct profile_meta *m, const char *name)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(json_write(p, m, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_true(len > 0);
	assert_ptr_equal(strchr(buf, '\n'), buf + len - 1);
	dump(name, buf);
	return buf;
}

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &e);

	if (!j)
		fail_msg("invalid JSON at %d:%d: %s", e.line, e.column, e.text);
	return j;
}

/* The value at a dotted path of keys and array indices ("profiles.0.samples"); must exist. */
static json_t *at(json_t *j, const char *path)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && j; tok = strtok_r(NULL, ".", &save)) {
		if (json_is_array(j))
			j = json_array_get(j, strtoul(tok, NULL, 10));
		else
			j = json_object_get(j, tok);
	}
	if (!j)
		fail_msg("no value at %s", path);
	return j;
}

static long long num(json_t *j, const char *path)
{
	json_t *v = at(j, path);

	if (!json_is_integer(v))
		fail_msg("%s is not an integer", path);
	return json_integer_value(v);
}

static const char *str(json_t *j, const char *path)
{
	json_t *v = at(j, path);

	if (!json_is_string(v))
		fail_msg("%s is not a string", path);
	return json_string_value(v);
}

/* An array of integers as "a,b,c" (into a static buffer). */
static const char *ints(json_t *j, const char *path)
{
	static char buf[1024];
	json_t *a = at(j, path), *v;
	size_t i, len = 0;

	assert_true(json_is_array(a));
	buf[0] = '\0';
	json_array_foreach(a, i, v)
	{
		assert_true(json_is_integer(v));
		len += snprintf(buf + len, sizeof(buf) - len, "%s%lld", i ? "," : "",
				json_integer_value(v));
	}
	return buf;
}

/* The keys of an object in document order, "a,b,c" (into a static buffer). */
static const char *keys(json_t *j, const char *path)
{
	static char buf[1024];
	json_t *o = at(j, path);
	size_t len = 0;
	void *it;

	assert_true(json_is_object(o));
	buf[0] = '\0';
	for (it = json_object_iter(o); it; it = json_object_iter_next(o, it))
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? "," : "",
				json_object_iter_key(it));
	return buf;
}

/* Sample i of profile pi as "name;name;..." through shared.frames (into a static buffer). */
static const char *stack(json_t *root, size_t pi, size_t i)
{
	static char buf[1024];
	json_t *frames = at(root, "shared.frames"), *st, *v;
	char path[64];
	size_t k, len = 0;

	snprintf(path, sizeof(path), "profiles.%zu.samples.%zu", pi, i);
	st = at(root, path);
	buf[0] = '\0';
	json_array_foreach(st, k, v)
	{
		json_t *f = json_array_get(frames, (size_t)json_integer_value(v));

		assert_non_null(f);
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s", k ? ";" : "",
				json_string_value(json_object_get(f, "name")));
	}
	return buf;
}

static size_t size(json_t *j, const char *path)
{
	json_t *v = at(j, path);

	return json_is_array(v) ? json_array_size(v) : json_object_size(v);
}

/* ---- the tables --------------------------------------------------------------------------------
 */

enum { M_APP, M_KERNEL, M_SRV };

static const struct mspec maps1[] = {
	[M_APP] = {200, PMAP_FILE, 0x555555554000, 0x555555556000, 0x1000, "/usr/bin/app",
		   "4f2a9c0d1e3b5a7c9e1f2a3b4c5d6e7f80912345", NULL},
	[M_KERNEL] = {0, PMAP_KERNEL, 0xffffffff81000000, 0xffffffff83000000, 0,
		      "[kernel.kallsyms]", "", NULL},
	[M_SRV] = {100, PMAP_FILE, 0x400000, 0x401000, 0, "/opt/srv", NULL, "go1.22.1"},
};

enum { F_MAIN, F_RUN, F_LEAF1, F_LEAF2, F_INL, F_ENTRY, F_VFS, F_SRVMAIN, F_LOST };

static const struct fspec frames1[] = {
	[F_MAIN] = {"main", "app", 0x555555555100, 0x1100, FRAME_USER, M_APP, true, false, NULL,
		    "app.c", 40, 3},
	[F_RUN] = {"ns::run(int)", "app", 0x555555555200, 0x1200, FRAME_USER, M_APP, true, false,
		   "_ZN2ns3runEi", "app.c", 30, 0},
	[F_LEAF1] = {"leaf", "app", 0x555555555300, 0x1300, FRAME_USER, M_APP, true, false, NULL,
		     "app.c", 8, 0},
	/* the same function at another address: one speedscope frame, two locations */
	[F_LEAF2] = {"leaf", "app", 0x555555555304, 0x1304, FRAME_USER, M_APP, true, false, NULL,
		     "app.c", 9, 0},
	[F_INL] = {"inl", "app", 0x555555555304, 0x1304, FRAME_USER, M_APP, true, true, NULL,
		   "inl.h", 2, 0},
	[F_ENTRY] = {"entry_SYSCALL_64", "[kernel.kallsyms]", 0xffffffff81a00010,
		     0xffffffff81a00010, FRAME_KERNEL, M_KERNEL, true, false, NULL, NULL, 0, 0},
	[F_VFS] = {"vfs_read", "[kernel.kallsyms]", 0xffffffff81234567, 0xffffffff81234567,
		   FRAME_KERNEL, M_KERNEL, true, false, NULL, NULL, 0, 0},
	/* same name as the app's main, other module: another function */
	[F_SRVMAIN] = {"main", "srv", 0x400123, 0x123, FRAME_USER, M_SRV, false, false, NULL, NULL,
		       0, 0},
	[F_LOST] = {"[user stack lost: hash collision]", NULL, 0, 0, FRAME_PSEUDO, -1, false, false,
		    NULL, NULL, 0, 0},
};

static const struct sspec samples1[] = {
	{200, 0, "app", "", {F_MAIN, F_RUN, F_LEAF1}, 3, 2},
	{200, 0, "app", "", {F_MAIN, F_RUN, F_LEAF2, F_INL}, 4, 3},
	{100, 0, "srv", "", {F_SRVMAIN}, 1, 1},
	{200, 0, "app", "", {F_MAIN, F_RUN, F_ENTRY, F_VFS}, 4, 2},
	{200, 0, "app", "", {F_MAIN, F_RUN, F_LEAF1}, 3, 3}, /* merges with the first: 5 */
	{100, 0, "srv", "", {F_LOST, F_ENTRY}, 2, 0},	     /* no count: left out */
};

static const struct tables tables1 = {
	maps1, 3, frames1, sizeof(frames1) / sizeof(frames1[0]), samples1, 6,
};

/* ---- tests -------------------------------------------------------------------------------------
 */

static void test_document(void **state)
{
	struct profile_meta m = meta(false);
	struct profile *p = build(&tables1, false);
	char *text = render(p, &m, "document");
	json_t *r = parse(text);

	(void)state;
	assert_string_equal(keys(r, ""),
			    "$schema,exporter,name,activeProfileIndex,shared,profiles,cpuprof");
	assert_string_equal(str(r, "$schema"),
			    "https://www.speedscope.app/file-format-schema.json");
	assert_string_equal(str(r, "exporter"), "cpuprof@0.1.0-test");
	assert_string_equal(str(r, "name"), "cpuprof record -o 'a b.json' -- ./app");
	/* profiles by pid: srv (100) first; app has the most samples and opens first */
	assert_int_equal(size(r, "profiles"), 2);
	assert_int_equal(num(r, "activeProfileIndex"), 1);

	assert_string_equal(keys(r, "profiles.0"),
			    "type,name,unit,startValue,endValue,samples,weights");
	assert_string_equal(str(r, "profiles.0.type"), "sampled");
	assert_string_equal(str(r, "profiles.0.name"), "srv (pid 100)");
	assert_string_equal(str(r, "profiles.0.unit"), "nanoseconds");
	assert_int_equal(num(r, "profiles.0.startValue"), 0);
	assert_int_equal(num(r, "profiles.0.endValue"), PERIOD);
	assert_int_equal(size(r, "profiles.0.samples"), 1);
	assert_string_equal(stack(r, 0, 0), "srv;main");
	assert_string_equal(str(r, "profiles.1.name"), "app (pid 200)");

	/* samples by name sequence, root first, process name first, kernel frames marked */
	assert_int_equal(size(r, "profiles.1.samples"), 3);
	assert_string_equal(stack(r, 1, 0),
			    "app;main;ns::run(int);entry_SYSCALL_64_[k];vfs_read_[k]");
	assert_string_equal(stack(r, 1, 1), "app;main;ns::run(int);leaf");
	assert_string_equal(stack(r, 1, 2), "app;main;ns::run(int);leaf;inl_[i]");
	assert_string_equal(ints(r, "profiles.1.weights"), "4008016,10020040,6012024");
	assert_int_equal(num(r, "profiles.1.endValue"), 10 * PERIOD);

	/* frames: one per function, in first-seen order over the sorted samples */
	assert_string_equal(ints(r, "profiles.0.samples.0"), "0,1");
	assert_string_equal(ints(r, "profiles.1.samples.0"), "2,3,4,5,6");
	assert_string_equal(ints(r, "profiles.1.samples.1"), "2,3,4,7");
	assert_string_equal(ints(r, "profiles.1.samples.2"), "2,3,4,7,8");
	assert_int_equal(size(r, "shared.frames"), 9);
	assert_string_equal(keys(r, "shared.frames.0"), "name");
	assert_string_equal(keys(r, "shared.frames.3"), "name,file");
	assert_string_equal(str(r, "shared.frames.3.file"), "app.c");
	assert_string_equal(str(r, "shared.frames.8.name"), "inl_[i]");
	assert_string_equal(str(r, "shared.frames.8.file"), "inl.h");

	json_decref(r);
	free(text);
	profile__free(p);
}

static void test_extension(void **state)
{
	struct profile_meta m = meta(false);
	struct profile *p = build(&tables1, false);
	char *text = render(p, &m, "extension");
	json_t *r = parse(text);

	(void)state;
	assert_string_equal(keys(r, "cpuprof"),
			    "format_version,cpuprof_version,command_line,event,frequency_hz,"
			    "period_ns,start_time,start_time_unix_ns,duration_ns,per_thread,"
			    "samples,counters,processes,profiles,frames,locations,mappings");
	assert_int_equal(num(r, "cpuprof.format_version"), 1);
	assert_string_equal(str(r, "cpuprof.cpuprof_version"), "0.1.0-test");
	assert_string_equal(str(r, "cpuprof.command_line"),
			    "cpuprof record -o 'a b.json' -- ./app");
	assert_string_equal(str(r, "cpuprof.event"), "cpu-clock");
	assert_int_equal(num(r, "cpuprof.frequency_hz"), 499);
	assert_int_equal(num(r, "cpuprof.period_ns"), PERIOD);
	assert_string_equal(str(r, "cpuprof.start_time"), "2025-11-30T00:00:00.123456789Z");
	assert_string_equal(str(r, "cpuprof.start_time_unix_ns"), "1764460800123456789");
	assert_int_equal(num(r, "cpuprof.duration_ns"), 1500000000);
	assert_true(json_is_false(at(r, "cpuprof.per_thread")));
	assert_int_equal(num(r, "cpuprof.samples"), 11);

	/* counters by reason, in the order given, a repeated reason summed, zeros kept */
	assert_string_equal(keys(r, "cpuprof.counters"), "idle,user stack collision,lost");
	assert_int_equal(num(r, "cpuprof.counters.idle"), 9);
	assert_int_equal(num(r, "cpuprof.counters.user stack collision"), 3);
	assert_int_equal(num(r, "cpuprof.counters.lost"), 0);

	/* processes and profiles */
	assert_int_equal(size(r, "cpuprof.processes"), 2);
	assert_string_equal(keys(r, "cpuprof.processes.1"), "pid,comm,samples,profile,threads");
	assert_int_equal(num(r, "cpuprof.processes.1.pid"), 200);
	assert_string_equal(str(r, "cpuprof.processes.1.comm"), "app");
	assert_int_equal(num(r, "cpuprof.processes.1.samples"), 10);
	assert_int_equal(num(r, "cpuprof.processes.1.profile"), 1);
	assert_int_equal(size(r, "cpuprof.processes.1.threads"), 0);
	assert_string_equal(keys(r, "cpuprof.profiles.1"), "pid,tid,comm,thread,samples,stacks");
	assert_int_equal(num(r, "cpuprof.profiles.0.samples"), 1);
	assert_int_equal(num(r, "cpuprof.profiles.1.samples"), 10);
	assert_true(json_is_null(at(r, "cpuprof.profiles.1.tid")));
	assert_true(json_is_null(at(r, "cpuprof.profiles.1.thread")));
	assert_string_equal(ints(r, "cpuprof.profiles.0.stacks.0"), "-1,0");
	assert_string_equal(ints(r, "cpuprof.profiles.1.stacks.0"), "-1,1,2,3,4");
	assert_string_equal(ints(r, "cpuprof.profiles.1.stacks.1"), "-1,1,2,5");
	assert_string_equal(ints(r, "cpuprof.profiles.1.stacks.2"), "-1,1,2,6,7");

	/* frames: parallel to shared.frames, raw names */
	assert_int_equal(size(r, "cpuprof.frames"), 9);
	assert_string_equal(keys(r, "cpuprof.frames.0"), "name,kind,inlined,module,file,mangled");
	assert_string_equal(str(r, "cpuprof.frames.0.kind"), "process");
	assert_true(json_is_null(at(r, "cpuprof.frames.0.module")));
	assert_string_equal(str(r, "cpuprof.frames.1.module"), "srv");
	assert_string_equal(str(r, "cpuprof.frames.3.module"), "app");
	assert_string_equal(str(r, "cpuprof.frames.4.mangled"), "_ZN2ns3runEi");
	assert_string_equal(str(r, "cpuprof.frames.5.name"), "entry_SYSCALL_64");
	assert_string_equal(str(r, "cpuprof.frames.5.kind"), "kernel");
	assert_string_equal(str(r, "cpuprof.frames.7.kind"), "user");
	assert_string_equal(str(r, "cpuprof.frames.7.file"), "app.c");
	assert_true(json_is_false(at(r, "cpuprof.frames.7.inlined")));
	assert_string_equal(str(r, "cpuprof.frames.8.name"), "inl");
	assert_true(json_is_true(at(r, "cpuprof.frames.8.inlined")));

	/* locations: every sampled address, hex, with mapping, line, inline flag */
	assert_int_equal(size(r, "cpuprof.locations"), 8);
	assert_string_equal(keys(r, "cpuprof.locations.0"),
			    "frame,address,object_address,mapping,line,column,inlined,named");
	assert_int_equal(num(r, "cpuprof.locations.0.frame"), 1);
	assert_string_equal(str(r, "cpuprof.locations.0.address"), "0x400123");
	assert_true(json_is_false(at(r, "cpuprof.locations.0.named")));
	assert_true(json_is_null(at(r, "cpuprof.locations.0.line")));
	assert_int_equal(num(r, "cpuprof.locations.1.line"), 40);
	assert_int_equal(num(r, "cpuprof.locations.1.column"), 3);
	assert_string_equal(str(r, "cpuprof.locations.3.address"), "0xffffffff81a00010");
	assert_string_equal(str(r, "cpuprof.locations.4.object_address"), "0xffffffff81234567");
	assert_int_equal(num(r, "cpuprof.locations.3.mapping"), 2);
	assert_int_equal(num(r, "cpuprof.locations.5.frame"), 7);
	assert_int_equal(num(r, "cpuprof.locations.6.frame"), 7);
	assert_int_equal(num(r, "cpuprof.locations.5.line"), 8);
	assert_int_equal(num(r, "cpuprof.locations.6.line"), 9);
	assert_string_equal(str(r, "cpuprof.locations.6.object_address"), "0x1304");
	assert_true(json_is_false(at(r, "cpuprof.locations.6.inlined")));
	assert_true(json_is_true(at(r, "cpuprof.locations.7.inlined")));
	assert_string_equal(str(r, "cpuprof.locations.7.address"), "0x555555555304");

	/* mappings in first-seen order, hex strings, "" build id as null */
	assert_int_equal(size(r, "cpuprof.mappings"), 3);
	/* a Go program's version; none for the others */
	assert_string_equal(keys(r, "cpuprof.mappings.0"),
			    "pid,kind,start,limit,offset,path,build_id,go_version");
	assert_string_equal(str(r, "cpuprof.mappings.0.go_version"), "go1.22.1");
	assert_string_equal(keys(r, "cpuprof.mappings.1"),
			    "pid,kind,start,limit,offset,path,build_id");
	assert_string_equal(str(r, "cpuprof.mappings.0.path"), "/opt/srv");
	assert_true(json_is_null(at(r, "cpuprof.mappings.0.build_id")));
	assert_int_equal(num(r, "cpuprof.mappings.1.pid"), 200);
	assert_string_equal(str(r, "cpuprof.mappings.1.kind"), "file");
	assert_string_equal(str(r, "cpuprof.mappings.1.start"), "0x555555554000");
	assert_string_equal(str(r, "cpuprof.mappings.1.limit"), "0x555555556000");
	assert_string_equal(str(r, "cpuprof.mappings.1.offset"), "0x1000");
	assert_string_equal(str(r, "cpuprof.mappings.1.build_id"),
			    "4f2a9c0d1e3b5a7c9e1f2a3b4c5d6e7f80912345");
	assert_string_equal(str(r, "cpuprof.mappings.2.kind"), "kernel");
	assert_int_equal(num(r, "cpuprof.mappings.2.pid"), 0);
	assert_string_equal(str(r, "cpuprof.mappings.2.start"), "0xffffffff81000000");
	assert_string_equal(str(r, "cpuprof.mappings.2.limit"), "0xffffffff83000000");
	assert_true(json_is_null(at(r, "cpuprof.mappings.2.build_id")));

	json_decref(r);
	free(text);
	profile__free(p);
}

/* Every stack of every profile: its weights equal count x period and add up to endValue. */
static void test_weights_sum(void **state)
{
	struct profile_meta m = meta(false);
	struct profile *p = build(&tables1, true);
	char *text = render(p, &m, "weights");
	json_t *r = parse(text), *prof;
	long long all = 0;
	size_t i;

	(void)state;
	json_array_foreach(at(r, "profiles"), i, prof)
	{
		json_t *w;
		long long sum = 0;
		size_t k;

		assert_int_equal(json_array_size(json_object_get(prof, "samples")),
				 json_array_size(json_object_get(prof, "weights")));
		json_array_foreach(json_object_get(prof, "weights"), k, w)
		{
			assert_int_equal(json_integer_value(w) % PERIOD, 0);
			sum += json_integer_value(w);
		}
		assert_int_equal(sum, json_integer_value(json_object_get(prof, "endValue")));
		all += sum;
	}
	assert_int_equal(all, (long long)(profile__total(p) * PERIOD));
	json_decref(r);
	free(text);
	profile__free(p);
}

/* The same profile built in another order, with a count split in two: the same bytes. */
static void test_deterministic(void **state)
{
	struct profile_meta m = meta(false);
	struct profile *a = build(&tables1, false), *b = build(&tables1, true);
	char *ta = render(a, &m, "order_a"), *tb = render(b, &m, "order_b");

	(void)state;
	assert_int_not_equal(profile__sample(a, 0)->pid, profile__sample(b, 0)->pid);
	assert_string_equal(ta, tb);
	free(ta);
	free(tb);
	profile__free(a);
	profile__free(b);

	m.per_thread = true;
	a = build(&tables1, false);
	b = build(&tables1, true);
	ta = render(a, &m, "order_thread_a");
	tb = render(b, &m, "order_thread_b");
	assert_string_equal(ta, tb);
	free(ta);
	free(tb);
	profile__free(a);
	profile__free(b);
}

static const struct fspec frames_t[] = {
	{"work", "srv", 0x1000, 0x1000, FRAME_USER, -1, true, false, NULL, NULL, 0, 0},
};

static const struct sspec samples_t[] = {
	{5, 6, "srv", "io worker", {0}, 1, 4},
	{5, 5, "srv", "srv", {0}, 1, 2},
	{5, 6, "srv", "io", {0}, 1, 1}, /* the thread before it renamed itself */
	{3, 3, "cron", "", {0}, 1, 1},	/* no thread name: the process name stands in */
};

static void test_per_thread(void **state)
{
	const struct tables t = {NULL, 0, frames_t, 1, samples_t, 4};
	struct profile_meta m = meta(true);
	struct profile *p = build(&t, false);
	char *text = render(p, &m, "per_thread");
	json_t *r = parse(text);

	(void)state;
	assert_int_equal(size(r, "profiles"), 3);
	assert_string_equal(str(r, "profiles.0.name"), "cron (tid 3)");
	assert_string_equal(str(r, "profiles.1.name"), "srv (tid 5)");
	assert_string_equal(str(r, "profiles.2.name"), "io worker (tid 6)");
	assert_int_equal(num(r, "activeProfileIndex"), 2);
	assert_string_equal(stack(r, 0, 0), "cron;cron (tid 3);work");
	assert_string_equal(stack(r, 1, 0), "srv;srv (tid 5);work");
	/* each sample keeps its own thread name, sorted by it */
	assert_int_equal(size(r, "profiles.2.samples"), 2);
	assert_string_equal(stack(r, 2, 0), "srv;io (tid 6);work");
	assert_string_equal(stack(r, 2, 1), "srv;io worker (tid 6);work");
	assert_string_equal(ints(r, "profiles.2.weights"), "2004008,8016032");
	assert_string_equal(str(r, "cpuprof.frames.1.kind"), "thread");
	/* the name as recorded; only what speedscope shows falls back to the process name */
	assert_string_equal(str(r, "cpuprof.frames.1.name"), "");
	assert_string_equal(str(r, "cpuprof.profiles.0.thread"), "");
	assert_string_equal(ints(r, "cpuprof.profiles.2.stacks.1"), "-1,-1,0");

	assert_true(json_is_true(at(r, "cpuprof.per_thread")));
	assert_int_equal(num(r, "cpuprof.profiles.2.tid"), 6);
	assert_string_equal(str(r, "cpuprof.profiles.2.thread"), "io worker");
	assert_string_equal(str(r, "cpuprof.profiles.2.comm"), "srv");
	assert_int_equal(num(r, "cpuprof.profiles.2.samples"), 5);
	assert_int_equal(size(r, "cpuprof.processes"), 2);
	assert_int_equal(num(r, "cpuprof.processes.1.pid"), 5);
	assert_int_equal(num(r, "cpuprof.processes.1.samples"), 7);
	assert_int_equal(num(r, "cpuprof.processes.1.profile"), -1);
	assert_string_equal(keys(r, "cpuprof.processes.1.threads.0"), "tid,name,samples,profile");
	assert_int_equal(num(r, "cpuprof.processes.1.threads.0.tid"), 5);
	assert_int_equal(num(r, "cpuprof.processes.1.threads.0.profile"), 1);
	assert_int_equal(num(r, "cpuprof.processes.1.threads.1.tid"), 6);
	assert_string_equal(str(r, "cpuprof.processes.1.threads.1.name"), "io worker");
	assert_int_equal(num(r, "cpuprof.processes.1.threads.1.samples"), 5);
	assert_int_equal(num(r, "cpuprof.processes.1.threads.1.profile"), 2);
	json_decref(r);
	free(text);
	profile__free(p);

	/* the same samples per process: one profile for pid 5, no thread frames */
	m.per_thread = false;
	p = build(&t, false);
	text = render(p, &m, "per_thread_as_process");
	r = parse(text);
	assert_int_equal(size(r, "profiles"), 2);
	assert_string_equal(str(r, "profiles.1.name"), "srv (pid 5)");
	assert_string_equal(stack(r, 1, 0), "srv;work");
	assert_int_equal(num(r, "profiles.1.endValue"), 7 * PERIOD);
	json_decref(r);
	free(text);
	profile__free(p);
}

static const struct fspec frames_u[] = {
	{"f\xc0\xafx", NULL, 1, 1, FRAME_USER, -1, true, false, NULL, "dir\xff/a.c", 1, 0},
	{"ok\xc3\xa9\xe2\x82\xac\xf0\x9f\x94\xa5", NULL, 2, 2, FRAME_USER, -1, true, false, NULL,
	 NULL, 0, 0},
	{"s\xed\xa0\x80", NULL, 3, 3, FRAME_USER, -1, true, false, NULL, NULL, 0, 0},
	{"big\xf4\x90\x80\x80", "mod\x80", 4, 4, FRAME_KERNEL, -1, true, false, NULL, NULL, 0, 0},
	{"cut\xe2\x82", NULL, 5, 5, FRAME_USER, -1, true, false, NULL, NULL, 0, 0},
};

static const struct sspec samples_u[] = {
	{9, 0, "bad\xff\xfename", "", {0, 1, 2, 3, 4}, 5, 1},
};

static void test_invalid_utf8(void **state)
{
	const struct tables t = {NULL, 0, frames_u, 5, samples_u, 1};
	struct profile_meta m = meta(false);
	struct profile *p = build(&t, false);
	char *text = render(p, &m, "utf8");
	json_t *r = parse(text);

	(void)state;
	assert_string_equal(str(r, "profiles.0.name"), "bad" FFFD FFFD "name (pid 9)");
	assert_string_equal(str(r, "shared.frames.0.name"), "bad" FFFD FFFD "name");
	/* overlong '/' */
	assert_string_equal(str(r, "shared.frames.1.name"), "f" FFFD FFFD "x");
	assert_string_equal(str(r, "shared.frames.1.file"), "dir" FFFD "/a.c");
	/* two-, three- and four-byte sequences are kept */
	assert_string_equal(str(r, "shared.frames.2.name"),
			    "ok\xc3\xa9\xe2\x82\xac\xf0\x9f\x94\xa5");
	/* a surrogate, a code point above U+10FFFF, a sequence cut short by the end */
	assert_string_equal(str(r, "shared.frames.3.name"), "s" FFFD FFFD FFFD);
	assert_string_equal(str(r, "shared.frames.4.name"), "big" FFFD FFFD FFFD FFFD "_[k]");
	assert_string_equal(str(r, "cpuprof.frames.4.name"), "big" FFFD FFFD FFFD FFFD);
	assert_string_equal(str(r, "cpuprof.frames.4.module"), "mod" FFFD);
	assert_string_equal(str(r, "shared.frames.5.name"), "cut" FFFD FFFD);
	assert_string_equal(str(r, "cpuprof.processes.0.comm"), "bad" FFFD FFFD "name");
	json_decref(r);
	free(text);
	profile__free(p);
}

static void test_empty(void **state)
{
	struct profile_meta m = {0};
	struct profile *p = profile__new();
	char *text = render(p, &m, "empty");
	json_t *r = parse(text);

	(void)state;
	assert_string_equal(str(r, "exporter"), "cpuprof@unknown");
	assert_string_equal(str(r, "name"), "cpuprof");
	assert_int_equal(num(r, "activeProfileIndex"), 0);
	assert_int_equal(size(r, "shared.frames"), 0);
	assert_int_equal(size(r, "profiles"), 0);
	assert_int_equal(num(r, "cpuprof.samples"), 0);
	assert_true(json_is_null(at(r, "cpuprof.command_line")));
	assert_true(json_is_null(at(r, "cpuprof.start_time")));
	assert_true(json_is_null(at(r, "cpuprof.start_time_unix_ns")));
	assert_int_equal(size(r, "cpuprof.counters"), 0);
	assert_int_equal(size(r, "cpuprof.processes"), 0);
	json_decref(r);
	free(text);
	profile__free(p);
}

/*
 * Labels: cpuprof.profiles[i].labels and .trace, parallel to the stacks, only in a profile with
 * a labeled sample; trace_id and span_id as bytes from hex or traceparent values, null where a
 * sample has no such label (or one that is no ID).
 */
static void test_labels(void **state)
{
	struct profile_meta m = meta(false);
	struct profile *p = profile__new();
	struct prof_frame fa = {.name = "workA", .named = true},
			  fb = {.name = "workB", .named = true};
	uint32_t a, b;
	char *text;
	json_t *r;

	(void)state;
	assert_int_equal(profile__intern_frame(p, &fa, &a), 0);
	assert_int_equal(profile__intern_frame(p, &fb, &b), 0);
	assert_int_equal(profile__add_labeled(p, 7, 0, "go", "",
					      "span_id=00f067aa0ba902b7,"
					      "trace_id=4bf92f3577b34da6a3ce929d0e0e4736",
					      &a, 1, 3),
			 0);
	assert_int_equal(profile__add_labeled(p, 7, 0, "go", "",
					      "trace_id=00-0af7651916cd43dd8448eb211c80319c-"
					      "b7ad6b7169203331-01",
					      &b, 1, 2),
			 0);
	assert_int_equal(profile__add_labeled(p, 7, 0, "go", "", "trace_id=x,user=me", &b, 1, 1),
			 0);
	assert_int_equal(profile__add(p, 7, 0, "go", "", &a, 1, 1), 0);
	assert_int_equal(profile__add(p, 8, 0, "c", "", &a, 1, 1), 0);
	text = render(p, &m, "labels");
	r = parse(text);
	/* process 7: ordered by stack names, then labels */
	assert_int_equal(size(r, "cpuprof.profiles.0.stacks"), 4);
	assert_int_equal(size(r, "cpuprof.profiles.0.labels"), 4);
	assert_true(json_is_null(at(r, "cpuprof.profiles.0.labels.0")));
	assert_string_equal(str(r, "cpuprof.profiles.0.labels.1.trace_id"),
			    "4bf92f3577b34da6a3ce929d0e0e4736");
	assert_string_equal(str(r, "cpuprof.profiles.0.labels.1.span_id"), "00f067aa0ba902b7");
	assert_string_equal(ints(r, "cpuprof.profiles.0.trace.1.trace_id"),
			    "75,249,47,53,119,179,77,166,163,206,146,157,14,14,71,54");
	assert_string_equal(ints(r, "cpuprof.profiles.0.trace.1.span_id"),
			    "0,240,103,170,11,169,2,183");
	assert_true(json_is_null(at(r, "cpuprof.profiles.0.trace.0")));
	/* traceparent: its trace ID and its parent ID */
	assert_string_equal(ints(r, "cpuprof.profiles.0.trace.2.trace_id"),
			    "10,247,101,25,22,205,67,221,132,72,235,33,28,128,49,156");
	assert_int_equal(size(r, "cpuprof.profiles.0.trace.2"), 1);
	/* a trace_id that is no ID: labels kept, no bytes */
	assert_string_equal(str(r, "cpuprof.profiles.0.labels.3.user"), "me");
	assert_true(json_is_null(at(r, "cpuprof.profiles.0.trace.3")));
	/* process 8 has no labels: no arrays */
	assert_null(json_object_get(at(r, "cpuprof.profiles.1"), "labels"));
	assert_null(json_object_get(at(r, "cpuprof.profiles.1"), "trace"));
	json_decref(r);
	free(text);
	profile__free(p);
}

/* Without a period, weights are sample counts and the unit is "none". */
static void test_no_period(void **state)
{
	struct profile_meta m = meta(false);
	struct profile *p = build(&tables1, false);
	char *text;
	json_t *r;

	(void)state;
	m.period_ns = 0;
	text = render(p, &m, "no_period");
	r = parse(text);
	assert_string_equal(str(r, "profiles.1.unit"), "none");
	assert_string_equal(ints(r, "profiles.1.weights"), "2,5,3");
	assert_int_equal(num(r, "profiles.1.endValue"), 10);
	json_decref(r);
	free(text);
	profile__free(p);
}

static void test_write_error(void **state)
{
	struct profile_meta m = meta(false);
	struct profile *p = build(&tables1, false);
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	if (!f)
		cp_skip("no /dev/full");
	assert_int_equal(json_write(p, &m, f), -EIO);
	fclose(f);
	profile__free(p);
}

/*
 * The example of docs/json-format.md; tests/json/run.sh compares the two. As record writes
 * them, an object's frames and mappings are in the object's own addresses.
 */
static const struct mspec maps_doc[] = {
	{4242, PMAP_FILE, 0x1000, 0x2000, 0x1000, "/usr/local/bin/burn",
	 "4f2a9c0d1e3b5a7c9e1f2a3b4c5d6e7f80912345", NULL},
	{4242, PMAP_FILE, 0x26000, 0x17c000, 0x26000, "/usr/lib/x86_64-linux-gnu/libc.so.6",
	 "93ac61ec5a8eb1396f9fbd350e3169a558528a40", NULL},
	{0, PMAP_KERNEL, 0xffff800000000000, 0xffffffffffffffff, 0, "[kernel.kallsyms]", "", NULL},
};

static const struct fspec frames_doc[] = {
	{"main", "burn", 0x11f3, 0x11f3, FRAME_USER, 0, true, false, NULL, "burn.c", 40, 0},
	{"leaf_hash", "burn", 0x1189, 0x1189, FRAME_USER, 0, true, false, NULL, "burn.c", 8, 0},
	{"leaf_hash", "burn", 0x11a0, 0x11a0, FRAME_USER, 0, true, false, NULL, "burn.c", 9, 0},
	{"rotl", "burn", 0x11a0, 0x11a0, FRAME_USER, 0, true, true, NULL, "rotl.h", 3, 12},
	{"read", "libc.so.6", 0x10f1d2, 0x10f1d2, FRAME_USER, 1, true, false, NULL, NULL, 0, 0},
	{"ksys_read", "[kernel.kallsyms]", 0xffffffff81345670, 0xffffffff81345670, FRAME_KERNEL, 2,
	 true, false, NULL, NULL, 0, 0},
};

static const struct sspec samples_doc[] = {
	{4242, 0, "burn", "", {0, 4, 5}, 3, 1},
	{4242, 0, "burn", "", {0, 2, 3}, 3, 1},
	{4242, 0, "burn", "", {0, 1}, 2, 2},
};

static void test_doc_example(void **state)
{
	const struct tables t = {maps_doc, 3, frames_doc, 6, samples_doc, 3};
	const struct prof_counter doc_counters[] = {
		{"idle", 0}, {"other processes", 12}, {"user stack collision", 0}};
	struct profile_meta m = meta(false);
	struct profile *p = build(&t, false);
	char *text;
	json_t *r;

	(void)state;
	m.version = "0.1.0";
	m.command_line = "cpuprof record -F 499 -o prof.json -- ./burn";
	m.counters = doc_counters;
	m.n_counters = 3;
	text = render(p, &m, "doc_example");
	r = parse(text);
	assert_string_equal(stack(r, 0, 0), "burn;main;leaf_hash");
	assert_string_equal(stack(r, 0, 1), "burn;main;leaf_hash;rotl_[i]");
	assert_string_equal(stack(r, 0, 2), "burn;main;read;ksys_read_[k]");
	json_decref(r);
	free(text);
	profile__free(p);
}

/*
 * Allocations that fail after a budget: malloc, calloc and realloc of the whole process (glibc's
 * own, asprintf's and qsort's, go through them too) while `failing` is set. Not under ASan,
 * which owns malloc.
 */
#ifndef __SANITIZE_ADDRESS__
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
static bool failing;
static long alloc_budget, alloc_calls;

static bool spend(void)
{
	if (!failing)
		return false;
	alloc_calls++;
	return alloc_budget-- <= 0;
}

void *malloc(size_t n)
{
	return spend() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return spend() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return spend() ? NULL : __libc_realloc(p, n);
}
#endif

/*
 * Every allocation failure point gives -ENOMEM with nothing written (the writer allocates all
 * it needs before its first byte), and the budget that suffices gives the same document.
 */
static void test_out_of_memory(void **state)
{
	struct profile_meta m = meta(true);
	struct profile *p = build(&tables1, false);
	char *whole = render(p, &m, "out_of_memory");
	int err = -ENOMEM;
	long n;

	(void)state;
#ifdef __SANITIZE_ADDRESS__
	print_message("not under ASan (it owns malloc): only the document is checked\n");
	n = 1000;
	err = 0;
#else
	for (n = 0; err == -ENOMEM && n < 100000; n++) {
		static char iobuf[1 << 16];
		FILE *f = tmpfile();
		struct stat st;

		assert_non_null(f);
		/* stdio's buffer is ours: a write allocates nothing */
		assert_int_equal(setvbuf(f, iobuf, _IOFBF, sizeof(iobuf)), 0);
		alloc_budget = n;
		alloc_calls = 0;
		failing = true;
		err = json_write(p, &m, f);
		failing = false;
		assert_int_equal(fstat(fileno(f), &st), 0);
		if (err == -ENOMEM) {
			assert_int_equal(st.st_size, 0);
			assert_int_equal(ftell(f), 0);
		} else {
			char *text = malloc((size_t)st.st_size + 1);

			assert_non_null(text);
			rewind(f);
			assert_int_equal(fread(text, 1, (size_t)st.st_size, f), st.st_size);
			text[st.st_size] = '\0';
			assert_string_equal(text, whole);
			free(text);
		}
		fclose(f);
	}
#endif
	assert_int_equal(err, 0);
	/* every allocation of the writer failed once above: dozens for a document this size */
	assert_true(n > 20);
	free(whole);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_document),    cmocka_unit_test(test_extension),
		cmocka_unit_test(test_weights_sum), cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_per_thread),  cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_empty),	    cmocka_unit_test(test_no_period),
		cmocka_unit_test(test_write_error), cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_doc_example), cmocka_unit_test(test_labels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
