/* Graph partitioning on hand-built graphs: chains, diamonds, branches, side
 * effects and errors. Every expectation is derived by hand in a comment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "partition/graph_partition.h"

#define MAX_NODES 16

typedef struct graph {
  TfLiteNode nodes[MAX_NODES];
  const TfLiteNode* node_ptrs[MAX_NODES];
  int num_nodes;
  int num_tensors;
  TfLiteIntArray* plan;
  int outputs[8];
  int num_outputs;
} graph;

static TfLiteIntArray* ints(int n, const int* v) {
  TfLiteIntArray* a = TfLiteIntArrayCreate(n);
  for (int i = 0; i < n; ++i) a->data[i] = v[i];
  return a;
}

/* Adds a node reading `in` (n_in tensors) and writing one tensor. */
static void add_node(graph* g, int n_in, const int* in, int out) {
  TfLiteNode* node = &g->nodes[g->num_nodes];
  memset(node, 0, sizeof(*node));
  node->inputs = ints(n_in, in);
  node->outputs = ints(1, &out);
  g->node_ptrs[g->num_nodes] = node;
  g->num_nodes++;
}

static void finish(graph* g, int num_tensors, int output) {
  g->num_tensors = num_tensors;
  g->plan = TfLiteIntArrayCreate(g->num_nodes);
  for (int i = 0; i < g->num_nodes; ++i) g->plan->data[i] = i;
  g->outputs[0] = output;
  g->num_outputs = 1;
}

static void free_graph(graph* g) {
  for (int i = 0; i < g->num_nodes; ++i) {
    TfLiteIntArrayFree(g->nodes[i].inputs);
    TfLiteIntArrayFree(g->nodes[i].outputs);
  }
  TfLiteIntArrayFree(g->plan);
}

static lg_graph_view view(const graph* g) {
  lg_graph_view v = {g->node_ptrs, g->num_nodes, g->num_tensors,
                     g->plan,      g->outputs,   g->num_outputs};
  return v;
}

static void expect_array(const TfLiteIntArray* a, int n, const int* v,
                         const char* what) {
  if (!TfLiteIntArrayEqualsArray(a, n, v)) {
    char got[128] = "";
    for (int i = 0; i < a->size; ++i) {
      snprintf(got + strlen(got), sizeof(got) - strlen(got), "%d ", a->data[i]);
    }
    fail_msg("%s: got [%s]", what, got);
  }
}

typedef struct capture {
  char text[1024];
} capture;

static void capture_report(void* user_data, const char* format, va_list args) {
  capture* c = user_data;
  vsnprintf(c->text, sizeof(c->text), format, args);
}

static void test_chain(void** state) {
  (void)state;
  /* t0 -n0-> t1 -n1-> t2 -n2-> t3 -n3-> t4; claimed {0,1,3}.
   * Subset 0 (partition): n0, n1. Subset 1: n2. Subset 2: n3.
   * Subset 0 reads t0 (graph input) and writes t2 for n2. */
  graph g = {0};
  for (int i = 0; i < 4; ++i) add_node(&g, 1, &i, i + 1);
  finish(&g, 5, 4);
  TfLiteIntArray* claimed = ints(3, (int[]){0, 1, 3});
  lg_graph_view v = view(&g);
  lg_node_subset* s = NULL;
  int n = 0;
  assert_int_equal(lg_partition_graph(&v, claimed, NULL, &s, &n), kTfLiteOk);
  assert_int_equal(n, 3);
  assert_int_equal(s[0].type, LG_SUBSET_PARTITION);
  expect_array(s[0].nodes, 2, (int[]){0, 1}, "subset 0 nodes");
  expect_array(s[0].input_tensors, 1, (int[]){0}, "subset 0 inputs");
  expect_array(s[0].output_tensors, 1, (int[]){2}, "subset 0 outputs");
  assert_int_equal(s[1].type, LG_SUBSET_NON_PARTITION);
  expect_array(s[1].nodes, 1, (int[]){2}, "subset 1 nodes");
  assert_int_equal(s[2].type, LG_SUBSET_PARTITION);
  expect_array(s[2].nodes, 1, (int[]){3}, "subset 2 nodes");
  expect_array(s[2].input_tensors, 1, (int[]){3}, "subset 2 inputs");
  expect_array(s[2].output_tensors, 1, (int[]){4}, "graph output");
  lg_node_subsets_free(s, n);
  TfLiteIntArrayFree(claimed);
  free_graph(&g);
}

