// SPDX-License-Identifier: GPL-2.0
/*
 * The recording session (session/record.c) driven whole by record_run, without BPF or root:
 * the units it sequences are real (stop_rule, set_queue, proc_track), everything else is a
 * fake of record_fakes.c, the clock and the loop's poll are scripted (record_fakes.h). What
 * is checked is what a user sees: whatever stops the recording (-d, the command's exit,
 * SIGINT, SIGTERM, a deadline passing while a set is being named, a signal before sampling),
 * the output is written once, after the last drain, with every sample the kernel counted;
 * a failing step writes nothing, removes the outputs, ends the command and frees everything;
 * the exit status is the documented one.
 */
#include <signal.h>
#include "cmocka_inc.h"
#include "record_fakes.h"
#include "session/record.h"
#include "session/set_queue.h"
#include "util/log.h"

static char *command[] = {"true", NULL};

static int setup(void **state)
{
	(void)state;
	fake_reset();
	log_set_level(LOG_ERROR); /* the lines are not under test here: errors only */
	return 0;
}

/* Options of a system-wide recording (or of -- COMMAND), -d duration_ms (0: none). */
static struct cp_options options(bool with_command, uint64_t duration_ms)
{
	return (struct cp_options){
		.command = with_command ? command : NULL,
		.duration_ms = duration_ms,
		.drain_ms = 200,
		.jobs = 1,
	};
}

/* Run the session with the loop's script. */
static int run(const struct cp_options *o, const struct fake_act *script, size_t n)
{
	int rc;

	fw.script = script;
	fw.n_script = n;
	rc = record_run(o);
	if (getenv("CPUPROF_TEST_TRACE"))
		fake_dump();
	return rc;
}

#define RUN(o, script) run((o), (script), sizeof(script) / sizeof((script)[0]))

static void assert_before(const char *a, const char *b)
{
	size_t i = fake_last(a), j = fake_first(b);

	if (i == FAKE_NONE || j == FAKE_NONE || i >= j) {
		fake_dump();
		fail_msg("\"%s\" (last at %zd) is not before \"%s\" (first at %zd)", a, (ssize_t)i,
			 b, (ssize_t)j);
	}
}

/*
 * What any recording that ends must give: the script played to its end and no further (the
 * loop stopped when it should), sampling stopped once, then the last drain took both sets,
 * every set was named before the profile was read back and written once to every output,
 * with every sample the kernel counted, then the summary; nothing left allocated.
 */
static void assert_written_once(void)
{
	size_t stop = fake_first("stop_sampling");

	assert_false(fw.script_over);
	assert_int_equal(fw.next_act, fw.n_script);
	assert_int_equal(fake_count("stop_sampling"), 1);
	/* the last drain: both sets, after sampling stopped */
	assert_true(stop != FAKE_NONE);
	assert_true(fake_count("switch") >= SET_QUEUE_LAST_TAKES);
	assert_true(fw.n_trace > stop);
	assert_before("stop_sampling", "report_write");
	assert_before("copy", "report_write");
	assert_before("name_end", "unspill");
	assert_before("unspill", "seal");
	assert_before("seal", "report_write");
	assert_before("report_write", "report_summary");
	assert_int_equal(fake_count("name_begin"), fw.n_copies);
	assert_int_equal(fake_count("name_end"), fw.n_copies);
	assert_int_equal(fw.n_writes, 1);
	assert_int_equal(fw.n_written, fw.n_outs);
	assert_int_equal(fw.n_aborted, 0);
	/* the summary's figures are the drains' */
	assert_true(fw.recorded > 0);
	assert_int_equal(fw.rep_stats[CP_STAT_RECORDED], fw.recorded);
	assert_int_equal(fw.rep_total, fw.recorded);
	assert_int_equal(fw.rep.agg.ustacks, fw.recorded);
	assert_int_equal(fw.rep.frequency, 99);
	assert_int_equal(fw.live, 0);
}

/* Sets taken while recording are cleared; the last two are only copied. */
static void assert_drains(size_t while_recording)
{
	assert_int_equal(fake_count("switch"), while_recording + SET_QUEUE_LAST_TAKES);
	assert_int_equal(fake_count("clear"), while_recording);
	assert_int_equal(fw.n_copies, while_recording + SET_QUEUE_LAST_TAKES);
}

