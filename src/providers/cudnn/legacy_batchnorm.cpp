#include "providers/cudnn/legacy_batchnorm.hpp"

#include <fmt/format.h>

#include <limits>
#include <map>
#include <utility>

#include "providers/cudnn/device.hpp"
#include "providers/cudnn/lowering.hpp"

namespace dnnbench::cudnn {
namespace {

constexpr std::string_view kModeKnob = "mode";
// Per-channel statistics: the legacy API reads and writes fp32 for f32, f16 and bf16 data.
constexpr DataType kStatsType = DataType::f32;
// The running-average momentum PyTorch passes (its BatchNorm default); the graph has none.
constexpr double kRunningAverageFactor = 0.1;
// The backward call reads the saved mean and inverse variance, so its epsilon does not enter
// the result; the legacy API still asks for the forward's (PyTorch's default).
constexpr double kBackwardEpsilon = 1e-5;

std::string_view mode_name(LegacyBnMode mode) {
  return mode == LegacyBnMode::persistent ? "persistent" : "spatial";
}

cudnnBatchNormMode_t cudnn_mode(LegacyBnMode mode) {
  return mode == LegacyBnMode::persistent ? CUDNN_BATCHNORM_SPATIAL_PERSISTENT : CUDNN_BATCHNORM_SPATIAL;
}

bool channels_last(const TensorDesc& x) {
  return x.dims.size() >= 3 && x.dims[1] > 1 && x.strides[1] == 1;
}

// An [1, C, 1, ...] tensor of C contiguous fp32 values, whatever strides its unit dims carry.
bool per_channel_fp32(const TensorDesc& t, std::int64_t channels) {
  return t.dtype == kStatsType && t.dims.size() >= 2 && t.element_count() == channels &&
         t.dims[1] == channels && (channels == 1 || t.strides[1] == 1);
}

int as_int(std::int64_t v, const char* what) {
  if (v < 0 || v > std::numeric_limits<int>::max())
    throw Unsupported(fmt::format("the legacy batch-norm API takes int {}: {} does not fit", what, v));
  return static_cast<int>(v);
}

// Owns one cudnnTensorDescriptor_t of the legacy API.
class TensorDescriptor {
 public:
  TensorDescriptor(DataType type, const std::vector<std::int64_t>& dims,
                   const std::vector<std::int64_t>& strides) {
    check(cudnnCreateTensorDescriptor(&desc_), "cudnnCreateTensorDescriptor");
    std::vector<int> d, s;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      d.push_back(as_int(dims[i], "dims"));
      s.push_back(as_int(strides[i], "strides"));
    }
    const auto status =
        cudnnSetTensorNdDescriptor(desc_, data_type(type), static_cast<int>(d.size()), d.data(), s.data());
    if (status != CUDNN_STATUS_SUCCESS) {
      cudnnDestroyTensorDescriptor(desc_);
      check(status, "cudnnSetTensorNdDescriptor");
    }
  }
  explicit TensorDescriptor(const TensorDesc& t) : TensorDescriptor(t.dtype, t.dims, t.strides) {}
  TensorDescriptor(const TensorDescriptor&) = delete;
  TensorDescriptor& operator=(const TensorDescriptor&) = delete;
  ~TensorDescriptor() { cudnnDestroyTensorDescriptor(desc_); }
  cudnnTensorDescriptor_t get() const { return desc_; }

