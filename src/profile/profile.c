// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/idtable.h"
#include "profile/profile.h"
#include "profile/spill.h"
#include "util/strset.h"
#include "util/utf8safe.h"

/* One distinct stack (frame ids, root first), shared by every sample that has it. */
struct stack {
	uint32_t *frames;
	uint32_t n;
};

/* Blocks the stacks' frame ids are cut from: a stack is never freed before the profile. */
#define POOL_BLOCK (64u << 10) /* ids */
struct pool_block {
	struct pool_block *next;
	uint32_t ids[];
};

/*
 * Frames that are a name only (what the folded and speedscope readers make: no address, file,
 * line or mapping) are kept compact: a record of 4 bytes by id, the name behind a flags byte
 * in blocks of their own, and an index of 4 bytes a slot; a struct prof_frame (80 bytes),
 * its idtable slot and an interned string cost about 135 bytes a frame, ten times the frame
 * in a folded file. profile__frame builds the struct on demand.
 */
#define FREC_COMPACT	 0x80000000u /* frec: a compact frame, its name's id below; else frames[] */
#define NAME_SHIFT	 20u
#define NAME_BLOCK	 (1u << NAME_SHIFT)	     /* bytes of names a block */
#define NAME_MAX_BLOCKS	 (FREC_COMPACT / NAME_BLOCK) /* ids below FREC_COMPACT */
#define NAME_MAX_COMPACT 4096u			     /* longer names: a full frame */
/*
 * A slot of the compact frames' index: the top bits of the hash (a tag that spares most
 * comparisons of names, so the index can be 3/4 full) above the frame id + 1. Frames with
 * higher ids are full frames.
 */
#define CIDX_ID_BITS	 27u
#define CIDX_ID_MASK	 ((1u << CIDX_ID_BITS) - 1)
#define CIDX_SLOT(h, id) (((h) & ~CIDX_ID_MASK) | ((id) + 1))

struct profile {
	struct strset strs;	    /* interned strings */
	struct pool_block *pool;    /* the newest block first */
	size_t pool_used, pool_cap; /* ids used and held in it */
	struct idtable fidx, sidx, midx, kidx;
	struct stack *stacks; /* distinct stacks: the samples of many processes share them */
	size_t n_stacks, cap_stacks;
	struct prof_mapping *maps;
	size_t n_maps, cap_maps;
	struct prof_frame *frames; /* the frames that are not compact */
	size_t n_full, cap_frames;
	uint32_t *frec;		   /* by frame id: FREC_COMPACT | name id, or index in frames */
	size_t n_frames, cap_frec; /* n_frames: every frame, compact or not (or on disk) */
	char **nblk;		   /* compact frames' names: a flags byte, the name, its NUL */
	size_t n_nblk, cap_nblk, nblk_used; /* blocks, and bytes used in the last one */
	uint32_t *cidx;			    /* compact frames by content: CIDX_SLOT, 0: empty */
	size_t cap_cidx, n_compact;	    /* cidx NULL with n_compact: dropped by trim */
	struct prof_sample *samples;
	size_t n_samples, cap_samples;
	uint64_t total;
	struct sample_runs *runs; /* samples of no process moved out of memory, or NULL */
	uint64_t runs_count;	  /* their samples (also in total) */
	int spill_err;		  /* why the last move failed, 0 when it did not */
	size_t spill_after;	  /* frames, and samples of no process, kept in memory first */
	char *spill_dir;	  /* where the frame log goes, once there are more */
	struct frame_log *flog;	  /* the frames, on disk (then not in frames[]), or NULL */
	struct fhash *fh;	  /* with flog: each frame's hash, by id */
	size_t cap_fh;
	int frame_err;	       /* why the frames came back to memory early, 0 if they did not */
	const char *names[64]; /* process and thread names interned lately, by hash */
	bool unindexed;	       /* sidx and kidx dropped by the read-back: rebuilt when needed */
	bool sealed;	       /* profile__seal: nothing is added any more, no index kept */
};

static uint32_t hash_ptr(uint32_t h, const void *ptr)
{
	uintptr_t v = (uintptr_t)ptr;

	return idtable_hash(h, &v, sizeof(v));
}

/* Strings are interned, so their pointers stand for their contents. */
static uint32_t frame_hash(const struct prof_frame *f)
{
	uint32_t h = IDTABLE_SEED;

	h = idtable_hash(h, &f->kind, sizeof(f->kind));
	h = idtable_hash(h, &f->addr, sizeof(f->addr));
	h = idtable_hash(h, &f->rel, sizeof(f->rel));
	h = idtable_hash(h, &f->mapping, sizeof(f->mapping));
	h = idtable_hash(h, &f->line, sizeof(f->line));
	h = hash_ptr(h, f->name);
	h = hash_ptr(h, f->file);
	return hash_ptr(h, f->module);
}

static bool frame_eq(const struct prof_frame *x, const struct prof_frame *y)
{
	return x->kind == y->kind && x->addr == y->addr && x->rel == y->rel && x->name == y->name &&
	       x->module == y->module && x->mapping == y->mapping && x->named == y->named &&
	       x->inlined == y->inlined && x->mangled == y->mangled && x->file == y->file &&
	       x->line == y->line && x->column == y->column && x->start_line == y->start_line;
}

static uint32_t mapping_hash(const struct prof_mapping *m)
{
	uint32_t h = IDTABLE_SEED;

	h = idtable_hash(h, &m->pid, sizeof(m->pid));
	h = idtable_hash(h, &m->start, sizeof(m->start));
	h = idtable_hash(h, &m->limit, sizeof(m->limit));
	return hash_ptr(h, m->path);
}

static bool mapping_eq(const struct prof_mapping *x, const struct prof_mapping *y)
{
	return x->pid == y->pid && x->kind == y->kind && x->start == y->start &&
	       x->limit == y->limit && x->offset == y->offset && x->path == y->path &&
	       x->build_id == y->build_id;
}

static uint32_t sample_hash(const struct prof_sample *s)
{
	uint32_t h = IDTABLE_SEED;

	h = idtable_hash(h, &s->pid, sizeof(s->pid));
	h = idtable_hash(h, &s->tid, sizeof(s->tid));
	h = hash_ptr(h, s->comm);
	h = hash_ptr(h, s->thread);
	h = hash_ptr(h, s->labels);
	return idtable_hash(h, s->frames, s->nframes * sizeof(*s->frames));
}

