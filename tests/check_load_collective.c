/*
** check_load_collective.c — unit tests for the collective-argument
** capture and the collective vocabulary (load_collective.c): args keys
** old and new,
** value parsing, input-shape fallback, op / dtype normalisation, NCCL
** kernel-name parsing and nccl-tests bus-bandwidth factors.
**
** Pipeline position: tests the parse/normalize helpers the trace parser
** and derive_comm.c share.  No database, no files.
*/
#include <check.h>
#include <math.h>
#include <string.h>

#include "trace/load_collective.h"

#define KEY(s) load_collective_args_key((const unsigned char*)(s), strlen(s))
#define SET(p, k, s) load_collective_args_set(p, k, (const unsigned char*)(s), \
                                         strlen(s), 0)

START_TEST(test_keys){
  ck_assert_int_eq(KEY("Collective name"), CA_COLL_NAME);
  ck_assert_int_eq(KEY("In msg nelems"), CA_IN_NELEMS);
  ck_assert_int_eq(KEY("In msg size"), CA_IN_NELEMS);        /* old name */
  ck_assert_int_eq(KEY("Out msg size"), CA_OUT_NELEMS);
  ck_assert_int_eq(KEY("Process Group ID"), CA_PG_NAME);     /* old name */
  ck_assert_int_eq(KEY("Process Group Name"), CA_PG_NAME);
  ck_assert_int_eq(KEY("Process Group Ranks"), CA_PG_RANKS);
  ck_assert_int_eq(KEY("Group size"), CA_GROUP_SIZE);
  ck_assert_int_eq(KEY("dtype"), CA_DTYPE);
  ck_assert_int_eq(KEY("Dtype"), 0);                         /* exact case */
  ck_assert_int_eq(KEY("correlation"), 0);
  ck_assert_int_eq(KEY(""), 0);
}
END_TEST

START_TEST(test_set_values){
  CollArgs a;
  load_collective_args_reset(&a);
  ck_assert_int_eq(SET(&a, CA_IN_NELEMS, "25136"), 0);
  ck_assert_int_eq(SET(&a, CA_GROUP_SIZE, "8"), 0);          /* string */
  ck_assert_int_eq(SET(&a, CA_OUT_NELEMS, "abc"), -1);
  ck_assert_int_eq(SET(&a, CA_PG_RANKS, "[0, 1, 2, 3, 4, 5, 6, 7]"), 0);
  ck_assert_int_eq(SET(&a, CA_COLL_NAME, "_allgather_base"), 0);
  ck_assert(a.inNelems==25136);
  ck_assert(a.groupSize==8);
  ck_assert_str_eq(a.zPgRanks, "[0, 1, 2, 3, 4, 5, 6, 7]");
  ck_assert(a.has & (1u<<CA_IN_NELEMS));
  ck_assert(!(a.has & (1u<<CA_OUT_NELEMS)));
  {
    /* a rank list longer than the field is dropped, not cut */
    char big[COLL_RANKS_MAX+40];
    memset(big, '1', sizeof(big)-1);
    big[sizeof(big)-1] = 0;
    ck_assert_int_eq(SET(&a, CA_PG_RANKS, big), -1);
    ck_assert_str_eq(a.zPgRanks, "");
  }
}
END_TEST

START_TEST(test_from_dims){
  CollArgs a;
  load_collective_args_reset(&a);
  ck_assert_int_eq(load_collective_args_from_dims(&a, "[[394241]]",
                                                  "[\"float\"]"), 0);
  ck_assert(a.inNelems==394241);
  ck_assert_str_eq(a.zDtype, "float");
  load_collective_args_reset(&a);
  ck_assert_int_eq(load_collective_args_from_dims(&a, "[[2, 3], [4], []]",
                   "[\"\", \"c10::BFloat16\", \"\"]"), 0);
  ck_assert(a.inNelems==10);
  ck_assert_str_eq(a.zDtype, "c10::BFloat16");
  load_collective_args_reset(&a);
  ck_assert_int_eq(load_collective_args_from_dims(&a, "[[], [], []]", "[]"),
                   -1);
  ck_assert_int_eq(a.has, 0);
  ck_assert_int_eq(load_collective_args_from_dims(&a, "", ""), -1);
}
END_TEST

START_TEST(test_op_names){
#define OP(s) load_collective_op_name(s, strlen(s))
  ck_assert_str_eq(OP("allreduce"), "all_reduce");
  ck_assert_str_eq(OP("nccl:all_reduce"), "all_reduce");
  ck_assert_str_eq(OP("_allgather_base"), "all_gather");
  ck_assert_str_eq(OP("nccl:_all_gather_base"), "all_gather");
  ck_assert_str_eq(OP("reduce_scatter_tensor_coalesced"), "reduce_scatter");
  ck_assert_str_eq(OP("nccl:_reduce_scatter_base"), "reduce_scatter");
  ck_assert_str_eq(OP("all_to_all"), "all_to_all");
  ck_assert_str_eq(OP("alltoall_base"), "all_to_all");
  ck_assert_str_eq(OP("AllReduce"), "all_reduce");
  ck_assert_str_eq(OP("ReduceScatter"), "reduce_scatter");
  ck_assert_str_eq(OP("SendRecv"), "send_recv");
  ck_assert_str_eq(OP("nccl:send 0->1"), "send");
  ck_assert_str_eq(OP("nccl:recv 1<-0"), "recv");
  ck_assert_str_eq(OP("broadcast"), "broadcast");
  ck_assert_str_eq(OP("Reduce"), "reduce");
  ck_assert_str_eq(OP("nccl:coalesced"), "other");
#undef OP
}
END_TEST

