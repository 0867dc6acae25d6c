// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "interp/runtime.h"
#include "output/folded.h"
#include "output/json_out.h"
#include "util/log.h"
#include "output/pprof.h"
#include "output/html.h"
#include "output/svg.h"
#include "session/report.h"
#include "unwind/unwind_maps.h"

/* Samples the profile does not hold, by reason. */
static const char *const left_out_names[CP_STAT_MAX] = {
	[CP_STAT_IDLE] = "idle",
	[CP_STAT_FILTERED] = "other processes",
	[CP_STAT_COUNTS_FULL] = "count map full",
	[CP_STAT_COUNTS_NOMEM] = "count map out of kernel memory",
	[CP_STAT_SLOT_BUSY] = "maps being switched",
};

/* Samples the profile holds with a stack that is marked lost, or frames left unnamed. */
static const char *const damaged_names[CP_STAT_MAX] = {
	[CP_STAT_USTACK_COLLISION] = "user stack collision",
	[CP_STAT_USTACK_FULL] = "user stack map full",
	[CP_STAT_USTACK_FAULT] = "user stack unreadable",
	[CP_STAT_USTACK_ERROR] = "user stack error",
	[CP_STAT_KSTACK_COLLISION] = "kernel stack collision",
	[CP_STAT_KSTACK_FULL] = "kernel stack map full",
	[CP_STAT_KSTACK_FAULT] = "kernel stack error",
	[CP_STAT_PROCS_FULL] = "process table full",
	[CP_STAT_PROCS_NOMEM] = "process table out of kernel memory",
	[CP_STAT_EVENTS_LOST] = "mapping requests lost",
	[CP_STAT_REFRESH_LOST] = "mapping refreshes lost",
	[CP_STAT_DWARF_TRUNCATED] = "user stack truncated",
	[CP_STAT_DWARF_NO_MAPPING] = "unwind failed: no mapping",
	[CP_STAT_DWARF_NOT_COVERED] = "unwind failed: no unwind info",
	[CP_STAT_DWARF_UNSUPPORTED] = "unwind failed: unsupported rule",
	[CP_STAT_DWARF_READ] = "unwind failed: stack unreadable",
	[CP_STAT_DWARF_LOOP] = "unwind failed: loop",
	[CP_STAT_DWARF_BAD_FP] = "truncated: bad frame pointer",
	[CP_STAT_DWARF_BAD_RA] = "truncated: bad return address",
	[CP_STAT_DWARF_NO_TABLE] = "user stack from frame pointers (no unwind table yet)",
	[CP_STAT_DWARF_COLLISION] = "unwound stack collision",
	[CP_STAT_DWARF_FULL] = "unwound stack map full",
	[CP_STAT_DWARF_TAILCALL] = "user stack from frame pointers (tail call failed)",
	[CP_STAT_REQ_THROTTLED] = "mapping requests put off (rate limit)",
	[CP_STAT_IN_EXECVE] = "user stack left out (sampled in execve)",
	[CP_STAT_GO_OLD_GEN] = "goroutine labels not read (Go offsets of an earlier exec)",
	[CP_STAT_GO_UNREAD] = "goroutine labels unreadable",
	[CP_STAT_GO_NEW_GEN] = "goroutine labels skipped (Go offsets set for a later exec)",
};

/*
 * Damage a kept sample's own key shows (aggregate_stats.kept): stack errors and how a DWARF walk
 * ended. A DWARF stack's collision or full map shows as the user stack's.
 */
static bool key_visible(int stat)
{
	return (stat >= CP_STAT_USTACK_COLLISION && stat <= CP_STAT_KSTACK_FAULT) ||
	       (stat > CP_STAT_DWARF_OK && stat <= CP_STAT_DWARF_BAD_RA) ||
	       stat == CP_STAT_DWARF_COLLISION || stat == CP_STAT_DWARF_FULL;
}

