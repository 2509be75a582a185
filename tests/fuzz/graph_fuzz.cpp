// libFuzzer target: hostile bytes as a graph file, through everything the tool does with a file
// before any provider sees it: parse, validate (with a small memory budget), cost model, the
// duplicate key of the graph loader, and, for graphs small enough to compute in microseconds,
// the seeded fills and the fp64 reference. A graph the validator accepts must be one the
// reference can run without touching memory it does not own.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "env/memory_budget.hpp"
#include "graph/cost.hpp"
#include "graph/errors.hpp"
#include "graph/reader.hpp"
#include "graph/validate.hpp"
#include "run/graph_loader.hpp"
#include "session/graph_data.hpp"

namespace {

// Small enough that one input runs in well under a millisecond.
constexpr std::int64_t kMaxGraphBytes = 64 << 10;
constexpr double kMaxReferenceFlops = 1e5;
// The memory budget the tool applies before it allocates (virtual intermediates included, which
// --max-graph-bytes does not count): a graph over it is refused, so the reference never runs.
constexpr std::int64_t kMaxMemory = 1 << 20;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "graph fuzz: %s\n", what.c_str());
  std::abort();
}

void check_one_line(const dnnbench::InputError& e) {
  const std::string text = e.what();
  if (text.find('\n') != std::string::npos || text.find('\r') != std::string::npos)
    fail("an error message spans several lines: " + text);
  if (e.message().empty()) fail("an error without a message: " + text);
}

}  // namespace

// One reference thread: fuzzing runs one process per core, and threads would only add noise.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  setenv("DNNBENCH_REFERENCE_THREADS", "1", /*overwrite=*/0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dnnbench;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Graph graph;
  try {
    graph = parse_graph_json(text, "fuzz.json");
    graph.source_path = "fuzz.json";
    validate_graph(graph, {.max_graph_bytes = kMaxGraphBytes});
  } catch (const InputError& e) {
    check_one_line(e);
    return 0;
  }
  // Anything other than InputError escapes and libFuzzer reports it as a crash.
  const GraphCost cost = graph_cost(graph);
  (void)canonical_graph_content(text);
  RunOptions options;
  options.max_memory = kMaxMemory;
  if (!host_budget_refusal(graph, options).empty()) return 0;
  if (!graph.unsupported_types().empty() || cost.flops > kMaxReferenceFlops) return 0;
  GraphData graph_data(graph, /*seed=*/1);
  (void)graph_data.reference();
  return 0;
}