/* -d 1000: two drains, then the timer; the recording lasted exactly -d. */
static void test_stop_by_duration(void **state)
{
	struct cp_options o = options(false, 1000);
	const struct fake_act script[] = {{FA_TICK, 0}, {FA_TICK, 0}, {FA_DEADLINE, 1000}};

	(void)state;
	assert_int_equal(RUN(&o, script), CP_EXIT_OK);
	assert_written_once();
	assert_drains(2);
	assert_before("setup:start_sampling", "wait");
	assert_float_equal(fw.rep.recorded_s, 1.0, 1e-9);
}

/* The command exits with status 3: cpuprof writes the profile and exits with 3. */
static void test_stop_by_command_exit(void **state)
{
	struct cp_options o = options(true, 0);
	const struct fake_act script[] = {{FA_TICK, 0}, {FA_EXIT, 3}};

	(void)state;
	assert_int_equal(RUN(&o, script), 3);
	assert_written_once();
	assert_drains(1);
	/* the command starts once sampling runs, and is not signalled once it has exited */
	assert_before("setup:start_sampling", "wl:start");
	assert_int_equal(fake_count("wl:SIGTERM"), 0);
	assert_before("report_write", "free:wl");
}

/* A stop signal of a system-wide recording: the profile, exit 0. */
static void stop_by_signal(int sig)
{
	struct cp_options o = options(false, 0);
	const struct fake_act script[] = {{FA_TICK, 0}, {FA_IDLE, 0}, {FA_SIGNAL, sig}};

	assert_int_equal(RUN(&o, script), CP_EXIT_OK);
	assert_written_once();
	assert_drains(1);
	assert_float_equal(fw.rep.recorded_s, 0.2, 1e-9);
	assert_int_equal(fake_count("hurry"), 0);
}

static void test_stop_by_sigint(void **state)
{
	(void)state;
	stop_by_signal(SIGINT);
}

static void test_stop_by_sigterm(void **state)
{
	(void)state;
	stop_by_signal(SIGTERM);
}

/*
 * Ctrl-C while a command runs: the profile is written first, then the command is ended
 * (SIGTERM) and cpuprof exits with its status (128 + SIGTERM).
 */
static void test_sigint_ends_command_after_output(void **state)
{
	struct cp_options o = options(true, 0);
	const struct fake_act script[] = {{FA_SIGNAL, SIGINT}};

	(void)state;
	assert_int_equal(RUN(&o, script), 128 + SIGTERM);
	assert_written_once();
	assert_drains(0);
	assert_int_equal(fake_count("wl:SIGTERM"), 1);
	assert_before("report_write", "wl:SIGTERM");
}

/* How many naming steps came after the first ev_from and before the next ev_to. */
static size_t steps_between(const char *ev_from, const char *ev_to)
{
	size_t n = 0, i = fake_first(ev_from);

	assert_true(i != FAKE_NONE);
	for (; i < fw.n_trace && strcmp(fw.trace[i], ev_to); i++)
		n += !strcmp(fw.trace[i], "name_step");
	return n;
}

/*
 * -d 1000 passes while a set is being named (drained at 950 ms, ten 50 ms steps): sampling
 * stops at the deadline, not when the naming ends; the naming of that set still ends (its
 * samples are in the profile) before the last takes, and the loop waits no more.
 */
static void test_deadline_mid_drain(void **state)
{
	struct cp_options o = options(false, 1000);
	const struct fake_act script[] = {{FA_TICK, 0}, {FA_TICK, 0}, {FA_TICK, 0}, {FA_TICK, 0}};

	(void)state;
	/* ticks at 200, 450, 700, 950 ms (each drain before the last names in one 50 ms step) */
	fw.step_ns = 50 * FAKE_MS;
	fw.copy_steps[3] = 10;
	assert_int_equal(RUN(&o, script), CP_EXIT_OK);
	assert_written_once();
	assert_drains(4);
	assert_float_equal(fw.rep.recorded_s, 1.0, 1e-9);
	/* the first step reaches 1000 ms: the 9 others are named after the stop */
	assert_int_equal(steps_between("stop_sampling", "switch"), 9);
	assert_int_equal(fake_count("wait"), 4);
}

/*
 * The watch's thread pauses sampling at the deadline (1000 ms) while a set is named in 300 ms
 * steps; the loop sees the stop at 1100 ms: the recording lasted -d, not until it was seen.
 */