/* Append "name N" items to buf for the nonzero counters that have a name. */
static size_t list_counters(char *buf, size_t size, size_t len, const uint64_t *st,
			    const char *const *names)
{
	for (int i = 0; i < CP_STAT_MAX && len < size; i++) {
		if (!names[i] || !st[i])
			continue;
		len += snprintf(buf + len, size - len, "%s%s %" PRIu64, len ? ", " : "", names[i],
				st[i]);
	}
	return len < size ? len : size - 1;
}

/* Append one more "name N" item. */
static size_t list_one(char *buf, size_t size, size_t len, const char *name, uint64_t n)
{
	if (!n || len >= size)
		return len;
	len += snprintf(buf + len, size - len, "%s%s %" PRIu64, len ? ", " : "", name, n);
	return len < size ? len : size - 1;
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "es";
}

/* -v: what the unwind tables hold and cost, and how many stacks used them to the end. */
static void unwind_summary(const struct report *r)
{
	struct unwind_maps_stats us;

	unwind_maps__stats(r->um, &us);
	pr_info("unwind tables: %zu objects, %zu rows, %zu KiB (row store %zu KiB of BPF map "
		"memory: kernel, not in RSS), built in %.1f ms; %zu objects without (no CFI), "
		"%zu left out (--max-unwind-memory), %zu left out (out of memory); %" PRIu64
		" user stacks walked to their outermost frame, %" PRIu64 " of %" PRIu64
		" reached an entry point",
		us.objects, us.rows, us.rows * sizeof(struct cp_unwind_row) >> 10,
		us.chunks * CP_ROW_CHUNK_ROWS * sizeof(struct cp_unwind_row) >> 10,
		(double)us.build_ns / 1e6, us.objects_failed, us.objects_full, us.objects_dropped,
		r->stats[CP_STAT_DWARF_OK], r->agg.ustacks_entry, r->agg.ustacks);
}

/* MiB that n rows take, rounded up. */
static uint64_t rows_mib(uint64_t n)
{
	return (n * sizeof(struct cp_unwind_row) + (1u << 20) - 1) >> 20;
}

/*
 * Without -v: the unwind tables that did not fit in --max-unwind-memory (their code is
 * walked with frame pointers, so stacks through it may end early), and the value that would
 * have held them all.
 */
static void unwind_left_out(const struct report *r)
{
	struct unwind_maps_stats us;
	uint64_t want;
	char act[96];

	unwind_maps__stats(r->um, &us);
	if (!us.objects_full)
		return;
	want = rows_mib((uint64_t)us.rows + us.rows_full);
	if (want <= r->o->max_unwind_mib)
		want = r->o->max_unwind_mib + rows_mib(us.largest_full);
	if (want > CP_MAX_UNWIND_ROWS * sizeof(struct cp_unwind_row) >> 20)
		want = CP_MAX_UNWIND_ROWS * sizeof(struct cp_unwind_row) >> 20;
	if (want > r->o->max_unwind_mib)
		snprintf(act, sizeof(act), "run with --max-unwind-memory %" PRIu64 "%s", want,
			 want < rows_mib((uint64_t)us.rows + us.rows_full) ? " to keep more" : "");
	else
		snprintf(act, sizeof(act), "that is the most --max-unwind-memory takes");
	pr_warn_more("unwind tables left out: %zu (%" PRIu64 " MiB, the largest %" PRIu64
		     " MiB) did not fit in --max-unwind-memory %" PRIu64
		     "; stacks through them may end early; %s",
		     us.objects_full, rows_mib(us.rows_full), rows_mib(us.largest_full),
		     r->o->max_unwind_mib, act);
}

/* Whether comm (the kernel's, 15 bytes at most) is a process's of program name. */
static bool comm_is(const char *comm, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(comm, name, n) && (!comm[n] || (comm[n] >= '0' && comm[n] <= '9'));
}

/*
 * Samples in JIT code nothing names (anonymous executable memory, no perf map): the process
 * with the most, and what would name them. Said when they are 5% of the samples or more, of
 * processes whose runtime was not walked (one walked has a few, taken before it was found).
 */
