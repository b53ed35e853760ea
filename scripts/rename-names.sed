# rename-names.sed — exported names that match their file (issue 16): the
# prefix of a name a file exports is the file's stem (group_map.c:
# group_map_*, derive_summary.c: derive_summary_*).  These names are used
# in files of several helpers, so the rename is applied once, after the
# merge, to every C file:
#   sed -i -f scripts/rename-names.sed src/*.c src/*.h tests/*.c fuzz/*.c
# and then `cmake --build build && ctest -R unit` (nothing else changes).
s/\bgroup_init\b/group_map_init/g
s/\bgroup_free\b/group_map_free/g
s/\bgroup_get\b/group_map_get/g
s/\bgroup_val\b/group_map_val/g
s/\btext_code\b/group_map_text_code/g
s/\btext_of\b/group_map_text_of/g
s/\btext_free\b/group_map_text_free/g
s/\bsummary_totals_init\b/derive_summary_totals_init/g
s/\bsummary_totals_free\b/derive_summary_totals_free/g
s/\bsummary_totals_write\b/derive_summary_totals_write/g
s/\bsummary_pending_create\b/derive_summary_pending_create/g
