// SPDX-License-Identifier: GPL-2.0
/*
 * proc_snapshot on this very process and on fake procfs trees: the executable mappings and
 * their kinds, objects shared by device and inode (across mappings, processes, generations)
 * and kept open after their file is gone, the build-id, the nspid, the refresh rules (a new
 * mapping replaces what it covers, the others stay), and the mappings as the unwinder walks
 * them (address order, fd, file vaddr, the vDSO).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "cmocka_inc.h"
#include "proc/proc_snapshot.h"
#include "proc/proc_status.h"

int cp_test_fn(int x);

__attribute__((noinline, used)) int cp_test_fn(int x)
{
	return x * 7 + 3;
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

static void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void run(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

/* The path of fixture program name (CPUPROF_FIXTURES, else the release build's). */
static void fixture_path(char *buf, size_t size, const char *name)
{
	const char *fix = getenv("CPUPROF_FIXTURES");

	snprintf(buf, size, "%s/%s", fix ? fix : "build/rel/fixtures", name);
}

/* A fake procfs in dir (a mkdtemp template) with process 42's directory, its path in p42. */
static void fake_proc42(char *dir, char *p42, size_t size)
{
	assert_non_null(mkdtemp(dir));
	snprintf(p42, size, "%s/42", dir);
}

static void test_own_process(void **state)
{
	struct proc_snapshot *ps = proc_snapshot__new("/proc");
	uint64_t a = (uint64_t)(uintptr_t)&cp_test_fn;
	uint32_t pid = (uint32_t)getpid();
	const struct ps_map *m;
	struct proc_status st;
	struct stat exe, got;
	const char *id;
	unsigned int objs;

	(void)state;
	assert_non_null(ps);
	assert_string_equal(proc_snapshot__procfs(ps), "/proc");
	assert_int_equal(proc_snapshot__take(ps, pid, 0), 0);
	assert_int_equal(proc_snapshot__take(ps, pid, 0), 0); /* idempotent */
	assert_int_equal(proc_snapshot__n_snapshots(ps), 1);
	objs = proc_snapshot__n_objects(ps);
	assert_true(objs >= 2); /* this test and libc at least */

	/* this program: a file, opened, the same file as /proc/self/exe */
	m = proc_snapshot__find(ps, pid, 0, a);
	assert_non_null(m);
	assert_int_equal(m->kind, PS_MAP_FILE);
	assert_true(m->start <= a && a < m->end);
	assert_string_equal(m->label, "test_proc_snapshot");
	assert_non_null(strstr(m->path, "/test_proc_snapshot"));
	assert_non_null(m->obj);
	assert_string_equal(m->obj->name, "test_proc_snapshot");
	assert_ptr_equal(m->obj->path, m->path);
	assert_int_equal(m->obj->pid, pid);
	assert_int_equal(stat("/proc/self/exe", &exe), 0);
	assert_int_equal(fstat(m->obj->fd, &got), 0);
	assert_int_equal(got.st_ino, exe.st_ino);
	assert_int_equal(m->obj->ino, exe.st_ino);
	assert_int_equal(m->obj->dev, exe.st_dev);
	id = proc_snapshot__build_id(ps, m->obj);
	assert_int_equal(strlen(id), 40); /* gcc's default SHA-1 build-id */
	assert_true(strspn(id, "0123456789abcdef") == 40);
	assert_ptr_equal(proc_snapshot__build_id(ps, m->obj), id); /* read once, interned */

	/* a shared object */
	m = proc_snapshot__find(ps, pid, 0, (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "strtoul"));
	assert_non_null(m);
	assert_int_equal(m->kind, PS_MAP_FILE);
	assert_string_equal(m->obj->name, "libc.so.6");
	/* the vDSO: no file */
	m = proc_snapshot__find(ps, pid, 0, getauxval(AT_SYSINFO_EHDR));
	assert_non_null(m);
	assert_int_equal(m->kind, PS_MAP_VDSO);
	assert_string_equal(m->label, "[vdso]");
	assert_null(m->obj);

	/* no mapping, or no snapshot of that generation */
	assert_null(proc_snapshot__find(ps, pid, 0, 16));
	assert_null(proc_snapshot__find(ps, pid, 1, a));
	assert_int_equal(proc_status_read("/proc", pid, &st), 0);
	assert_int_equal(proc_snapshot__nspid(ps, pid, 0), st.nspid);
	assert_int_equal(proc_snapshot__nspid(ps, pid, 1), pid);

	/* another generation is another snapshot of the same objects */
	assert_int_equal(proc_snapshot__take(ps, pid, 1), 0);
	assert_int_equal(proc_snapshot__n_snapshots(ps), 2);
	assert_int_equal(proc_snapshot__n_objects(ps), objs);
	assert_ptr_equal(proc_snapshot__find(ps, pid, 1, a)->obj,
			 proc_snapshot__find(ps, pid, 0, a)->obj);
	proc_snapshot__free(ps);
	proc_snapshot__free(NULL);
}

