// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libiberty/demangle.h>
#include "symbol/demangle.h"

/* what cplus_demangle(DMGL_AUTO) passed on: parameters, const and volatile */
#define OPTS (DMGL_PARAMS | DMGL_ANSI)

/* the signal of the CPU-time timers: a real-time one nothing else in cpuprof uses */
#define CUT_SIGNAL (SIGRTMIN + 7)

/*
 * Per thread: where a demangling in progress is abandoned to (NULL when none runs), and the
 * thread's CPU-time timer (made at its first name, deleted when the thread ends).
 */
static __thread sigjmp_buf *volatile cut_to;
static __thread timer_t cpu_timer;
static __thread int have_timer;

static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
static pthread_key_t timer_key;
static int setup_err;

/* The thread used up its time on this name: leave libiberty (see demangle.h: it is safe). */
static void on_time_up(int sig)
{
	sigjmp_buf *to = cut_to;

	(void)sig;
	if (to) {
		cut_to = NULL;
		siglongjmp(*to, 2);
	}
}

static void drop_timer(void *unused)
{
	(void)unused;
	if (have_timer)
		timer_delete(cpu_timer);
	have_timer = 0;
}

static void setup(void)
{
	/* SA_NODEFER: the jump out of the handler leaves the signal unblocked */
	struct sigaction sa = {.sa_handler = on_time_up, .sa_flags = SA_RESTART | SA_NODEFER};

	sigemptyset(&sa.sa_mask);
	if (sigaction(CUT_SIGNAL, &sa, NULL) || pthread_key_create(&timer_key, drop_timer))
		setup_err = -EAGAIN;
}

/* This thread's timer, made at its first use. 0 or a negative errno. */
static int thread_timer(void)
{
	struct sigevent sev = {.sigev_notify = SIGEV_THREAD_ID};
	sigset_t set;

	pthread_once(&setup_once, setup);
	if (setup_err)
		return setup_err;
	if (have_timer)
		return 0;
	sev.sigev_signo = CUT_SIGNAL;
	sev._sigev_un._tid = gettid(); /* sigev_notify_thread_id, which glibc 2.36 does not name */
	sigemptyset(&set);
	sigaddset(&set, CUT_SIGNAL);
	if (pthread_sigmask(SIG_UNBLOCK, &set, NULL) ||
	    timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &cpu_timer))
		return -EAGAIN;
	have_timer = 1;
	pthread_setspecific(timer_key, &have_timer);
	return 0;
}

/* Where libiberty's text goes: counted, and abandoned once past the cap. */
struct sink {
	size_t len;
	char buf[DEMANGLE_MAX_LEN + 1];
};

static void put(const char *s, size_t n, void *opaque)
{
	struct sink *k = opaque;

	if (n > DEMANGLE_MAX_LEN - k->len)
		siglongjmp(*cut_to, 1);
	memcpy(k->buf + k->len, s, n);
	k->len += n;
}

/* The process's counts (see demangle_stats()): relaxed atomics, any thread adds. */
static unsigned long long n_over_mangled, n_over_len, n_over_cpu, n_over_late_cpu, n_refused;
static unsigned long long spent_ns; /* the CPU counted against the budgets */

static unsigned long long load(unsigned long long *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

static void add(unsigned long long *v, unsigned long long n)
{
	__atomic_fetch_add(v, n, __ATOMIC_RELAXED);
}

/*
 * name demangled into k under both caps, the CPU cap being cap_ns: 0, -ENOENT (not mangled),
 * -E2BIG (over the length cap), -ETIME (over the CPU cap), -EAGAIN. *used_ns: the thread's CPU
 * time spent meanwhile, read from its clock: the timer fires at a scheduler tick only, so a
 * cut name costs up to one tick (1 to 10 ms) more than its cap, and that is counted too.
 */
static int run(const char *name, struct sink *k, long cap_ns, long *used_ns)
{
	const struct itimerspec arm = {.it_value = {0, cap_ns}};
	static const struct itimerspec disarm = {{0, 0}, {0, 0}};
	volatile long cap = cap_ns; /* read after the jump */
	struct timespec t0, t1;
	volatile int ok = 0;
	sigjmp_buf env;
	int err = thread_timer(), cut;

	if (err)
		return err;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0))
		return -EAGAIN;
	cut = sigsetjmp(env, 0);
	if (!cut) {
		cut_to = &env;
		if (timer_settime(cpu_timer, 0, &arm, NULL)) {
			cut_to = NULL;
			return -EAGAIN;
		}
		/* DMGL_AUTO's order: Rust first, as legacy Rust names are C++ names too */
		ok = rust_demangle_callback(name, OPTS, put, k);
		if (!ok && name[1] == 'Z') {
			k->len = 0;
			ok = cplus_demangle_v3_callback(name, OPTS, put, k);
		}
	}
	cut_to = NULL;
	timer_settime(cpu_timer, 0, &disarm, NULL);
	/* failing (it cannot for the thread's own clock), the whole cap is counted */
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1))
		*used_ns = cap;
	else
		*used_ns = (t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec);
	if (cut)
		return cut == 2 ? -ETIME : -E2BIG;
	return ok ? 0 : -ENOENT;
}

