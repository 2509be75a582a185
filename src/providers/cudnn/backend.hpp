#pragma once
// A small RAII layer over cuDNN's backend descriptors: one owner class, typed set/get helpers,
// and a status check that carries cuDNN's own reason (cudnnGetLastErrorString).
#include <cudnn.h>

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dnnbench::cudnn {

// cuDNN's detailed reason for the last failure on this thread ("" when it gives none).
std::string last_error();
// 3000s: the candidate (graph, engine, knobs) is not supported; skipping it is normal.
inline bool is_not_supported(cudnnStatus_t s) {
  return s / 1000 == 3;
}
// Throws Unsupported for NOT_SUPPORTED statuses, std::runtime_error otherwise, with `what`,
// the status name and cuDNN's reason.
void check(cudnnStatus_t status, std::string_view what);
// The message check() would throw, for callers that record a failure and go on.
std::string status_message(cudnnStatus_t status, std::string_view what);

// Owns one cudnnBackendDescriptor_t. Move-only; destroyed with its owner.
class Descriptor {
 public:
  Descriptor() = default;
  explicit Descriptor(cudnnBackendDescriptorType_t type);
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  Descriptor(Descriptor&& other) noexcept : desc_(std::exchange(other.desc_, nullptr)) {}
  Descriptor& operator=(Descriptor&& other) noexcept {
    std::swap(desc_, other.desc_);
    return *this;
  }
  ~Descriptor();

  cudnnBackendDescriptor_t get() const { return desc_; }
  explicit operator bool() const { return desc_ != nullptr; }
  void finalize(std::string_view what);
  // Finalizes and returns the status instead of throwing (candidates that may be refused).
  cudnnStatus_t try_finalize();

 private:
  cudnnBackendDescriptor_t desc_ = nullptr;
};

// The cuDNN attribute type of a C++ value type.
template <class T>
struct AttrType;
#define DNNBENCH_CUDNN_ATTR_TYPE(T, E)                      \
  template <>                                               \
  struct AttrType<T> {                                      \
    static constexpr cudnnBackendAttributeType_t value = E; \
  }
DNNBENCH_CUDNN_ATTR_TYPE(std::int64_t, CUDNN_TYPE_INT64);
DNNBENCH_CUDNN_ATTR_TYPE(double, CUDNN_TYPE_DOUBLE);
DNNBENCH_CUDNN_ATTR_TYPE(float, CUDNN_TYPE_FLOAT);
DNNBENCH_CUDNN_ATTR_TYPE(bool, CUDNN_TYPE_BOOLEAN);
DNNBENCH_CUDNN_ATTR_TYPE(cudnnHandle_t, CUDNN_TYPE_HANDLE);
DNNBENCH_CUDNN_ATTR_TYPE(cudnnDataType_t, CUDNN_TYPE_DATA_TYPE);
DNNBENCH_CUDNN_ATTR_TYPE(cudnnConvolutionMode_t, CUDNN_TYPE_CONVOLUTION_MODE);
DNNBENCH_CUDNN_ATTR_TYPE(cudnnPointwiseMode_t, CUDNN_TYPE_POINTWISE_MODE);
DNNBENCH_CUDNN_ATTR_TYPE(cudnnReduceTensorOp_t, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE);
DNNBENCH_CUDNN_ATTR_TYPE(cudnnBackendHeurMode_t, CUDNN_TYPE_HEUR_MODE);
DNNBENCH_CUDNN_ATTR_TYPE(cudnnBackendKnobType_t, CUDNN_TYPE_KNOB_TYPE);
DNNBENCH_CUDNN_ATTR_TYPE(cudnnBackendNumericalNote_t, CUDNN_TYPE_NUMERICAL_NOTE);
DNNBENCH_CUDNN_ATTR_TYPE(cudnnBackendBehaviorNote_t, CUDNN_TYPE_BEHAVIOR_NOTE);
DNNBENCH_CUDNN_ATTR_TYPE(cudnnBackendNormMode_t, CUDNN_TYPE_NORM_MODE);
DNNBENCH_CUDNN_ATTR_TYPE(cudnnBackendNormFwdPhase_t, CUDNN_TYPE_NORM_FWD_PHASE);
DNNBENCH_CUDNN_ATTR_TYPE(cudnnResampleMode_t, CUDNN_TYPE_RESAMPLE_MODE);
DNNBENCH_CUDNN_ATTR_TYPE(cudnnPaddingMode_t, CUDNN_TYPE_PADDING_MODE);
DNNBENCH_CUDNN_ATTR_TYPE(cudnnFraction_t, CUDNN_TYPE_FRACTION);
#undef DNNBENCH_CUDNN_ATTR_TYPE

void set_raw(const Descriptor& d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
             std::int64_t count, const void* values);

template <class T>
void set(const Descriptor& d, cudnnBackendAttributeName_t name, std::span<const T> values) {
  set_raw(d, name, AttrType<T>::value, static_cast<std::int64_t>(values.size()), values.data());
}
template <class T>
void set(const Descriptor& d, cudnnBackendAttributeName_t name, const std::vector<T>& values) {
  set(d, name, std::span<const T>(values));
}
template <class T>
void set(const Descriptor& d, cudnnBackendAttributeName_t name, const T& value) {
  set(d, name, std::span<const T>(&value, 1));
}
// cudnnBackendDescriptor_t and data pointers are both void*: they get their own setters.
// A descriptor-valued attribute (one descriptor).
void set(const Descriptor& d, cudnnBackendAttributeName_t name, const Descriptor& value);
// A descriptor-list attribute.
void set(const Descriptor& d, cudnnBackendAttributeName_t name, const std::vector<const Descriptor*>& values);
// Device (or host) pointers: CUDNN_TYPE_VOID_PTR.
void set_pointers(const Descriptor& d, cudnnBackendAttributeName_t name, std::span<void* const> values);

// Number of elements an attribute holds (GetAttribute with requested = 0).
std::int64_t count_of(const Descriptor& d, cudnnBackendAttributeName_t name,
                      cudnnBackendAttributeType_t type);

// Up to `max` values of an attribute; the vector is cut to what cuDNN returned.
template <class T>
std::vector<T> get_all(const Descriptor& d, cudnnBackendAttributeName_t name, std::int64_t max);
template <class T>
T get_one(const Descriptor& d, cudnnBackendAttributeName_t name) {
  auto values = get_all<T>(d, name, 1);
  if (values.empty()) throw std::runtime_error("cuDNN returned no value for an attribute");
  return values.front();
}
// Descriptor-valued attributes: cuDNN fills descriptors the caller created with `type`.
std::vector<Descriptor> get_descriptors(const Descriptor& d, cudnnBackendAttributeName_t name,
                                        cudnnBackendDescriptorType_t type, std::int64_t max);

// The library handle; needs a CUDA device. Shared by the provider and its plans.
class Handle {
 public:
  Handle();
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle();
  cudnnHandle_t get() const { return handle_; }

 private:
  cudnnHandle_t handle_ = nullptr;
};

}  // namespace dnnbench::cudnn