static void test_no_such_process(void **state)
{
	struct proc_snapshot *ps = proc_snapshot__new("/proc");

	(void)state;
	assert_int_equal(proc_snapshot__take(ps, 2147483000u, 0), -ESRCH);
	assert_int_equal(proc_snapshot__refresh(ps, 2147483000u, 0), -ESRCH);
	assert_int_equal(proc_snapshot__n_snapshots(ps), 0);
	assert_null(proc_snapshot__find(ps, 2147483000u, 0, 0x1000));
	proc_snapshot__free(ps);
}

struct walk {
	struct ps_map_info v[256];
	size_t n;
	size_t stop_at; /* return 7 at this call (1-based); 0: never */
};

static int collect(const struct ps_map_info *mi, void *ctx)
{
	struct walk *w = ctx;

	assert_true(w->n < 256);
	w->v[w->n++] = *mi;
	return w->n == w->stop_at ? 7 : 0;
}

/* The mappings as the unwinder gets them, on this process. */
static void test_for_each_map(void **state)
{
	struct proc_snapshot *ps = proc_snapshot__new("/proc");
	uint64_t a = (uint64_t)(uintptr_t)&cp_test_fn, vdso = getauxval(AT_SYSINFO_EHDR);
	uint32_t pid = (uint32_t)getpid();
	struct walk *w = calloc(1, sizeof(*w));
	bool own = false, seen_vdso = false;
	struct stat exe;
	Dl_info dl;

	(void)state;
	assert_non_null(w);
	assert_int_equal(proc_snapshot__for_each_map(ps, pid, 0, collect, w), -ENOENT);
	assert_int_equal(proc_snapshot__take(ps, pid, 0), 0);
	assert_int_equal(proc_snapshot__for_each_map(ps, pid, 0, collect, w), 0);
	assert_true(w->n >= 4);
	assert_int_equal(stat("/proc/self/exe", &exe), 0);
	assert_true(dladdr(&cp_test_fn, &dl) != 0);
	for (size_t i = 0; i < w->n; i++) {
		const struct ps_map_info *mi = &w->v[i];

		if (i)
			assert_true(mi->start >= w->v[i - 1].end);
		if (mi->start <= vdso && vdso < mi->end) {
			assert_true(mi->vdso);
			assert_int_equal(mi->fd, -1);
			seen_vdso = true;
		} else {
			assert_false(mi->vdso);
		}
		if (mi->start <= a && a < mi->end) {
			own = true;
			assert_true(mi->fd >= 0);
			assert_int_equal(mi->ino, exe.st_ino);
			assert_int_equal(mi->dev, exe.st_dev);
			/* the file vaddr of the function: its distance from this PIE's base */
			assert_int_equal(a - mi->start + mi->vaddr, a - (uintptr_t)dl.dli_fbase);
			assert_ptr_equal(mi->build_id,
					 proc_snapshot__build_id(
						 ps, proc_snapshot__find(ps, pid, 0, a)->obj));
		}
	}
	assert_true(own);
	assert_true(seen_vdso);
	/* fn's first nonzero result stops the walk and comes back */
	memset(w, 0, sizeof(*w));
	w->stop_at = 2;
	assert_int_equal(proc_snapshot__for_each_map(ps, pid, 0, collect, w), 7);
	assert_int_equal(w->n, 2);
	free(w);
	proc_snapshot__free(ps);
}

/* ps_snap_fn: xor of pid << 32 | gen of every snapshot listed, into *ctx. */
static int list_snap(uint32_t pid, uint32_t gen, void *ctx)
{
	uint64_t *acc = ctx;

	acc[0] ^= (uint64_t)pid << 32 | gen;
	acc[1]++;
	return 0;
}

