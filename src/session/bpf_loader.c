// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "session/bpf_loader.h"
#include "session/map_batch.h"
#include "profile/drain.h"
#include "util/grow.h"
#include "profile.skel.h"

struct bpf_session {
	struct cpuprof_profile *skel;
	int *cpus;
	int ncpus;
	int *pfds;		  /* one perf event per CPU, -1 when closed */
	struct bpf_link **plinks; /* the program attached to each */
	const char *step;
	bool unwind;	   /* the DWARF walker is started: its tables may be written */
	bool dwarf;	   /* the dstacks maps are in use */
	bool runtimes;	   /* the rtstacks maps are in use (a runtime's walker, with dwarf) */
	int mmap_hooks;	   /* the attach of cp_sys_exit: 0, or its -errno (dwarf only) */
	bool verifier_log; /* the kernel's verifier log asked for (-v -v) */
	bool rt_loaded[CP_RT_MAX]; /* runtime id's walker is in unwind_progs */
	bool jit_hook;		   /* cp_unwind_jit (the walk with the JIT hook) is in its slot */
	/* sums of cp_slot_counters.counts, .ustacks, .dstacks when each set was last cleared */
	uint64_t base[CP_SLOTS][3];
	/* how each aggregation map of each set is read and cleared (batched or per key) */
	struct map_batch mb[CP_SLOTS][5];
};

/* The aggregation maps of one slot (shared.h: two sets, drained in turn). */
enum { MB_COUNTS, MB_USTACKS, MB_KSTACKS, MB_DSTACKS, MB_RTSTACKS };
struct slot_maps {
	struct bpf_map *counts, *ustacks, *kstacks, *dstacks, *rtstacks;
};

static struct slot_maps slot_maps(const struct bpf_session *s, unsigned int slot)
{
	const struct cpuprof_profile *k = s->skel;

	if (slot)
		return (struct slot_maps){k->maps.counts1, k->maps.ustacks1, k->maps.kstacks1,
					  k->maps.dstacks1, k->maps.rtstacks1};
	return (struct slot_maps){k->maps.counts0, k->maps.ustacks0, k->maps.kstacks0,
				  k->maps.dstacks0, k->maps.rtstacks0};
}

/* The walker program of runtime id (bpf/runtime_profile.bpf.h), NULL when none. */
static struct bpf_program *rt_prog(const struct cpuprof_profile *k, uint32_t id)
{
	switch (id) {
	case CP_RT_PYTHON:
		return k->progs.cp_py;
	case CP_RT_RUBY:
		return k->progs.cp_rb;
	case CP_RT_PHP:
		return k->progs.cp_php;
	case CP_RT_PERL:
		return k->progs.cp_pl;
	case CP_RT_V8:
		return k->progs.cp_v8;
	case CP_RT_JAVA:
		return k->progs.cp_java;
	}
	return NULL;
}

/* Whether runtime id's frames are found by the JIT hook of the walk (bpf/jit_hook.bpf.h). */
static bool rt_jit(uint32_t id)
{
	return id == CP_RT_V8 || id == CP_RT_JAVA;
}

/* Whether the configuration asks for runtime id's frames (its option). */
static bool rt_wanted(const struct cp_config *cfg, uint32_t id)
{
	return id < CP_RT_MAX && (cfg->runtimes >> id & 1);
}

static int read_file_str(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	return 0;
}

int cpulist_parse(const char *s, int **cpus, int *n)
{
	int *v = NULL, cnt = 0, cap = 0, err = 0;
	const char *p = s;

	*cpus = NULL;
	*n = 0;
	while (*p && *p != '\n') {
		char *end;
		long lo, hi;

		errno = 0;
		lo = strtol(p, &end, 10);
		if (end == p || errno || lo < 0 || lo > 1 << 20) {
			err = -EINVAL;
			goto out;
		}
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			hi = strtol(p, &end, 10);
			if (end == p || errno || hi < lo || hi > 1 << 20) {
				err = -EINVAL;
				goto out;
			}
			p = end;
		}
		for (long c = lo; c <= hi; c++) {
			if (cnt == cap) {
				int *nv;

				cap = cap ? cap * 2 : 16;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					err = -ENOMEM;
					goto out;
				}
				v = nv;
			}
			v[cnt++] = (int)c;
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n') {
			err = -EINVAL;
			goto out;
		}
	}
	if (!cnt)
		err = -EINVAL;
out:
	if (err) {
		free(v);
		return err;
	}
	*cpus = v;
	*n = cnt;
	return 0;
}

/* A perf_event program that looks up key 0 of map: its fd, or a negative errno. */
static int lookup_prog(int map)
{
	/* *(u32 *)(fp - 4) = 0; r0 = bpf_map_lookup_elem(map, fp - 4); r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{.code = BPF_ST | BPF_MEM | BPF_W, .dst_reg = BPF_REG_10, .off = -4},
		{.code = BPF_LD | BPF_IMM | BPF_DW,
		 .dst_reg = BPF_REG_1,
		 .src_reg = BPF_PSEUDO_MAP_FD,
		 .imm = map},
		{0}, /* the upper half of the 64-bit immediate */
		{.code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_2, .src_reg = BPF_REG_10},
		{.code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_2, .imm = -4},
		{.code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_lookup_elem},
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0},
		{.code = BPF_JMP | BPF_EXIT},
	};

	int fd = bpf_prog_load(BPF_PROG_TYPE_PERF_EVENT, "cp_probe", "GPL", insns,
			       sizeof(insns) / sizeof(insns[0]), NULL);

	return fd < 0 ? -errno : fd;
}

/*
 * Whether a perf_event program may use a hash map without preallocated elements: since Linux
 * 6.1 such a map allocates from per-CPU caches (bpf_mem_alloc) that are safe where the program
 * runs; before, the verifier refuses the program ("perf_event programs can only use
 * preallocated hash map"). Asked of the kernel with a map of one entry and a program that
 * looks it up.
 */
static bool hash_noprealloc_ok(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	int map = bpf_map_create(BPF_MAP_TYPE_HASH, "cp_probe", sizeof(__u32), sizeof(__u32), 1,
				 &opts),
	    prog;

	if (map < 0)
		return false;
	prog = lookup_prog(map);
	close(map);
	if (prog < 0)
		return false;
	close(prog);
	return true;
}