 private:
  cudnnTensorDescriptor_t desc_ = nullptr;
};

// The [1, C, 1, ...] descriptor the legacy API wants for scale, bias and the statistics.
TensorDescriptor stats_descriptor(const TensorDesc& x) {
  std::vector<std::int64_t> dims(x.dims.size(), 1), strides(x.dims.size(), 1);
  dims[1] = x.dims[1];
  strides[0] = x.dims[1];
  return TensorDescriptor(kStatsType, dims, strides);
}

// The uid bound for `role`; the legacy call's pointer for it.
struct Role {
  std::int64_t uid = 0;
  void* ptr = nullptr;
};

// The node's x: its dims, strides and type are y's, dy's and dx's too (legacy_batchnorm_engine checks).
const TensorDesc& data_tensor(const Graph& graph) {
  return graph.tensor(input_uid(graph.nodes.front(), "x"));
}

class LegacyBatchnormPlan final : public Plan {
 public:
  LegacyBatchnormPlan(const Graph& graph, LegacyBnMode mode, std::shared_ptr<const Handle> handle)
      : handle_(std::move(handle)),
        mode_(mode),
        name_(legacy_spec(mode).name()),
        backward_(graph.nodes.front().kind == OpKind::batchnorm_backward),
        x_(data_tensor(graph)),
        stats_(stats_descriptor(data_tensor(graph))) {
    const auto h = handle_->get();
    const auto m = cudnn_mode(mode_);
    if (backward_) {
      check(cudnnGetBatchNormalizationBackwardExWorkspaceSize(h, m, CUDNN_BATCHNORM_OPS_BN, x_.get(), nullptr,
                                                              x_.get(), nullptr, x_.get(), stats_.get(),
                                                              nullptr, &workspace_bytes_),
            "cudnnGetBatchNormalizationBackwardExWorkspaceSize (" + name_ + ")");
    } else {
      check(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(h, m, CUDNN_BATCHNORM_OPS_BN, x_.get(),
                                                                     nullptr, x_.get(), stats_.get(), nullptr,
                                                                     &workspace_bytes_),
            "cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize (" + name_ + ")");
    }
    check(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, m, CUDNN_BATCHNORM_OPS_BN, nullptr,
                                                               x_.get(), &reserve_bytes_),
          "cudnnGetBatchNormalizationTrainingExReserveSpaceSize (" + name_ + ")");
    // The backward call reads what its forward call left in the reserve space; a graph of the
    // backward alone has no forward to fill it.
    if (backward_ && reserve_bytes_ > 0)
      throw Unsupported(fmt::format(
          "the legacy {} backward reads {} bytes of reserve space its forward call writes; the graph has no "
          "forward",
          mode_name(mode_), reserve_bytes_));
    if (workspace_bytes_ > 0) workspace_ = std::make_unique<DeviceMemory>(workspace_bytes_);
    if (reserve_bytes_ > 0) reserve_ = std::make_unique<DeviceMemory>(reserve_bytes_);
    if (!backward_) {
      const auto bytes = static_cast<std::size_t>(data_tensor(graph).dims[1]) * dtype_size(kStatsType);
      running_mean_ = std::make_unique<DeviceMemory>(bytes);
      running_variance_ = std::make_unique<DeviceMemory>(bytes);
    }
    notes_.push_back(fmt::format(
        "cuDNN legacy API: {} with CUDNN_BATCHNORM_{}",
        backward_ ? "cudnnBatchNormalizationBackwardEx" : "cudnnBatchNormalizationForwardTrainingEx",
        mode_ == LegacyBnMode::persistent ? "SPATIAL_PERSISTENT" : "SPATIAL"));
    if (!backward_)
      notes_.push_back(fmt::format(
          "running averages updated with factor {} into buffers of the plan's own (the graph has none; the "
          "framework's call updates them)",
          kRunningAverageFactor));
    for (const auto& port : graph.nodes.front().inputs) roles_.emplace(port.role, Role{port.uid});
    for (const auto& port : graph.nodes.front().outputs) roles_.emplace(port.role, Role{port.uid});
  }

  std::string name() const override { return name_; }
  // The workspace is the plan's own: the legacy calls take it by pointer at each call, so a
  // placement's workspace (Bindings::workspace) is used when one is given.
  std::size_t workspace_bytes() const override { return workspace_bytes_; }

  void bind(const Bindings& bindings, Stream&) override {
    for (auto& [role, r] : roles_) r.ptr = bindings.at(r.uid);
    if (!backward_) epsilon_ = *static_cast<const double*>(roles_.at("epsilon").ptr);
    workspace_ptr_ = bindings.workspace ? bindings.workspace : workspace_ ? workspace_->data() : nullptr;
    bound_ = true;
  }