static void anon_summary(const struct report *r, uint64_t total)
{
	const struct agg_anon_proc *top = NULL;
	char comm[sizeof(top->comm) + 1], others[64] = "";
	uint64_t shown = r->agg.anon_samples;
	const char *hint;
	int n = 0;

	for (int i = 0; i < AGG_ANON_PROCS; i++) {
		const struct agg_anon_proc *p = &r->agg.anon[i];

		/* a walked runtime's process: samples taken before it was found */
		if (p->walked)
			shown -= p->samples;
		if (!p->samples || p->walked)
			continue;
		n++;
		if (!top || p->samples > top->samples)
			top = p;
	}
	if (!top || shown * 20 < total)
		return;
	/* the kernel's bytes: the log escapes what the terminal should not get */
	memcpy(comm, top->comm, sizeof(top->comm));
	comm[sizeof(top->comm)] = 0;
	if (comm_is(top->comm, "node") || comm_is(top->comm, "nodejs"))
		hint = r->o->no_runtime[CP_RT_V8]
			       ? "cpuprof names node's JS frames without --no-node, or start "
				 "node with --perf-basic-prof"
			       : "this node's V8 metadata could not be used (-v says why); "
				 "node --perf-basic-prof writes a perf map that names them";
	else if (comm_is(top->comm, "java"))
		hint = r->o->no_runtime[CP_RT_JAVA]
			       ? "cpuprof names Java frames without --no-java"
			       : "this JVM could not be walked (a line says why, or -v); "
				 "-XX:+DumpPerfMapAtExit writes a perf map that names them";
	else
		hint = "a runtime that writes /tmp/perf-PID.map (its perf map) gets them named";
	if (n > 1)
		snprintf(others, sizeof(others), " (and %d other process%s)", n - 1,
			 n - 1 == 1 ? "" : "es");
	pr_warn_more("%" PRIu64
		     " samples ran JIT code no perf map names ([anon]+0x... frames), %" PRIu64
		     " of them in %s (pid %" PRIu32 ")%s: %s",
		     shown, top->samples, comm, top->pid, others, hint);
}

/*
 * The summary on stderr: one short line (samples, processes, time, where, how complete), then
 * an indented line for what was left out and one for what was damaged, each as "reason
 * count" items counted in samples, only when there is something to say.
 */
