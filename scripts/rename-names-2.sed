# rename-names-2.sed — the second half of "names that match their file"
# (issue 16): the exports of parse_nccl.c, named_query.c, parse_trace.c,
# load_snapshot.c and load_fr.c take their file's stem as prefix.
# Applied once to every C file (idempotent: no new name matches an old
# pattern):
#   sed -i -f scripts/rename-names-2.sed src/*.c src/*.h tests/*.c fuzz/*.c
s/\bnccl_parser_new\b/parse_nccl_new/g
s/\bnccl_parser_line\b/parse_nccl_line/g
s/\bnccl_parser_finish\b/parse_nccl_finish/g
s/\bnccl_parser_free\b/parse_nccl_free/g
s/\bnccl_parse_file\b/parse_nccl_file/g
s/\bnccl_sniff\b/parse_nccl_sniff/g
s/\bnccl_dtype_name\b/parse_nccl_dtype_name/g
s/\bnccl_redop_name\b/parse_nccl_redop_name/g
s/\bnq_parse\b/named_query_parse/g
s/\bnq_clear\b/named_query_clear/g
s/\bnq_load_all\b/named_query_load_all/g
s/\bnq_list_free\b/named_query_list_free/g
s/\bnq_load_catalogue\b/named_query_load_catalogue/g
s/\bnq_find\b/named_query_find/g
s/\bnq_check\b/named_query_check/g
s/\bnq_type_words\b/named_query_type_words/g
s/\bnq_prepare\b/named_query_prepare/g
s/\btrace_parse\b/parse_trace/g
s/\btrace_us_to_ns\b/parse_trace_us_to_ns/g
s/\bsnapshot_is_snapshot\b/load_snapshot_is_snapshot/g
s/\bsnapshot_loader_new\b/load_snapshot_new/g
s/\bsnapshot_loader_item\b/load_snapshot_item/g
s/\bsnapshot_loader_finish\b/load_snapshot_finish/g
s/\bsnapshot_loader_free\b/load_snapshot_free/g
s/\bfr_is_dump\b/load_fr_is_dump/g