static bool sample_eq(const struct prof_sample *x, const struct prof_sample *y)
{
	return x->pid == y->pid && x->tid == y->tid && x->comm == y->comm &&
	       x->thread == y->thread && x->labels == y->labels && x->nframes == y->nframes &&
	       (!x->nframes || memcmp(x->frames, y->frames, x->nframes * sizeof(*x->frames)) == 0);
}

static bool frame_id_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct profile *p = ctx;

	return !(p->frec[id] & FREC_COMPACT) && frame_eq(&p->frames[p->frec[id]], key);
}

static bool sample_id_eq(const void *ctx, uint32_t id, const void *key)
{
	return sample_eq(&((const struct profile *)ctx)->samples[id], key);
}

static bool mapping_id_eq(const void *ctx, uint32_t id, const void *key)
{
	return mapping_eq(&((const struct profile *)ctx)->maps[id], key);
}

/*
 * Every string of the profile, interned by the one rule for foreign text (util/utf8safe.h):
 * names come from processes, files and profiles cpuprof did not write, and every writer and
 * report reads them from here, so they all show the same, valid name.
 */
static const char *intern(struct profile *p, const char *s)
{
	const char *r;
	char *safe;

	if (utf8safe_ok(s))
		return strset_intern(&p->strs, s);
	safe = utf8safe_dup(s);
	if (!safe)
		return NULL;
	r = strset_intern(&p->strs, safe);
	free(safe);
	return r;
}

/*
 * A process or thread name, interned: every sample has two, and the set holds every frame's
 * strings too (a tree), so the few names seen lately are looked for first.
 */
static const char *intern_name(struct profile *p, const char *s)
{
	const char **m = &p->names[idtable_hash(IDTABLE_SEED, s, strlen(s)) & 63];

	if (!*m || strcmp(*m, s))
		*m = intern(p, s);
	return *m;
}

struct profile *profile__new(void)
{
	return calloc(1, sizeof(struct profile));
}