static void test_diamond_never_cycles(void** state) {
  (void)state;
  /* n0: t0 -> t1 (claimed); n1: t1 -> t2 (not); n2: t1 -> t3 (claimed);
   * n3: t2, t3 -> t4 (claimed). Putting n0, n2 and n3 together would need
   * n1's output inside and outside at once (a cycle), so: subset 0 = {n0, n2}
   * (writes t1 for n1 and t3 for n3), subset 1 = {n1}, subset 2 = {n3}. */
  graph g = {0};
  add_node(&g, 1, (int[]){0}, 1);
  add_node(&g, 1, (int[]){1}, 2);
  add_node(&g, 1, (int[]){1}, 3);
  add_node(&g, 2, (int[]){2, 3}, 4);
  finish(&g, 5, 4);
  TfLiteIntArray* claimed = ints(3, (int[]){0, 2, 3});
  lg_graph_view v = view(&g);
  lg_node_subset* s = NULL;
  int n = 0;
  assert_int_equal(lg_partition_graph(&v, claimed, NULL, &s, &n), kTfLiteOk);
  assert_int_equal(n, 3);
  expect_array(s[0].nodes, 2, (int[]){0, 2}, "subset 0 nodes");
  expect_array(s[0].output_tensors, 2, (int[]){1, 3}, "subset 0 outputs");
  expect_array(s[1].nodes, 1, (int[]){1}, "subset 1 nodes");
  expect_array(s[2].nodes, 1, (int[]){3}, "subset 2 nodes");
  expect_array(s[2].input_tensors, 2, (int[]){2, 3}, "subset 2 inputs");
  lg_node_subsets_free(s, n);
  TfLiteIntArrayFree(claimed);
  free_graph(&g);
}

static void test_branches_merge_and_constants_are_inputs(void** state) {
  (void)state;
  /* Two independent claimed branches from graph input t0 with constant t9:
   * n0: t0,t9 -> t1 (claimed); n1: t0 -> t2 (unclaimed); n2: t1 -> t3
   * (claimed); n3: t2, t3 -> t4 (unclaimed). Greedy: subset 0 = {n0, n2}
   * (both claimed, ready without n1), subset 1 = {n1, n3}. Inputs of subset
   * 0 include the constant t9. */
  graph g = {0};
  add_node(&g, 2, (int[]){0, 9}, 1);
  add_node(&g, 1, (int[]){0}, 2);
  add_node(&g, 1, (int[]){1}, 3);
  add_node(&g, 2, (int[]){2, 3}, 4);
  finish(&g, 10, 4);
  TfLiteIntArray* claimed = ints(2, (int[]){0, 2});
  lg_graph_view v = view(&g);
  lg_node_subset* s = NULL;
  int n = 0;
  assert_int_equal(lg_partition_graph(&v, claimed, NULL, &s, &n), kTfLiteOk);
  assert_int_equal(n, 2);
  assert_int_equal(s[0].type, LG_SUBSET_PARTITION);
  expect_array(s[0].nodes, 2, (int[]){0, 2}, "subset 0 nodes");
  expect_array(s[0].input_tensors, 2, (int[]){0, 9}, "subset 0 inputs");
  expect_array(s[0].output_tensors, 1, (int[]){3}, "subset 0 outputs");
  expect_array(s[1].nodes, 2, (int[]){1, 3}, "subset 1 nodes");
  expect_array(s[1].input_tensors, 2, (int[]){0, 3}, "subset 1 inputs");
  lg_node_subsets_free(s, n);
  TfLiteIntArrayFree(claimed);
  free_graph(&g);
}

static void test_side_effects_keep_order(void** state) {
  (void)state;
  /* n0 (claimed, side effect): t0 -> t1; n1 (unclaimed, side effect):
   * t0 -> t2; n2 (claimed, side effect): t0 -> t3. Without the side-effect
   * chain n0 and n2 would merge; with it n2 must wait for n1: three
   * subsets in plan order. */
  graph g = {0};
  for (int i = 0; i < 3; ++i) {
    add_node(&g, 1, (int[]){0}, i + 1);
    g.nodes[i].might_have_side_effect = true;
  }
  finish(&g, 4, 3);
  TfLiteIntArray* claimed = ints(2, (int[]){0, 2});
  lg_graph_view v = view(&g);
  lg_node_subset* s = NULL;
  int n = 0;
  assert_int_equal(lg_partition_graph(&v, claimed, NULL, &s, &n), kTfLiteOk);
  assert_int_equal(n, 3);
  expect_array(s[0].nodes, 1, (int[]){0}, "subset 0");
  expect_array(s[1].nodes, 1, (int[]){1}, "subset 1");
  expect_array(s[2].nodes, 1, (int[]){2}, "subset 2");
  lg_node_subsets_free(s, n);
  /* Without side effects: {n0, n2} then {n1}. */
  for (int i = 0; i < 3; ++i) g.nodes[i].might_have_side_effect = false;
  assert_int_equal(lg_partition_graph(&v, claimed, NULL, &s, &n), kTfLiteOk);
  assert_int_equal(n, 2);
  expect_array(s[0].nodes, 2, (int[]){0, 2}, "merged");
  lg_node_subsets_free(s, n);
  TfLiteIntArrayFree(claimed);
  free_graph(&g);
}

