// Every shipped sample graph (graphs/samples, written by scripts/make_sample_graphs.py) reads
// and validates.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "graph/cost.hpp"
#include "graph/errors.hpp"
#include "graph/reader.hpp"
#include "graph/validate.hpp"

namespace dnnbench {
namespace {

std::vector<std::filesystem::path> sample_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(DNNBENCH_SOURCE_DIR) / "graphs" / "samples"))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(SampleGraphs, EveryFileReadsAndValidates) {
  const auto files = sample_files();
  EXPECT_GE(files.size(), 25u);
  std::set<std::string> names;
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    try {
      Graph g = read_graph_file(path);
      validate_graph(g);
      EXPECT_EQ(g.name + ".json", path.filename().string());
      EXPECT_TRUE(names.insert(g.name).second) << "duplicate name " << g.name;
      std::int64_t bytes = 0;
      for (const auto& t : g.tensors)
        if (!t.is_virtual) bytes += t.storage_bytes();
      EXPECT_LT(bytes, std::int64_t{1} << 20) << "samples stay small";
      const GraphCost cost = graph_cost(g);
      if (g.unsupported_types().empty()) {
        EXPECT_GT(cost.flops, 0);
      }
      EXPECT_GT(cost.min_bytes, 0);
    } catch (const InputError& e) {
      ADD_FAILURE() << e.what();
    }
  }
}

TEST(SampleGraphs, CoverEveryOpFamily) {
  std::set<OpKind> kinds;
  std::set<DataType> types;
  bool unsupported = false;
  for (const auto& path : sample_files()) {
    const Graph g = read_graph_file(path);
    for (const auto& node : g.nodes) kinds.insert(node.kind);
    for (const auto& t : g.tensors) types.insert(t.dtype);
    unsupported = unsupported || !g.unsupported_types().empty();
  }
  for (OpKind kind : {OpKind::conv_fwd, OpKind::conv_bwd_data, OpKind::conv_bwd_weights, OpKind::matmul,
                      OpKind::pointwise, OpKind::batchnorm_inference, OpKind::batchnorm_training,
                      OpKind::batchnorm_backward, OpKind::layernorm, OpKind::rmsnorm, OpKind::reduction,
                      OpKind::resample, OpKind::sdpa_fwd, OpKind::sdpa_bwd})
    EXPECT_TRUE(kinds.count(kind)) << op_kind_name(kind);
  for (DataType type : {DataType::f32, DataType::f16, DataType::bf16, DataType::f64})
    EXPECT_TRUE(types.count(type)) << dtype_name(type);
  EXPECT_TRUE(unsupported) << "one sample has an op the tool skips";
}

}  // namespace
}  // namespace dnnbench