/*
 * The hash maps kept preallocated: rt_names, into which one sample may copy up to
 * CP_RT_NAMES_PER_SAMPLE names in one program run, while a map without preallocation takes
 * its elements from a per-CPU cache refilled only after the run (one element of that size at
 * the first run on a CPU): the names beyond would be refused (ENOMEM) and not copied again
 * while their stack is in the set. dstacks, which nearly every --unwind dwarf sample of a new
 * stack inserts into: the cache of its 2 KiB values (4 KiB allocations) is refilled every few
 * inserts, through a self-interrupt, and the sampling program took 12 % longer (bpf_stats,
 * fix_paths: a new stack at every sample), more than the 7 ms its creation costs at the start.
 */
static bool keep_prealloc(const struct bpf_session *s, const struct bpf_map *m)
{
	const struct cpuprof_profile *k = s->skel;

	return m == k->maps.rt_names || m == k->maps.dstacks0 || m == k->maps.dstacks1;
}

/*
 * The other hash maps without preallocated elements when the kernel allows it
 * (hash_noprealloc_ok): their kernel memory then follows what they hold rather than their
 * capacity, and the ~60 MiB of elements they would be at full size (rtstacks of the runtimes'
 * walkers, counts, procs, uprocs...) are neither allocated, zeroed and charged at load nor
 * freed at exit. A map at max_entries still refuses inserts (E2BIG), counted as full as before;
 * each takes at most one insert per program run, from a cache that then holds one at least.
 * LRU and stack trace maps are always preallocated.
 */
static int hash_maps_noprealloc(struct bpf_session *s)
{
	struct bpf_map *m;
	int err = 0;

	if (!hash_noprealloc_ok())
		return 0;
	bpf_object__for_each_map(m, s->skel->obj)
	{
		if (bpf_map__type(m) == BPF_MAP_TYPE_HASH && !keep_prealloc(s, m))
			err = bpf_map__set_map_flags(m, bpf_map__map_flags(m) | BPF_F_NO_PREALLOC);
		if (err)
			return err;
	}
	return 0;
}

/* Maps and programs of --unwind dwarf: sized for use, or as small as possible and not loaded. */
static int setup_unwind(struct bpf_session *s, bool dwarf, const struct bpf_unwind_sizes *uw)
{
	struct cpuprof_profile *k = s->skel;
	int err = 0;

	if (dwarf) {
		if (!uw)
			return -EINVAL;
		if (uw->procs)
			err = bpf_map__set_max_entries(k->maps.uprocs, uw->procs);
		/* frame-pointer stacks are the fallback only (no table yet): 4 MiB, not 32 */
		for (unsigned int i = 0; !err && i < CP_SLOTS; i++)
			err = bpf_map__set_max_entries(slot_maps(s, i).ustacks,
						       CP_DEF_USTACK_ENTRIES / 8);
		return err;
	}
	err = bpf_program__set_autoload(k->progs.cp_unwind, false);
	if (!err)
		err = bpf_program__set_autoload(k->progs.cp_unwind_jit, false);
	if (!err)
		err = bpf_program__set_autoload(k->progs.cp_sys_exit, false);
	for (uint32_t id = 1; !err && id < CP_RT_MAX; id++)
		if (rt_prog(k, id))
			err = bpf_program__set_autoload(rt_prog(k, id), false);
	if (!err)
		err = bpf_map__set_max_entries(k->maps.uprocs, 1);
	if (!err)
		err = bpf_map__set_max_entries(k->maps.objtab, 1);
	if (!err)
		err = bpf_map__set_max_entries(k->maps.vmasent, 1);
	if (!err)
		err = bpf_map__set_max_entries(k->maps.vtables, 1);
	for (unsigned int i = 0; !err && i < CP_SLOTS; i++)
		err = bpf_map__set_max_entries(slot_maps(s, i).dstacks, 1);
	return err;
}

static int start_unwind(struct bpf_session *s)
{
	struct cpuprof_profile *k = s->skel;
	uint32_t zero = 0;
	int fd = bpf_program__fd(s->jit_hook ? k->progs.cp_unwind_jit : k->progs.cp_unwind);

	if (bpf_map_update_elem(bpf_map__fd(k->maps.unwind_progs), &zero, &fd, BPF_ANY))
		return -errno;
	s->unwind = true;
	return 0;
}