  void execute(Stream& stream) override {
    if (!bound_) throw std::logic_error("execute before bind");
    const auto h = handle_->get();
    check(cudnnSetStream(h, cuda_stream_of(stream)), "cudnnSetStream");
    const float one = 1.0F, zero = 0.0F;
    const auto m = cudnn_mode(mode_);
    void* reserve = reserve_ ? reserve_->data() : nullptr;
    if (backward_) {
      check(cudnnBatchNormalizationBackwardEx(
                h, m, CUDNN_BATCHNORM_OPS_BN, &one, &zero, &one, &zero, x_.get(), ptr("x"), nullptr, nullptr,
                x_.get(), ptr("dy"), nullptr, nullptr, x_.get(), ptr("dx"), stats_.get(), ptr("scale"),
                nullptr, ptr("dscale"), ptr("dbias"), kBackwardEpsilon, ptr("mean"), ptr("inv_variance"),
                nullptr, workspace_ptr_, workspace_bytes_, reserve, reserve_bytes_),
            "executing " + name_);
    } else {
      check(cudnnBatchNormalizationForwardTrainingEx(
                h, m, CUDNN_BATCHNORM_OPS_BN, &one, &zero, x_.get(), ptr("x"), nullptr, nullptr, x_.get(),
                ptr("y"), stats_.get(), ptr("scale"), ptr("bias"), kRunningAverageFactor,
                running_mean_->data(), running_variance_->data(), epsilon_, ptr("mean"), ptr("inv_variance"),
                nullptr, workspace_ptr_, workspace_bytes_, reserve, reserve_bytes_),
            "executing " + name_);
    }
  }

  void publish_outputs(Stream&) override {}
  std::vector<std::string> notes() const override { return notes_; }

 private:
  void* ptr(const char* role) const { return roles_.at(role).ptr; }

  std::shared_ptr<const Handle> handle_;
  LegacyBnMode mode_;
  std::string name_;
  bool backward_;
  // x, y, dy and dx share dims and strides (legacy_batchnorm_engine checks): one descriptor.
  TensorDescriptor x_;
  TensorDescriptor stats_;
  std::size_t workspace_bytes_ = 0, reserve_bytes_ = 0;
  std::unique_ptr<DeviceMemory> workspace_, reserve_, running_mean_, running_variance_;
  std::map<std::string, Role, std::less<>> roles_;
  void* workspace_ptr_ = nullptr;
  double epsilon_ = 0;
  bool bound_ = false;
  std::vector<std::string> notes_;
};

}  // namespace