static void test_watch_paused_at_deadline(void **state)
{
	struct cp_options o = options(false, 1000);
	const struct fake_act script[] = {{FA_TICK, 0}};

	(void)state;
	fw.watch_thread = true;
	fw.step_ns = 300 * FAKE_MS;
	fw.copy_steps[0] = 5;
	assert_int_equal(RUN(&o, script), CP_EXIT_OK);
	assert_written_once();
	assert_drains(1);
	assert_int_equal(fw.watch_deadline, fw.t_start + 1000 * FAKE_MS);
	assert_int_equal(fake_count("pause_sampling"), 1);
	assert_before("pause_sampling", "stop_sampling");
	assert_before("watch_end", "stop_sampling");
	assert_float_equal(fw.rep.recorded_s, 1.0, 1e-9);
}

/* -p 101 -p 102: the recording stops when the last one exits, not at the first. */
static void test_stop_by_targets(void **state)
{
	pid_t pids[] = {101, 102};
	struct cp_options o = options(false, 0);
	const struct fake_act script[] = {{FA_TARGET, 1}, {FA_TICK, 0}, {FA_TARGET, 0}};

	(void)state;
	o.pids = pids;
	o.n_pids = 2;
	assert_int_equal(RUN(&o, script), CP_EXIT_OK);
	assert_written_once();
	assert_drains(1);
}

/*
 * The loop fails (its poll: the script runs out): the recording stops there and what was
 * collected is still written, once, whole.
 */
static void test_loop_error_still_writes(void **state)
{
	struct cp_options o = options(false, 0);
	const struct fake_act script[] = {{FA_TICK, 0}};

	(void)state;
	assert_int_equal(RUN(&o, script), CP_EXIT_OK);
	assert_true(fw.script_over);
	assert_int_equal(fake_count("stop_sampling"), 1);
	assert_before("stop_sampling", "report_write");
	assert_int_equal(fw.n_writes, 1);
	assert_int_equal(fw.n_written, fw.n_outs);
	assert_int_equal(fw.rep_total, fw.recorded);
	assert_int_equal(fw.live, 0);
}

/*
 * --drain-interval 1000 ms, but the active set is full: the drain timer's tick (200 ms) drains
 * it, and while that set is named the next full one is taken at once; both reach the output.
 */
static void test_full_set_taken_while_naming(void **state)
{
	struct cp_options o = options(false, 0);
	const struct fake_act script[] = {{FA_TICK, 0}, {FA_SIGNAL, SIGINT}};
	size_t second_copy;

	(void)state;
	o.drain_ms = 1000;
	fw.fill_pct = 100;
	fw.copy_steps[0] = 3;
	assert_int_equal(RUN(&o, script), CP_EXIT_OK);
	assert_written_once();
	assert_drains(2);
	second_copy = fake_first("copy") + 1;
	while (second_copy < fw.n_trace && strcmp(fw.trace[second_copy], "copy"))
		second_copy++;
	assert_true(fake_first("name_begin") < second_copy);
	assert_true(second_copy < fake_first("name_end"));
}

/*
 * An exec storm: 200 new processes ask for their mappings to be read, 10 ms each, and Ctrl-C
 * comes at the 20th. Sampling stops within the next 50 ms of reading (the loop looks for
 * signals between requests), and no request is lost: those not read before the stop are read
 * in the last drain, each once.
 */
static void test_exec_storm_ctrl_c(void **state)
{
	struct cp_options o = options(false, 0);
	const struct fake_act script[] = {{FA_EVENTS, 200}};

	(void)state;
	fw.refresh_ns = 10 * FAKE_MS;
	fw.kill_at_refresh = 20;
	assert_int_equal(RUN(&o, script), CP_EXIT_OK);
	assert_written_once();
	assert_true(fw.refreshed_at_stop >= 20);
	assert_true(fw.refreshed_at_stop <= 26);
	assert_true(fw.rep.recorded_s <= 0.26 + 1e-9);
	assert_int_equal(fw.n_events, 200);
	assert_int_equal(fw.n_refreshed, 200);
}

/*
 * A second stop signal during the last drain hurries the naming (symbol tables only) from the
 * next step on: the profile is still written once, whole.
 */
static void test_second_signal_hurries(void **state)
{
	struct cp_options o = options(false, 0);
	const struct fake_act script[] = {{FA_SIGNAL, SIGINT}};

	(void)state;
	fw.copy_steps[0] = 3;
	fw.kill_at_step = 2;
	fw.kill_sig = SIGINT;
	assert_int_equal(RUN(&o, script), CP_EXIT_OK);
	assert_written_once();
	/* the set being named when it came is hurried, not only the sets after it */
	assert_true(fake_first("hurry") < fake_first("name_end"));
	assert_before("hurry", "report_write");
	assert_true(fw.rep.agg.hurried > 0);
}

