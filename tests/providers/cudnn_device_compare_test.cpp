// The device comparison (reference/device_compare.hpp) against the host's compare_values, on the
// same storage: fp32, fp16, bf16 and fp64 outputs in a channels-last layout, with values inside
// and outside the tolerance, NaN and Inf on either side, and the poison of an unwritten output;
// then cuDNN rows compared on the device and, with DNNBENCH_HOST_COMPARE=1, on the host. Built
// with the cudnn provider (dnnbench_gpu_tests, label `gpu`); skipped where no CUDA device is.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "reference/device_compare.hpp"
#include "tensor/compare.hpp"
#include "tensor/host_tensor.hpp"

namespace dnnbench::testing {
namespace {

using nlohmann::json;

#define REQUIRE_DEVICE_COMPARE() \
  if (const auto why = device_compare_unavailable_reason(); !why.empty()) GTEST_SKIP() << why

// The storage of a host tensor, on the device, freed on destruction.
class DeviceCopy {
 public:
  explicit DeviceCopy(const HostTensor& t) {
    EXPECT_EQ(cudaMalloc(&data_, t.size_bytes()), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data_, t.data(), t.size_bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  }
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;
  ~DeviceCopy() { cudaFree(data_); }
  const void* get() const { return data_; }

 private:
  void* data_ = nullptr;
};

// N, C, H, W dims stored channels-last (NHWC strides), as cuDNN's fast convolutions write them.
TensorDesc nhwc(DataType dtype) {
  TensorDesc d;
  d.uid = 1;
  d.name = "y";
  d.dims = {3, 5, 7, 11};
  d.strides = {7 * 11 * 5, 1, 11 * 5, 5};
  d.dtype = dtype;
  return d;
}

Dense random_values(const std::vector<std::int64_t>& dims, unsigned seed) {
  Dense v(dims);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-2, 2);
  for (auto& x : v.data) x = u(rng);
  return v;
}

void expect_same(const CompareResult& device, const CompareResult& host, const std::string& what) {
  EXPECT_EQ(device.passed, host.passed) << what;
  EXPECT_EQ(device.elements, host.elements) << what;
  EXPECT_EQ(device.mismatches, host.mismatches) << what;
  EXPECT_EQ(device.nonfinite, host.nonfinite) << what;
  EXPECT_DOUBLE_EQ(device.max_abs_diff, host.max_abs_diff) << what;
  EXPECT_DOUBLE_EQ(device.max_rel_diff, host.max_rel_diff) << what;
  if (std::isfinite(host.norm_rel_error))
    EXPECT_NEAR(device.norm_rel_error, host.norm_rel_error, 1e-12 * (1 + host.norm_rel_error)) << what;
  else
    EXPECT_EQ(device.norm_rel_error, host.norm_rel_error) << what;
}

TEST(DeviceCompare, AgreesWithTheHostComparisonOnEveryCase) {
  REQUIRE_DEVICE_COMPARE();
  for (const auto dtype : {DataType::f32, DataType::f16, DataType::bf16, DataType::f64}) {
    const auto desc = nhwc(dtype);
    const Dense ref = random_values(desc.dims, 7);
    const Tolerance tol{1e-2, 1e-3, "test", std::nullopt, 0};
    struct Case {
      std::string name;
      std::function<void(Dense&, Dense&)> edit;  // (output, reference)
    };
    const std::vector<Case> cases{
        {"equal", [](Dense&, Dense&) {}},
        {"small noise inside the tolerance",
         [](Dense& out, Dense&) {
           for (std::size_t i = 0; i < out.data.size(); i += 3) out.data[i] *= 1.001;
         }},
        {"three mismatches, the first at a high index",
         [](Dense& out, Dense&) {
           out.data[400] += 1;
           out.data[1000] -= 0.5;
           out.data[1100] += 2;
         }},
        {"NaN and Inf in the output",
         [](Dense& out, Dense&) {
           out.data[5] = std::numeric_limits<double>::quiet_NaN();
           out.data[9] = std::numeric_limits<double>::infinity();
         }},
        {"NaN in both, same-signed Inf in both, a zero reference",
         [](Dense& out, Dense& r) {
           out.data[2] = r.data[2] = std::numeric_limits<double>::quiet_NaN();
           out.data[3] = r.data[3] = -std::numeric_limits<double>::infinity();
           r.data[4] = 0;
           out.data[4] = 1e-4;
         }},
    };
    for (const auto& c : cases) {
      Dense out_values = ref, ref_values = ref;
      c.edit(out_values, ref_values);
      HostTensor out(desc);
      out.from_dense(out_values);  // rounded to the dtype, as a library's output is
      const auto host = compare_values(out.to_dense(), ref_values, tol);
      const DeviceCopy device_out(out);
      const auto device_ref = upload_reference(ref_values);
      const auto device = compare_on_device(device_out.get(), desc, *device_ref, tol);
      const std::string what = std::string(dtype_name(dtype)) + ", " + c.name;
      ASSERT_TRUE(device.has_value()) << what;
      expect_same(*device, host, what);
    }
    // An output the plan never wrote: every element is the poison.
    HostTensor poisoned(desc);
    poisoned.poison();
    const DeviceCopy device_out(poisoned);
    const auto device_ref = upload_reference(ref);
    const auto device = compare_on_device(device_out.get(), desc, *device_ref, tol);
    ASSERT_TRUE(device.has_value());
    EXPECT_FALSE(device->passed);
    EXPECT_EQ(device->nonfinite, desc.element_count());
  }
}

TEST(DeviceCompare, TypesItDoesNotReadAreLeftToTheHost) {
  REQUIRE_DEVICE_COMPARE();
  for (const auto dtype : {DataType::i32, DataType::i8, DataType::fp8_e4m3}) {
    auto desc = nhwc(dtype);
    HostTensor t(desc);
    const DeviceCopy d(t);
    const auto ref = upload_reference(Dense(desc.dims));
    EXPECT_FALSE(compare_on_device(d.get(), desc, *ref, Tolerance{}).has_value()) << dtype_name(dtype);
  }
}

TEST(DeviceCompare, CudnnRowsCompareOnTheDeviceAndAgreeWithTheHost) {
  REQUIRE_DEVICE_COMPARE();
  TempDir dir;
  const auto device_out = (dir / "device.json").string();
  const auto args = [&](const std::string& out) {
    return std::vector<std::string>{
        "run",        "-g",      source_path("graphs/samples/conv_fwd_2d_nhwc_fp16.json"),
        "--provider", "cudnn",   "--max-engines",
        "2",          "--iters", "3",
        "--isolate",  "none",    "-o",
        out};
  };
  const auto on_device = run_cli(args(device_out));
  ASSERT_EQ(on_device.exit_code, 0) << on_device.out << on_device.err;
  setenv("DNNBENCH_HOST_COMPARE", "1", 1);
  const auto host_out = (dir / "host.json").string();
  const auto on_host = run_cli(args(host_out));
  unsetenv("DNNBENCH_HOST_COMPARE");
  ASSERT_EQ(on_host.exit_code, 0) << on_host.out << on_host.err;
  const auto d = json::parse(read_text(device_out))["graphs"][0]["results"];
  const auto h = json::parse(read_text(host_out))["graphs"][0]["results"];
  ASSERT_EQ(d.size(), h.size());
  int compared = 0;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (d[i]["status"] != "success") continue;
    ++compared;
    EXPECT_TRUE(d[i]["correctness"]["passed"].get<bool>()) << d[i].dump();
    EXPECT_EQ(d[i]["correctness"]["compared_on"], "device") << d[i].dump();
    EXPECT_EQ(h[i]["correctness"]["compared_on"], "host") << h[i].dump();
    EXPECT_EQ(d[i]["correctness"]["passed"], h[i]["correctness"]["passed"]);
    // The same plan on the same inputs: the same figures (a deterministic plan repeats its bits).
    EXPECT_NEAR(d[i]["correctness"]["max_abs_diff"].get<double>(),
                h[i]["correctness"]["max_abs_diff"].get<double>(), 1e-3)
        << d[i]["engine_id"];
  }
  EXPECT_GT(compared, 0);
}

}  // namespace
}  // namespace dnnbench::testing