int bpf_session__open(struct bpf_session **out, const struct cp_config *cfg,
		      const struct bpf_unwind_sizes *uw, bool verifier_log,
		      const char **failed_step)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts, .kernel_log_level = verifier_log ? 1 : 0);
	struct bpf_session *s;
	char buf[1024];
	int err;

	*out = NULL;
	*failed_step = "allocate memory";
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->step = "read the online CPU list";
	err = read_file_str("/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (!err)
		err = cpulist_parse(buf, &s->cpus, &s->ncpus);
	if (err)
		goto fail;
	s->pfds = malloc(s->ncpus * sizeof(*s->pfds));
	s->plinks = calloc(s->ncpus, sizeof(*s->plinks));
	if (!s->pfds || !s->plinks) {
		err = -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < s->ncpus; i++)
		s->pfds[i] = -1;

	/*
	 * RLIMIT_MEMLOCK: libbpf 1.x raises it itself (to infinity) when the kernel still charges
	 * BPF maps to it (before 5.11); later kernels charge the memory cgroup instead.
	 */
	s->step = "open the BPF object";
	s->skel = cpuprof_profile__open_opts(&oopts);
	if (!s->skel) {
		err = -errno;
		goto fail;
	}
	s->skel->rodata->cfg = *cfg;
	s->step = "size the unwind table maps";
	s->dwarf = cfg->unwind_dwarf;
	err = setup_unwind(s, cfg->unwind_dwarf, uw);
	if (err)
		goto fail;
	/* the runtimes' walkers run at the end of the DWARF walk's chain only */
	for (uint32_t id = 1; id < CP_RT_MAX; id++) {
		bool on = cfg->unwind_dwarf && rt_wanted(cfg, id);

		s->runtimes |= on;
		/*
		 * A walker is loaded (verified) when its first process is found
		 * (bpf_session__load_rt_walker): most runtimes never are. Those a command likely
		 * runs (runtimes_now) are loaded with the rest, ready at its first sample.
		 */
		s->rt_loaded[id] = on && (cfg->runtimes_now >> id & 1) && rt_prog(s->skel, id);
		if (cfg->unwind_dwarf && rt_prog(s->skel, id) && !s->rt_loaded[id])
			err = bpf_program__set_autoload(rt_prog(s->skel, id), false);
		if (err)
			goto fail;
	}
	/*
	 * The walk with the JIT hook (HotSpot's and V8's steps: most of the verifier's time for the
	 * walk) replaces the one without when its first process is found, as the walkers are
	 * loaded; at the start with theirs when a command likely runs them (runtimes_now).
	 */
	s->jit_hook = s->rt_loaded[CP_RT_V8] || s->rt_loaded[CP_RT_JAVA];
	if (cfg->unwind_dwarf)
		err = bpf_program__set_autoload(s->jit_hook ? s->skel->progs.cp_unwind
							    : s->skel->progs.cp_unwind_jit,
						false);
	if (err)
		goto fail;
	if (!s->runtimes) {
		for (unsigned int i = 0; !err && i < CP_SLOTS; i++)
			err = bpf_map__set_max_entries(slot_maps(s, i).rtstacks, 1);
		if (!err)
			err = bpf_map__set_max_entries(s->skel->maps.rt_procs, 1);
		if (!err)
			err = bpf_map__set_max_entries(s->skel->maps.rt_names, 1);
		if (err)
			goto fail;
	}

	s->step = "size the maps";
	/* goroutine labels are read only when asked for, with user stacks (record.c) */
	if (!cfg->go_labels || !cfg->user_stacks) {
		err = bpf_map__set_max_entries(s->skel->maps.golabels, 1);
		if (!err)
			err = bpf_map__set_max_entries(s->skel->maps.go_procs, 1);
	}
	if (!err)
		err = hash_maps_noprealloc(s);
	if (err)
		goto fail;

	s->step = "load the BPF programs";
	err = cpuprof_profile__load(s->skel);
	if (err)
		goto fail;
	if (cfg->unwind_dwarf) {
		s->step = "set up the DWARF unwinder";
		err = start_unwind(s);
		if (err)
			goto fail;
	}
	for (uint32_t id = 1; id < CP_RT_MAX; id++) {
		uint32_t slot = CP_RT_WALKER(id);
		int fd;

		if (!s->rt_loaded[id])
			continue;
		fd = bpf_program__fd(rt_prog(s->skel, id));
		s->step = "set up an interpreter's walker";
		if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.unwind_progs), &slot, &fd,
					BPF_ANY)) {
			err = -errno;
			goto fail;
		}
	}
	s->verifier_log = verifier_log;
	s->step = "";
	*failed_step = "";
	*out = s;
	return 0;
fail:
	*failed_step = s->step;
	bpf_session__free(s);
	return err < 0 ? err : -EINVAL;
}

/*
 * A second object from the same ELF bytes, every map the main object's (globals included: the
 * internal .rodata/.data/.bss/.kconfig maps are reused, so not written again), only runtime
 * id's walker loaded (and, for a runtime of the JIT hook, cp_unwind_jit, unless it is in
 * already), then its fd in the slot cp_unwind tail-calls (cp_unwind_jit's in the walk's own
 * slot, after the walker's: the hook's frames need their walker). The object is closed
 * after: the prog array holds the programs.
 */
int bpf_session__load_rt_walker(struct bpf_session *s, uint32_t id)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts, .kernel_log_level = s->verifier_log ? 1 : 0);
	struct bpf_map *mine, *theirs = NULL;
	struct bpf_program *prog, *want, *hook = NULL;
	struct bpf_object *obj;
	const void *bytes;
	uint32_t slot = CP_RT_WALKER(id), zero = 0;
	size_t size;
	int err = 0, fd;

	if (id >= CP_RT_MAX || !rt_prog(s->skel, id) || !s->runtimes ||
	    !rt_wanted(&s->skel->rodata->cfg, id))
		return -EINVAL;
	if (bpf_session__rt_walker_loaded(s, id))
		return 0;
	s->step = "load an interpreter's walker";
	bytes = cpuprof_profile__elf_bytes(&size);
	obj = bpf_object__open_mem(bytes, size, &oopts);
	if (!obj)
		return -errno;
	want = bpf_object__find_program_by_name(obj, bpf_program__name(rt_prog(s->skel, id)));
	if (!want) {
		err = -ENOENT;
		goto out;
	}
	if (rt_jit(id) && !s->jit_hook) {
		hook = bpf_object__find_program_by_name(
			obj, bpf_program__name(s->skel->progs.cp_unwind_jit));
		if (!hook) {
			err = -ENOENT;
			goto out;
		}
	}
	bpf_object__for_each_program(prog, obj)
	{
		err = bpf_program__set_autoload(prog, prog == want || prog == hook);
		if (err)
			goto out;
	}
	/* the same bytes: the same maps in the same order */
	bpf_object__for_each_map(mine, obj)
	{
		theirs = bpf_object__next_map(s->skel->obj, theirs);
		if (!theirs || bpf_map__fd(theirs) < 0) {
			err = -EINVAL;
			goto out;
		}
		err = bpf_map__reuse_fd(mine, bpf_map__fd(theirs));
		if (err)
			goto out;
	}
	err = bpf_object__load(obj);
	if (err)
		goto out;
	fd = bpf_program__fd(want);
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.unwind_progs), &slot, &fd, BPF_ANY)) {
		err = -errno;
		goto out;
	}
	if (hook) {
		fd = bpf_program__fd(hook);
		if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.unwind_progs), &zero, &fd,
					BPF_ANY)) {
			err = -errno;
			goto out;
		}
		s->jit_hook = true;
	}
	s->rt_loaded[id] = true;
	s->step = "";
out:
	bpf_object__close(obj);
	return err < 0 ? err : (err ? -EINVAL : 0);
}

bool bpf_session__rt_walker_loaded(const struct bpf_session *s, uint32_t id)
{
	return id < CP_RT_MAX && s->rt_loaded[id] && (!rt_jit(id) || s->jit_hook);
}

bool bpf_session__jit_hook_loaded(const struct bpf_session *s)
{
	return s->jit_hook;
}