START_TEST(test_dtypes){
  int sz;
#define DT(s) load_collective_dtype(s, strlen(s), &sz)
  ck_assert_str_eq(DT("Float"), "float32"); ck_assert_int_eq(sz, 4);
  ck_assert_str_eq(DT("BFloat16"), "bfloat16"); ck_assert_int_eq(sz, 2);
  ck_assert_str_eq(DT("c10::Half"), "float16"); ck_assert_int_eq(sz, 2);
  ck_assert_str_eq(DT("long int"), "int64"); ck_assert_int_eq(sz, 8);
  ck_assert_str_eq(DT("Byte"), "uint8"); ck_assert_int_eq(sz, 1);
  ck_assert_str_eq(DT("__nv_bfloat16"), "bfloat16");
  ck_assert_str_eq(DT("Float8_e4m3fn"), "fp8_e4m3"); ck_assert_int_eq(sz, 1);
  ck_assert_ptr_null(DT("Quaternion"));
  ck_assert_int_eq(sz, 0);
#undef DT
}
END_TEST

START_TEST(test_kernel_names){
  const char *op, *algo, *proto, *dt;
  int sz;
  ck_assert_int_eq(load_collective_parse_kernel(
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, "
    "ncclWork*)", &op, &algo, &proto, &dt, &sz), 1);
  ck_assert_str_eq(op, "all_reduce");
  ck_assert_str_eq(algo, "RING");
  ck_assert_str_eq(proto, "LL");
  ck_assert_str_eq(dt, "float32");
  ck_assert_int_eq(sz, 4);
  ck_assert_int_eq(load_collective_parse_kernel(
    "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long,"
    " ncclWork*)", &op, &algo, &proto, &dt, &sz), 1);
  ck_assert_str_eq(op, "send_recv");
  ck_assert_str_eq(proto, "SIMPLE");
  ck_assert_str_eq(dt, "int8");
  ck_assert_int_eq(load_collective_parse_kernel(
    "ncclKernel_AllGather_COLLNET_DIRECT_LL128_Sum___nv_bfloat16(x)",
    &op, &algo, &proto, &dt, &sz), 1);
  ck_assert_str_eq(op, "all_gather");
  ck_assert_str_eq(algo, "COLLNET_DIRECT");
  ck_assert_str_eq(proto, "LL128");
  ck_assert_str_eq(dt, "bfloat16");
  ck_assert_int_eq(load_collective_parse_kernel(
    "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    &op, &algo, &proto, &dt, &sz), 1);
  ck_assert_str_eq(op, "all_gather");
  ck_assert_str_eq(algo, "RING");
  ck_assert_str_eq(proto, "LL");
  ck_assert_ptr_null(dt);
  ck_assert_int_eq(load_collective_parse_kernel(
    "ncclDevKernel_AllReduce_Sum_bf16_NVLS_TREE_SIMPLE(x)",
    &op, &algo, &proto, &dt, &sz), 1);
  ck_assert_str_eq(algo, "NVLS_TREE");
  ck_assert_str_eq(dt, "bfloat16");
  ck_assert_int_eq(load_collective_parse_kernel(
    "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
    &op, &algo, &proto, &dt, &sz), 1);
  ck_assert_str_eq(op, "other");
  ck_assert_int_eq(load_collective_parse_kernel("volta_sgemm_128x64_nn",
    &op, &algo, &proto, &dt, &sz), 0);
}
END_TEST

START_TEST(test_bus_factor){
  ck_assert(fabs(load_collective_bus_factor("all_reduce", 8) - 1.75) < 1e-12);
  ck_assert(fabs(load_collective_bus_factor("all_gather", 8) - 0.875) < 1e-12);
  ck_assert(fabs(load_collective_bus_factor("reduce_scatter", 2) - 0.5)
            < 1e-12);
  ck_assert(fabs(load_collective_bus_factor("all_to_all", 4) - 0.75) < 1e-12);
  ck_assert(load_collective_bus_factor("broadcast", 8)==1.0);
  ck_assert(load_collective_bus_factor("all_reduce", 0)==1.0);
  ck_assert(load_collective_bus_factor("all_reduce", 1)==0.0);
}
END_TEST

Suite *make_load_collective_suite(void){
  Suite *s = suite_create("load_collective");
  TCase *tc = tcase_create("collective");
  tcase_add_test(tc, test_keys);
  tcase_add_test(tc, test_set_values);
  tcase_add_test(tc, test_from_dims);
  tcase_add_test(tc, test_op_names);
  tcase_add_test(tc, test_dtypes);
  tcase_add_test(tc, test_kernel_names);
  tcase_add_test(tc, test_bus_factor);
  suite_add_tcase(s, tc);
  return s;
}
