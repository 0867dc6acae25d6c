// SPDX-License-Identifier: GPL-2.0
/*
 * The goroutine label reader (bpf/go_labels.bpf.h) in the walkers' harness (bpf/rtwalk.bpf.c,
 * cp_go_test) on hand-made Go memory (tests/fixtures/fix_golabels.c): the map layout of Go up
 * to 1.23 with two buckets, an empty slot, a value longer than its field and an overflow
 * bucket (not read); the slice layout of Go 1.24 (no Go of that version to test with here),
 * past the 8 labels a sample keeps; a thread running no goroutine. Every sample of the fixture
 * must give exactly the labels its memory holds, or none where it holds none.
 */
#include <time.h>
#include "cmocka_inc.h"
#include <linux/types.h>
#include "runtime_shared.h"
#include "shared.h"
#include "rtwalk.skel.h"
#include "interp_fixture.h"

struct seen {
	size_t events, bad;
	uint64_t ns; /* spent reading the labels, all samples */
	char first_bad[512];
	const char *want; /* the labels, "k=v;..." in the order the reader finds them */
};

static int on_event(void *ctx, void *data, size_t size)
{
	const struct cp_go_labels *v = data;
	struct seen *s = ctx;
	char got[2048] = "";
	size_t len = 0;

	if (size < sizeof(*v))
		return 0;
	s->events++;
	for (uint32_t i = 0; i < v->n && i < CP_GO_LABELS; i++)
		len += (size_t)snprintf(got + len, sizeof(got) - len, "%.*s=%.*s%s;",
					CP_GO_LABEL_KEY, v->l[i].key, CP_GO_LABEL_VAL, v->l[i].val,
					v->cut >> i & 1 ? "[cut]" : "");
	if (strcmp(got, s->want)) {
		if (!s->bad++)
			snprintf(s->first_bad, sizeof(s->first_bad), "%s", got);
	}
	return 0;
}

/* Run the fixture as what, the reader with the fixture's offsets and layout; the samples. */
static uint64_t run(const char *what, uint8_t layout, struct seen *s)
{
	const char *argv[] = {NULL, what, NULL};
	char path[PATH_MAX], line[64];
	struct cp_go_proc gp = {.gen = 0,
				.layout = layout,
				.tls_slot = 1,
				.g_m = 48,
				.m_curg = 192,
				.g_labels = 360};
	struct cpuprof_rtwalk *skel;
	struct bpf_link *links[INTERP_MAX_LINKS];
	struct ring_buffer *rb;
	struct timespec t0, t;
	uint64_t samples = 0;
	__u64 *v;
	int nlinks, ncpu = libbpf_num_possible_cpus();
	FILE *out;
	pid_t pid;

	fixture(path, sizeof(path), "fix_golabels");
	argv[0] = path;
	pid = interp_start(argv, &out, line, sizeof(line));
	assert_string_equal(line, "ready\n");
	skel = cpuprof_rtwalk__open();
	if (!skel || !skel->rodata) {
		fail_msg("cannot open the harness");
		return 0;
	}
	skel->rodata->target_tgid = (__u32)pid;
	assert_int_equal(cpuprof_rtwalk__load(skel), 0);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(skel->maps.go_procs), &(__u32){(__u32)pid},
					     &gp, BPF_ANY),
			 0);
	rb = ring_buffer__new(bpf_map__fd(skel->maps.go_events), on_event, s, NULL);
	assert_non_null(rb);
	nlinks = interp_attach_clocks(skel->progs.cp_go_test, links);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		ring_buffer__poll(rb, 100);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < 500);
	interp_detach_clocks(links, nlinks);
	ring_buffer__consume(rb);
	v = calloc((size_t)ncpu, sizeof(*v));
	assert_non_null(v);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(skel->maps.go_stats), &(__u32){0}, v), 0);
	for (int c = 0; c < ncpu; c++)
		samples += v[c];
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(skel->maps.go_stats), &(__u32){2}, v), 0);
	for (int c = 0; c < ncpu; c++)
		s->ns += v[c];
	free(v);
	ring_buffer__free(rb);
	cpuprof_rtwalk__destroy(skel);
	interp_stop(pid, out);
	return samples;
}

static void need_bpf(void)
{
	if (geteuid() != 0)
		cp_skip("BPF needs root");
}

/* map: both buckets, slots in use only, the long value cut and flagged, no overflow bucket */
static void test_map(void **state)
{
	static char want[512];
	struct seen s = {.want = want};
	uint64_t n;

	(void)state;
	need_bpf();
	snprintf(
		want, sizeof(want),
		"trace_id=4bf92f3577b34da6a3ce929d0e0e4736;k2=%.*s[cut];span_id=00f067aa0ba902b7;",
		CP_GO_LABEL_VAL - 1,
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	n = run("map", CP_GO_LAYOUT_MAP, &s);
	print_message("map: %zu of %llu samples with labels, %zu not as in memory (%s); %.0f ns "
		      "a read\n",
		      s.events, (unsigned long long)n, s.bad, s.first_bad,
		      n ? (double)s.ns / n : 0);
	assert_true(n >= 20);
	assert_int_equal(s.bad, 0);
	/* every sample of the spinning thread: its labels are there all the time */
	assert_int_equal(s.events, n);
}

/* slice (Go 1.24): the first 8 of 10 labels */
static void test_slice(void **state)
{
	struct seen s = {.want = "k0=v0;k1=v1;k2=v2;k3=v3;k4=v4;k5=v5;k6=v6;k7=v7;"};
	uint64_t n;

	(void)state;
	need_bpf();
	n = run("slice", CP_GO_LAYOUT_SLICE, &s);
	print_message("slice: %zu of %llu samples with labels, %zu not as in memory (%s); %.0f ns "
		      "a read\n",
		      s.events, (unsigned long long)n, s.bad, s.first_bad,
		      n ? (double)s.ns / n : 0);
	assert_true(n >= 20);
	assert_int_equal(s.bad, 0);
	assert_int_equal(s.events, n);
}

/* no goroutine on the thread (m.curg 0), or no layout (a Go version without one): no labels */
static void test_none(void **state)
{
	struct seen s = {.want = ""};
	uint64_t n;

	(void)state;
	need_bpf();
	n = run("idle", CP_GO_LAYOUT_MAP, &s);
	assert_true(n >= 20);
	assert_int_equal(s.events, 0);
	memset(&s, 0, sizeof(s));
	s.want = "";
	n = run("map", 0, &s);
	assert_true(n >= 20);
	assert_int_equal(s.events, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_slice),
		cmocka_unit_test(test_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