static bool contains(const int* v, int n, int value) {
  for (int i = 0; i < n; ++i) {
    if (v[i] == value) return true;
  }
  return false;
}

static void test_random_graphs_respect_dependencies(void** state) {
  (void)state;
  /* Random DAGs: each node reads up to two earlier tensors. Property: every
   * subset reads only tensors produced by earlier subsets (or graph inputs),
   * every node appears exactly once, and each subset is homogeneous. */
  uint32_t seed = 99;
  for (int trial = 0; trial < 300; ++trial) {
    graph g = {0};
    const int count = 1 + trial % MAX_NODES;
    int claim[MAX_NODES], num_claimed = 0;
    for (int i = 0; i < count; ++i) {
      seed = seed * 1664525u + 1013904223u;
      int a = (int)((seed >> 8) % (unsigned)(i + 1));
      int b = (int)((seed >> 16) % (unsigned)(i + 1));
      add_node(&g, 2, (int[]){a, b}, i + 1);
      if ((seed >> 24) & 1) claim[num_claimed++] = i;
    }
    finish(&g, count + 1, count);
    TfLiteIntArray* claimed = ints(num_claimed, claim);
    lg_graph_view v = view(&g);
    lg_node_subset* s = NULL;
    int n = 0;
    assert_int_equal(lg_partition_graph(&v, claimed, NULL, &s, &n), kTfLiteOk);
    int subset_of_tensor[MAX_NODES + 1];
    int seen[MAX_NODES] = {0};
    for (int t = 0; t <= count; ++t) subset_of_tensor[t] = -1;
    for (int k = 0; k < n; ++k) {
      for (int j = 0; j < s[k].nodes->size; ++j) {
        const int node = s[k].nodes->data[j];
        seen[node]++;
        const bool is_claimed = contains(claim, num_claimed, node);
        assert_int_equal(is_claimed, s[k].type == LG_SUBSET_PARTITION);
        for (int q = 0; q < 2; ++q) {
          const int t = g.nodes[node].inputs->data[q];
          assert_true(subset_of_tensor[t] <= k); /* produced before or here */
        }
        subset_of_tensor[node + 1] = k;
      }
    }
    for (int i = 0; i < count; ++i) assert_int_equal(seen[i], 1);
    lg_node_subsets_free(s, n);
    TfLiteIntArrayFree(claimed);
    free_graph(&g);
  }
}

static void test_errors(void** state) {
  (void)state;
  graph g = {0};
  add_node(&g, 1, (int[]){0}, 1);
  finish(&g, 2, 1);
  capture c = {{0}};
  lg_reporter rep = {capture_report, &c};
  lg_graph_view v = view(&g);
  lg_node_subset* s = NULL;
  int n = 0;
  TfLiteIntArray* bad = ints(1, (int[]){5});
  assert_int_equal(lg_partition_graph(&v, bad, &rep, &s, &n), kTfLiteError);
  assert_non_null(strstr(c.text, "node 5 is not in the execution plan"));
  assert_null(s);
  TfLiteIntArrayFree(bad);
  g.nodes[0].inputs->data[0] = 7; /* tensor out of range */
  TfLiteIntArray* ok = ints(1, (int[]){0});
  assert_int_equal(lg_partition_graph(&v, ok, &rep, &s, &n), kTfLiteError);
  assert_non_null(strstr(c.text, "is tensor 7, out of range"));
  TfLiteIntArrayFree(ok);
  free_graph(&g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chain),
      cmocka_unit_test(test_diamond_never_cycles),
      cmocka_unit_test(test_branches_merge_and_constants_are_inputs),
      cmocka_unit_test(test_side_effects_keep_order),
      cmocka_unit_test(test_random_graphs_respect_dependencies),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