void profile__free(struct profile *p)
{
	if (!p)
		return;
	idtable_free(&p->fidx);
	idtable_free(&p->sidx);
	idtable_free(&p->midx);
	idtable_free(&p->kidx);
	free(p->maps);
	while (p->pool) {
		struct pool_block *b = p->pool;

		p->pool = b->next;
		free(b);
	}
	free(p->stacks);
	free(p->samples);
	free(p->frames);
	free(p->frec);
	free(p->cidx);
	for (size_t i = 0; i < p->n_nblk; i++)
		free(p->nblk[i]);
	free(p->nblk);
	sample_runs__free(p->runs);
	frame_log__free(p->flog);
	free(p->fh);
	free(p->spill_dir);
	strset_clear(&p->strs);
	free(p);
}

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *nv;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	nv = realloc(*v, ncap * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

/* Room for exactly n elements (at least). 0 or -ENOMEM with *v as it was. */
static int reserve(void **v, size_t *cap, size_t n, size_t size)
{
	void *nv;

	if (n <= *cap)
		return 0;
	nv = realloc(*v, n * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = n;
	return 0;
}

/* ---- compact frames: a name only ---------------------------------------------------------- */

/* Can f be kept compact: a name and flags, nothing else. */
static bool name_only(const struct prof_frame *f)
{
	return !f->module && !f->mangled && !f->file && !f->addr && !f->rel && !f->mapping &&
	       !f->line && !f->column && !f->start_line && (unsigned int)f->kind < 8;
}

static uint8_t compact_flags(const struct prof_frame *f)
{
	return (uint8_t)((unsigned int)f->kind | (unsigned int)f->named << 3 |
			 (unsigned int)f->inlined << 4);
}

/* The flags byte of name id nid; its name follows it. */
static const char *name_at(const struct profile *p, uint32_t nid)
{
	return p->nblk[nid >> NAME_SHIFT] + (nid & (NAME_BLOCK - 1));
}

static uint32_t compact_hash(uint8_t flags, const char *name, size_t len)
{
	return idtable_hash(idtable_hash(IDTABLE_SEED, &flags, 1), name, len);
}

/* Frame id's struct: in frames[], or a compact frame built in *tmp. */
static const struct prof_frame *frame_get(const struct profile *p, uint32_t id,
					  struct prof_frame *tmp)
{
	const char *n;

	if (!(p->frec[id] & FREC_COMPACT))
		return &p->frames[p->frec[id]];
	n = name_at(p, p->frec[id] & ~FREC_COMPACT);
	*tmp = (struct prof_frame){
		.name = n + 1,
		.kind = (enum frame_kind)(*n & 7),
		.named = (*n >> 3) & 1,
		.inlined = (*n >> 4) & 1,
	};
	return tmp;
}

/* Put compact frame id in cidx (room made by the caller). */
static void cidx_put(struct profile *p, uint32_t id)
{
	const char *n = name_at(p, p->frec[id] & ~FREC_COMPACT);
	uint32_t h = compact_hash((uint8_t)*n, n + 1, strlen(n + 1));
	size_t i = h & (p->cap_cidx - 1);

	while (p->cidx[i])
		i = (i + 1) & (p->cap_cidx - 1);
	p->cidx[i] = CIDX_SLOT(h, id);
}

/* Room in cidx for one more compact frame at a load of at most 3/4 (rebuilt after trim). */
static int cidx_reserve(struct profile *p)
{
	size_t ncap = p->cap_cidx && p->cidx ? p->cap_cidx : 256;
	uint32_t *old = p->cidx;

	if (old && (p->n_compact + 1) * 4 <= p->cap_cidx * 3)
		return 0;
	while (ncap * 3 < 4 * (p->n_compact + 1))
		ncap *= 2;
	p->cidx = calloc(ncap, sizeof(*p->cidx));
	if (!p->cidx) {
		p->cidx = old;
		return -ENOMEM;
	}
	free(old);
	p->cap_cidx = ncap;
	for (size_t id = 0; id < p->n_frames; id++)
		if (p->frec[id] & FREC_COMPACT)
			cidx_put(p, (uint32_t)id);
	return 0;
}

/* Room for len bytes of names; their id in *nid. 0, -ENOMEM, or 1 when the ids are spent. */
static int name_room(struct profile *p, size_t len, uint32_t *nid)
{
	char *b;

	if (p->n_nblk && NAME_BLOCK - p->nblk_used >= len) {
		*nid = (uint32_t)((p->n_nblk - 1) << NAME_SHIFT | p->nblk_used);
		p->nblk_used += len;
		return 0;
	}
	if (p->n_nblk == NAME_MAX_BLOCKS)
		return 1;
	if (grow((void **)&p->nblk, &p->cap_nblk, p->n_nblk, sizeof(*p->nblk)))
		return -ENOMEM;
	b = malloc(NAME_BLOCK);
	if (!b)
		return -ENOMEM;
	p->nblk[p->n_nblk++] = b;
	p->nblk_used = len;
	*nid = (uint32_t)((p->n_nblk - 1) << NAME_SHIFT);
	return 0;
}

/*
 * Intern a name-only frame compactly. 0, -ENOMEM, or 1 when it must be a full frame (a name
 * too long, or the names' or index's ids spent): a frame's content always takes the same way,
 * but for the frames after the ids are spent, which are then looked for among the full ones.
 */
static int intern_compact(struct profile *p, const struct prof_frame *f, uint32_t *id)
{
	uint8_t flags = compact_flags(f);
	char *safe = NULL;
	const char *name = f->name;
	size_t len, i;
	uint32_t nid, h;
	int err = 0;

	/* the one rule for foreign text, as intern() */
	if (!utf8safe_ok(name)) {
		safe = utf8safe_dup(name);
		if (!safe)
			return -ENOMEM;
		name = safe;
	}
	len = strlen(name);
	if (len + 2 > NAME_MAX_COMPACT) {
		err = 1;
		goto out;
	}
	if (cidx_reserve(p)) {
		err = -ENOMEM;
		goto out;
	}
	h = compact_hash(flags, name, len);
	for (i = h & (p->cap_cidx - 1); p->cidx[i]; i = (i + 1) & (p->cap_cidx - 1)) {
		uint32_t cid = (p->cidx[i] & CIDX_ID_MASK) - 1;
		const char *n;

		if ((p->cidx[i] ^ h) & ~CIDX_ID_MASK)
			continue;
		n = name_at(p, p->frec[cid] & ~FREC_COMPACT);
		if ((uint8_t)*n == flags && !strcmp(n + 1, name)) {
			*id = cid;
			goto out;
		}
	}
	/* ids past the index's: full frames */
	if (p->n_frames >= CIDX_ID_MASK) {
		err = 1;
		goto out;
	}
	if (grow((void **)&p->frec, &p->cap_frec, p->n_frames, sizeof(*p->frec))) {
		err = -ENOMEM;
		goto out;
	}
	err = name_room(p, len + 2, &nid);
	if (err)
		goto out;
	memcpy(p->nblk[nid >> NAME_SHIFT] + (nid & (NAME_BLOCK - 1)) + 1, name, len + 1);
	p->nblk[nid >> NAME_SHIFT][nid & (NAME_BLOCK - 1)] = (char)flags;
	p->frec[p->n_frames] = FREC_COMPACT | nid;
	p->cidx[i] = CIDX_SLOT(h, (uint32_t)p->n_frames);
	p->n_compact++;
	*id = (uint32_t)p->n_frames++;
out:
	free(safe);
	return err;
}

/* Drop the in-memory frames (they went to the log): their names' blocks stay, bounded. */
static void frames_drop(struct profile *p)
{
	free(p->frames);
	p->frames = NULL;
	p->cap_frames = 0;
	p->n_full = 0;
	free(p->frec);
	p->frec = NULL;
	p->cap_frec = 0;
	free(p->cidx);
	p->cidx = NULL;
	p->cap_cidx = 0;
	p->n_compact = 0;
}

/* ---- frames kept on disk ------------------------------------------------------------------ */

static int idtable_sized(struct idtable *t, size_t n);

/* Two 64-bit hashes of a frame's content: with the frames on disk, the only way to tell them. */
struct fhash {
	uint64_t a, b;
};

static void fh_bytes(struct fhash *h, const void *data, size_t len)
{
	const unsigned char *c = data;

	for (size_t i = 0; i < len; i++) {
		h->a = (h->a ^ c[i]) * 0x100000001b3ull; /* FNV-1a's 64-bit prime */
		h->b = (h->b ^ c[i]) * 0x9e3779b97f4a7c15ull;
	}
}

static void fh_u64(struct fhash *h, uint64_t v)
{
	fh_bytes(h, &v, sizeof(v));
}

/* A string or its absence, told apart from any other (its length first). */
static void fh_str(struct fhash *h, const char *s)
{
	size_t len = s ? strlen(s) : 0;

	fh_u64(h, s ? len + 1 : 0);
	if (s)
		fh_bytes(h, s, len);
}

/* splitmix64's finaliser: every bit of the state to every bit of the hash */
static uint64_t fh_mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static struct fhash frame_content_hash(const struct prof_frame *f)
{
	struct fhash h = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull};

	fh_u64(&h, f->kind);
	fh_u64(&h, f->addr);
	fh_u64(&h, f->rel);
	fh_u64(&h, f->mapping);
	fh_u64(&h, (uint64_t)f->line << 32 | f->column);
	fh_u64(&h, (uint64_t)f->start_line << 2 | (uint64_t)f->named << 1 | f->inlined);
	fh_str(&h, f->name);
	fh_str(&h, f->module);
	fh_str(&h, f->mangled);
	fh_str(&h, f->file);
	return (struct fhash){fh_mix(h.a), fh_mix(h.b)};
}

static bool fhash_id_eq_in(const void *ctx, uint32_t id, const void *key)
{
	const struct fhash *x = &((const struct fhash *)ctx)[id], *y = key;

	return x->a == y->a && x->b == y->b;
}

static bool fhash_id_eq(const void *ctx, uint32_t id, const void *key)
{
	return fhash_id_eq_in(((const struct profile *)ctx)->fh, id, key);
}

/* In-memory interning, the frame's strings interned first. */
static int intern_frame_mem(struct profile *p, const struct prof_frame *f, uint32_t *id);
/* On disk, f's strings already by the rule for foreign text. */
static int intern_frame_disk_safe(struct profile *p, const struct prof_frame *f, uint32_t *id);

struct load_ctx {
	struct profile *p;
	uint32_t next; /* the id the next frame must get */
};

static int load_frame(void *ctx, const struct log_frame *lf)
{
	struct load_ctx *lc = ctx;
	struct prof_frame f = {
		.name = lf->name,
		.module = lf->module,
		.addr = lf->addr,
		.rel = lf->rel,
		.kind = (enum frame_kind)lf->kind,
		.mapping = lf->mapping,
		.named = lf->named,
		.inlined = lf->inlined,
		.mangled = lf->mangled,
		.file = lf->file,
		.line = lf->line,
		.column = lf->column,
		.start_line = lf->start_line,
	};
	struct profile *p = lc->p;
	uint32_t id;
	int err = intern_frame_mem(p, &f, &id);

	/*
	 * the log holds distinct frames, so each one is new and keeps its id; one that interns as
	 * an earlier one (names cut at 1 MiB in the log) keeps its id too, as a copy of it
	 */
	if (!err && id != lc->next) {
		if (id > lc->next ||
		    grow((void **)&p->frec, &p->cap_frec, p->n_frames, sizeof(*p->frec)))
			err = id > lc->next ? -EIO : -ENOMEM;
		else {
			/* the same record (compact or full) under a second id */
			p->frec[p->n_frames] = p->frec[id];
			if (p->frec[id] & FREC_COMPACT)
				p->n_compact++; /* cidx_reserve puts every compact id back */
			p->n_frames++;
		}
	}
	lc->next++;
	return err;
}

/*
 * The frames on disk back in memory, their ids kept; frames go on in memory from now on.
 * Frames the log cannot give back (a write or read error) become "[frame lost: REASON]", so
 * every sample keeps its count and its other frames. 0 or -ENOMEM; *why: the log's error.
 */
static int frames_in(struct profile *p, int *why)
{
	struct load_ctx lc = {p, 0};
	/* the log holds every frame (also after a frames_in that ran out of memory) */
	uint32_t total = (uint32_t)frame_log__n(p->flog);
	int err;

	*why = 0;
	/* the in-memory tables start empty: the ids come back in order */
	idtable_free(&p->fidx);
	frames_drop(p);
	p->n_frames = 0;
	/*
	 * room for all at once when there is: grown by doubling, the last copy of the frames'
	 * array (tens of MB) was made while the one before it was still there
	 */
	(void)reserve((void **)&p->frames, &p->cap_frames, total ? total : 1, sizeof(*p->frames));
	(void)reserve((void **)&p->frec, &p->cap_frec, total ? total : 1, sizeof(*p->frec));
	if (idtable_sized(&p->fidx, total))
		p->fidx = (struct idtable){0};
	err = frame_log__each(p->flog, load_frame, &lc);
	/* out of memory: the rest is lost too, if memory is left for that (else the log stays) */
	*why = err;
	/* what was not read back keeps its id as a frame of its own */
	while (p->n_frames < total) {
		char name[96];
		struct prof_frame f = {
			.name = name, .kind = FRAME_PSEUDO, .addr = p->n_frames}; /* distinct */
		uint32_t id;

		if (!*why)
			*why = -EIO;
		/* the reason is the write that failed, if one did (the read only found it out) */
		snprintf(name, sizeof(name), "[frame lost: %s]",
			 strerror(p->frame_err ? -p->frame_err : -*why));
		err = intern_frame_mem(p, &f, &id);
		if (err)
			return err;
	}
	frame_log__free(p->flog);
	p->flog = NULL;
	free(p->fh);
	p->fh = NULL;
	p->cap_fh = 0;
	return 0;
}

static struct log_frame to_log(const struct prof_frame *f)
{
	return (struct log_frame){
		.name = f->name,
		.module = f->module,
		.mangled = f->mangled,
		.file = f->file,
		.addr = f->addr,
		.rel = f->rel,
		.kind = f->kind,
		.mapping = f->mapping,
		.line = f->line,
		.column = f->column,
		.start_line = f->start_line,
		.named = f->named,
		.inlined = f->inlined,
	};
}

/*
 * s as intern() keeps it: by the rule for foreign text. *tmp: what to free (NULL when s is
 * already so). NULL on ENOMEM.
 */
static const char *safe_str(const char *s, char **tmp)
{
	*tmp = NULL;
	if (!s || utf8safe_ok(s))
		return s;
	*tmp = utf8safe_dup(s);
	return *tmp;
}

/*
 * With the frames on disk: one more if new (only its hash stays in memory). The hash and the
 * log see the strings as the read-back interns them (safe_str): two frames that differ only
 * in bytes the rule replaces are one frame, on disk as in memory (else the read-back found
 * two frames that intern as one, and every frame after them was lost).
 */
static int intern_frame_disk(struct profile *p, const struct prof_frame *f, uint32_t *id)
{
	struct prof_frame sf = *f;
	char *tmp[4];
	int err = -ENOMEM;

	sf.name = safe_str(f->name, &tmp[0]);
	sf.module = safe_str(f->module, &tmp[1]);
	sf.mangled = safe_str(f->mangled, &tmp[2]);
	sf.file = safe_str(f->file, &tmp[3]);
	if (sf.name && (sf.module || !f->module) && (sf.mangled || !f->mangled) &&
	    (sf.file || !f->file))
		err = intern_frame_disk_safe(p, &sf, id);
	for (int i = 0; i < 4; i++)
		free(tmp[i]);
	return err;
}

static int intern_frame_disk_safe(struct profile *p, const struct prof_frame *f, uint32_t *id)
{
	struct fhash h = frame_content_hash(f);
	const struct log_frame lf = to_log(f);
	struct idslot *sl;
	bool found;
	int err;

	if (idtable_reserve(&p->fidx))
		return -ENOMEM;
	sl = idtable_probe(&p->fidx, (uint32_t)(h.a >> 32), fhash_id_eq, p, &h, &found);
	if (found) {
		*id = sl->id1 - 1;
		return 0;
	}
	if (grow((void **)&p->fh, &p->cap_fh, p->n_frames, sizeof(*p->fh)))
		return -ENOMEM;
	err = frame_log__add(p->flog, &lf);
	if (err) {
		int why;

		/* the disk failed: the frames come back to memory, and stay there */
		p->frame_err = err;
		err = frames_in(p, &why);
		return err ? err : intern_frame_mem(p, f, id);
	}
	p->fh[p->n_frames] = h;
	idtable_fill(&p->fidx, sl, (uint32_t)(h.a >> 32), (uint32_t)p->n_frames);
	*id = (uint32_t)p->n_frames++;
	return 0;
}

/*
 * The frames in memory to a new log, in id order, and only their hashes kept: once there are
 * spill_after of them. 0, or a negative errno with the frames still in memory (they stay
 * there: the caller does not ask again).
 */
static int frames_out(struct profile *p)
{
	struct idtable idx = {0};
	struct frame_log *fl = frame_log__new(p->spill_dir);
	struct fhash *fh = malloc((p->n_frames ? p->n_frames : 1) * sizeof(*fh));
	int err = fl ? 0 : -errno;

	if (!err && (!fh || idtable_sized(&idx, p->n_frames)))
		err = -ENOMEM;
	for (size_t i = 0; !err && i < p->n_frames; i++) {
		struct prof_frame tmp;
		const struct prof_frame *f = frame_get(p, (uint32_t)i, &tmp);
		struct log_frame lf = to_log(f);
		struct idslot *sl;
		bool found;

		err = frame_log__add(fl, &lf);
		fh[i] = frame_content_hash(f);
		sl = idtable_probe(&idx, (uint32_t)(fh[i].a >> 32), fhash_id_eq_in, fh, &fh[i],
				   &found);
		if (!err && !found)
			idtable_fill(&idx, sl, (uint32_t)(fh[i].a >> 32), (uint32_t)i);
	}
	if (err) {
		frame_log__free(fl);
		free(fh);
		free(idx.slots);
		return err;
	}
	/* the strings stay interned (shared with mappings and names): a bounded few MB */
	frames_drop(p);
	idtable_free(&p->fidx);
	p->fidx = idx;
	p->flog = fl;
	p->fh = fh;
	p->cap_fh = p->n_frames ? p->n_frames : 1;
	return 0;
}

int profile__intern_frame(struct profile *p, const struct prof_frame *f, uint32_t *id)
{
	if (f->mapping > p->n_maps || p->sealed)
		return -EINVAL;
	if (p->spill_dir && !p->flog && !p->frame_err && p->n_frames >= p->spill_after) {
		p->frame_err = frames_out(p);
		if (p->frame_err == -ENOMEM)
			return -ENOMEM;
	}
	return p->flog ? intern_frame_disk(p, f, id) : intern_frame_mem(p, f, id);
}

static int intern_frame_mem(struct profile *p, const struct prof_frame *f, uint32_t *id)
{
	struct prof_frame nf = *f;
	struct idslot *sl;
	bool found;
	uint32_t h;
	int err;

	if (name_only(f)) {
		err = intern_compact(p, f, id);
		if (err <= 0)
			return err;
	}
	nf.name = intern(p, f->name);
	nf.module = f->module ? intern(p, f->module) : NULL;
	nf.mangled = f->mangled ? intern(p, f->mangled) : NULL;
	nf.file = f->file ? intern(p, f->file) : NULL;
	if (!nf.name || (f->module && !nf.module) || (f->mangled && !nf.mangled) ||
	    (f->file && !nf.file))
		return -ENOMEM;
	if (idtable_reserve(&p->fidx))
		return -ENOMEM;
	h = frame_hash(&nf);
	sl = idtable_probe(&p->fidx, h, frame_id_eq, p, &nf, &found);
	if (found) {
		*id = sl->id1 - 1;
		return 0;
	}
	if (p->n_full >= FREC_COMPACT || p->n_frames >= FREC_COMPACT - 1 ||
	    grow((void **)&p->frames, &p->cap_frames, p->n_full, sizeof(*p->frames)) ||
	    grow((void **)&p->frec, &p->cap_frec, p->n_frames, sizeof(*p->frec)))
		return -ENOMEM;
	p->frames[p->n_full] = nf;
	p->frec[p->n_frames] = (uint32_t)p->n_full++;
	idtable_fill(&p->fidx, sl, h, (uint32_t)p->n_frames);
	*id = (uint32_t)p->n_frames++;
	return 0;
}

static bool stack_id_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct stack *x = &((const struct profile *)ctx)->stacks[id], *y = key;

	return x->n == y->n &&
	       (!x->n || memcmp(x->frames, y->frames, x->n * sizeof(*x->frames)) == 0);
}