int bpf_session__attach_tracking(struct bpf_session *s)
{
	struct cpuprof_profile *k = s->skel;

	s->step = "attach the fork tracepoint";
	k->links.cp_fork = bpf_program__attach(k->progs.cp_fork);
	if (!k->links.cp_fork)
		return -errno;
	s->step = "attach the exec tracepoint";
	k->links.cp_exec = bpf_program__attach(k->progs.cp_exec);
	if (!k->links.cp_exec)
		return -errno;
	s->step = "attach the exit tracepoint";
	k->links.cp_exit = bpf_program__attach(k->progs.cp_exit);
	if (!k->links.cp_exit)
		return -errno;
	/*
	 * Executable mmaps and mprotects of new programs (tables made in BPF from their VMAs).
	 * Not fatal: without the sys_exit tracepoint only what exec mapped is known so, and code
	 * mapped later waits for user space to read the mappings.
	 */
	if (bpf_program__autoload(k->progs.cp_sys_exit)) {
		k->links.cp_sys_exit = bpf_program__attach(k->progs.cp_sys_exit);
		s->mmap_hooks = k->links.cp_sys_exit ? 0 : -errno;
	}

	s->step = "";
	return 0;
}

int bpf_session__trace_proc(struct bpf_session *s, uint32_t pid)
{
	int fd = bpf_map__fd(s->skel->maps.procs);
	struct cp_proc p = {.flags = CP_PROC_TRACED};

	if (bpf_map_update_elem(fd, &pid, &p, BPF_ANY))
		return -errno;
	return 0;
}

int bpf_session__know_proc(struct bpf_session *s, uint32_t pid)
{
	int fd = bpf_map__fd(s->skel->maps.procs);
	struct cp_proc p = {0};

	if (bpf_map_update_elem(fd, &pid, &p, BPF_NOEXIST) && errno != EEXIST)
		return -errno;
	return 0;
}

int bpf_session__exclude_proc(struct bpf_session *s, uint32_t pid)
{
	uint32_t one = 1;

	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.excluded), &pid, &one, BPF_ANY))
		return -errno;
	return 0;
}

int bpf_session__refresh_taken(struct bpf_session *s, uint32_t pid)
{
	if (bpf_map_delete_elem(bpf_map__fd(s->skel->maps.refresh), &pid) && errno != ENOENT)
		return -errno;
	return 0;
}

int perf_cpu_clock_open(int cpu, unsigned int freq)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = freq,
		.freq = 1,
		.disabled = 1,
	};
	int fd = (int)syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int bpf_session__start_sampling(struct bpf_session *s, unsigned int freq)
{
	int err = 0;

	for (int i = 0; i < s->ncpus; i++) {
		s->step = "open a cpu-clock perf event";
		s->pfds[i] = perf_cpu_clock_open(s->cpus[i], freq);
		if (s->pfds[i] < 0) {
			err = s->pfds[i];
			s->pfds[i] = -1;
			/* a CPU that went offline since the list was read is not an error */
			if (err == -ENODEV)
				continue;
			goto fail;
		}
		s->step = "attach the sampling program";
		s->plinks[i] = bpf_program__attach_perf_event(s->skel->progs.cp_sample, s->pfds[i]);
		if (!s->plinks[i]) {
			err = -errno;
			goto fail;
		}
	}
	s->step = "";
	return 0;
fail:
	bpf_session__stop_sampling(s);
	return err;
}

void bpf_session__pause_sampling(struct bpf_session *s)
{
	if (!s || !s->pfds)
		return;
	for (int i = 0; i < s->ncpus; i++) {
		if (s->pfds[i] >= 0)
			ioctl(s->pfds[i], PERF_EVENT_IOC_DISABLE, 0);
	}
}

void bpf_session__stop_sampling(struct bpf_session *s)
{
	if (!s || !s->pfds)
		return;
	bpf_session__pause_sampling(s);
	for (int i = 0; i < s->ncpus; i++) {
		bpf_link__destroy(s->plinks[i]);
		s->plinks[i] = NULL;
		if (s->pfds[i] >= 0)
			close(s->pfds[i]);
		s->pfds[i] = -1;
	}
}

int bpf_session__ncpus(const struct bpf_session *s)
{
	return s->ncpus;
}

int bpf_session__events_fd(const struct bpf_session *s)
{
	return bpf_map__fd(s->skel->maps.events);
}

int bpf_session__read_stats(const struct bpf_session *s, uint64_t out[CP_STAT_MAX])
{
	int fd = bpf_map__fd(s->skel->maps.stats), ncpu = libbpf_num_possible_cpus();
	uint64_t *vals;
	int err = 0;

	if (ncpu < 0)
		return ncpu;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (uint32_t i = 0; i < CP_STAT_MAX; i++) {
		out[i] = 0;
		if (bpf_map_lookup_elem(fd, &i, vals)) {
			err = -errno;
			break;
		}
		for (int c = 0; c < ncpu; c++)
			out[i] += vals[c];
	}
	free(vals);
	return err;
}

int bpf_session__mmap_hooks(const struct bpf_session *s)
{
	return s->mmap_hooks;
}

int bpf_session__add_row_chunks(struct bpf_session *s, uint32_t first, uint32_t n)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
	LIBBPF_OPTS(bpf_map_batch_opts, bopts);
	uint32_t keys[CP_MAX_ROW_CHUNKS], made = 0, count = n;
	int fds[CP_MAX_ROW_CHUNKS], outer, err = 0;

	if (!s->unwind)
		return -EOPNOTSUPP;
	if (!n || first > CP_MAX_ROW_CHUNKS || n > CP_MAX_ROW_CHUNKS - first)
		return -EINVAL;
	for (; made < n; made++) {
		keys[made] = first + made;
		/* one element, all the rows: the bytes of CP_ROW_CHUNK_ROWS rows in a row */
		fds[made] = bpf_map_create(BPF_MAP_TYPE_ARRAY, "cp_row_chunk", sizeof(__u32),
					   sizeof(struct cp_row_chunk), 1, &opts);
		if (fds[made] < 0) {
			err = -errno;
			goto out;
		}
	}
	/* the array of maps holds the chunks from here on */
	outer = bpf_map__fd(s->skel->maps.unwind_chunks);
	if (!bpf_map_update_batch(outer, keys, fds, &count, &bopts))
		goto out;
	/* a kernel without batched updates of arrays of maps: one at a time */
	for (uint32_t i = 0; i < n && !err; i++)
		if (bpf_map_update_elem(outer, &keys[i], &fds[i], BPF_ANY))
			err = -errno;
out:
	for (uint32_t i = 0; i < made; i++)
		close(fds[i]);
	return err;
}

/* Rows written through one mapping at most: what the copy adds to RSS, for a moment. */
#define ROWS_WINDOW_BYTES (1u << 20)

/*
 * A chunk is mapped a window at a time, only while rows are copied in, through a descriptor
 * of its own opened from its id in the array of maps: kept mapped, its pages would count in
 * cpuprof's RSS though nothing reads them back. The kernel maps the pages of an mmapable
 * array at mmap time (no faults), and accepts a page offset.
 */
