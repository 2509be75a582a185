// The device comparison's host side: the reference's device copy, the output's layout, and the
// figures of compare_values from the kernel's partial sums.
#include "reference/device_compare.hpp"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

#include "reference/cuda/compare_kernels.hpp"
#include "reference/gpu_reference.hpp"

namespace dnnbench {
namespace {

class CudaReference final : public DeviceReference {
 public:
  explicit CudaReference(const Dense& values) : count_(values.size()) {
    const std::size_t bytes = static_cast<std::size_t>(std::max<std::int64_t>(count_, 1)) * sizeof(double);
    if (const auto s = cudaMalloc(&data_, bytes); s != cudaSuccess)
      throw std::runtime_error(std::string("device comparison: allocating the reference: ") +
                               cudaGetErrorString(s));
    if (const auto s = cudaMemcpy(data_, values.data.data(),
                                  static_cast<std::size_t>(count_) * sizeof(double), cudaMemcpyHostToDevice);
        s != cudaSuccess) {
      cudaFree(data_);
      throw std::runtime_error(std::string("device comparison: copying the reference: ") +
                               cudaGetErrorString(s));
    }
  }
  CudaReference(const CudaReference&) = delete;
  CudaReference& operator=(const CudaReference&) = delete;
  ~CudaReference() override { cudaFree(data_); }
  const double* data() const { return data_; }
  std::int64_t count() const { return count_; }

 private:
  std::int64_t count_;
  double* data_ = nullptr;
};

std::optional<ref::cuda::OutputType> output_type(DataType dtype) {
  switch (dtype) {
    case DataType::f32:
      return ref::cuda::OutputType::f32;
    case DataType::f16:
      return ref::cuda::OutputType::f16;
    case DataType::bf16:
      return ref::cuda::OutputType::bf16;
    case DataType::f64:
      return ref::cuda::OutputType::f64;
    default:
      return std::nullopt;  // integers, booleans and fp8: the host's decoding judges them
  }
}

}  // namespace

std::string device_compare_unavailable_reason() {
  if (const char* off = std::getenv("DNNBENCH_HOST_COMPARE"); off && std::string(off) == "1")
    return "DNNBENCH_HOST_COMPARE=1";
  return gpu_reference_unavailable_reason();
}

std::unique_ptr<DeviceReference> upload_reference(const Dense& values) {
  return std::make_unique<CudaReference>(values);
}

std::optional<CompareResult> compare_on_device(const void* out, const TensorDesc& desc,
                                               const DeviceReference& ref, const Tolerance& tol) {
  const auto type = output_type(desc.dtype);
  const auto& device_ref = dynamic_cast<const CudaReference&>(ref);
  if (!type || desc.dims.size() > static_cast<std::size_t>(ref::cuda::kMaxCompareRank) ||
      desc.strides.size() != desc.dims.size() || desc.element_count() != device_ref.count())
    return std::nullopt;
  ref::cuda::OutputLayout layout;
  layout.rank = static_cast<int>(desc.dims.size());
  for (std::size_t k = 0; k < desc.dims.size(); ++k) {
    layout.dims[k] = desc.dims[k];
    layout.strides[k] = desc.strides[k];
  }
  const auto p =
      ref::cuda::compare(out, *type, layout, device_ref.data(), device_ref.count(), tol.rtol, tol.atol);
  // The figures as compare_values makes them from its partial sums.
  CompareResult r;
  r.elements = device_ref.count();
  r.max_abs_diff = p.max_abs_diff;
  r.max_rel_diff = p.max_rel_diff;
  r.mismatches = p.mismatches;
  r.nonfinite = p.nonfinite;
  r.norm_rel_error = p.ref_sq > 0 ? std::sqrt(p.diff_sq / p.ref_sq) : std::sqrt(p.diff_sq);
  if (r.nonfinite > 0) r.norm_rel_error = INFINITY;
  r.passed = r.mismatches == 0;
  return r;
}

}  // namespace dnnbench
