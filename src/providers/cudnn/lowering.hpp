#pragma once
// Lowering a graph onto a cuDNN operation graph: every node becomes one backend operation (or a
// few, where cuDNN has no single one), every tensor one tensor descriptor (intermediates
// virtual, scalars by value). Each op family lowers its nodes in its own file (conv.cpp,
// matmul.cpp, ...); lowering.cpp owns tensors, ranks and the operation graph.
#include <cudnn.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.hpp"
#include "providers/cudnn/backend.hpp"

namespace dnnbench::cudnn {

// A tensor the variant pack binds: device pointer, or host pointer for by-value scalars.
struct BoundTensor {
  std::int64_t uid = 0;
  DataType dtype = DataType::unset;
  bool by_value = false;
};

// A finalized operation graph and every descriptor it points to (kept alive with it, and with
// every plan built from it).
struct OpGraph {
  std::shared_ptr<const Handle> handle;
  std::map<std::int64_t, Descriptor> tensors;  // by graph uid
  std::deque<Descriptor> settings;             // convolution / matmul / pointwise / reduction descriptors
  std::vector<Descriptor> ops;
  Descriptor graph;
  std::vector<BoundTensor> bound;  // non-virtual tensors, in uid order
  std::string summary;             // "conv_fwd -> add -> relu_fwd"
  // What cuDNN would accept instead, where the lowering can tell that it is outside what cuDNN
  // 9.14 was measured to run (appended to cuDNN's refusals; docs/providers.md's support table).
  std::vector<std::string> hints;
  // By-value constants the lowering introduced (attention scale, -inf, mask offsets): bound by
  // host pointer with these values.
  struct Constant {
    std::int64_t uid = 0;
    DataType dtype = DataType::unset;
    double value = 0;
  };
  std::vector<Constant> constants;
  // Non-virtual tensors the lowering introduced that no graph tensor backs (attention backward's
  // softmax sum and dQ accumulator): the plan allocates and binds them, filled with `init` once
  // when not empty.
  struct Scratch {
    std::int64_t uid = 0;
    std::size_t bytes = 0;
    std::vector<std::byte> init;
  };
  std::vector<Scratch> scratch;
};

// "; <hint>; <hint>" or "" (appended to refusals).
std::string hints_text(const std::vector<std::string>& hints);

// Dims and strides as cuDNN sees one tensor.
struct Shape {
  std::vector<std::int64_t> dims, strides;
};

// The builder the families lower into.
class Lowering {
 public:
  Lowering(const Graph& graph, std::shared_ptr<const Handle> handle);

  const Graph& graph() const { return graph_; }
  // The tensor descriptor of graph tensor `uid`, created on first use with the graph's dims
  // and strides (ranks padded with leading 1s to the graph's common rank), or with `shape`.
  // `dtype` overrides the tensor's own type (by-value scalars take the compute type).
  const Descriptor& tensor(std::int64_t uid, const std::optional<Shape>& shape = std::nullopt,
                           std::optional<DataType> dtype = std::nullopt);
  // A virtual tensor of our own (between the ops of one node), with a fresh uid.
  const Descriptor& virtual_tensor(const Shape& shape, DataType dtype);
  // A device tensor of our own that the plan allocates (packed `shape`), optionally filled once.
  const Descriptor& scratch_tensor(const Shape& shape, DataType dtype, std::vector<std::byte> init = {});
  // A by-value scalar of our own (dims all 1 at `rank`), bound to `value` at execution.
  const Descriptor& constant(double value, DataType dtype, std::size_t rank);
  // The shape a graph tensor gets by default (padded rank).
  Shape shape_of(std::int64_t uid) const;
  // Keeps a settings descriptor alive; returns it.
  const Descriptor& keep(Descriptor d);
  void add_op(Descriptor op, std::string_view label);
  // Records what cuDNN would accept instead (see OpGraph::hints).
  void hint(std::string text);
  const std::vector<std::string>& hints() const { return out_->hints; }
  // True for graphs of pointwise, batch-norm inference and reduction nodes only (relabelled).
  bool elementwise() const { return elementwise_; }
  // The node's compute type (the graph's when the node has none; float when neither has).
  DataType compute_dtype(const Node& node) const;
  // The node's compute type as cuDNN spells it.
  cudnnDataType_t compute_type(const Node& node) const;

  // Finalizes the operation graph; throws Unsupported with cuDNN's reason when refused.
  std::shared_ptr<OpGraph> finish();

 private:
  const Graph& graph_;
  std::shared_ptr<OpGraph> out_;
  std::size_t rank_ = 0;
  std::int64_t next_uid_ = 0;
  // Elementwise-only graphs (pointwise, batch-norm inference, reduction) see every tensor with
  // its dims relabelled by this permutation (empty: none); see the constructor.
  std::vector<std::size_t> relabel_;
  bool elementwise_ = false;
};

cudnnDataType_t data_type(DataType type);
// Node input/output uids by role; Unsupported when missing.
std::int64_t input_uid(const Node& node, std::string_view role);
std::int64_t output_uid(const Node& node, std::string_view role);

// The families; each lowers one node (throws Unsupported with the reason).
void lower_conv(Lowering& low, const Node& node);  // forward, backward data, backward weights
void lower_matmul(Lowering& low, const Node& node);
void lower_pointwise(Lowering& low, const Node& node);
void lower_reduction(Lowering& low, const Node& node);
void lower_layernorm(Lowering& low, const Node& node);
void lower_rmsnorm(Lowering& low, const Node& node);
void lower_batchnorm(Lowering& low, const Node& node);           // inference, as pointwise ops
void lower_resample(Lowering& low, const Node& node);            // pooling forward
void lower_batchnorm_training(Lowering& low, const Node& node);  // NORM_FORWARD, TRAINING
void lower_batchnorm_backward(Lowering& low, const Node& node);  // NORM_BACKWARD
void lower_sdpa_fwd(Lowering& low, const Node& node);            // the fused-attention pattern (sdpa.cpp)
void lower_sdpa_bwd(Lowering& low, const Node& node);

// The hint for a pointwise operand that broadcasts over dims faster in memory than its own
// (cuDNN's pointwise engines refuse those: "Unsupported pointwise pattern"), or nullopt.
std::optional<std::string> broadcast_hint(const Graph& graph, std::int64_t operand, std::int64_t out);

// A pointwise operation y = mode(x[, b]) with the node's settings (pointwise.cpp); used by the
// pointwise family and by families that decompose into pointwise ops.
void add_pointwise(Lowering& low, cudnnPointwiseMode_t mode, cudnnDataType_t math, const Descriptor& x,
                   const Descriptor* b, const Descriptor& y, std::string_view label,
                   const PointwiseParams* params = nullptr);

// The whole graph. Throws Unsupported with the reason.
std::shared_ptr<OpGraph> lower_graph(const Graph& graph, std::shared_ptr<const Handle> handle);

}  // namespace dnnbench::cudnn