int bpf_session__write_row_chunk(struct bpf_session *s, uint32_t chunk, uint32_t off,
				 const struct cp_unwind_row *rows, uint32_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t pos = (size_t)off * sizeof(*rows), end = pos + (size_t)n * sizeof(*rows);
	uint32_t id;
	int fd, err = 0;

	if (!s->unwind)
		return -EOPNOTSUPP;
	if (chunk >= CP_MAX_ROW_CHUNKS || off > CP_ROW_CHUNK_ROWS || n > CP_ROW_CHUNK_ROWS - off)
		return -EINVAL;
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.unwind_chunks), &chunk, &id))
		return errno == ENOENT ? -ENOENT : -errno;
	fd = bpf_map_get_fd_by_id(id);
	if (fd < 0)
		return -errno;
	while (pos < end) {
		size_t start = pos & ~(page - 1), len = end - start, skip = pos - start, maplen;
		char *p;

		if (len > ROWS_WINDOW_BYTES)
			len = ROWS_WINDOW_BYTES;
		maplen = (len + page - 1) & ~(page - 1);
		p = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)start);
		if (p == MAP_FAILED) {
			err = -errno;
			break;
		}
		memcpy(p + skip, (const char *)rows, len - skip);
		munmap(p, maplen);
		rows = (const struct cp_unwind_row *)((const char *)rows + (len - skip));
		pos = start + len;
	}
	close(fd);
	return err;
}

int bpf_session__set_unwind_proc(struct bpf_session *s, uint32_t pid,
				 const struct cp_unwind_proc *up)
{
	if (!s->unwind)
		return -EOPNOTSUPP;
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.uprocs), &pid, up, BPF_ANY))
		return -errno;
	/* the walkers' row caches may hold rows found through the old table */
	__atomic_fetch_add(&s->skel->bss->tables_epoch, 1, __ATOMIC_SEQ_CST);
	return 0;
}

int bpf_session__put_object(struct bpf_session *s, const struct cp_obj_key *key,
			    const struct cp_obj_table *t)
{
	if (!s->unwind)
		return -EOPNOTSUPP;
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.objtab), key, t, BPF_ANY))
		return -errno;
	return 0;
}

int bpf_session__set_go_proc(struct bpf_session *s, uint32_t pid, const struct cp_go_proc *gp)
{
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.go_procs), &pid, gp, BPF_ANY))
		return -errno;
	__atomic_store_n(&s->skel->bss->go_present, 1, __ATOMIC_SEQ_CST);
	return 0;
}

int bpf_session__set_rt_proc(struct bpf_session *s, uint32_t pid, const struct cp_rt_proc *rp)
{
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.rt_procs), &pid, rp, BPF_ANY))
		return -errno;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int bpf_session__rt_name(const struct bpf_session *s, uint32_t pid, uint32_t gen, uint64_t ptr,
			 struct cp_rt_name *out)
{
	struct cp_rt_name_key k = {.pid = pid, .gen = gen, .ptr = ptr};

	if (!s->runtimes)
		return -ENOENT;
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.rt_names), &k, out))
		return -errno;
	return 0;
}

int bpf_session__forget_rt_names(struct bpf_session *s, const uint64_t *keys, size_t n)
{
	int fd = bpf_map__fd(s->skel->maps.rt_names);
	struct cp_rt_name_key k, next;
	const void *prev = NULL;
	uint64_t *gone = NULL;
	size_t n_gone = 0, cap = 0;
	int err = 0;

	if (!s->runtimes || !n)
		return 0;
	/* the keys to delete first: deleting while iterating restarts the iteration */
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		uint64_t pg = (uint64_t)next.pid << 32 | next.gen;

		k = next;
		prev = &k;
		if (!bsearch(&pg, keys, n, sizeof(*keys), cmp_u64))
			continue;
		if (array_grow((void **)&gone, &cap, n_gone + 2, sizeof(*gone))) {
			err = -ENOMEM;
			break;
		}
		gone[n_gone++] = pg;
		gone[n_gone++] = next.ptr;
	}
	for (size_t i = 0; i + 1 < n_gone; i += 2) {
		k = (struct cp_rt_name_key){(uint32_t)(gone[i] >> 32), (uint32_t)gone[i],
					    gone[i + 1]};
		bpf_map_delete_elem(fd, &k);
	}
	free(gone);
	return err;
}

/* Sum the n per-CPU counters of map m into out. */
static int read_percpu_stats(struct bpf_map *m, uint64_t *out, uint32_t n)
{
	int fd = bpf_map__fd(m), ncpu = libbpf_num_possible_cpus();
	uint64_t *v;

	memset(out, 0, n * sizeof(*out));
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		if (bpf_map_lookup_elem(fd, &i, v)) {
			free(v);
			return -errno;
		}
		for (int c = 0; c < ncpu; c++)
			out[i] += v[c];
	}
	free(v);
	return 0;
}

int bpf_session__read_rt_stats(const struct bpf_session *s, uint64_t out[CP_RT_STATS])
{
	if (!s->runtimes) {
		memset(out, 0, CP_RT_STATS * sizeof(*out));
		return 0;
	}
	return read_percpu_stats(s->skel->maps.rt_stats, out, CP_RT_STATS);
}

int bpf_session__for_each_rt_stack(struct bpf_session *s, rt_stack_want_fn want, rt_stack_fn fn,
				   void *ctx)
{
	struct cp_rt_stored *v;
	int err = 0;

	if (!s->runtimes)
		return 0;
	v = malloc(sizeof(*v));
	if (!v)
		return -ENOMEM;
	/* both sets: a stack is named while the kernel fills either */
	for (unsigned int i = 0; !err && i < CP_SLOTS; i++) {
		int fd = bpf_map__fd(slot_maps(s, i).rtstacks);
		uint64_t key, next;
		const void *prev = NULL;

		while (!err && bpf_map_get_next_key(fd, prev, &next) == 0) {
			key = next;
			prev = &key;
			if (!want(next, ctx))
				continue;
			/* deleted meanwhile (a drain cleared its set), or not the walker's */
			if (bpf_map_lookup_elem(fd, &next, v) || v->st.len > CP_RT_MAX_FRAMES)
				continue;
			err = fn(next, v, ctx);
		}
	}
	free(v);
	return err;
}

/* ---- the two sets of aggregation maps ---------------------------------------------------- */