/*
 * Room for n frame ids, cut from the pool's blocks: one malloc per block, not per stack (its
 * header and rounding were a tenth of a stack's memory). A stack longer than a block gets a
 * block of its own. NULL on ENOMEM.
 */
static uint32_t *pool_alloc(struct profile *p, uint32_t n)
{
	struct pool_block *b;
	size_t ids = n > POOL_BLOCK ? n : POOL_BLOCK;

	if (p->pool && p->pool_cap - p->pool_used >= n) {
		p->pool_used += n;
		return &p->pool->ids[p->pool_used - n];
	}
	b = malloc(sizeof(*b) + ids * sizeof(b->ids[0]));
	if (!b)
		return NULL;
	b->next = p->pool;
	p->pool = b;
	p->pool_used = n;
	p->pool_cap = ids;
	return b->ids;
}

/* The one copy of a stack in p (added if new); NULL on ENOMEM. */
static const uint32_t *intern_stack(struct profile *p, const uint32_t *frames, uint32_t n)
{
	struct stack key = {(uint32_t *)frames, n};
	struct idslot *sl;
	uint32_t h = idtable_hash(IDTABLE_SEED, frames, n * sizeof(*frames));
	bool found;
	uint32_t *copy;

	if (idtable_reserve(&p->kidx))
		return NULL;
	sl = idtable_probe(&p->kidx, h, stack_id_eq, p, &key, &found);
	if (found)
		return p->stacks[sl->id1 - 1].frames;
	if (grow((void **)&p->stacks, &p->cap_stacks, p->n_stacks, sizeof(*p->stacks)))
		return NULL;
	copy = pool_alloc(p, n ? n : 1);
	if (!copy)
		return NULL;
	/* frames may be NULL when there are none: memcpy must not see it */
	if (n)
		memcpy(copy, frames, n * sizeof(*copy));
	p->stacks[p->n_stacks] = (struct stack){copy, n};
	idtable_fill(&p->kidx, sl, h, (uint32_t)p->n_stacks++);
	return copy;
}

