# Each unit test links its module and that module's dependencies only.
# Form: $(O)/tests/test_NAME: $(O)/src/module.o ...
$(O)/tests/test_strnum: $(O)/src/strnum.o
$(O)/tests/test_proc_maps: $(O)/src/proc_maps.o $(O)/src/textline.o
$(O)/tests/test_elf_syms: $(O)/src/elf_syms.o $(O)/src/elf_image.o
$(O)/tests/test_ksyms: $(O)/src/ksyms.o $(O)/src/textline.o
$(O)/tests/test_profile: $(O)/src/profile.o $(O)/src/idtable.o
$(O)/tests/test_folded: $(O)/src/folded.o $(O)/src/profile.o $(O)/src/idtable.o
$(O)/tests/test_output: $(O)/src/output.o
$(O)/tests/test_workload: $(O)/src/workload.o
$(O)/tests/test_symbolize: $(O)/src/symbolize.o $(O)/src/elf_syms.o $(O)/src/ksyms.o $(O)/src/proc_maps.o $(O)/src/textline.o $(O)/src/perfmap.o $(O)/src/proc_status.o $(O)/src/elf_image.o
$(O)/tests/test_cpulist: $(O)/src/bpf_loader.o
$(O)/tests/test_pb: $(O)/src/pb.o
$(O)/tests/test_pprof: $(O)/src/pprof.o $(O)/src/pb.o $(O)/src/profile.o $(O)/src/idtable.o
$(O)/tests/test_json_out: $(O)/src/json_out.o $(O)/src/profile.o $(O)/src/idtable.o
$(O)/tests/test_demangle: $(O)/src/demangle.o
$(O)/tests/test_dwarf_index: $(O)/src/dwarf_index.o $(O)/src/debug_find.o $(O)/src/demangle.o
$(O)/tests/test_symbolize: $(O)/src/dwarf_index.o $(O)/src/debug_find.o $(O)/src/demangle.o
$(O)/tests/test_perfmap: $(O)/src/perfmap.o $(O)/src/textline.o
$(O)/tests/test_unwind_table: $(O)/src/unwind_table.o $(O)/src/cfi_eval.o $(O)/src/unwind_row.o $(O)/src/elf_image.o
$(O)/tests/test_proc_status: $(O)/src/proc_status.o
$(O)/tests/test_unwind_mem: $(O)/src/unwind_table.o $(O)/src/cfi_eval.o $(O)/src/unwind_row.o $(O)/src/elf_image.o
$(O)/tests/test_vdso: $(O)/src/vdso.o $(O)/src/unwind_table.o $(O)/src/cfi_eval.o $(O)/src/unwind_row.o $(O)/src/elf_image.o
$(O)/tests/test_unwind_maps: $(O)/src/unwind_maps.o $(O)/src/vdso.o $(O)/src/unwind_table.o $(O)/src/cfi_eval.o $(O)/src/unwind_row.o $(O)/src/symbolize.o $(O)/src/elf_syms.o $(O)/src/ksyms.o $(O)/src/proc_maps.o $(O)/src/textline.o $(O)/src/perfmap.o $(O)/src/proc_status.o $(O)/src/dwarf_index.o $(O)/src/debug_find.o $(O)/src/demangle.o $(O)/src/elf_image.o
$(O)/tests/test_prebuild: $(O)/src/prebuild.o $(O)/src/strnum.o $(O)/src/unwind_maps.o $(O)/src/vdso.o $(O)/src/unwind_table.o $(O)/src/cfi_eval.o $(O)/src/unwind_row.o $(O)/src/symbolize.o $(O)/src/elf_syms.o $(O)/src/ksyms.o $(O)/src/proc_maps.o $(O)/src/textline.o $(O)/src/perfmap.o $(O)/src/proc_status.o $(O)/src/dwarf_index.o $(O)/src/debug_find.o $(O)/src/demangle.o $(O)/src/elf_image.o
