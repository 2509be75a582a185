// The cuDNN API log importer against cuDNN's own log: every sample graph the cuDNN provider lowers
// is lowered again (no GPU needed: an operation graph finalizes without a handle) in a child process
// of this test with CUDNN_LOGLEVEL_DBG=3, and the log cuDNN writes is imported back. Each graph
// that comes back must be the graph that went in (same ops, shapes, layouts, types and settings).
// `dnnbench_cudnn_log_tests --write-log LOG GRAPH...` is the child; `--lower GRAPH...` lowers under
// the caller's logging (scripts/capture's ctest).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "graph/reader.hpp"
#include "input/cudnn_api_log.hpp"
#include "input/manifest.hpp"
#include "providers/cudnn/lowering.hpp"
#include "providers/provider.hpp"

namespace fs = std::filesystem;

namespace dnnbench {
namespace {

std::string read_text_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// What must survive the trip: each node's type and settings and each bound tensor's dims,
// strides and type (uids and names are the log's).
std::multiset<std::string> signature(const nlohmann::json& graph) {
  std::multiset<std::string> out;
  // The lowering pads ranks with dims of 1 (whose strides mean nothing), flattens a norm's
  // normalized dims and a broadcast matmul's batch into its rows: a tensor is its dims other than
  // 1 with their strides, or for norms and matmuls its size.
  const auto& first = graph["nodes"][0]["type"];
  const bool norm =
      first == "LayernormAttributes" || first == "RMSNormAttributes" || first == "MatmulAttributes";
  for (const auto& t : graph["tensors"]) {
    if (t.value("virtual", false) || t.contains("value")) continue;
    std::string key = t["data_type"].get<std::string>();
    std::int64_t elements = 1;
    for (std::size_t i = 0; i < t["dims"].size(); ++i) {
      const auto d = t["dims"][i].get<std::int64_t>();
      elements *= d;
      if (d != 1 && t["strides"][i] != 0 && !norm)
        key += " " + std::to_string(d) + ":" + t["strides"][i].dump();
    }
    out.insert(norm ? key + " x" + std::to_string(elements) : key);
  }
  for (const auto& n : graph["nodes"]) {
    std::string node = n["type"].get<std::string>();
    for (const char* settings : {"parameters", "attributes"})
      if (n.contains(settings))
        for (const char* key : {"pre_padding", "post_padding", "stride", "dilation", "window",
                                "resample_mode", "causal_mask", "mode", "forward_phase"})
          if (n[settings].contains(key)) node += std::string(" ") + key + "=" + n[settings][key].dump();
    out.insert(node);
  }
  return out;
}

bool elementwise_only(const Graph& graph) {
  for (const auto& n : graph.nodes)
    if (n.kind != OpKind::pointwise && n.kind != OpKind::reduction && n.kind != OpKind::batchnorm_inference)
      return false;
  return true;
}

// The child: lowers each graph (the ones cuDNN refuses are skipped; they log no finalized graph).
int write_log(const std::vector<std::string>& graphs) {
  int lowered = 0;
  for (const auto& file : graphs) {
    try {
      const auto graph = read_graph_file(file);
      cudnn::lower_graph(graph, nullptr);
      ++lowered;
    } catch (const std::exception& e) {
      std::cerr << file << ": " << e.what() << "\n";
    }
  }
  std::cout << lowered << " of " << graphs.size() << " graphs lowered\n";
  return 0;
}

TEST(CudnnLogRoundTrip, EverySampleGraphCuDnnFinalizesImportsBackUnchanged) {
  const auto log = fs::path(testing::TempDir()) / "cudnn-roundtrip.log";
  fs::remove(log);
  std::vector<fs::path> samples;
  for (const auto& e : fs::directory_iterator(fs::path(DNNBENCH_SOURCE_DIR) / "graphs/samples"))
    if (e.path().extension() == ".json") samples.push_back(e.path());
  std::sort(samples.begin(), samples.end());
  std::string command =
      "'" + fs::read_symlink("/proc/self/exe").string() + "' --write-log '" + log.string() + "'";
  for (const auto& s : samples) command += " '" + s.string() + "'";
  command += " > /dev/null 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  ASSERT_TRUE(fs::exists(log)) << "cuDNN wrote no log";

  const auto imported = import_cudnn_api_log_file(log);
  const auto manifest = build_manifest({{log.string(), imported}});
  std::map<std::multiset<std::string>, std::int64_t> back;
  for (const auto& g : manifest.graphs) back[signature(g.graph)] += g.count;

  std::size_t lowered = 0, compared = 0;
  for (const auto& file : samples) {
    const auto graph = read_graph_file(file);
    try {
      // Without CUDNN_LOGLEVEL_DBG here, this lowering logs nothing.
      cudnn::lower_graph(graph, nullptr);
    } catch (const std::exception&) {
      continue;  // cuDNN refuses it: nothing was logged
    }
    ++lowered;
    if (elementwise_only(graph)) continue;  // lowered with its dims relabelled (lowering.cpp)
    const bool attention_backward = std::any_of(graph.nodes.begin(), graph.nodes.end(),
                                                [](const Node& n) { return n.kind == OpKind::sdpa_bwd; });
    // Attention backward's pattern and a sliding window (whose bound the log does not hold) are
    // listed as not imported (below).
    const bool window = std::any_of(graph.nodes.begin(), graph.nodes.end(), [](const Node& n) {
      if (n.kind != OpKind::sdpa_fwd) return false;
      const auto& p = n.as<SdpaParams>();
      return p.left_bound.has_value() || (p.right_bound && *p.right_bound != 0);
    });
    if (attention_backward || window) continue;
    ++compared;
    EXPECT_TRUE(back.count(signature(nlohmann::json::parse(read_text_file(file))))) << file;
  }
  EXPECT_GE(lowered, 60u);
  EXPECT_GE(compared, 35u);
  // Every graph that came back validates (build_manifest reads each back); what did not map is
  // listed with its reason: attention backward's pattern only.
  for (const auto& n : manifest.not_imported)
    EXPECT_NE(n.op.find("MATMUL"), std::string::npos) << n.source << " " << n.op << ": " << n.reason;
  EXPECT_GE(manifest.graphs.size(), 55u);
}

}  // namespace
}  // namespace dnnbench

int main(int argc, char** argv) {
  // --lower GRAPH...: the same under whatever logging the caller set (scripts/capture's test).
  if (argc >= 3 && std::string(argv[1]) == "--lower")
    return dnnbench::write_log(std::vector<std::string>(argv + 2, argv + argc));
  if (argc >= 3 && std::string(argv[1]) == "--write-log") {
    // The log destination must be set before cuDNN's first call.
    setenv("CUDNN_LOGLEVEL_DBG", "3", 1);
    setenv("CUDNN_LOGDEST_DBG", argv[2], 1);
    return dnnbench::write_log(std::vector<std::string>(argv + 3, argv + argc));
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
