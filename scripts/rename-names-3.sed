# rename-names-3.sed — the third part of "names that match their file"
# (issue 16): the exports of history.c, link_trace.c, load_collective.c
# and trace_args.c take their file's stem as prefix.  Applied once to
# every C file and the docs (idempotent):
#   sed -i -f scripts/rename-names-3.sed src/*.[ch] tests/*.c fuzz/*.c
s/\bhist_resolve_baseline\b/history_resolve_baseline/g
s/\bhist_median\b/history_median/g
s/\bhist_mad\b/history_mad/g
s/\bhist_robust_z\b/history_robust_z/g
s/\bhist_mann_whitney\b/history_mann_whitney/g
s/\bhist_mw_cdf\b/history_mw_cdf/g
s/\bhist_hl_k\b/history_hl_k/g
s/\bhist_kth_diff\b/history_kth_diff/g
s/\bhist_hl_shift\b/history_hl_shift/g
s/\bhist_verdict_name\b/history_verdict_name/g
s/\bhist_gate\b/history_gate/g
s/\bhist_comparable\b/history_comparable/g
s/\bhist_window\b/history_window/g
s/\bhist_window_free\b/history_window_free/g
s/\bhist_check_metric\b/history_check_metric/g
s/\bhist_gate_param\b/history_gate_param/g
s/\blinker_new\b/link_trace_new/g
s/\blinker_free\b/link_trace_free/g
s/\blinker_event\b/link_trace_event/g
s/\blinker_finish\b/link_trace_finish/g
s/\blinker_stats\b/link_trace_stats/g
s/\bcollective_args_key\b/load_collective_args_key/g
s/\bcollective_args_reset\b/load_collective_args_reset/g
s/\bcollective_args_set\b/load_collective_args_set/g
s/\bcollective_args_from_dims\b/load_collective_args_from_dims/g
s/\bcollective_op_name\b/load_collective_op_name/g
s/\bcollective_dtype\b/load_collective_dtype/g
s/\bcollective_parse_kernel\b/load_collective_parse_kernel/g
s/\bcollective_bus_factor\b/load_collective_bus_factor/g
s/\btrace_memcpy_kind\b/trace_args_memcpy_kind/g
s/\btrace_step_number\b/trace_args_step_number/g
s/\btrace_estimate_flops\b/trace_args_estimate_flops/g
s/\btrace_parse_dims\b/trace_args_parse_dims/g