std::optional<EngineInfo> legacy_batchnorm_engine(const Graph& graph, std::string& why) {
  if (graph.nodes.size() != 1) {
    why = "the legacy batch-norm API computes a graph of one batch-norm node";
    return std::nullopt;
  }
  const Node& node = graph.nodes.front();
  const bool backward = node.kind == OpKind::batchnorm_backward;
  if (node.kind != OpKind::batchnorm_training && !backward) {
    why = "the legacy batch-norm engine computes batch-norm training and backward";
    return std::nullopt;
  }
  if (node.input("prev_running_mean")) {
    why =
        "the legacy API updates running averages in place; the graph reads them from one tensor and writes "
        "another";
    return std::nullopt;
  }
  const TensorDesc& x = graph.tensor(*node.input("x"));
  if (x.dims.size() != 4 && x.dims.size() != 5) {
    why = fmt::format("the legacy batch-norm API takes 4-D or 5-D data, not {}-D", x.dims.size());
    return std::nullopt;
  }
  if (x.dtype != DataType::f32 && x.dtype != DataType::f16 && x.dtype != DataType::bf16) {
    why = "the legacy batch-norm engine runs f32, f16 and bf16 data";
    return std::nullopt;
  }
  const auto channels = x.dims[1];
  const auto per_channel = backward ? std::vector<std::string_view>{"mean", "inv_variance", "scale"}
                                    : std::vector<std::string_view>{"scale", "bias"};
  for (const auto role : per_channel)
    if (const auto uid = node.input(role); !uid || !per_channel_fp32(graph.tensor(*uid), channels)) {
      why = fmt::format("the legacy API reads '{}' as {} contiguous fp32 values", role, channels);
      return std::nullopt;
    }
  const auto outputs = backward ? std::vector<std::string_view>{"dscale", "dbias"}
                                : std::vector<std::string_view>{"mean", "inv_variance"};
  for (const auto role : outputs)
    if (const auto uid = node.output(role); !uid || !per_channel_fp32(graph.tensor(*uid), channels)) {
      why = fmt::format("the legacy API writes '{}' as {} contiguous fp32 values", role, channels);
      return std::nullopt;
    }
  const auto same_as_x = backward
                             ? std::vector<std::pair<bool, std::string_view>>{{true, "dy"}, {false, "dx"}}
                             : std::vector<std::pair<bool, std::string_view>>{{false, "y"}};
  for (const auto& [is_input, role] : same_as_x) {
    const auto uid = is_input ? node.input(role) : node.output(role);
    if (!uid || graph.tensor(*uid).dims != x.dims || graph.tensor(*uid).strides != x.strides ||
        graph.tensor(*uid).dtype != x.dtype) {
      why = fmt::format("the legacy batch-norm engine takes '{}' in x's dims, strides and type", role);
      return std::nullopt;
    }
  }
  if (!backward && (!node.input("epsilon") || !graph.tensor(*node.input("epsilon")).is_by_value())) {
    why = "the legacy API takes epsilon by value";
    return std::nullopt;
  }
  return EngineInfo{std::string(kLegacyBatchnormEngine),
                    "cuDNN legacy batch norm",
                    {"cuDNN's legacy batch-norm API, as frameworks call it; its heuristic plan is the mode "
                     "PyTorch picks"}};
}

LegacyBnMode framework_mode(const Graph& graph) {
  // PyTorch (aten/src/ATen/native/cudnn/BatchNorm.cpp, getCudnnBatchNormMode): SPATIAL_PERSISTENT
  // in training on channels-last data, SPATIAL otherwise; its backward uses the forward's mode.
  return channels_last(graph.tensor(input_uid(graph.nodes.front(), "x"))) ? LegacyBnMode::persistent
                                                                          : LegacyBnMode::spatial;
}

PlanSpec legacy_spec(LegacyBnMode mode) {
  return PlanSpec{std::string(kLegacyBatchnormEngine),
                  {Knob{std::string(kModeKnob), std::string(mode_name(mode))}}};
}

std::vector<PlanSpec> legacy_plan_space(const Graph& graph) {
  const auto first = framework_mode(graph);
  const auto other = first == LegacyBnMode::persistent ? LegacyBnMode::spatial : LegacyBnMode::persistent;
  return {legacy_spec(first), legacy_spec(other)};
}

LegacyBnMode legacy_mode(const Graph& graph, const PlanSpec& spec) {
  if (spec.engine_id != kLegacyBatchnormEngine)
    throw Unsupported("not a legacy batch-norm plan: " + spec.name());
  if (spec.knobs.empty()) return framework_mode(graph);
  if (spec.knobs.size() == 1 && spec.knobs[0].name == kModeKnob) {
    if (spec.knobs[0].value == mode_name(LegacyBnMode::persistent)) return LegacyBnMode::persistent;
    if (spec.knobs[0].value == mode_name(LegacyBnMode::spatial)) return LegacyBnMode::spatial;
  }
  throw Unsupported("the legacy batch-norm engine has one knob, mode=spatial or mode=persistent: " +
                    spec.name());
}

std::unique_ptr<Plan> build_legacy_batchnorm(const Graph& graph, LegacyBnMode mode,
                                             std::shared_ptr<const Handle> handle) {
  std::string why;
  if (!legacy_batchnorm_engine(graph, why)) throw Unsupported(why);
  return std::make_unique<LegacyBatchnormPlan>(graph, mode, std::move(handle));
}

}  // namespace dnnbench::cudnn