/*
 * The indexes of the samples and stacks again, after a read-back that dropped them (see
 * profile__unspill): the stacks read back are not in stacks[], so they are not shared with
 * a later sample (a copy more), but every sample is found. 0 or -ENOMEM.
 */
static int reindex(struct profile *p)
{
	struct idtable sidx, kidx;

	if (!p->unindexed)
		return 0;
	if (idtable_sized(&sidx, p->n_samples))
		return -ENOMEM;
	if (idtable_sized(&kidx, p->n_stacks)) {
		idtable_free(&sidx);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->n_samples; i++) {
		bool found;
		uint32_t h = sample_hash(&p->samples[i]);
		struct idslot *sl =
			idtable_probe(&sidx, h, sample_id_eq, p, &p->samples[i], &found);

		idtable_fill(&sidx, sl, h, (uint32_t)i);
	}
	for (size_t i = 0; i < p->n_stacks; i++) {
		const struct stack *k = &p->stacks[i];
		bool found;
		uint32_t h = idtable_hash(IDTABLE_SEED, k->frames, k->n * sizeof(*k->frames));
		struct idslot *sl = idtable_probe(&kidx, h, stack_id_eq, p, k, &found);

		idtable_fill(&kidx, sl, h, (uint32_t)i);
	}
	idtable_free(&p->sidx);
	idtable_free(&p->kidx);
	p->sidx = sidx;
	p->kidx = kidx;
	p->unindexed = false;
	return 0;
}