void report_summary(const struct report *r, size_t n_outs)
{
	char left[512] = "", damaged[1024] = "", wide[1024] = "", dests[1024], complete[64] = "";
	uint64_t total = profile__total(r->prof);
	size_t nproc = profile__n_processes(r->prof), len;

	const char *names[CP_STAT_MAX];

	memcpy(names, left_out_names, sizeof(names));
	/* system-wide, with no --comm, the only process left out is cpuprof: its own cost */
	if (!r->o->n_pids && !r->o->command && !r->o->comm_regex)
		names[CP_STAT_FILTERED] = "cpuprof itself";
	len = list_counters(left, sizeof(left), 0, r->stats, names);
	list_one(left, sizeof(left), len, "name not matching --comm", r->agg.comm_filtered);
	if (r->o->comm_regex) {
		/* the BPF counters cover every process sampled, the profile only those named */
		uint64_t rest[CP_STAT_MAX];

		for (int i = 0; i < CP_STAT_MAX; i++)
			rest[i] = key_visible(i) ? 0 : r->stats[i];
		list_counters(wide, sizeof(wide), 0, rest, damaged_names);
		len = list_counters(damaged, sizeof(damaged), 0, r->agg.kept, damaged_names);
	} else {
		len = list_counters(damaged, sizeof(damaged), 0, r->stats, damaged_names);
	}
	len = list_one(damaged, sizeof(damaged), len, "stack missing", r->agg.stacks_missing);
	len = list_one(damaged, sizeof(damaged), len, "user stack cut outside the mappings",
		       r->agg.bad_ra);
	len = list_one(damaged, sizeof(damaged), len, "process gone before its mappings were read",
		       r->snapshot_failed);
	len = list_one(damaged, sizeof(damaged), len, "mapping refresh too late (process gone)",
		       r->refresh_failed);
	/* interpreter frames no one could name (-v: per reason) */
	for (uint32_t id = 0; id < CP_RT_MAX; id++) {
		char what[64];

		if (!runtime_of(id) || !r->agg.rt_unnamed_samples[id])
			continue;
		snprintf(what, sizeof(what), "%s::[unknown] frame", runtime_of(id)->prefix);
		len = list_one(damaged, sizeof(damaged), len, what, r->agg.rt_unnamed_samples[id]);
	}
	dests[0] = '\0';
	for (size_t i = 0, dl = 0; i < n_outs && dl < sizeof(dests); i++)
		dl += snprintf(dests + dl, sizeof(dests) - dl, "%s%s", i ? ", " : "",
			       options_output_name(r->o, i));
	if (r->um)
		unwind_summary(r);
	{
		struct rusage ru;

		/* -v: what naming and the rest cost in memory at their worst: the kernel's mark was
		   set back before the output phase, the recording's peak is kept apart */
		if (!getrusage(RUSAGE_SELF, &ru)) {
			uint64_t kib = (uint64_t)ru.ru_maxrss;

			if (r->rec_peak_kib > kib)
				kib = r->rec_peak_kib;
			pr_info("peak RSS %.1f MB", (double)kib / 1024.0);
		}
	}
	if (r->agg.ustacks)
		snprintf(complete, sizeof(complete), "; %.1f%% of user stacks complete",
			 100.0 * (double)r->agg.ustacks_entry / (double)r->agg.ustacks);
	pr_warn("%" PRIu64 " sample%s from %zu process%s in %.1f s written to %s%s", total,
		total == 1 ? "" : "s", nproc, plural(nproc), r->recorded_s, dests, complete);
	if (*left)
		pr_warn_more("samples left out: %s", left);
	if (*damaged)
		pr_warn_more("with lost or unnamed frames: %s", damaged);
	if (*wide)
		pr_warn_more("in all processes sampled, before --comm: %s", wide);
	anon_summary(r, total);
	if (r->um)
		unwind_left_out(r);
	if (r->o->comm_regex && !nproc)
		pr_warn("no process named like --comm '%s' ran on a CPU while recording",
			r->o->comm_regex);
}

/* The command line as one string, arguments with spaces or quotes single-quoted. */
static char *command_line(const struct cp_options *o)
{
	size_t len = 0, cap = 256;
	char *b = malloc(cap);

	if (!b)
		return NULL;
	b[0] = '\0';
	for (int i = 0; i < o->argc; i++) {
		const char *a = i == 0 ? "cpuprof record" : o->argv[i];
		bool quote = i && (!*a || strpbrk(a, " \t\n'\"\\$;&|<>*?()") != NULL);
		size_t need = strlen(a) * 4 + 4;

		if (len + need + 1 > cap) {
			char *nb;

			cap = (len + need + 1) * 2;
			nb = realloc(b, cap);
			if (!nb) {
				free(b);
				return NULL;
			}
			b = nb;
		}
		if (i)
			b[len++] = ' ';
		if (quote)
			b[len++] = '\'';
		for (; *a; a++) {
			if (quote && *a == '\'') {
				memcpy(b + len, "'\\''", 4);
				len += 4;
			} else {
				b[len++] = *a;
			}
		}
		if (quote)
			b[len++] = '\'';
		b[len] = '\0';
	}
	return b;
}

static int write_one(const struct report *r, FILE *f, size_t i, const struct profile_meta *meta)
{
	struct folded_opts fo = {
		.per_thread = r->o->per_thread, .lines = r->o->lines, .labels = r->o->labels};
	int err;

	errno = 0;
	switch (options_output_format(r->o, i)) {
	case FORMAT_PPROF:
		err = pprof_write(r->prof, meta, f);
		break;
	case FORMAT_JSON:
		err = json_write(r->prof, meta, f);
		break;
	case FORMAT_SVG:
		err = svg_write_profile(r->prof, NULL, r->o->per_thread, "Flame Graph", f);
		break;
	case FORMAT_HTML:
		err = html_write_profile(r->prof, NULL, r->o->per_thread,
					 meta->command_line ? meta->command_line : "cpuprof", f);
		break;
	default:
		err = folded_write(r->prof, &fo, f);
		break;
	}
	/* the writers say -EIO for any failed write: the stream's write(2) left the reason */
	if (err == -EIO && (errno == ENOSPC || errno == EFBIG || errno == EDQUOT))
		err = -errno;
	return err;
}

