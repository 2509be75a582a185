// cuDNN API log blocks: a call's header, parameters and trailer; a block cut short by the next
// header or the end of the log is handed over incomplete; other output between blocks is ignored.
#include "input/cudnn_log_calls.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace dnnbench {
namespace {

std::vector<CudnnLogCall> read(const std::string& text) {
  std::vector<CudnnLogCall> calls;
  CudnnLogCallReader reader([&](CudnnLogCall&& c) { calls.push_back(std::move(c)); });
  std::istringstream in(text);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) reader.add(line, ++n);
  reader.finish();
  return calls;
}

TEST(CudnnLogCalls, ReadsHeaderParametersAndTrailer) {
  const auto calls = read(
      "I! CuDNN (v91900 75) function cudnnBackendFinalize() called:\n"
      "i!     descriptor: type=CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:\n"
      "i!         handle: type=cudnnHandle_t; streamId=0x0;\n"
      "i!     status: type=cudnnStatus_t; val=CUDNN_STATUS_SUCCESS (0);\n"
      "i! Time: 2026-12-05T04:10:11.123456 (0d+0h+0m+1s since start)\n"
      "i! Process=4782; Thread=4790; GPU=0; Handle=0x55d1c8a0; StreamId=0x0 (defaultStream).\n");
  ASSERT_EQ(calls.size(), 1u);
  const auto& c = calls[0];
  EXPECT_EQ(c.line, 1u);
  EXPECT_EQ(c.severity, 'I');
  EXPECT_EQ(c.version, "91900");
  EXPECT_EQ(c.function, "cudnnBackendFinalize");
  EXPECT_TRUE(c.complete);
  EXPECT_EQ(c.process, "4782");
  EXPECT_EQ(c.thread, "4790");
  EXPECT_EQ(c.gpu, "0");
  EXPECT_EQ(c.handle, "0x55d1c8a0");
  EXPECT_EQ(c.stream, "0x0");
  ASSERT_EQ(c.lines.size(), 3u);
  EXPECT_EQ(c.field("descriptor").value_or(""), "type=CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:");
  EXPECT_EQ(c.value("status").value_or(""), "CUDNN_STATUS_SUCCESS (0)");
  EXPECT_FALSE(c.field("missing"));
}

TEST(CudnnLogCalls, NullTrailerFieldsAreEmpty) {
  const auto calls = read(
      "I! CuDNN (v90300 75) function cudnnCreate() called:\n"
      "i!     handle: location=host; addr=0x7ffde85442a0;\n"
      "i! Process=4782; Thread=4782; GPU=NULL; Handle=NULL; StreamId=NULL.\n");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].version, "90300");
  EXPECT_EQ(calls[0].handle, "");
  EXPECT_EQ(calls[0].gpu, "");
  EXPECT_EQ(calls[0].stream, "");
}

TEST(CudnnLogCalls, CutBlocksAreHandedOverIncompleteAndOtherOutputIsIgnored) {
  const auto calls = read(
      "epoch 1 loss 0.3\n"
      "I! CuDNN (v91900 75) function cudnnBackendExecute() called:\n"
      "i!     handle: type=cudnnHandle_t; streamId=0x0;\n"
      "W! CuDNN (v91900 75) function cudnnBackendFinalize() called:\n"
      "w!     status: type=cudnnStatus_t; val=CUDNN_STATUS_NOT_SUPPORTED (3000);\n"
      "w! Process=1; Thread=2; GPU=0; Handle=0x1; StreamId=0x0.\n"
      "step done\n"
      "I! CuDNN (v91900 75) function cudnnBackendExecute() called:\n"
      "i!     handle: type=cudnnHandle_t; streamId=0x0;\n");
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_FALSE(calls[0].complete);
  EXPECT_EQ(calls[0].line, 2u);
  EXPECT_EQ(calls[1].severity, 'W');
  EXPECT_TRUE(calls[1].complete);
  EXPECT_EQ(calls[1].thread, "2");
  EXPECT_FALSE(calls[2].complete);
  EXPECT_EQ(calls[2].line, 8u);
}

TEST(CudnnLogCalls, HeaderRecognition) {
  EXPECT_TRUE(is_cudnn_log_header("I! CuDNN (v91900 75) function cudnnCreate() called:"));
  EXPECT_TRUE(is_cudnn_log_header("E! CuDNN (v91900 75) function cudnnBackendFinalize() called:"));
  EXPECT_FALSE(is_cudnn_log_header("i! CuDNN (v91900 75) function cudnnCreate() called:"));
  EXPECT_FALSE(is_cudnn_log_header("onednn_verbose,exec,cpu,convolution"));
  EXPECT_FALSE(is_cudnn_log_header("I!"));
}

}  // namespace
}  // namespace dnnbench