int profile__add(struct profile *p, uint32_t pid, uint32_t tid, const char *comm,
		 const char *thread, const uint32_t *frames, uint32_t nframes, uint64_t count)
{
	return profile__add_labeled(p, pid, tid, comm, thread, "", frames, nframes, count);
}

int profile__add_labeled(struct profile *p, uint32_t pid, uint32_t tid, const char *comm,
			 const char *thread, const char *labels, const uint32_t *frames,
			 uint32_t nframes, uint64_t count)
{
	struct prof_sample ns = {
		.pid = pid,
		.tid = tid,
		.comm = intern_name(p, comm),
		.thread = intern_name(p, thread ? thread : ""),
		.labels = intern_name(p, labels ? labels : ""),
		.frames = frames,
		.nframes = nframes,
		.count = count,
	};
	struct idslot *sl;
	bool found;
	const uint32_t *copy;
	uint32_t h;

	if (p->sealed)
		return -EINVAL;
	if (!ns.comm || !ns.thread || !ns.labels || reindex(p))
		return -ENOMEM;
	for (uint32_t i = 0; i < nframes; i++)
		if (frames[i] >= p->n_frames)
			return -EINVAL;
	if (idtable_reserve(&p->sidx))
		return -ENOMEM;
	h = sample_hash(&ns);
	sl = idtable_probe(&p->sidx, h, sample_id_eq, p, &ns, &found);
	if (found) {
		p->samples[sl->id1 - 1].count += count;
		p->total += count;
		return 0;
	}
	if (grow((void **)&p->samples, &p->cap_samples, p->n_samples, sizeof(*p->samples)))
		return -ENOMEM;
	copy = intern_stack(p, frames, nframes);
	if (!copy)
		return -ENOMEM;
	ns.frames = copy;
	p->samples[p->n_samples] = ns;
	idtable_fill(&p->sidx, sl, h, (uint32_t)p->n_samples);
	p->n_samples++;
	p->total += count;
	return 0;
}

int profile__intern_mapping(struct profile *p, const struct prof_mapping *m, uint32_t *id)
{
	struct prof_mapping nm = *m;
	struct idslot *sl;
	bool found;

	if (p->sealed)
		return -EINVAL;
	uint32_t h;

	nm.path = intern(p, m->path);
	nm.build_id = intern(p, m->build_id ? m->build_id : "");
	nm.go_version = intern(p, m->go_version ? m->go_version : "");
	if (!nm.path || !nm.build_id || !nm.go_version || idtable_reserve(&p->midx))
		return -ENOMEM;
	h = mapping_hash(&nm);
	sl = idtable_probe(&p->midx, h, mapping_id_eq, p, &nm, &found);
	if (found) {
		*id = sl->id1 - 1;
		return 0;
	}
	if (grow((void **)&p->maps, &p->cap_maps, p->n_maps, sizeof(*p->maps)))
		return -ENOMEM;
	p->maps[p->n_maps] = nm;
	idtable_fill(&p->midx, sl, h, (uint32_t)p->n_maps);
	*id = (uint32_t)p->n_maps++;
	return 0;
}

size_t profile__n_mappings(const struct profile *p)
{
	return p->n_maps;
}

/* What profile__mapping gives for an id it does not know: a mapping of nothing known. */
static const struct prof_mapping mapping_unknown = {
	.kind = PMAP_UNKNOWN,
	.path = PROFILE_MAPPING_UNKNOWN,
	.build_id = "",
	.go_version = "",
};

const struct prof_mapping *profile__mapping(const struct profile *p, uint32_t id)
{
	return id < p->n_maps ? &p->maps[id] : &mapping_unknown;
}

size_t profile__n_samples(const struct profile *p)
{
	return p->n_samples;
}

/* What profile__sample gives for an index past the last: no stack, no count. */
static const struct prof_sample sample_none = {.comm = "", .thread = "", .labels = ""};

const struct prof_sample *profile__sample(const struct profile *p, size_t i)
{
	return i < p->n_samples ? &p->samples[i] : &sample_none;
}

size_t profile__n_frames(const struct profile *p)
{
	return p->n_frames;
}

/*
 * What profile__frame gives for a frame it does not hold in memory: a pseudo frame whose name
 * says so, not NULL, so that a writer run too early (before profile__unspill) writes a visible
 * marker instead of dereferencing NULL. The frame log is read in one pass only (spill.h), so
 * a frame is not read back one at a time.
 */
static const struct prof_frame frame_not_in_memory = {
	.name = PROFILE_FRAME_NOT_IN_MEMORY,
	.kind = FRAME_PSEUDO,
};

const struct prof_frame *profile__frame(const struct profile *p, uint32_t id)
{
	/* compact frames are built here, in turn in each slot: see PROFILE_FRAME_RING */
	static __thread struct prof_frame ring[PROFILE_FRAME_RING];
	static __thread unsigned int at;

	if (p->flog || id >= p->n_frames)
		return &frame_not_in_memory;
	if (!(p->frec[id] & FREC_COMPACT))
		return &p->frames[p->frec[id]];
	at = (at + 1) % PROFILE_FRAME_RING;
	return frame_get(p, id, &ring[at]);
}

/* Shrink a growable array of n elements to its size; it stays as it was if realloc fails. */
static void shrink(void **v, size_t *cap, size_t n, size_t size)
{
	void *nv;

	if (*cap <= n || !n)
		return;
	nv = realloc(*v, n * size);
	if (nv) {
		*v = nv;
		*cap = n;
	}
}

void profile__trim(struct profile *p)
{
	/* the compact frames' index: rebuilt if a frame is interned again */
	free(p->cidx);
	p->cidx = NULL;
	shrink((void **)&p->frec, &p->cap_frec, p->n_frames, sizeof(*p->frec));
	shrink((void **)&p->frames, &p->cap_frames, p->n_full, sizeof(*p->frames));
	shrink((void **)&p->samples, &p->cap_samples, p->n_samples, sizeof(*p->samples));
	shrink((void **)&p->stacks, &p->cap_stacks, p->n_stacks, sizeof(*p->stacks));
	shrink((void **)&p->maps, &p->cap_maps, p->n_maps, sizeof(*p->maps));
}