/* The snapshots proc_snapshot__for_each_snapshot lists: xor of their keys, xor their number. */
static uint64_t snaps_listed(const struct proc_snapshot *ps)
{
	uint64_t acc[2] = {0, 0};

	assert_int_equal(proc_snapshot__for_each_snapshot(ps, list_snap, acc), 0);
	return acc[0] ^ acc[1];
}

/*
 * A fake procfs: two processes map one file (a hard link: one inode) that is reachable only
 * through root/, next to anonymous memory, a file that cannot be opened, the vDSO and
 * [vsyscall].
 */
static void test_fake_procfs(void **state)
{
	char dir[] = "/tmp/cpuprof-snap.XXXXXX", p42[64], p43[64], fixpath[4096];
	struct proc_snapshot *ps;
	const struct ps_map *m, *m2;
	struct walk *w = calloc(1, sizeof(*w));
	unsigned char magic[4];
	const char *maps =
		/* fix_nopie is ET_EXEC: its text is mapped at its link address, offset 0x1000 */
		"00401000-00402000 r-xp 00001000 08:01 77 /opt/app\n"
		"00402000-00403000 r--p 00002000 08:01 77 /opt/app\n"
		"7f0000000000-7f0000001000 r-xp 00000000 00:00 0 \n"
		"7f0000002000-7f0000003000 r-xp 00000000 08:01 78 /opt/missing.so\n"
		"7ffff7fc1000-7ffff7fc3000 r-xp 00000000 00:00 0                  [vdso]\n"
		"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0          [vsyscall]\n";

	(void)state;
	assert_non_null(w);
	fixture_path(fixpath, sizeof(fixpath), "fix_nopie");
	fake_proc42(dir, p42, sizeof(p42));
	snprintf(p43, sizeof(p43), "%s/43", dir);
	run("mkdir -p %s/root/opt %s/root/opt && cp '%s' %s/root/opt/app && ln %s/root/opt/app "
	    "%s/root/opt/app",
	    p42, p43, fixpath, p42, p42, p43);
	write_file(p42, "maps", maps);
	write_file(p43, "maps", "00401000-00402000 r-xp 00001000 08:01 77 /opt/app\n");
	write_file(p42, "status", "Name:\tapp\nState:\tS (sleeping)\nTgid:\t42\nNSpid:\t42\t7\n");

	ps = proc_snapshot__new(dir);
	assert_non_null(ps);
	assert_int_equal(proc_snapshot__take(ps, 42, 3), 0);
	assert_int_equal(proc_snapshot__take(ps, 43, 0), 0);
	/* the objects were opened now: removing the files does not lose them */
	run("rm -rf %s/root %s/root", p42, p43);
	assert_int_equal(proc_snapshot__n_snapshots(ps), 2);
	assert_int_equal(proc_snapshot__n_objects(ps), 1);
	assert_int_equal(proc_snapshot__nspid(ps, 42, 3), 7);
	assert_int_equal(proc_snapshot__nspid(ps, 43, 0), 43); /* no status file */

	m = proc_snapshot__find(ps, 42, 3, 0x401010);
	assert_non_null(m);
	assert_int_equal(m->kind, PS_MAP_FILE);
	assert_int_equal(m->offset, 0x1000);
	assert_string_equal(m->label, "app");
	assert_string_equal(m->path, "/opt/app");
	assert_string_equal(m->obj->name, "app");
	assert_int_equal(m->obj->pid, 42);
	assert_int_equal(pread(m->obj->fd, magic, 4, 0), 4);
	assert_memory_equal(magic, "\177ELF", 4);
	/* the other process's mapping of the same inode: the same object, first mapped by 42 */
	m2 = proc_snapshot__find(ps, 43, 0, 0x401010);
	assert_non_null(m2);
	assert_ptr_equal(m2->obj, m->obj);
	/* only executable mappings */
	assert_null(proc_snapshot__find(ps, 42, 3, 0x402010));
	m = proc_snapshot__find(ps, 42, 3, 0x7f0000000010);
	assert_int_equal(m->kind, PS_MAP_ANON);
	assert_string_equal(m->label, "[anon]");
	assert_null(m->obj);
	m = proc_snapshot__find(ps, 42, 3, 0x7f0000002010);
	assert_int_equal(m->kind, PS_MAP_NOFILE);
	assert_string_equal(m->label, "missing.so");
	assert_string_equal(m->path, "/opt/missing.so");
	assert_null(m->obj);
	assert_int_equal(proc_snapshot__find(ps, 42, 3, 0x7ffff7fc1000)->kind, PS_MAP_VDSO);
	assert_int_equal(proc_snapshot__find(ps, 42, 3, 0xffffffffff600000)->kind, PS_MAP_SPECIAL);

	/* for the unwinder: the file with its vaddr, the rest without a file */
	assert_int_equal(proc_snapshot__for_each_map(ps, 42, 3, collect, w), 0);
	assert_int_equal(w->n, 5);
	assert_true(w->v[0].fd >= 0);
	assert_int_equal(w->v[0].vaddr, 0x401000);
	assert_int_equal(w->v[0].ino, proc_snapshot__find(ps, 42, 3, 0x401010)->obj->ino);
	assert_non_null(w->v[0].build_id);
	for (size_t i = 1; i < 5; i++)
		assert_int_equal(w->v[i].fd, -1);
	assert_true(w->v[3].vdso);
	free(w);

	/*
	 * A process whose maps names the object's own device and inode: the object open
	 * already, though its file cannot be opened through this process any more.
	 */
	{
		const struct ps_object *o = proc_snapshot__find(ps, 43, 0, 0x401010)->obj;
		char line[256], p44[64];

		snprintf(p44, sizeof(p44), "%s/44", dir);
		run("mkdir -p %s", p44);
		snprintf(line, sizeof(line),
			 "00401000-00402000 r-xp 00001000 %02x:%02x %llu /opt/app\n", major(o->dev),
			 minor(o->dev), (unsigned long long)o->ino);
		write_file(p44, "maps", line);
		assert_int_equal(proc_snapshot__take(ps, 44, 0), 0);
		m = proc_snapshot__find(ps, 44, 0, 0x401010);
		assert_non_null(m);
		assert_int_equal(m->kind, PS_MAP_FILE);
		assert_ptr_equal(m->obj, o);
		assert_int_equal(proc_snapshot__n_objects(ps), 1);
		assert_int_equal(proc_snapshot__release(ps, 44, 0), 0);
	}

	/* a process that has ended: its snapshot goes, the other's and the shared object stay */
	assert_int_equal(snaps_listed(ps), (42ull << 32 | 3) ^ (43ull << 32 | 0) ^ 2);
	assert_int_equal(proc_snapshot__release(ps, 42, 3), 0);
	assert_null(proc_snapshot__find(ps, 42, 3, 0x401010));
	assert_int_equal(proc_snapshot__release(ps, 42, 3), -ENOENT);
	assert_int_equal(proc_snapshot__release(ps, 43, 1), -ENOENT); /* another generation */
	assert_int_equal(snaps_listed(ps), (43ull << 32 | 0) ^ 1);
	m = proc_snapshot__find(ps, 43, 0, 0x401010);
	assert_non_null(m);
	assert_int_equal(pread(m->obj->fd, magic, 4, 0), 4);
	assert_memory_equal(magic, "\177ELF", 4);
	proc_snapshot__free(ps);
	run("rm -rf %s", dir);
}