/* The per-CPU slot counters, summed over the CPUs. */
static int read_slot_counters(const struct bpf_session *s, struct cp_slot_counters *sum)
{
	int ncpu = libbpf_num_possible_cpus();
	struct cp_slot_counters *v;
	uint32_t zero = 0;
	int err = 0;

	memset(sum, 0, sizeof(*sum));
	if (ncpu < 0)
		return ncpu;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.slot_counters), &zero, v))
		err = -errno;
	for (int c = 0; !err && c < ncpu; c++) {
		for (int i = 0; i < CP_SLOTS; i++) {
			sum->enter[i] += v[c].enter[i];
			sum->leave[i] += v[c].leave[i];
			sum->counts[i] += v[c].counts[i];
			sum->ustacks[i] += v[c].ustacks[i];
			sum->dstacks[i] += v[c].dstacks[i];
		}
	}
	free(v);
	return err;
}

unsigned int bpf_session__active_slot(const struct bpf_session *s)
{
	return __atomic_load_n(&s->skel->bss->active_slot, __ATOMIC_SEQ_CST) & 1;
}

int bpf_session__switch_slot(struct bpf_session *s, unsigned int *old)
{
	struct cp_slot_counters sum;
	unsigned int o = bpf_session__active_slot(s);
	uint64_t deadline = 0;
	struct timespec ts;
	int err;

	*old = o;
	/* a sequentially consistent store, before the loads of the counters (shared.h) */
	__atomic_store_n(&s->skel->bss->active_slot, o ^ 1, __ATOMIC_SEQ_CST);
	for (;;) {
		err = read_slot_counters(s, &sum);
		if (err)
			return err;
		if (sum.enter[o] == sum.leave[o])
			return 0;
		/* a program runs for microseconds: a second means one never left */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (!deadline)
			deadline =
				(uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000 + 1000;
		else if ((uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000 > deadline)
			return -ETIMEDOUT;
		sched_yield();
	}
}

int bpf_session__fill_level(const struct bpf_session *s, unsigned int *pct)
{
	unsigned int slot = bpf_session__active_slot(s);
	struct slot_maps m = slot_maps(s, slot);
	struct cp_slot_counters sum;
	const uint64_t *b = s->base[slot];
	uint64_t counts, ustacks, dstacks, worst;
	int err = read_slot_counters(s, &sum);

	*pct = 0;
	if (err)
		return err;
	counts = sum.counts[slot] - b[0];
	ustacks = sum.ustacks[slot] - b[1];
	dstacks = sum.dstacks[slot] - b[2];
	/* in per mille of each map's capacity; every count key may name a new kernel stack */
	worst = counts * 1000 / bpf_map__max_entries(m.counts);
	if (ustacks * 1000 / bpf_map__max_entries(m.ustacks) > worst)
		worst = ustacks * 1000 / bpf_map__max_entries(m.ustacks);
	if (counts * 1000 / bpf_map__max_entries(m.kstacks) > worst)
		worst = counts * 1000 / bpf_map__max_entries(m.kstacks);
	if (s->dwarf && dstacks * 1000 / bpf_map__max_entries(m.dstacks) > worst)
		worst = dstacks * 1000 / bpf_map__max_entries(m.dstacks);
	*pct = (unsigned int)(worst / 10);
	return 0;
}

/*
 * The batch state of map which of slot: the stack trace maps have no batch operations (the
 * kernel's stack_trace_map_ops), so they take the per-key path from the start.
 */
static struct map_batch *mb_of(struct bpf_session *s, unsigned int slot, int which,
			       const struct bpf_map *m)
{
	struct map_batch *mb = &s->mb[slot & 1][which];

	if (mb->mode == MAP_BATCH_UNKNOWN && bpf_map__type(m) == BPF_MAP_TYPE_STACK_TRACE)
		mb->mode = MAP_BATCH_PER_KEY;
	return mb;
}

/* Delete every element of map which of slot (no program writes it now). */
static int clear_map(struct bpf_session *s, unsigned int slot, int which, struct bpf_map *m)
{
	return map_batch__clear(mb_of(s, slot, which, m), bpf_map__fd(m), bpf_map__key_size(m),
				bpf_map__value_size(m));
}

int bpf_session__clear_slot(struct bpf_session *s, unsigned int slot)
{
	struct slot_maps m = slot_maps(s, slot & 1);
	struct cp_slot_counters sum;
	int err;

	/* the set is quiet: its fill counters stand still, and count from here */
	err = read_slot_counters(s, &sum);
	if (!err) {
		s->base[slot & 1][0] = sum.counts[slot & 1];
		s->base[slot & 1][1] = sum.ustacks[slot & 1];
		s->base[slot & 1][2] = sum.dstacks[slot & 1];
		err = clear_map(s, slot, MB_COUNTS, m.counts);
	}
	if (!err)
		err = clear_map(s, slot, MB_USTACKS, m.ustacks);
	if (!err)
		err = clear_map(s, slot, MB_KSTACKS, m.kstacks);
	if (!err && s->dwarf)
		err = clear_map(s, slot, MB_DSTACKS, m.dstacks);
	if (!err && s->runtimes)
		err = clear_map(s, slot, MB_RTSTACKS, m.rtstacks);
	return err;
}

int bpf_session__proc_gen(const struct bpf_session *s, uint32_t pid, uint32_t *gen)
{
	struct cp_proc p;

	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.procs), &pid, &p))
		return -errno;
	*gen = p.gen;
	return 0;
}

/* A set of aggregation maps copied out of the kernel: its counts and the stacks they name. */
struct bpf_copy {
	struct cp_count_key *keys;
	uint64_t *counts;
	size_t n, cap;
	uint64_t total;	  /* the sum of counts */
	uint64_t *frames; /* every stack's frames, one after the other */
	size_t n_frames, cap_frames;
	/* stack id -> its frames: frames[first[id] - 1 ...] (first 0: not copied), len[id] */
	uint32_t *ufirst, *ulen, n_uids;
	uint32_t *kfirst, *klen, n_kids;
	struct copied_dstack {
		uint64_t key;
		uint64_t first; /* in frames */
		uint32_t len, end;
	} * ds;
	size_t n_ds, cap_ds;
	struct copied_rtstack {
		uint64_t key;
		uint64_t first; /* in rtframes */
		uint32_t len;
		uint16_t end, flags;
	} * rs;
	size_t n_rs, cap_rs;
	struct cp_rt_frame *rtframes;
	size_t n_rtframes, cap_rtframes;
	struct copied_labels {
		uint64_t key;
		struct cp_go_labels v;
	} * ls; /* sorted by key */
	size_t n_ls;
};

