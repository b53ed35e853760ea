/*
** check_main.c — runs every Check suite of the unit tests.
**
** Timeouts: no test's outcome may depend on the machine's speed.  Check
** kills a forked test after CK_DEFAULT_TIMEOUT seconds (its own default:
** 4 s, which a loaded CI machine, ASan or TSan exceed); here every test
** gets 900 s unless CK_DEFAULT_TIMEOUT is set, a safety net against a
** hang, not a speed limit (the suites set no shorter timeout of their
** own).  Speed is measured in bench/, as ratios within one run.
*/
#include <check.h>
#include <stdlib.h>

Suite *make_util_suite(void);
Suite *make_trace_suite(void);
Suite *make_link_suite(void);
Suite *make_jscan_suite(void);
Suite *make_pickle_suite(void);
Suite *make_nccl_suite(void);
Suite *make_output_suite(void);
Suite *make_snapshot_suite(void);
Suite *make_load_collective_suite(void);
Suite *make_history_suite(void);
Suite *make_rules_suite(void);
Suite *make_html_suite(void);
Suite *make_group_map_suite(void);
Suite *make_spool_suite(void);
Suite *make_crc_suite(void);
Suite *make_spans_suite(void);
Suite *make_hta_suite(void);
Suite *make_export_suite(void);
Suite *make_input_kinds_suite(void);
Suite *make_rank_clock_suite(void);
Suite *make_db_suite(void);

int main(void){
  int nFail;
  SRunner *sr;
  setenv("CK_DEFAULT_TIMEOUT", "900", 0);   /* read by tcase_create */
  sr = srunner_create(make_util_suite());
  srunner_add_suite(sr, make_trace_suite());
  srunner_add_suite(sr, make_link_suite());
  srunner_add_suite(sr, make_jscan_suite());
  srunner_add_suite(sr, make_pickle_suite());
  srunner_add_suite(sr, make_nccl_suite());
  srunner_add_suite(sr, make_output_suite());
  srunner_add_suite(sr, make_snapshot_suite());
  srunner_add_suite(sr, make_load_collective_suite());
  srunner_add_suite(sr, make_history_suite());
  srunner_add_suite(sr, make_rules_suite());
  srunner_add_suite(sr, make_html_suite());
  srunner_add_suite(sr, make_group_map_suite());
  srunner_add_suite(sr, make_spool_suite());
  srunner_add_suite(sr, make_crc_suite());
  srunner_add_suite(sr, make_spans_suite());
  srunner_add_suite(sr, make_hta_suite());
  srunner_add_suite(sr, make_export_suite());
  srunner_add_suite(sr, make_input_kinds_suite());
  srunner_add_suite(sr, make_rank_clock_suite());
  srunner_add_suite(sr, make_db_suite());
  srunner_run_all(sr, CK_NORMAL);
  nFail = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nFail==0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