/*
 * An object laid out as lld lays out a small PIE (headers and read-only data, then the code
 * from file offset 0x830 at vaddr 0x1830): the executable mapping at file offset 0 holds vaddr
 * 0x1000, not 0, and the unwinder (for_each_map) and the symbolizer (map_vaddr) both get that.
 */
static void test_lld_layout(void **state)
{
	static const Elf64_Phdr ph[] = {
		{PT_LOAD, PF_R, 0x0, 0x0, 0x0, 0x82c, 0x82c, 0x1000},
		{PT_LOAD, PF_R | PF_X, 0x830, 0x1830, 0x1830, 0x340, 0x340, 0x1000},
		{PT_LOAD, PF_R | PF_W, 0xb70, 0x2b70, 0x2b70, 0x1d8, 0x1d8, 0x1000},
	};
	Elf64_Ehdr eh = {
		.e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
			    EV_CURRENT},
		.e_type = ET_DYN,
		.e_machine = EM_X86_64,
		.e_version = EV_CURRENT,
		.e_phoff = sizeof(Elf64_Ehdr),
		.e_ehsize = sizeof(Elf64_Ehdr),
		.e_phentsize = sizeof(Elf64_Phdr),
		.e_phnum = sizeof(ph) / sizeof(ph[0]),
	};
	char dir[] = "/tmp/cpuprof-snap.XXXXXX", p42[64], path[4096];
	struct walk *w = calloc(1, sizeof(*w));
	struct proc_snapshot *ps;
	const struct ps_map *m;
	uint64_t v = 0;
	FILE *f;

	(void)state;
	assert_non_null(w);
	assert_non_null(mkdtemp(dir));
	snprintf(p42, sizeof(p42), "%s/42", dir);
	run("mkdir -p %s/root/opt", p42);
	snprintf(path, sizeof(path), "%s/root/opt/lld.so", p42);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(&eh, sizeof(eh), 1, f), 1);
	assert_int_equal(fwrite(ph, sizeof(ph), 1, f), 1);
	assert_int_equal(fseek(f, 0x2000 - 1, SEEK_SET), 0);
	assert_int_equal(fputc(0, f), 0);
	assert_int_equal(fclose(f), 0);
	write_file(p42, "maps",
		   "7f0000000000-7f0000001000 r--p 00000000 08:01 79 /opt/lld.so\n"
		   "7f0000001000-7f0000002000 r-xp 00000000 08:01 79 /opt/lld.so\n"
		   "7f0000002000-7f0000003000 rw-p 00000000 08:01 79 /opt/lld.so\n");
	ps = proc_snapshot__new(dir);
	assert_non_null(ps);
	assert_int_equal(proc_snapshot__take(ps, 42, 0), 0);
	m = proc_snapshot__find(ps, 42, 0, 0x7f0000001830);
	assert_non_null(m);
	assert_int_equal(m->kind, PS_MAP_FILE);
	assert_int_equal(proc_snapshot__map_vaddr(ps, m, &v), 0);
	assert_int_equal(v, 0x1000);
	assert_int_equal(proc_snapshot__for_each_map(ps, 42, 0, collect, w), 0);
	assert_int_equal(w->n, 1);
	assert_true(w->v[0].fd >= 0);
	assert_int_equal(w->v[0].vaddr, 0x1000);
	free(w);
	proc_snapshot__free(ps);
	run("rm -rf %s", dir);
}