void bpf_copy__free(struct bpf_copy *c)
{
	if (!c)
		return;
	free(c->keys);
	free(c->counts);
	free(c->frames);
	free(c->ufirst);
	free(c->ulen);
	free(c->kfirst);
	free(c->klen);
	free(c->ds);
	free(c->rs);
	free(c->rtframes);
	free(c->ls);
	free(c);
}

static int copy_frames(struct bpf_copy *c, const uint64_t *ips, size_t n, uint64_t *first)
{
	if (array_grow((void **)&c->frames, &c->cap_frames, c->n_frames + n, sizeof(*c->frames)))
		return -ENOMEM;
	memcpy(c->frames + c->n_frames, ips, n * sizeof(*ips));
	*first = c->n_frames;
	c->n_frames += n;
	return 0;
}

/*
 * Copy stack id of map m once (frames up to the first 0); a stack that is gone stays out. A
 * stack trace map has no batch lookup: one lookup per stack, straight into c->frames.
 */
static int copy_stack(struct bpf_copy *c, struct bpf_map *m, bool kernel, int32_t id)
{
	uint32_t *first = kernel ? c->kfirst : c->ufirst, *len = kernel ? c->klen : c->ulen;
	uint32_t key = (uint32_t)id;
	uint64_t *ips;
	size_t n;

	if (id < 0 || key >= (kernel ? c->n_kids : c->n_uids) || first[key])
		return 0;
	if (array_grow((void **)&c->frames, &c->cap_frames, c->n_frames + CP_MAX_STACK_DEPTH,
		       sizeof(*c->frames)))
		return -ENOMEM;
	ips = c->frames + c->n_frames;
	if (bpf_map_lookup_elem(bpf_map__fd(m), &key, ips))
		return errno == ENOENT ? 0 : -errno;
	/* the map zero-fills after the last frame */
	for (n = 0; n < CP_MAX_STACK_DEPTH && ips[n]; n++)
		;
	if (c->n_frames + 1 > UINT32_MAX)
		return -E2BIG;
	first[key] = (uint32_t)c->n_frames + 1;
	len[key] = (uint32_t)n;
	c->n_frames += n;
	return 0;
}