/*
 * The kernel refuses the perf events (attach): the documented status (77), nothing written,
 * every output removed, the held command ended and reaped, and everything freed, what holds
 * the BPF session's fds (ring buffer, unwind tables) before it, the symbolizer before the
 * snapshots it reads.
 */
static void test_attach_fails(void **state)
{
	struct cp_options o = options(true, 0);

	(void)state;
	fw.fail_step = "start_sampling";
	fw.fail_rc = CP_EXIT_NOPERM;
	assert_int_equal(run(&o, NULL, 0), CP_EXIT_NOPERM);
	assert_int_equal(fw.n_writes, 0);
	assert_int_equal(fw.n_aborted, fw.n_outs);
	assert_int_equal(fake_count("wait"), 0);
	assert_int_equal(fake_count("wl:start"), 0);
	assert_int_equal(fake_count("stop_sampling"), 0);
	assert_before("wl:SIGTERM", "wl:reaped");
	assert_before("wl:reaped", "abort");
	assert_before("free:rb", "free:bpf");
	assert_before("free:um", "free:bpf");
	assert_before("free:sym", "free:snap");
	assert_int_equal(fake_count("free:wl"), 1);
	assert_int_equal(fw.live, 0);
}

/* A failing BPF load: its status, nothing written, nothing left (no ring buffer was made). */
static void test_load_fails(void **state)
{
	struct cp_options o = options(false, 0);

	(void)state;
	fw.fail_step = "load_bpf";
	fw.fail_rc = CP_EXIT_UNAVAIL;
	assert_int_equal(run(&o, NULL, 0), CP_EXIT_UNAVAIL);
	assert_int_equal(fw.n_writes, 0);
	assert_int_equal(fw.n_aborted, fw.n_outs);
	assert_int_equal(fake_count("setup:prepare_targets"), 0);
	assert_int_equal(fake_count("free:bpf"), 1);
	assert_int_equal(fake_count("free:rb"), 0);
	assert_int_equal(fw.live, 0);
}

/*
 * SIGTERM while the unwind tables are built: no sampling, an empty profile written to every
 * output, and the status of a process killed by SIGTERM (128 + 15).
 */
static void test_signal_before_sampling(void **state)
{
	struct cp_options o = options(false, 0);

	(void)state;
	fw.signal_step = "prepare_tables";
	fw.signal = SIGTERM;
	assert_int_equal(run(&o, NULL, 0), 128 + SIGTERM);
	assert_int_equal(fake_count("setup:load_bpf"), 0);
	assert_int_equal(fake_count("setup:start_sampling"), 0);
	assert_int_equal(fw.n_writes, 1);
	assert_int_equal(fw.n_written, fw.n_outs);
	assert_int_equal(fw.rep_total, 0);
	assert_int_equal(fw.live, 0);
}

/* The last drain cannot copy a set: exit 1, no output written (each one removed). */
static void test_last_drain_fails(void **state)
{
	struct cp_options o = options(false, 0);
	const struct fake_act script[] = {{FA_TICK, 0}, {FA_SIGNAL, SIGINT}};

	(void)state;
	fw.copy_fail_at = 1;
	assert_int_equal(RUN(&o, script), CP_EXIT_FAILURE);
	assert_int_equal(fw.n_writes, 0);
	assert_int_equal(fw.n_aborted, fw.n_outs);
	assert_int_equal(fw.live, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_stop_by_duration, setup),
		cmocka_unit_test_setup(test_stop_by_command_exit, setup),
		cmocka_unit_test_setup(test_stop_by_sigint, setup),
		cmocka_unit_test_setup(test_stop_by_sigterm, setup),
		cmocka_unit_test_setup(test_sigint_ends_command_after_output, setup),
		cmocka_unit_test_setup(test_deadline_mid_drain, setup),
		cmocka_unit_test_setup(test_watch_paused_at_deadline, setup),
		cmocka_unit_test_setup(test_stop_by_targets, setup),
		cmocka_unit_test_setup(test_loop_error_still_writes, setup),
		cmocka_unit_test_setup(test_full_set_taken_while_naming, setup),
		cmocka_unit_test_setup(test_exec_storm_ctrl_c, setup),
		cmocka_unit_test_setup(test_second_signal_hurries, setup),
		cmocka_unit_test_setup(test_attach_fails, setup),
		cmocka_unit_test_setup(test_load_fails, setup),
		cmocka_unit_test_setup(test_signal_before_sampling, setup),
		cmocka_unit_test_setup(test_last_drain_fails, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