/* Refresh: new mappings come in, one that covers an old one replaces it, the rest stay. */
static void test_refresh(void **state)
{
	char dir[] = "/tmp/cpuprof-snap.XXXXXX", p42[64];
	struct proc_snapshot *ps;
	const struct ps_map *m;
	struct walk *w = calloc(1, sizeof(*w));

	(void)state;
	assert_non_null(w);
	assert_non_null(mkdtemp(dir));
	snprintf(p42, sizeof(p42), "%s/42", dir);
	assert_int_equal(mkdir(p42, 0700), 0);
	write_file(p42, "maps",
		   "7f0000000000-7f0000001000 r-xp 00000000 00:00 0 \n"
		   "7f0000002000-7f0000003000 r-xp 00000000 00:00 0 \n");
	ps = proc_snapshot__new(dir);
	assert_non_null(ps);
	/* refresh without a snapshot takes one */
	assert_int_equal(proc_snapshot__refresh(ps, 42, 1), 0);
	assert_int_equal(proc_snapshot__n_snapshots(ps), 1);
	assert_non_null(proc_snapshot__find(ps, 42, 1, 0x7f0000000010));

	/* the first mapping is replaced by one that overlaps it, the second is unmapped */
	write_file(p42, "maps",
		   "7f0000000800-7f0000001800 r-xp 00000000 00:00 0 \n"
		   "7f0000004000-7f0000005000 r-xp 00000000 00:00 0 \n");
	assert_int_equal(proc_snapshot__refresh(ps, 42, 1), 0);
	assert_int_equal(proc_snapshot__n_snapshots(ps), 1);
	/* the replaced one is gone entirely, also where the new one does not reach */
	assert_null(proc_snapshot__find(ps, 42, 1, 0x7f0000000010));
	m = proc_snapshot__find(ps, 42, 1, 0x7f0000000900);
	assert_non_null(m);
	assert_int_equal(m->start, 0x7f0000000800);
	/* the unmapped one stays: earlier samples may point into it */
	m = proc_snapshot__find(ps, 42, 1, 0x7f0000002010);
	assert_non_null(m);
	assert_int_equal(m->start, 0x7f0000002000);
	assert_non_null(proc_snapshot__find(ps, 42, 1, 0x7f0000004010));
	/* still in address order */
	assert_int_equal(proc_snapshot__for_each_map(ps, 42, 1, collect, w), 0);
	assert_int_equal(w->n, 3);
	assert_int_equal(w->v[0].start, 0x7f0000000800);
	assert_int_equal(w->v[1].start, 0x7f0000002000);
	assert_int_equal(w->v[2].start, 0x7f0000004000);

	/* the process is gone (an empty maps file): the snapshot stays as it was */
	write_file(p42, "maps", "");
	assert_int_equal(proc_snapshot__refresh(ps, 42, 1), -ESRCH);
	assert_non_null(proc_snapshot__find(ps, 42, 1, 0x7f0000004010));
	/* another generation is another snapshot */
	assert_int_equal(proc_snapshot__take(ps, 42, 2), -ESRCH);
	assert_null(proc_snapshot__find(ps, 42, 2, 0x7f0000004010));
	free(w);
	proc_snapshot__free(ps);
	run("rm -rf %s", dir);
}

