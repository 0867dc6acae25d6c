// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "util/fmap.h"

/*
 * The registered mappings, read by the signal handler without a lock: chunks of slots that are
 * only ever appended (never freed), each slot claimed by a compare-and-swap of its state. A
 * slot's range is written before the slot is published and cleared after it is withdrawn.
 */
#define FMAP_CHUNK 256

enum { SLOT_FREE, SLOT_CLAIMED, SLOT_LIVE };

struct slot {
	atomic_int state;
	atomic_uintptr_t start;
	atomic_size_t len; /* page-rounded */
	atomic_bool faulted;
};

struct chunk {
	struct slot s[FMAP_CHUNK];
	struct chunk *_Atomic next;
};

static struct chunk first;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction previous;
static uintptr_t page_size;
static atomic_ulong faults;

/* The slot of index i (which exists: it was claimed). */
static struct slot *slot_at(int i)
{
	struct chunk *c = &first;

	for (; i >= FMAP_CHUNK; i -= FMAP_CHUNK)
		c = atomic_load(&c->next);
	return &c->s[i];
}

/* Hand a fault that is not ours to whoever had SIGBUS before. */
static void pass_on(int sig, siginfo_t *si, void *uc)
{
	if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
		previous.sa_sigaction(sig, si, uc);
		return;
	}
	if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
		previous.sa_handler(sig);
		return;
	}
	/* the default action: the faulting access runs again and kills, as without us */
	signal(sig, SIG_DFL);
}

/* Zero pages at [at, at + len), in place of what was mapped there; false when it fails. */
static bool zero_fill(void *at, size_t len)
{
	/* anonymous: the descriptor is ignored, -1 by convention */
	const int no_fd = -1;
	void *p = mmap(at, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		       no_fd, 0); /* cppcheck-suppress invalidFunctionArg */

	/* the pages stay: they stand in for the file's, and go with the mapping's munmap */
	/* cppcheck-suppress memleak */
	return p != MAP_FAILED;
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	int saved = errno;

	for (struct chunk *c = &first; c; c = atomic_load(&c->next)) {
		for (int i = 0; i < FMAP_CHUNK; i++) {
			struct slot *s = &c->s[i];
			uintptr_t start, len, from;

			if (atomic_load(&s->state) != SLOT_LIVE)
				continue;
			start = atomic_load(&s->start);
			len = atomic_load(&s->len);
			if (a < start || a - start >= len)
				continue;
			/*
			 * the rest of the mapping: past the new end of the file, all of it (the
			 * descriptor of an anonymous mapping is ignored: -1 by convention)
			 */
			from = a & ~(page_size - 1);
			if (!zero_fill((void *)from, start + len - from))
				break;
			if (!atomic_exchange(&s->faulted, true))
				atomic_fetch_add(&faults, 1);
			errno = saved;
			return;
		}
	}
	errno = saved;
	pass_on(sig, si, uc);
}

static void init(void)
{
	page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
}

/*
 * Put the handler in place unless it is: checked at each mapping, as whatever replaced it since
 * (a test harness does, per test) keeps getting what is not ours.
 */
static void ensure_handler(void)
{
	struct sigaction cur, sa;

	pthread_once(&once, init);
	pthread_mutex_lock(&install_lock);
	if (!sigaction(SIGBUS, NULL, &cur) &&
	    (!(cur.sa_flags & SA_SIGINFO) || cur.sa_sigaction != on_sigbus)) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_sigbus;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, &previous);
	}
	pthread_mutex_unlock(&install_lock);
}

/* A free slot, claimed; its index, or -1 (no memory for another chunk). */
static int claim(void)
{
	struct chunk *c = &first;

	for (int base = 0;; base += FMAP_CHUNK) {
		struct chunk *next, *fresh;

		for (int i = 0; i < FMAP_CHUNK; i++) {
			int expect = SLOT_FREE;

			if (atomic_compare_exchange_strong(&c->s[i].state, &expect, SLOT_CLAIMED))
				return base + i;
		}
		next = atomic_load(&c->next);
		if (!next) {
			fresh = calloc(1, sizeof(*fresh));
			if (!fresh)
				return -1;
			/* another thread may have appended one meanwhile: then use that */
			if (!atomic_compare_exchange_strong(&c->next, &next, fresh))
				free(fresh);
			else
				next = fresh;
		}
		c = next;
	}
}

int fmap_open(int fd, struct fmap *m)
{
	struct stat st;
	struct slot *s;
	void *p;

	m->p = NULL;
	m->size = 0;
	m->slot = -1;
	ensure_handler();
	if (fstat(fd, &st))
		return -errno;
	if (st.st_size <= 0)
		return -ENODATA;
	if ((uint64_t)st.st_size > SIZE_MAX)
		return -EFBIG;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	m->slot = claim();
	if (m->slot < 0) {
		munmap(p, (size_t)st.st_size);
		return -ENOMEM;
	}
	s = slot_at(m->slot);
	atomic_store(&s->start, (uintptr_t)p);
	atomic_store(&s->len, ((size_t)st.st_size + page_size - 1) & ~(page_size - 1));
	atomic_store(&s->faulted, false);
	atomic_store(&s->state, SLOT_LIVE);
	m->p = p;
	m->size = (size_t)st.st_size;
	return 0;
}

void fmap_close(struct fmap *m)
{
	if (!m || !m->p)
		return;
	if (m->slot >= 0) {
		struct slot *s = slot_at(m->slot);

		atomic_store(&s->state, SLOT_CLAIMED);
		atomic_store(&s->start, 0);
		atomic_store(&s->len, 0);
		atomic_store(&s->faulted, false);
		atomic_store(&s->state, SLOT_FREE);
	}
	munmap(m->p, m->size);
	m->p = NULL;
	m->size = 0;
	m->slot = -1;
}

bool fmap_faulted(const struct fmap *m)
{
	return m && m->p && m->slot >= 0 && atomic_load(&slot_at(m->slot)->faulted);
}

unsigned long fmap_fault_count(void)
{
	return atomic_load(&faults);
}