uint64_t profile__total(const struct profile *p)
{
	return p->total;
}

static int cmp_rec(const void *a, const void *b)
{
	return sample_runs__cmp(a, b);
}

/* A table of cap slots (a power of two) for at least n ids at a load of at most a half. */
static int idtable_sized(struct idtable *t, size_t n)
{
	*t = (struct idtable){.cap = 64};
	while (t->cap < 2 * (n + 1))
		t->cap *= 2;
	t->slots = calloc(t->cap, sizeof(*t->slots));
	return t->slots ? 0 : -ENOMEM;
}

/*
 * Move the samples of no process (pid 0) to a new run of p->runs, and pack the stacks of the
 * others into a new block: the memory of the profile is then that of the live processes.
 * Everything that can fail is done before the profile changes: 0, or a negative errno with
 * p as it was.
 */
static int spill(struct profile *p, bool all)
{
	struct idtable kidx = {0}, sidx = {0};
	struct run_rec *recs = NULL;
	struct stack *stacks = NULL;
	struct pool_block *block = NULL, *old;
	size_t m = 0, kept = 0, kept_ids = 0, n = 0;
	int err = -ENOMEM;

	for (size_t i = 0; i < p->n_samples; i++) {
		if (!p->samples[i].pid) {
			m++;
			continue;
		}
		kept++;
		/* intern_stack takes one id for a stack of none */
		kept_ids += p->samples[i].nframes ? p->samples[i].nframes : 1;
	}
	/* past the threshold once, at every merge: no saw-tooth of stacks piling up again */
	if (!m || (!all && m < p->spill_after && !sample_runs__n_runs(p->runs)))
		return 0;
	recs = malloc(m * sizeof(*recs));
	stacks = malloc((kept ? kept : 1) * sizeof(*stacks));
	block = malloc(sizeof(*block) + (kept_ids ? kept_ids : 1) * sizeof(block->ids[0]));
	if (!recs || !stacks || !block || idtable_sized(&kidx, kept) || idtable_sized(&sidx, kept))
		goto out;
	for (size_t i = 0; i < p->n_samples; i++) {
		const struct prof_sample *s = &p->samples[i];

		if (!s->pid)
			recs[n++] = (struct run_rec){s->comm,	s->thread,  s->labels,
						     s->frames, s->nframes, s->count};
	}
	qsort(recs, m, sizeof(*recs), cmp_rec);
	err = sample_runs__add(p->runs, recs, m);
	if (err)
		goto out;
	for (size_t i = 0; i < m; i++)
		p->runs_count += recs[i].count;

	/* from here on nothing fails: the tables are big enough for the kept samples */
	old = p->pool;
	block->next = NULL;
	p->pool = block;
	p->pool_used = 0;
	p->pool_cap = kept_ids ? kept_ids : 1;
	free(p->stacks);
	p->stacks = stacks;
	p->cap_stacks = kept ? kept : 1;
	p->n_stacks = 0;
	idtable_free(&p->kidx);
	p->kidx = kidx;
	idtable_free(&p->sidx);
	p->sidx = sidx;
	n = 0;
	for (size_t i = 0; i < p->n_samples; i++) {
		struct prof_sample s = p->samples[i];
		struct idslot *sl;
		bool found;
		uint32_t h;

		if (!s.pid)
			continue;
		s.frames = intern_stack(p, s.frames, s.nframes); /* the old block is still there */
		h = sample_hash(&s);
		(void)idtable_reserve(&p->sidx);
		sl = idtable_probe(&p->sidx, h, sample_id_eq, p, &s, &found);
		p->samples[n] = s;
		idtable_fill(&p->sidx, sl, h, (uint32_t)n++);
	}
	p->n_samples = n;
	while (old) {
		struct pool_block *b = old;

		old = b->next;
		free(b);
	}
	/* the samples' array follows the live processes down too */
	if (p->cap_samples > 1024 && p->cap_samples / 4 > n) {
		struct prof_sample *v = realloc(p->samples, p->cap_samples / 2 * sizeof(*v));

		if (v) {
			p->samples = v;
			p->cap_samples /= 2;
		}
	}
	block = NULL;
	stacks = NULL;
	kidx.slots = sidx.slots = NULL;
out:
	free(recs);
	free(stacks);
	free(block);
	free(kidx.slots);
	free(sidx.slots);
	return err;
}

int profile__merge_ended(struct profile *p, bool (*ended)(void *ctx, uint32_t pid), void *ctx,
			 size_t *n_merged)
{
	struct idtable idx = {.cap = 64};
	size_t n = 0, merged = 0;

	if (p->sealed)
		return -EINVAL;
	if (reindex(p))
		return -ENOMEM;
	/* room for every sample at a load of at most a half (idtable_reserve's): the loop below
	 * cannot fail, and the index is no bigger than one grown sample by sample */
	while (idx.cap < 2 * (p->n_samples + 1))
		idx.cap *= 2;
	idx.slots = calloc(idx.cap, sizeof(*idx.slots));
	if (!idx.slots)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_samples; i++) {
		struct prof_sample s = p->samples[i];
		struct idslot *sl;
		bool found;
		uint32_t h;

		if (s.pid && ended(ctx, s.pid)) {
			s.pid = 0;
			s.tid = 0;
			merged++;
		}
		h = sample_hash(&s);
		(void)idtable_reserve(&idx); /* never grows: see above */
		/* samples[0..n) are the kept ones, the only ones the probe compares with */
		sl = idtable_probe(&idx, h, sample_id_eq, p, &s, &found);
		if (found) {
			p->samples[sl->id1 - 1].count += s.count;
			continue;
		}
		p->samples[n] = s;
		idtable_fill(&idx, sl, h, (uint32_t)n++);
	}
	idtable_free(&p->sidx);
	p->sidx = idx;
	p->n_samples = n;
	if (n_merged)
		*n_merged = merged;
	if (p->runs)
		p->spill_err = spill(p, false);
	return 0;
}

int profile__spill_to(struct profile *p, const char *dir, size_t after)
{
	if (p->sealed)
		return -EINVAL;
	if (p->runs)
		return 0;
	p->spill_dir = strdup(dir && *dir ? dir : "/tmp");
	p->runs = p->spill_dir ? sample_runs__new(p->spill_dir) : NULL;
	if (!p->runs) {
		free(p->spill_dir);
		p->spill_dir = NULL;
		return -ENOMEM;
	}
	p->spill_after = after;
	return 0;
}