/*
 * Refresh of a process that is exiting: its maps can still be read while its root (so
 * map_files and /proc/PID/root) is gone. A mapping read again unchanged (range, offset, path,
 * inode) keeps the file opened the first time, rather than losing its names; where maps shows
 * another inode (overlay filesystems) the file is opened again and, when that fails, the old
 * one kept; a mapping new at that place and unreadable is PS_MAP_NOFILE.
 */
static void test_refresh_exiting(void **state)
{
	char dir[] = "/tmp/cpuprof-snap.XXXXXX", p42[64], fixpath[4096], path[4096], maps[512];
	struct proc_snapshot *ps;
	const struct ps_map *m;
	const struct ps_object *obj;
	struct stat st;

	(void)state;
	fixture_path(fixpath, sizeof(fixpath), "fix_nopie");
	fake_proc42(dir, p42, sizeof(p42));
	run("mkdir -p %s/root/opt && cp '%s' %s/root/opt/app && cp '%s' %s/root/opt/lib.so", p42,
	    fixpath, p42, fixpath, p42);
	snprintf(path, sizeof(path), "%s/root/opt/app", p42);
	assert_int_equal(stat(path, &st), 0);
	snprintf(maps, sizeof(maps),
		 "00401000-00402000 r-xp 00001000 08:01 %llu /opt/app\n"
		 "7f0000001000-7f0000002000 r-xp 00001000 08:01 %llu /opt/lib.so\n",
		 (unsigned long long)st.st_ino, (unsigned long long)st.st_ino + 1);
	write_file(p42, "maps", maps);
	ps = proc_snapshot__new(dir);
	assert_non_null(ps);
	assert_int_equal(proc_snapshot__take(ps, 42, 1), 0);
	m = proc_snapshot__find(ps, 42, 1, 0x401010);
	assert_non_null(m);
	assert_int_equal(m->kind, PS_MAP_FILE);
	obj = m->obj;
	assert_int_equal(proc_snapshot__find(ps, 42, 1, 0x7f0000001010)->kind, PS_MAP_FILE);

	/* exiting: the files cannot be opened any more; the maps read the same */
	run("rm -rf %s/root", p42);
	assert_int_equal(proc_snapshot__refresh(ps, 42, 1), 0);
	m = proc_snapshot__find(ps, 42, 1, 0x401010);
	assert_non_null(m);
	assert_int_equal(m->kind, PS_MAP_FILE);
	assert_ptr_equal(m->obj, obj);
	assert_string_equal(m->label, "app");
	/* lib.so's inode in maps is not its file's: opened again, which fails, so kept */
	m = proc_snapshot__find(ps, 42, 1, 0x7f0000001010);
	assert_non_null(m);
	assert_int_equal(m->kind, PS_MAP_FILE);
	assert_string_equal(m->label, "lib.so");
	/* a mapping that is new (another offset) and unreadable */
	snprintf(maps, sizeof(maps),
		 "00401000-00402000 r-xp 00001000 08:01 %llu /opt/app\n"
		 "7f0000001000-7f0000002000 r-xp 00002000 08:01 %llu /opt/lib.so\n",
		 (unsigned long long)st.st_ino, (unsigned long long)st.st_ino + 1);
	write_file(p42, "maps", maps);
	assert_int_equal(proc_snapshot__refresh(ps, 42, 1), 0);
	m = proc_snapshot__find(ps, 42, 1, 0x7f0000001010);
	assert_non_null(m);
	assert_int_equal(m->kind, PS_MAP_NOFILE);
	assert_ptr_equal(proc_snapshot__find(ps, 42, 1, 0x401010)->obj, obj);
	proc_snapshot__free(ps);
	run("rm -rf %s", dir);
}