/*
 * "cannot write the profile to NAME: REASON (ENAME), HINT; what was kept": committed outputs
 * before output i are complete, nothing else is.
 */
static void write_failed(const struct report *r, size_t i, size_t committed, int err)
{
	pr_err("cannot write the profile to %s: %s (%s)%s; %s", options_output_name(r->o, i),
	       strerror(-err), log_errname(-err),
	       err == -EFBIG	? ", the file-size limit (ulimit -f) is too small for it"
	       : err == -ENOSPC ? ", the file system is full"
	       : err == -EDQUOT ? ", the disk quota is used up"
				: "",
	       committed ? "only the outputs before it were written"
			 : "no output was written (they are written all or none)");
}

int report_write(const struct report *r, struct out_file **outs, size_t n_outs)
{
	struct prof_counter counters[CP_STAT_MAX + 13];
	struct profile_meta meta = {
		.version = CPUPROF_VERSION,
		.event = "cpu-clock",
		.frequency = r->frequency,
		.period_ns = r->frequency ? (1000000000ull + r->frequency / 2) / r->frequency : 0,
		.start_unix_ns = r->start_unix_ns,
		.duration_ns = (uint64_t)(r->recorded_s * 1e9),
		.per_thread = r->o->per_thread,
		.counters = counters,
	};
	char *cmdline = command_line(r->o);
	size_t nc = 0;
	int err = 0;

	if (!cmdline)
		return -ENOMEM;
	meta.command_line = cmdline;
	for (int i = 0; i < CP_STAT_MAX; i++) {
		const char *name = left_out_names[i] ? left_out_names[i] : damaged_names[i];

		if (name)
			counters[nc++] = (struct prof_counter){name, r->stats[i]};
	}
	counters[nc++] = (struct prof_counter){"name not matching", r->agg.comm_filtered};
	counters[nc++] = (struct prof_counter){"stacks missing", r->agg.stacks_missing};
	counters[nc++] =
		(struct prof_counter){"user stacks cut outside the mappings", r->agg.bad_ra};
	counters[nc++] = (struct prof_counter){"processes gone before their mappings were read",
					       r->snapshot_failed};
	counters[nc++] = (struct prof_counter){"mapping refreshes too late", r->refresh_failed};
	counters[nc++] = (struct prof_counter){"user stacks", r->agg.ustacks};
	counters[nc++] =
		(struct prof_counter){"user stacks reaching an entry point", r->agg.ustacks_entry};
	counters[nc++] = (struct prof_counter){"user stacks walked to an outermost frame",
					       r->stats[CP_STAT_DWARF_OK]};
	counters[nc++] = (struct prof_counter){"samples with goroutine labels", r->agg.labeled};
	counters[nc++] = (struct prof_counter){
		"goroutine labels lost (their set gone before the drain)", r->agg.labels_lost};
	if (r->um) {
		struct unwind_maps_stats us;

		unwind_maps__stats(r->um, &us);
		counters[nc++] = (struct prof_counter){"unwind table rows", us.rows};
		counters[nc++] = (struct prof_counter){"unwind table bytes",
						       us.rows * sizeof(struct cp_unwind_row)};
		counters[nc++] = (struct prof_counter){
			"objects walked with frame pointers (no table, or left out)",
			us.objects_failed + us.objects_full + us.objects_dropped};
	}
	meta.n_counters = nc;

	for (size_t i = 0; i < n_outs && !err; i++) {
		err = write_one(r, out_file__stream(outs[i]), i, &meta);
		if (err)
			write_failed(r, i, 0, err);
	}
	/* all or nothing: the files appear only once every one is complete */
	for (size_t i = 0; i < n_outs && !err; i++) {
		err = out_file__commit(outs[i]);
		outs[i] = NULL;
		if (err)
			write_failed(r, i, i, err);
	}
	free(cmdline);
	return err;
}