static int cmp_dstack(const void *a, const void *b)
{
	const struct copied_dstack *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* A chunk of dstacks, read where the batch left it: only the frames in use are kept. */
static int take_dstacks(const void *keys, const void *vals, size_t n, void *ctx)
{
	const struct cp_dstack *st = vals;
	const uint64_t *key = keys;
	struct bpf_copy *c = ctx;

	for (size_t i = 0; i < n; i++) {
		struct copied_dstack *d;
		int err;

		if (st[i].len > CP_MAX_USTACK_DEPTH)
			continue; /* not a stack the walker writes: left out, so counted missing */
		if (array_grow((void **)&c->ds, &c->cap_ds, c->n_ds + 1, sizeof(*c->ds)))
			return -ENOMEM;
		d = &c->ds[c->n_ds];
		d->key = key[i];
		d->len = st[i].len;
		d->end = st[i].end;
		err = copy_frames(c, (const uint64_t *)st[i].ips, st[i].len, &d->first);
		if (err)
			return err;
		c->n_ds++;
	}
	return 0;
}

static int copy_dstacks(struct bpf_copy *c, struct map_batch *mb, struct bpf_map *m)
{
	int err = map_batch__read(mb, bpf_map__fd(m), sizeof(uint64_t), sizeof(struct cp_dstack),
				  take_dstacks, c);

	if (!err && c->n_ds)
		qsort(c->ds, c->n_ds, sizeof(*c->ds), cmp_dstack);
	return err;
}

static int cmp_rtstack(const void *a, const void *b)
{
	const struct copied_rtstack *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static int take_rtstacks(const void *keys, const void *vals, size_t n, void *ctx)
{
	const struct cp_rt_stored *v = vals;
	const uint64_t *key = keys;
	struct bpf_copy *c = ctx;

	for (size_t i = 0; i < n; i++) {
		struct copied_rtstack *d;

		if (v[i].st.len > CP_RT_MAX_FRAMES)
			continue;
		if (array_grow((void **)&c->rs, &c->cap_rs, c->n_rs + 1, sizeof(*c->rs)) ||
		    array_grow((void **)&c->rtframes, &c->cap_rtframes, c->n_rtframes + v[i].st.len,
			       sizeof(*c->rtframes)))
			return -ENOMEM;
		d = &c->rs[c->n_rs++];
		d->key = key[i];
		d->len = v[i].st.len;
		d->end = v[i].st.end;
		d->flags = v[i].st.flags;
		d->first = c->n_rtframes;
		memcpy(c->rtframes + c->n_rtframes, v[i].st.frames,
		       v[i].st.len * sizeof(*c->rtframes));
		c->n_rtframes += v[i].st.len;
	}
	return 0;
}

static int copy_rtstacks(struct bpf_copy *c, struct map_batch *mb, struct bpf_map *m)
{
	int err = map_batch__read(mb, bpf_map__fd(m), sizeof(uint64_t), sizeof(struct cp_rt_stored),
				  take_rtstacks, c);

	if (!err && c->n_rs)
		qsort(c->rs, c->n_rs, sizeof(*c->rs), cmp_rtstack);
	return err;
}

struct count_ctx {
	struct bpf_copy *c;
	struct slot_maps m;
};

/* A chunk of counts: appended whole, then the stacks their keys name. */
static int take_counts(const void *keys, const void *vals, size_t n, void *ctx)
{
	struct count_ctx *x = ctx;
	struct bpf_copy *c = x->c;
	size_t cap = c->cap;
	int err = 0;

	if (array_grow((void **)&c->keys, &cap, c->n + n, sizeof(*c->keys)) ||
	    array_grow((void **)&c->counts, &c->cap, c->n + n, sizeof(*c->counts)))
		return -ENOMEM;
	memcpy(c->keys + c->n, keys, n * sizeof(*c->keys));
	memcpy(c->counts + c->n, vals, n * sizeof(*c->counts));
	for (size_t i = c->n; !err && i < c->n + n; i++) {
		c->total += c->counts[i];
		err = copy_stack(c, x->m.ustacks, false, c->keys[i].ustack_id);
		if (!err)
			err = copy_stack(c, x->m.kstacks, true, c->keys[i].kstack_id);
	}
	c->n += n;
	return err;
}

static int cmp_labels(const void *a, const void *b)
{
	const struct copied_labels *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/*
 * The label sets the counts name, while they are in golabels (an LRU map the samples go on
 * filling: a set read now is one its samples stored, or one with the same hash).
 */
static int copy_labels(struct bpf_copy *c, int fd)
{
	size_t n = 0, k = 0;

	for (size_t i = 0; i < c->n; i++)
		n += c->keys[i].labels != 0;
	if (!n)
		return 0;
	c->ls = calloc(n, sizeof(*c->ls));
	if (!c->ls)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++)
		if (c->keys[i].labels)
			c->ls[k++].key = c->keys[i].labels;
	qsort(c->ls, n, sizeof(*c->ls), cmp_labels);
	for (size_t i = 0; i < n; i++) {
		if (c->n_ls && c->ls[c->n_ls - 1].key == c->ls[i].key)
			continue;
		c->ls[c->n_ls].key = c->ls[i].key;
		if (bpf_map_lookup_elem(fd, &c->ls[c->n_ls].key, &c->ls[c->n_ls].v))
			continue; /* pushed out: the samples show it */
		c->n_ls++;
	}
	return 0;
}

int bpf_session__copy_slot(struct bpf_session *s, unsigned int slot, struct bpf_copy **out)
{
	struct slot_maps m = slot_maps(s, slot & 1);
	struct bpf_copy *c = calloc(1, sizeof(*c));
	struct count_ctx x = {c, m};
	int err = 0;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->n_uids = bpf_map__max_entries(m.ustacks);
	c->n_kids = bpf_map__max_entries(m.kstacks);
	c->ufirst = calloc(c->n_uids, sizeof(*c->ufirst));
	c->ulen = calloc(c->n_uids, sizeof(*c->ulen));
	c->kfirst = calloc(c->n_kids, sizeof(*c->kfirst));
	c->klen = calloc(c->n_kids, sizeof(*c->klen));
	if (!c->ufirst || !c->ulen || !c->kfirst || !c->klen)
		err = -ENOMEM;
	/* no program writes this set now: every key is read once, with its count */
	if (!err)
		err = map_batch__read(mb_of(s, slot, MB_COUNTS, m.counts), bpf_map__fd(m.counts),
				      sizeof(struct cp_count_key), sizeof(uint64_t), take_counts,
				      &x);
	if (!err && s->dwarf)
		err = copy_dstacks(c, mb_of(s, slot, MB_DSTACKS, m.dstacks), m.dstacks);
	if (!err && s->runtimes)
		err = copy_rtstacks(c, mb_of(s, slot, MB_RTSTACKS, m.rtstacks), m.rtstacks);
	if (!err)
		err = copy_labels(c, bpf_map__fd(s->skel->maps.golabels));
	if (err) {
		bpf_copy__free(c);
		return err;
	}
	*out = c;
	return 0;
}

size_t bpf_copy__n_counts(const struct bpf_copy *c)
{
	return c->n;
}

uint64_t bpf_copy__total(const struct bpf_copy *c)
{
	return c->total;
}

static size_t copy_n_counts(void *ctx)
{
	return ((const struct bpf_copy *)ctx)->n;
}

static int copy_count(void *ctx, size_t i, const struct cp_count_key **key, uint64_t *count)
{
	const struct bpf_copy *c = ctx;

	*key = &c->keys[i];
	*count = c->counts[i];
	return 0;
}

/* The frames of a stack where the copy keeps them: the naming reads them in place. */
static int copy_stack_of(void *ctx, bool kernel, int32_t id, const uint64_t **ips, size_t *n)
{
	const struct bpf_copy *c = ctx;
	const uint32_t *first = kernel ? c->kfirst : c->ufirst, *len = kernel ? c->klen : c->ulen;
	uint32_t key = (uint32_t)id;

	*n = 0;
	if (id < 0 || key >= (kernel ? c->n_kids : c->n_uids) || !first[key])
		return -ENOENT;
	*ips = c->frames + first[key] - 1;
	*n = len[key];
	return 0;
}

static int copy_dstack_of(void *ctx, uint64_t key, const uint64_t **ips, size_t *n, uint32_t *end)
{
	const struct bpf_copy *c = ctx;
	struct copied_dstack k = {.key = key}, *d;

	d = c->n_ds ? bsearch(&k, c->ds, c->n_ds, sizeof(*c->ds), cmp_dstack) : NULL;
	if (!d)
		return -ENOENT;
	*ips = c->frames + d->first;
	*n = d->len;
	*end = d->end;
	return 0;
}

static int copy_rtstack_of(void *ctx, uint64_t key, struct cp_rt_stack *out)
{
	const struct bpf_copy *c = ctx;
	struct copied_rtstack k = {.key = key}, *d;

	d = c->n_rs ? bsearch(&k, c->rs, c->n_rs, sizeof(*c->rs), cmp_rtstack) : NULL;
	if (!d)
		return -ENOENT;
	out->len = d->len;
	out->end = d->end;
	out->flags = d->flags;
	out->ctx = 0;
	memcpy(out->frames, c->rtframes + d->first, d->len * sizeof(*out->frames));
	return 0;
}

static int copy_labels_of(void *ctx, uint64_t key, const struct cp_go_labels **out)
{
	const struct bpf_copy *c = ctx;
	struct copied_labels k = {.key = key}, *d;

	d = c->n_ls ? bsearch(&k, c->ls, c->n_ls, sizeof(*c->ls), cmp_labels) : NULL;
	if (!d)
		return -ENOENT;
	*out = &d->v;
	return 0;
}

void bpf_copy__drain(struct bpf_copy *c, struct drain *out)
{
	*out = (struct drain){
		.ctx = c,
		.n_counts = copy_n_counts,
		.count = copy_count,
		.stack = copy_stack_of,
		.dwarf_stack = copy_dstack_of,
		.rt_stack = copy_rtstack_of,
		.labels = copy_labels_of,
	};
}

const char *bpf_session__step(const struct bpf_session *s)
{
	return s ? s->step : "";
}

void bpf_session__free(struct bpf_session *s)
{
	if (!s)
		return;
	bpf_session__stop_sampling(s);
	cpuprof_profile__destroy(s->skel);
	free(s->plinks);
	free(s->pfds);
	free(s->cpus);
	free(s);
}