/*
 * A mapping the BPF walker found (proc_snapshot__add_vma): of a file opened for another
 * process, it names frames of a process never read (one is taken), replaces what it covers,
 * and a file neither known nor in map_files is -ENOENT.
 */
static void test_add_vma(void **state)
{
	char dir[] = "/tmp/cpuprof-snap.XXXXXX", p42[64], fixpath[4096], maps[256];
	struct proc_snapshot *ps;
	const struct ps_map *m;
	struct ps_vma v;

	(void)state;
	fixture_path(fixpath, sizeof(fixpath), "fix_nopie");
	fake_proc42(dir, p42, sizeof(p42));
	run("mkdir -p %s/root/opt && cp '%s' %s/root/opt/app", p42, fixpath, p42);
	snprintf(maps, sizeof(maps), "00401000-00402000 r-xp 00001000 08:01 77 /opt/app\n");
	write_file(p42, "maps", maps);
	ps = proc_snapshot__new(dir);
	assert_non_null(ps);
	assert_int_equal(proc_snapshot__take(ps, 42, 0), 0);
	m = proc_snapshot__find(ps, 42, 0, 0x401010);
	assert_non_null(m);
	assert_int_equal(m->kind, PS_MAP_FILE);

	/* process 50 exited before it was read: the file is known by (dev, ino) */
	v = (struct ps_vma){.start = 0x7f0000001000,
			    .end = 0x7f0000002000,
			    .offset = 0x1000,
			    .dev = m->obj->dev,
			    .ino = m->obj->ino};
	assert_int_equal(proc_snapshot__add_vma(ps, 50, 3, &v), 0);
	assert_int_equal(proc_snapshot__n_snapshots(ps), 2);
	assert_int_equal(proc_snapshot__n_objects(ps), 1);
	m = proc_snapshot__find(ps, 50, 3, 0x7f0000001010);
	assert_non_null(m);
	assert_int_equal(m->kind, PS_MAP_FILE);
	assert_int_equal(m->offset, 0x1000);
	assert_string_equal(m->label, "app");
	assert_ptr_equal(m->obj, proc_snapshot__find(ps, 42, 0, 0x401010)->obj);
	assert_null(proc_snapshot__find(ps, 50, 2, 0x7f0000001010));

	/* one that overlaps it replaces it; another beside it joins, in address order */
	v.start = 0x7f0000001800;
	v.end = 0x7f0000003000;
	assert_int_equal(proc_snapshot__add_vma(ps, 50, 3, &v), 0);
	assert_null(proc_snapshot__find(ps, 50, 3, 0x7f0000001010));
	assert_int_equal(proc_snapshot__find(ps, 50, 3, 0x7f0000001900)->start, 0x7f0000001800);
	v.start = 0x7f0000000000;
	v.end = 0x7f0000001000;
	assert_int_equal(proc_snapshot__add_vma(ps, 50, 3, &v), 0);
	assert_int_equal(proc_snapshot__find(ps, 50, 3, 0x7f0000000010)->start, 0x7f0000000000);

	/* a file not known, and no map_files to open it by */
	v.ino += 1000;
	v.start = 0x7f0000005000;
	v.end = 0x7f0000006000;
	assert_int_equal(proc_snapshot__add_vma(ps, 50, 3, &v), -ENOENT);
	assert_null(proc_snapshot__find(ps, 50, 3, 0x7f0000005010));
	v.end = v.start;
	assert_int_equal(proc_snapshot__add_vma(ps, 50, 3, &v), -EINVAL);
	proc_snapshot__free(ps);
	run("rm -rf %s", dir);
}

struct map_list {
	struct ps_map_info v[512];
	size_t n;
};

