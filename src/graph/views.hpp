#pragma once
// Other ways to see the same memory: tensors whose dims can be merged (a run of dims that is one
// strided range) or spelled out (a broadcast dim as stride 0). Libraries with narrow shape rules
// (cuDNN's reduction engine takes row, column or whole reductions only; its matmul takes one batch
// dim) run more graphs when a node is shown to them in the fewest dims; these helpers find those
// views and say when there is none. Pure shape logic, no library.
#include <cstdint>
#include <optional>
#include <vector>

namespace dnnbench {

// One merged run of dims: its extent and the element stride of its fastest member in the input
// and in the output (0 where the output has the run reduced away).
struct DimGroup {
  std::int64_t extent = 1;
  std::int64_t in_stride = 1;
  std::int64_t out_stride = 1;
  bool reduced = false;
};

// A reduction in = [d0, d1, ...] -> out (1 on the reduced dims) as groups in memory order of the
// input (slowest first): unit dims dropped, neighbours of the same kind merged where both the
// input's and (for kept dims) the output's strides allow. nullopt when the ranks differ or an
// output dim is neither 1 nor the input's.
std::optional<std::vector<DimGroup>> reduction_groups(const std::vector<std::int64_t>& in_dims,
                                                      const std::vector<std::int64_t>& in_strides,
                                                      const std::vector<std::int64_t>& out_dims,
                                                      const std::vector<std::int64_t>& out_strides);

// The batch dims of one matmul operand, spelled out to the output's batch dims (stride 0 where
// the operand broadcasts) and merged into one. `dims`/`strides` are the operand's leading batch
// dims, right-aligned with `out_batch` (missing leading dims count as 1). Returns {count, stride}
// of the single batch dim (count 1, stride 0 for an operand that is the same for every batch), or
// nullopt when the batches are no single strided run (e.g. a [2, 1] operand of a [2, 3] output:
// batch b = 3i + j sits at 512 i, which no one stride gives).
struct BatchDim {
  std::int64_t count = 1;
  std::int64_t stride = 0;
};
std::optional<BatchDim> merged_batch(const std::vector<std::int64_t>& dims,
                                     const std::vector<std::int64_t>& strides,
                                     const std::vector<std::int64_t>& out_batch);

}  // namespace dnnbench
