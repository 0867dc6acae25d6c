// SPDX-License-Identifier: GPL-2.0
/*
 * V8's metadata read from the machine's node (interp/v8_detect.h): every value the frame reader
 * and the namer use, against the values of node 20's V8 11.3 (read with gdb from the running
 * binary: ../shared/design/runtimes.md 4, 6); an object without V8 is not V8; fake V8s
 * (tests/fixtures/fake_v8.c) too old or with pointer compression are refused.
 */
#include <linux/types.h>
#include "cmocka_inc.h"
#include "interp/v8_detect.h"

#define NODE "/usr/bin/node"

static int open_node(void)
{
	int fd = open(NODE, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		cp_skip(NODE " is missing (Debian package nodejs)");
	return fd;
}

/* The address of a .symtab function of node (nm), 0 when nm cannot say. */
static uint64_t nm_addr(const char *sym)
{
	char cmd[256], line[256];
	unsigned long long a = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm " NODE " 2>/dev/null | grep ' %s$'", sym);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	if (fgets(line, sizeof(line), p) && sscanf(line, "%llx", &a) != 1)
		a = 0;
	pclose(p);
	return a;
}

static void test_node_metadata(void **state)
{
	struct v8_object_info info;
	const struct cp_v8_offsets *o = &info.off;
	uint64_t tramp;
	int fd = open_node();

	(void)state;
	assert_int_equal(v8_detect_object(fd, "node", &info), 0);
	close(fd);
	print_message("V8 %u.%u.%u.%u\n", o->version >> 24, (o->version >> 16) & 0xff,
		      o->version & 0xffff, info.patch);
	/* the tagging the reader knows, whatever the version */
	assert_int_equal(o->heap_tag, 1);
	assert_int_equal(o->heap_tag_mask, 3);
	assert_int_equal(o->smi_shift, 32);
	assert_int_equal(o->type_jsfunc_last - o->type_jsfunc_first, 14);
	/* the builtins' code holds the interpreter's entry (a .symtab name of node) */
	tramp = nm_addr("Builtins_InterpreterEntryTrampoline");
	if (tramp) {
		assert_true(info.builtins_start <= tramp && tramp < info.builtins_end);
		assert_true(info.builtins_end - info.builtins_start > (1u << 20));
	}
	if ((o->version & 0xffff0000u) != CP_V8_VER(11, 3, 0))
		cp_skip("not node 20's V8 11.3: the values below are 11.3's");
	assert_int_equal(o->version, CP_V8_VER(11, 3, 244));
	assert_int_equal(o->fp_marker, -8);
	assert_int_equal(o->fp_function, -16);
	assert_int_equal(o->fp_bytecode_offset, -40);
	assert_int_equal(o->fp_bytecode_array, -32);
	assert_int_equal(o->type_bytecode, 191);
	/* the source position table (the line running): its offset follows from the bytecodes' */
	assert_int_equal(o->bytecode_data, 54);
	assert_int_equal(o->bytecode_spt, 32);
	assert_int_equal(o->type_byte_array, 190);
	/* optimized code (inlined functions, the line running): the metadata's values (gdb: p
	   v8dbg_class_Code__source_position_table__ByteArray...), the Code fields node 20's
	   metadata lacks placed as OTel v8.go places them for 11.x before 11.4.59 */
	assert_int_equal(o->jsfunc_code, 48);
	assert_int_equal(o->code_deopt, 16);
	assert_int_equal(o->code_spt, 24);
	assert_int_equal(o->code_start, 40);
	assert_int_equal(o->code_flags, 48);
	assert_int_equal(o->code_size, 56);
	assert_int_equal(o->type_code, 245);
	assert_int_equal(o->type_weak_fixed, 240);
	assert_int_equal(o->kind_mask, 15);
	assert_int_equal(o->kind_shift, 0);
	assert_int_equal(o->kind_baseline, 11);
	assert_int_equal(o->deopt_count, 1);
	assert_int_equal(o->deopt_literals, 2);
	assert_int_equal(o->deopt_inlining, 7);
	assert_int_equal(o->map, 0);
	assert_int_equal(o->map_instance_type, 12);
	assert_int_equal(o->jsfunc_shared, 24);
	assert_int_equal(o->sfi_name, 16);
	assert_int_equal(o->sfi_script, 32);
	assert_int_equal(o->script_name, 16);
	assert_int_equal(o->string_length, 12);
	assert_int_equal(o->seq_chars, 16);
	assert_int_equal(o->cons_first, 16);
	assert_int_equal(o->cons_second, 24);
	assert_int_equal(o->thin_actual, 16);
	assert_int_equal(o->type_jsfunc_first, 2066);
	assert_int_equal(o->type_jsfunc_last, 2080);
	assert_int_equal(o->type_sfi, 262);
	assert_int_equal(o->type_script, 167);
	assert_int_equal(o->type_scope_info, 261);
	assert_int_equal(o->first_nonstring, 128);
	/* the script line ends BPF makes a position a line with (V8 11.3) */
	assert_int_equal(o->script_line_ends, 56);
	assert_int_equal(o->fixed_length, 8);
	assert_int_equal(o->fixed_data, 16);
	assert_int_equal(o->type_fixed_array, 175);
	assert_int_equal(o->script_source, 8);
	assert_int_equal(o->ext_resource, 16);
	assert_int_equal(o->type_ext_one_byte, 42);
	assert_int_equal(o->sfi_function_data, 8);
	assert_int_equal(o->string_enc_mask, 8);
	assert_int_equal(o->string_repr_mask, 7);
	assert_int_equal(o->one_byte_tag, 8);
	assert_int_equal(o->seq_tag, 0);
	assert_int_equal(o->cons_tag, 1);
	assert_int_equal(o->thin_tag, 5);
	assert_int_equal(o->scope_first_vars, 3);
	assert_int_equal(o->scope_ncontext, 2);
	assert_int_equal(o->frame_entry, 1);
	assert_int_equal(o->frame_construct_entry, 2);
}

/* The fixtures' fake V8s: the metadata as node 20 has it, then too old, then compressed. */
static void fake(const char *name, int want, uint32_t version)
{
	struct v8_object_info info;
	char path[4096];
	int fd;

	fixture(path, sizeof(path), name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(v8_detect_object(fd, name, &info), want);
	assert_int_equal(info.off.version, version);
	close(fd);
}

static void test_refused(void **state)
{
	(void)state;
	fake("fake_v8", 0, CP_V8_VER(11, 3, 244));
	/* a frame layout the reader does not know */
	fake("fake_v8_old", -ENOTSUP, CP_V8_VER(8, 4, 244));
	/* pointer compression: 32-bit SMIs, 4-byte tagged fields */
	fake("fake_v8_compressed", -ENOTSUP, CP_V8_VER(11, 3, 244));
}

static void test_not_v8(void **state)
{
	struct v8_object_info info;
	int fd = open("/bin/sh", O_RDONLY | O_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(v8_detect_object(fd, "sh", &info), -ENOENT);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node_metadata),
		cmocka_unit_test(test_not_v8),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