static int collect_info(const struct ps_map_info *mi, void *ctx)
{
	struct map_list *l = ctx;

	assert_true(l->n < sizeof(l->v) / sizeof(l->v[0]));
	l->v[l->n++] = *mi;
	return 0;
}

/*
 * The snapshot of this process is the same whether its mappings are asked of the kernel
 * (PROCMAP_QUERY) or read as maps text (forced off, as on kernels before 6.11), with anonymous
 * executable memory, a memfd and a removed file mapped besides the program and its libraries.
 */
static void test_query_same_as_text(void **state)
{
	struct proc_snapshot *pq = proc_snapshot__new("/proc");
	struct proc_snapshot *pt = proc_snapshot__new("/proc");
	struct map_list *lq = calloc(1, sizeof(*lq)), *lt = calloc(1, sizeof(*lt));
	uint32_t pid = (uint32_t)getpid();
	char page[4096] = {0x90}, gone[64];
	void *anon, *mfd, *del;
	int fd, kinds = 0;

	(void)state;
	assert_non_null(pq);
	assert_non_null(pt);
	assert_non_null(lq);
	assert_non_null(lt);
	anon = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(anon != MAP_FAILED);
	fd = memfd_create("cp-snap", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, page, sizeof(page)), sizeof(page));
	mfd = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	assert_true(mfd != MAP_FAILED);
	close(fd);
	snprintf(gone, sizeof(gone), "%s/cp_snap_XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(gone);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, page, sizeof(page)), sizeof(page));
	del = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	unlink(gone);

	proc_snapshot__use_maps_query(pt, false);
	assert_int_equal(proc_snapshot__take(pq, pid, 0), 0);
	assert_int_equal(proc_snapshot__take(pt, pid, 0), 0);
	assert_int_equal(proc_snapshot__for_each_map(pq, pid, 0, collect_info, lq), 0);
	assert_int_equal(proc_snapshot__for_each_map(pt, pid, 0, collect_info, lt), 0);
	assert_int_equal(lq->n, lt->n);
	for (size_t i = 0; i < lt->n; i++) {
		const struct ps_map_info *a = &lt->v[i], *b = &lq->v[i];
		const struct ps_map *ma = proc_snapshot__find(pt, pid, 0, a->start);
		const struct ps_map *mb = proc_snapshot__find(pq, pid, 0, b->start);

		assert_true(a->start == b->start && a->end == b->end);
		assert_true(a->dev == b->dev && a->ino == b->ino && a->vaddr == b->vaddr);
		assert_int_equal(a->fd >= 0, b->fd >= 0);
		assert_int_equal(a->vdso, b->vdso);
		assert_non_null(ma);
		assert_non_null(mb);
		assert_true(ma->offset == mb->offset);
		assert_int_equal(ma->kind, mb->kind);
		assert_string_equal(ma->label, mb->label);
		assert_string_equal(ma->path, mb->path);
		kinds |= 1 << mb->kind;
	}
	/* the odd mappings are there: anonymous, the memfd and the removed file (opened) */
	assert_int_equal(proc_snapshot__find(pq, pid, 0, (uintptr_t)anon)->kind, PS_MAP_ANON);
	assert_string_equal(proc_snapshot__find(pq, pid, 0, (uintptr_t)mfd)->path,
			    "/memfd:cp-snap");
	if (del != MAP_FAILED) {
		assert_string_equal(proc_snapshot__find(pq, pid, 0, (uintptr_t)del)->path, gone);
		assert_int_equal(proc_snapshot__find(pq, pid, 0, (uintptr_t)del)->kind,
				 PS_MAP_FILE);
		munmap(del, 4096);
	}
	assert_true(kinds & (1 << PS_MAP_FILE));
	assert_true(kinds & (1 << PS_MAP_VDSO));
	munmap(anon, 4096);
	munmap(mfd, 4096);
	free(lq);
	free(lt);
	proc_snapshot__free(pq);
	proc_snapshot__free(pt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_process),	cmocka_unit_test(test_query_same_as_text),
		cmocka_unit_test(test_no_such_process), cmocka_unit_test(test_for_each_map),
		cmocka_unit_test(test_fake_procfs),	cmocka_unit_test(test_lld_layout),
		cmocka_unit_test(test_refresh),		cmocka_unit_test(test_refresh_exiting),
		cmocka_unit_test(test_add_vma),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
