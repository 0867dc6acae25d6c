#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the struct offsets and constants the PHP walker uses (src/interp/php_detect.c, the
# names of struct cp_php_offsets), as the compiler lays them out from an installed PHP's
# headers (php-config --includes; Debian's php8.2-dev). "name value" lines, the first one
# "version X.Y.Z". tests/unit/test_pp_offsets.c compares them with the table.
# Usage: scripts/php-offsets-headers.sh [PHP-CONFIG]   (exit 1 when the headers do not compile)
set -eu
pc=${1:-php-config}
inc=$($pc --includes)
ver=$($pc --version)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/o.c" <<EOC
#include "php.h"
#include <stdio.h>
#define F(name, type, member) printf("%s %zu\n", name, __builtin_offsetof(type, member))
int main(void)
{
	printf("version %s\n", "$ver");
	F("eg_current_execute_data", zend_executor_globals, current_execute_data);
	F("ed_opline", zend_execute_data, opline);
	F("ed_func", zend_execute_data, func);
	F("ed_type_info", zend_execute_data, This.u1.type_info);
	F("ed_prev", zend_execute_data, prev_execute_data);
	F("func_type", zend_function, type);
	F("func_name", zend_function, common.function_name);
	F("func_scope", zend_function, common.scope);
	F("op_filename", zend_function, op_array.filename);
	F("op_line_start", zend_function, op_array.line_start);
	F("opline_lineno", zend_op, lineno);
	F("zstr_val", zend_string, val);
	F("ce_name", zend_class_entry, name);
	printf("INTERNAL_FUNCTION %d\n", (int)ZEND_INTERNAL_FUNCTION);
	printf("USER_FUNCTION %d\n", (int)ZEND_USER_FUNCTION);
	printf("EVAL_CODE %d\n", (int)ZEND_EVAL_CODE);
	printf("CALL_TOP 0x%x\n", (unsigned)ZEND_CALL_TOP);
	printf("CALL_CODE 0x%x\n", (unsigned)ZEND_CALL_CODE);
#ifdef ZTS
	printf("zts 1\n");
#else
	printf("zts 0\n");
#endif
	return 0;
}
EOC
# shellcheck disable=SC2086 # the include flags are words
cc $inc -w -o "$tmp/o" "$tmp/o.c" || exit 1
"$tmp/o"
