# SPDX-License-Identifier: GPL-2.0
# Print CPython struct offsets as the DWARF of a libpython (or python binary with debug info)
# gives them, one "field value" a line, "-" when absent; the names are those of
# src/interp/py_offsets.c's dump (py_offsets_dump). A development and test tool (interpreters.md
# 5.2 step 4), not a runtime dependency:
#   gdb -nx -batch -ex 'python LIB="path/libpython3.12.so.1.0"' -x scripts/py-offsets-dwarf.py
import gdb

gdb.execute("file " + LIB, to_string=True)


def off(expr):
    for e in expr.split("|"):
        try:
            return int(gdb.parse_and_eval("(long)&(" + e + ")"))
        except gdb.error:
            pass
    return None


def size(expr):
    try:
        return int(gdb.parse_and_eval("sizeof(" + expr + ")"))
    except gdb.error:
        return None


T = "((struct _ts *)0)"
F = "((struct _frame *)0)"
I = "((struct _PyInterpreterFrame *)0)"
C = "((PyCodeObject *)0)"
R = "((_PyRuntimeState *)0)"
S = "((PyInterpreterState *)0)"
fields = [
    ("runtime.tstate_current", R + "->gilstate.tstate_current"),
    ("runtime.autotss_key", R + "->gilstate.autoTSSkey|" + R + "->autoTSSkey"),
    ("runtime.interpreters_head", R + "->interpreters.head"),
    ("interp.tstate_head", S + "->tstate_head|" + S + "->threads.head"),
    ("tstate.next", T + "->next"),
    ("tstate.interp", T + "->interp"),
    ("tstate.thread_id", T + "->thread_id"),
    ("tstate.native_thread_id", T + "->native_thread_id"),
    ("tstate.frame", T + "->frame|" + T + "->cframe|" + T + "->current_frame"),
    ("cframe.current_frame", "((struct _PyCFrame *)0)->current_frame"),
    ("frame.f_back", F + "->f_back"),
    ("frame.f_code", F + "->f_code"),
    ("frame.f_lasti", F + "->f_lasti"),
    ("iframe.code", I + "->f_code|" + I + "->f_executable"),
    ("iframe.previous", I + "->previous"),
    ("iframe.instr", I + "->prev_instr|" + I + "->instr_ptr"),
    ("iframe.is_entry", I + "->is_entry"),
    ("iframe.owner", I + "->owner"),
    ("code.argcount", C + "->co_argcount"),
    ("code.kwonlyargcount", C + "->co_kwonlyargcount"),
    ("code.flags", C + "->co_flags"),
    ("code.firstlineno", C + "->co_firstlineno"),
    ("code.filename", C + "->co_filename"),
    ("code.name", C + "->co_name"),
    ("code.qualname", C + "->co_qualname"),
    ("code.linetable", C + "->co_lnotab|" + C + "->co_linetable"),
    ("code.code", C + "->co_code|" + C + "->co_code_adaptive"),
    ("bytes.sval", "((PyBytesObject *)0)->ob_sval|((PyStringObject *)0)->ob_sval"),
]
for name, expr in fields:
    v = off(expr)
    print(name, "-" if v is None else v)
# a compact ASCII str's characters follow its PyASCIIObject; 2.7's names are PyStringObjects
s = size("PyASCIIObject")
if s is None:
    s = off("((PyStringObject *)0)->ob_sval")
print("str.ascii_data", "-" if s is None else s)