static int add_back(void *ctx, const struct run_rec *r)
{
	struct profile *p = ctx;

	return profile__add_labeled(p, 0, 0, r->comm, r->thread, r->labels, r->frames, r->n,
				    r->count);
}

/*
 * The stack of the last sample appended, grown to frames[0..n) in place when it is a prefix of
 * them (or equal) and ends where the pool's block is used up to: the runs come in key order,
 * so a stack sampled in a function comes just before those sampled in its callees, and they
 * share its frame ids. NULL when they cannot.
 */
static const uint32_t *extend_last(struct profile *p, const uint32_t *frames, uint32_t n)
{
	const struct prof_sample *last = p->n_samples ? &p->samples[p->n_samples - 1] : NULL;
	uint32_t *start;

	if (!last || !last->nframes || last->nframes > n || !p->pool ||
	    p->pool_used < last->nframes || p->pool_cap - p->pool_used < n - last->nframes)
		return NULL;
	start = &p->pool->ids[p->pool_used - last->nframes];
	if (start != last->frames || memcmp(start, frames, last->nframes * sizeof(*frames)))
		return NULL;
	memcpy(start + last->nframes, frames + last->nframes,
	       (n - last->nframes) * sizeof(*frames));
	p->pool_used += n - last->nframes;
	return start;
}

/*
 * A sample read back, appended (profile__unspill: its key is new, the room is there): its
 * stack not shared with another's, as no index finds one.
 */
static int append_back(void *ctx, const struct run_rec *r)
{
	struct profile *p = ctx;
	struct prof_sample ns = {
		.comm = intern_name(p, r->comm),
		.thread = intern_name(p, r->thread),
		.labels = intern_name(p, r->labels),
		.nframes = r->n,
		.count = r->count,
	};
	uint32_t *copy;

	if (!ns.comm || !ns.thread || !ns.labels)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->n; i++)
		if (r->frames[i] >= p->n_frames)
			return -EINVAL;
	if (grow((void **)&p->samples, &p->cap_samples, p->n_samples, sizeof(*p->samples)))
		return -ENOMEM;
	ns.frames = extend_last(p, r->frames, r->n);
	if (!ns.frames) {
		copy = pool_alloc(p, r->n ? r->n : 1);
		if (!copy)
			return -ENOMEM;
		if (r->n)
			memcpy(copy, r->frames, r->n * sizeof(*copy));
		ns.frames = copy;
	}
	p->samples[p->n_samples++] = ns;
	p->total += r->count;
	return 0;
}

int profile__unspill(struct profile *p)
{
	bool fast;
	int err;

	if (p->flog) {
		int why;

		err = frames_in(p, &why);
		if (err)
			return err;
		if (why)
			p->frame_err = why;
	}
	if (!p->runs)
		return 0;
	/*
	 * With no sample of no process left in memory, every key read back is new: the samples
	 * are appended as they come, without the indexes that would find an equal one (with
	 * the stacks' array, a third of the memory of what is read back). Else (the move of
	 * those samples to disk failed) each is added as any sample.
	 */
	fast = spill(p, true) == 0;
	if (fast) {
		uint64_t more = sample_runs__records(p->runs);

		/* room for all at once: pages of the unused rest are never touched */
		if (more <= SIZE_MAX / sizeof(*p->samples) - p->n_samples - 1 &&
		    reserve((void **)&p->samples, &p->cap_samples, p->n_samples + (size_t)more,
			    sizeof(*p->samples)) == 0) {
			idtable_free(&p->sidx);
			idtable_free(&p->kidx);
			p->unindexed = true;
		} else {
			fast = false;
		}
	}
	/* counted when first added: what comes back counts again, what does not is out */
	p->total -= p->runs_count;
	p->runs_count = 0;
	err = sample_runs__each(p->runs, fast ? append_back : add_back, p);
	sample_runs__free(p->runs);
	p->runs = NULL;
	return err;
}

int profile__seal(struct profile *p)
{
	if (p->flog || p->runs)
		return -EBUSY;
	idtable_free(&p->fidx);
	idtable_free(&p->sidx);
	idtable_free(&p->kidx);
	idtable_free(&p->midx);
	p->sealed = true;
	return 0;
}

void profile__spill_sizes(const struct profile *p, struct profile_spill *ps)
{
	*ps = (struct profile_spill){
		.records = p->runs ? sample_runs__records(p->runs) : 0,
		.bytes = p->runs ? sample_runs__bytes(p->runs) : 0,
		.runs = p->runs ? sample_runs__n_runs(p->runs) : 0,
		.err = p->spill_err,
		.frames = p->flog ? frame_log__n(p->flog) : 0,
		.frame_bytes = p->flog ? frame_log__bytes(p->flog) : 0,
		.frame_err = p->frame_err,
	};
}

void profile__mem(const struct profile *p, struct profile_mem *m)
{
	size_t blocks = 0;

	for (const struct pool_block *b = p->pool; b; b = b->next)
		blocks++;
	m->frames = p->cap_frames * sizeof(*p->frames) + p->fidx.cap * sizeof(struct idslot) +
		    p->cap_fh * sizeof(*p->fh) + p->cap_frec * sizeof(*p->frec) +
		    (p->cidx ? p->cap_cidx * sizeof(*p->cidx) : 0) + p->n_nblk * NAME_BLOCK;
	m->samples = p->cap_samples * sizeof(*p->samples) + p->sidx.cap * sizeof(struct idslot) +
		     p->cap_stacks * sizeof(*p->stacks) + p->kidx.cap * sizeof(struct idslot) +
		     blocks * POOL_BLOCK * sizeof(uint32_t);
	m->strings = p->strs.bytes;
	m->n_strings = p->strs.n;
}

static int cmp_pid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

size_t profile__n_processes(const struct profile *p)
{
	uint32_t *pids = malloc((p->n_samples ? p->n_samples : 1) * sizeof(*pids));
	size_t n = 0;

	if (!pids)
		return 0;
	for (size_t i = 0; i < p->n_samples; i++)
		pids[i] = p->samples[i].pid;
	qsort(pids, p->n_samples, sizeof(*pids), cmp_pid);
	for (size_t i = 0; i < p->n_samples; i++)
		if (i == 0 || pids[i] != pids[i - 1])
			n++;
	free(pids);
	return n;
}