void demangle_stats(struct demangle_stats *st)
{
	st->over_mangled = load(&n_over_mangled);
	st->over_len = load(&n_over_len);
	st->over_cpu = load(&n_over_cpu);
	st->over_late_cpu = load(&n_over_late_cpu);
	st->refused = load(&n_refused);
	st->spent_ns = load(&spent_ns);
}

char *demangle(const char *name)
{
	struct sink k = {0};
	unsigned long long spent = load(&spent_ns);
	long cap_ns = DEMANGLE_MAX_CPU_MS * 1000000L, used_ns = 0;
	char *s;
	int err;

	/* only manglings we know: other names (C, or words that merely look mangled) stay */
	if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R')) {
		errno = ENOENT;
		return NULL;
	}
	if (strnlen(name, DEMANGLE_MAX_MANGLED + 1) > DEMANGLE_MAX_MANGLED) {
		add(&n_over_mangled, 1);
		errno = E2BIG;
		return NULL;
	}
	/* the budgets (demangle.h): past the first, a short cap; past both, no more tries */
	if (spent >= (DEMANGLE_BUDGET_MS + DEMANGLE_LATE_BUDGET_MS) * 1000000ull) {
		add(&n_refused, 1);
		errno = E2BIG;
		return NULL;
	}
	if (spent >= DEMANGLE_BUDGET_MS * 1000000ull)
		cap_ns = DEMANGLE_LATE_CPU_US * 1000L;
	err = run(name, &k, cap_ns, &used_ns);
	if (used_ns > DEMANGLE_FREE_US * 1000L)
		add(&spent_ns, (unsigned long long)used_ns - DEMANGLE_FREE_US * 1000L);
	if (err == -ETIME) {
		add(cap_ns == DEMANGLE_MAX_CPU_MS * 1000000L ? &n_over_cpu : &n_over_late_cpu, 1);
		err = -E2BIG;
	} else if (err == -E2BIG) {
		add(&n_over_len, 1);
	}
	if (err) {
		errno = -err;
		return NULL;
	}
	s = strndup(k.buf, k.len);
	if (!s)
		errno = ENOMEM;
	return s;
}

/* Open addressing on the pointer; a value equal to its key means "not mangled". */
struct demangle_slot {
	const char *key;
	char *val;
};

struct demangle_cache {
	struct demangle_slot *v;
	size_t cap, n; /* cap is a power of two */
};

struct demangle_cache *demangle_cache__new(void)
{
	struct demangle_cache *dc = calloc(1, sizeof(*dc));

	if (!dc)
		return NULL;
	dc->cap = 256;
	dc->v = calloc(dc->cap, sizeof(*dc->v));
	if (!dc->v) {
		free(dc);
		errno = ENOMEM;
		return NULL;
	}
	return dc;
}

void demangle_cache__free(struct demangle_cache *dc)
{
	if (!dc)
		return;
	for (size_t i = 0; i < dc->cap; i++)
		if (dc->v[i].val != dc->v[i].key)
			free(dc->v[i].val);
	free(dc->v);
	free(dc);
}

static size_t slot_of(const struct demangle_cache *dc, const char *key)
{
	uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> 20) & (dc->cap - 1);

	while (dc->v[i].key && dc->v[i].key != key)
		i = (i + 1) & (dc->cap - 1);
	return i;
}

static int grow(struct demangle_cache *dc)
{
	struct demangle_cache big = {.cap = dc->cap * 2};

	big.v = calloc(big.cap, sizeof(*big.v));
	if (!big.v)
		return -ENOMEM;
	for (size_t i = 0; i < dc->cap; i++)
		if (dc->v[i].key)
			big.v[slot_of(&big, dc->v[i].key)] = dc->v[i];
	free(dc->v);
	dc->v = big.v;
	dc->cap = big.cap;
	return 0;
}

const char *demangle_cache__get(struct demangle_cache *dc, const char *name)
{
	size_t i;
	char *s;

	if (!name)
		return NULL;
	i = slot_of(dc, name);
	if (dc->v[i].key)
		return dc->v[i].val;
	if (2 * (dc->n + 1) > dc->cap) {
		if (grow(dc))
			return name;
		i = slot_of(dc, name);
	}
	s = demangle(name);
	if (!s && errno == ENOMEM)
		return name;
	dc->v[i].key = name;
	dc->v[i].val = s ? s : (char *)name;
	dc->n++;
	return dc->v[i].val;
}
