// Attention's graph rules: settings, roles and shapes of SdpaAttributes / SdpaBackwardAttributes
// as files carry them, and the errors a wrong one gets (file, JSON path, what would be right).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "graph/reader.hpp"
#include "graph/validate.hpp"
#include "graph_test_util.hpp"

namespace dnnbench::testing {
namespace {

using nlohmann::json;

json sample(const char* name) {
  std::ifstream in(std::string(DNNBENCH_SOURCE_DIR) + "/graphs/samples/" + name + ".json");
  return json::parse(in);
}

// Read and validated, as a graph file is loaded.
Graph parse(const json& j) {
  Graph g = parse_graph_json(j.dump(), "g.json");
  validate_graph(g);
  return g;
}

TEST(SdpaRules, SamplesParseWithTheirMasks) {
  const Graph causal = parse(sample("sdpa_fwd_causal_gqa_bf16"));
  ASSERT_EQ(causal.nodes[0].kind, OpKind::sdpa_fwd);
  const auto& p = causal.nodes[0].as<SdpaParams>();
  EXPECT_EQ(p.right_bound, 0);
  EXPECT_FALSE(p.left_bound);
  EXPECT_TRUE(p.generate_stats);
  EXPECT_EQ(p.alignment, DiagonalAlignment::top_left);
  const Graph window = parse(sample("sdpa_fwd_bottom_right_window_fp16"));
  const auto& w = window.nodes[0].as<SdpaParams>();
  EXPECT_EQ(w.alignment, DiagonalAlignment::bottom_right);
  EXPECT_EQ(w.left_bound, 6);
  const Graph bwd = parse(sample("sdpa_bwd_causal_gqa_bf16"));
  EXPECT_EQ(bwd.nodes[0].kind, OpKind::sdpa_bwd);
  EXPECT_EQ(bwd.nodes[0].settings_key, "parameters");
}

TEST(SdpaRules, KvHeadsMustDivideQueryHeads) {
  json j = sample("sdpa_fwd_causal_gqa_bf16");
  j["tensors"][1]["dims"] = {1, 3, 20, 16};
  j["tensors"][1]["strides"] = {960, 320, 16, 1};
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].inputs.k_tensor_uid", "has 3 heads but q has 4; expected a divisor");
}

TEST(SdpaRules, BadSettingsAreRefusedWithTheRightValues) {
  json j = sample("sdpa_fwd_fp16");
  j["nodes"][0]["attributes"]["dropout_probability"] = 0.1;
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].attributes.dropout_probability", "expected 0 or null");
  j = sample("sdpa_fwd_fp16");
  j["nodes"][0]["attributes"]["left_bound"] = 0;
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].attributes.left_bound", "window length in keys (>= 1");
  j = sample("sdpa_fwd_fp16");
  j["nodes"][0]["attributes"]["causal_mask"] = true;
  j["nodes"][0]["attributes"]["right_bound"] = 3;
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].attributes.right_bound", "a causal mask sets it to 0");
  j = sample("sdpa_fwd_fp16");
  j["nodes"][0]["attributes"]["causal_mask_bottom_right"] = true;
  j["nodes"][0]["attributes"]["causal_mask"] = true;
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].attributes.causal_mask_bottom_right", "expected at most one");
  j = sample("sdpa_fwd_fp16");
  j["nodes"][0]["attributes"]["left_bound"] = -1;  // hipDNN's "none"
  EXPECT_FALSE(parse(j).nodes[0].as<SdpaParams>().left_bound);
}

TEST(SdpaRules, ShapesAndRolesAreChecked) {
  json j = sample("sdpa_fwd_fp16");
  j["tensors"][4]["dims"] = {2, 2, 16, 2};  // stats
  j["tensors"][4]["strides"] = {64, 32, 2, 1};
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].outputs.stats_tensor_uid", "expected [2, 2, 16, 1]");
  j = sample("sdpa_fwd_fp16");
  j["nodes"][0]["inputs"]["seed_tensor_uid"] = 1;
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].inputs.seed_tensor_uid",
                     "is not supported by dnnbench's SdpaAttributes");
  j = sample("sdpa_fwd_padding_fp16");
  j["nodes"][0]["attributes"]["padding_mask"] = false;
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].inputs.seq_len_q_tensor_uid", "without padding_mask");
  j = sample("sdpa_fwd_fp16");
  j["nodes"][0]["attributes"]["causal_mask_bottom_right"] = true;
  j["tensors"][0]["dims"] = {2, 2, 20, 8};  // s_q 20 > s_kv 16
  j["tensors"][0]["strides"] = {320, 160, 8, 1};
  j["tensors"][3]["dims"] = {2, 2, 20, 8};
  j["tensors"][3]["strides"] = {320, 160, 8, 1};
  j["tensors"][4]["dims"] = {2, 2, 20, 1};
  j["tensors"][4]["strides"] = {40, 20, 1, 1};
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].attributes.diagonal_alignment", "expected seq_q <= seq_kv");
  j = sample("sdpa_bwd_fp16");
  j["tensors"][6]["dims"] = {2, 2, 16, 4};  // dq
  j["tensors"][6]["strides"] = {128, 64, 4, 1};
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].outputs.dq_tensor_uid", "same as q");
}

}  // namespace
}  // namespace dnnbench::testing
