// MIOpenDriver lines -> graphs: every flag form of conv / bnorm / pool, files of lines, errors,
// and the way back (export --miopen) as a round trip.
#include <gtest/gtest.h>

#include "import_test_util.hpp"
#include "input/miopen_driver.hpp"

namespace dnnbench::testing {
namespace {

ImportResult miopen(const std::string& text) {
  return import_miopen_driver_text(text, "nets.txt");
}

Graph only_graph(const std::string& line) {
  const auto r = miopen(line);
  EXPECT_EQ(r.graphs.size(), 1u) << line;
  EXPECT_TRUE(r.not_imported.empty()) << (r.not_imported.empty() ? "" : r.not_imported[0].reason);
  return round_trip(r.graphs.at(0).graph);
}

TEST(MiopenDriver, ConvForwardFromTheDocumentedLine) {
  const Graph g =
      only_graph("conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 1 -F 1 -t 1");
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].kind, OpKind::conv_fwd);
  EXPECT_EQ(dims_of(g, "x"), (std::vector<std::int64_t>{32, 64, 56, 56}));
  EXPECT_EQ(dims_of(g, "w"), (std::vector<std::int64_t>{64, 64, 3, 3}));
  EXPECT_EQ(dims_of(g, "y"), (std::vector<std::int64_t>{32, 64, 56, 56}));
  const auto& p = g.nodes[0].as<ConvParams>();
  EXPECT_EQ(p.pre_padding, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(p.stride, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(g.io_type, DataType::f32);
}

TEST(MiopenDriver, LongFlagsWithSpaceOrEqualsAreTheShortOnes) {
  const Graph a = only_graph("conv -n 8 -c 16 -H 14 -W 14 -k 32 -y 3 -x 3 -p 1 -q 1 -F 1");
  const Graph b = only_graph(
      "conv --batchsize 8 --in_channels=16 --in_h 14 --in_w 14 --out_channels 32 --fil_h 3 --fil_w 3 --pad_h "
      "1 "
      "--pad_w=1 --forw 1");
  EXPECT_EQ(dims_of(a, "y"), dims_of(b, "y"));
  EXPECT_EQ(a.nodes[0].as<ConvParams>().pre_padding, b.nodes[0].as<ConvParams>().pre_padding);
}

TEST(MiopenDriver, DefaultsAreMIOpenDriversOwn) {
  // -n 100 -c 3 -H 32 -W 32 -k 32 -y 3 -x 3, no padding.
  const Graph g = only_graph("conv -F 1");
  EXPECT_EQ(dims_of(g, "x"), (std::vector<std::int64_t>{100, 3, 32, 32}));
  EXPECT_EQ(dims_of(g, "y"), (std::vector<std::int64_t>{100, 32, 30, 30}));
}

TEST(MiopenDriver, DirectionFlagMakesOneGraphPerPass) {
  const auto all = miopen("conv -n 2 -c 8 -H 8 -W 8 -k 16 -y 3 -x 3 -p 1 -q 1 -F 0");
  ASSERT_EQ(all.graphs.size(), 3u);
  EXPECT_EQ(round_trip(all.graphs[0].graph).nodes[0].kind, OpKind::conv_fwd);
  EXPECT_EQ(round_trip(all.graphs[1].graph).nodes[0].kind, OpKind::conv_bwd_data);
  EXPECT_EQ(round_trip(all.graphs[2].graph).nodes[0].kind, OpKind::conv_bwd_weights);
  EXPECT_EQ(all.graphs[0].source, "nets.txt:1");
  EXPECT_EQ(only_graph("conv -n 2 -c 8 -H 8 -W 8 -k 16 -F 2").nodes[0].kind, OpKind::conv_bwd_data);
  EXPECT_EQ(only_graph("conv -n 2 -c 8 -H 8 -W 8 -k 16 -F 4").nodes[0].kind, OpKind::conv_bwd_weights);
  EXPECT_EQ(miopen("conv -n 2 -c 8 -H 8 -W 8 -k 16 -F 3").graphs.size(), 2u);
  EXPECT_EQ(miopen("conv -n 2 -c 8 -H 8 -W 8 -k 16 -F 5").graphs.size(), 2u);
  EXPECT_EQ(miopen("conv -n 2 -c 8 -H 8 -W 8 -k 16 -F 6").graphs.size(), 2u);
}

TEST(MiopenDriver, GroupsStrideDilation) {
  const Graph g =
      only_graph("conv -n 2 -c 32 -H 17 -W 17 -k 64 -y 3 -x 3 -p 2 -q 2 -u 2 -v 2 -l 2 -j 2 -g 4 -F 1");
  EXPECT_EQ(dims_of(g, "w"), (std::vector<std::int64_t>{64, 8, 3, 3}));
  const auto& p = g.nodes[0].as<ConvParams>();
  EXPECT_EQ(p.groups, 4);
  EXPECT_EQ(p.stride, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(p.dilation, (std::vector<std::int64_t>{2, 2}));
  // (17 + 4 - 2*2 - 1) / 2 + 1 = 9
  EXPECT_EQ(dims_of(g, "y"), (std::vector<std::int64_t>{2, 64, 9, 9}));
}

TEST(MiopenDriver, DataTypeCommands) {
  EXPECT_EQ(only_graph("convfp16 -n 2 -c 8 -H 8 -W 8 -k 8 -F 1").io_type, DataType::f16);
  EXPECT_EQ(only_graph("convbfp16 -n 2 -c 8 -H 8 -W 8 -k 8 -F 1").io_type, DataType::bf16);
}

TEST(MiopenDriver, LayoutsBecomeStrides) {
  const Graph g = only_graph(
      "conv -n 2 -c 8 -H 4 -W 4 -k 16 -y 1 -x 1 -F 1 --in_layout NHWC --fil_layout NHWC "
      "--out_layout NCHW");
  EXPECT_EQ(tensor_named(g, "x").strides, (std::vector<std::int64_t>{128, 1, 32, 8}));
  EXPECT_EQ(tensor_named(g, "w").strides, (std::vector<std::int64_t>{8, 1, 8, 8}));
  EXPECT_EQ(tensor_named(g, "y").strides, (std::vector<std::int64_t>{256, 16, 4, 1}));
  const Graph s = only_graph("conv -n 2 -c 8 -H 4 -W 4 -k 16 -y 1 -x 1 -F 1 -I NHWC -f NHWC -O NHWC");
  EXPECT_EQ(tensor_named(s, "y").strides, (std::vector<std::int64_t>{256, 1, 64, 16}));
}

TEST(MiopenDriver, ThreeDimensional) {
  const Graph g = only_graph(
      "conv --spatial_dim 3 -n 2 -c 4 -! 6 -H 8 -W 8 -k 8 -@ 3 -y 3 -x 3 -$ 1 -p 1 -q 1 -# 2 -u 2 -v 2 -^ 1 "
      "-l 1 -j 1 "
      "-F 1 -I NDHWC -f NDHWC -O NDHWC");
  EXPECT_EQ(dims_of(g, "x"), (std::vector<std::int64_t>{2, 4, 6, 8, 8}));
  EXPECT_EQ(dims_of(g, "w"), (std::vector<std::int64_t>{8, 4, 3, 3, 3}));
  EXPECT_EQ(dims_of(g, "y"), (std::vector<std::int64_t>{2, 8, 3, 4, 4}));
  EXPECT_EQ(tensor_named(g, "x").strides[1], 1);
  EXPECT_EQ(only_graph("conv -_ 3 -n 1 -c 2 -! 4 -H 4 -W 4 -k 2 -@ 1 -y 1 -x 1 -F 1").tensors[0].dims.size(),
            5u);
}

TEST(MiopenDriver, PadModesSameAndValid) {
  const Graph same = only_graph("conv -n 1 -c 4 -H 15 -W 15 -k 4 -y 3 -x 3 -u 2 -v 2 --pad_mode same -F 1");
  EXPECT_EQ(dims_of(same, "y"), (std::vector<std::int64_t>{1, 4, 8, 8}));
  const Graph valid = only_graph("conv -n 1 -c 4 -H 15 -W 15 -k 4 -y 3 -x 3 -p 5 -q 5 -z valid -F 1");
  EXPECT_EQ(dims_of(valid, "y"), (std::vector<std::int64_t>{1, 4, 13, 13}));
}

TEST(MiopenDriver, TransposedConvolutionIsBackwardData) {
  // -m trans: input 2x16x7x7 -> output channels 8, size (7-1)*2 - 2 + 3 + 1 = 14.
  const Graph g =
      only_graph("conv -m trans -n 2 -c 16 -H 7 -W 7 -k 8 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -Y 1 -X 1 -F 1");
  // Tensors keep the transposed convolution's names: its input x is the pass's dy, its y the dx.
  EXPECT_EQ(g.nodes[0].kind, OpKind::conv_bwd_data);
  EXPECT_EQ(dims_of(g, "x"), (std::vector<std::int64_t>{2, 16, 7, 7}));
  EXPECT_EQ(dims_of(g, "y"), (std::vector<std::int64_t>{2, 8, 14, 14}));
  EXPECT_EQ(g.tensor(*g.nodes[0].input("dy")).name, "x");
  EXPECT_EQ(dims_of(g, "w"), (std::vector<std::int64_t>{16, 8, 3, 3}));
}

TEST(MiopenDriver, BiasIsAFusedAdd) {
  const Graph g = only_graph("conv -n 2 -c 8 -H 8 -W 8 -k 16 -y 3 -x 3 -p 1 -q 1 -b 1 -F 1");
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[1].kind, OpKind::pointwise);
  EXPECT_EQ(dims_of(g, "bias"), (std::vector<std::int64_t>{1, 16, 1, 1}));
}

TEST(MiopenDriver, RunControlFlagsAreAccepted) {
  only_graph("conv -n 2 -c 8 -H 8 -W 8 -k 8 -F 1 -t 1 -V 0 -i 10 -s 0 -w 1 -P 0 -S -1 -o 0");
}

TEST(MiopenDriver, BnormInferenceTrainingBackward) {
  const Graph infer = only_graph("bnorm -n 32 -c 64 -H 28 -W 28 -m 1 --forw 2");
  EXPECT_EQ(infer.nodes[0].type, "BatchnormInferenceAttributesVarianceExt");
  EXPECT_EQ(dims_of(infer, "mean"), (std::vector<std::int64_t>{1, 64, 1, 1}));
  const Graph train = only_graph("bnorm -n 32 -c 64 -H 28 -W 28 -m 1 --forw 1 -s 1 -r 1");
  EXPECT_EQ(train.nodes[0].type, "BatchnormAttributes");
  EXPECT_TRUE(train.nodes[0].output("next_running_mean").has_value());
  EXPECT_TRUE(train.nodes[0].output("mean").has_value());
  const Graph back = only_graph("bnorm -n 32 -c 64 -H 28 -W 28 -m 1 --forw 0 -b 1");
  EXPECT_EQ(back.nodes[0].type, "BatchnormBackwardAttributes");
  // MIOpenDriver's default (-F 0 -b 0) is forward training.
  EXPECT_EQ(only_graph("bnorm -n 2 -c 4 -H 4 -W 4 -m 1").nodes[0].type, "BatchnormAttributes");
}

TEST(MiopenDriver, BnormFp16Layout3dAndPerActivation) {
  const Graph g = only_graph("bnormfp16 -n 2 -c 8 -D 4 -H 4 -W 4 -m 1 --forw 2 -L NDHWC");
  EXPECT_EQ(g.io_type, DataType::f16);
  EXPECT_EQ(dims_of(g, "x"), (std::vector<std::int64_t>{2, 8, 4, 4, 4}));
  EXPECT_EQ(tensor_named(g, "x").strides[1], 1);
  EXPECT_EQ(tensor_named(g, "scale").dtype, DataType::f32);
  const auto per_activation = miopen("bnorm -n 2 -c 8 -H 4 -W 4 -m 0 --forw 2");
  EXPECT_TRUE(per_activation.graphs.empty());
  ASSERT_EQ(per_activation.not_imported.size(), 1u);
  EXPECT_NE(per_activation.not_imported[0].reason.find("per-activation"), std::string::npos);
}

TEST(MiopenDriver, Pool) {
  const auto r = miopen("pool -n 2 -c 16 -H 112 -W 112 -y 3 -x 3 -u 2 -v 2 -p 1 -q 1 -m max -F 1");
  ASSERT_EQ(r.graphs.size(), 1u);
  const Graph g = round_trip(r.graphs[0].graph);
  EXPECT_EQ(g.nodes[0].kind, OpKind::resample);
  EXPECT_EQ(dims_of(g, "y"), (std::vector<std::int64_t>{2, 16, 56, 56}));
  const Graph avg = only_graph("pool -n 2 -c 4 -H 8 -W 8 -y 2 -x 2 -u 2 -v 2 -m avg -F 1");
  EXPECT_EQ(avg.nodes[0].as<ResampleParams>().mode, ResampleMode::avgpool_exclude_padding);
  // -F 0 is forward and backward: the backward is listed as not imported.
  const auto both = miopen("pool -n 2 -c 4 -H 8 -W 8 -F 0");
  EXPECT_EQ(both.graphs.size(), 1u);
  ASSERT_EQ(both.not_imported.size(), 1u);
  EXPECT_NE(both.not_imported[0].reason.find("backward"), std::string::npos);
}

TEST(MiopenDriver, FilesOfLinesCommentsPrefixesAndRepeatCounts) {
  const auto r = miopen(
      "# resnet layers\n"
      "\n"
      "./bin/MIOpenDriver conv -n 2 -c 8 -H 8 -W 8 -k 8 -F 1\n"
      "MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver convfp16 -n 2 -c 8 -H 8 -W 8 -k 8 -F 1\n"
      "  12 conv -n 2 -c 8 -H 8 -W 8 -k 8 -F 1   # a repeated layer\n"
      "softmax -n 2 -c 8\n");
  ASSERT_EQ(r.graphs.size(), 3u);
  EXPECT_EQ(r.graphs[0].source, "nets.txt:3");
  EXPECT_EQ(r.graphs[1].source, "nets.txt:4");
  EXPECT_EQ(r.graphs[2].count, 12);
  ASSERT_EQ(r.not_imported.size(), 1u);
  EXPECT_EQ(r.not_imported[0].source, "nets.txt:6");
  EXPECT_EQ(r.not_imported[0].op, "softmax");
}

TEST(MiopenDriver, UnknownAndConflictingFlagsNameFileLineAndFlag) {
  EXPECT_EQ(IMPORT_ERROR(miopen("\nconv -n 2 -Q 3")), "nets.txt:2: unknown flag -Q for MIOpenDriver conv");
  const auto conflict = IMPORT_ERROR(miopen("conv -n 2 --batchsize 4"));
  EXPECT_NE(conflict.find("nets.txt:1: conflicting values for -n (--batchsize)"), std::string::npos)
      << conflict;
  EXPECT_NE(IMPORT_ERROR(miopen("conv -n two")).find("nets.txt:1: -n: expected an integer, got `two`"),
            std::string::npos);
  EXPECT_NE(IMPORT_ERROR(miopen("conv -n 2 -k")).find("flag -k has no value"), std::string::npos);
  EXPECT_NE(IMPORT_ERROR(miopen("conv -n 2 -! 8")).find("-! 8: a depth other than 1 needs --spatial_dim 3"),
            std::string::npos);
  EXPECT_NE(IMPORT_ERROR(miopen("conv -I NCDHW")).find("-I NCDHW: expected NCHW or NHWC"), std::string::npos);
  EXPECT_NE(IMPORT_ERROR(miopen("conv -c 6 -g 4")).find("does not divide the input channels"),
            std::string::npos);
  EXPECT_NE(IMPORT_ERROR(miopen("bnorm -m 1 --forw 1 -b 1")).find("conflicting flags"), std::string::npos);
  EXPECT_NE(IMPORT_ERROR(miopen("conv -F 9")).find("-F 9"), std::string::npos);
  EXPECT_NE(IMPORT_ERROR(miopen("conv -H 2 -W 2 -y 5 -x 5")).find("output would be empty"),
            std::string::npos);
  EXPECT_NE(IMPORT_ERROR(miopen("pool -m median")).find("expected max or avg"), std::string::npos);
  EXPECT_NE(IMPORT_ERROR(miopen("-n 2 conv")).find("expected a MIOpenDriver command"), std::string::npos);
  EXPECT_NE(IMPORT_ERROR(miopen("99999999999999999999 conv")).find("repeat count"), std::string::npos);
}

TEST(MiopenDriver, ExportWritesTheLineBack) {
  const char* lines[] = {
      "conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 1 -t 1",
      "convfp16 -n 8 -c 32 -H 14 -W 14 -k 64 -y 3 -x 3 -p 2 -q 2 -u 2 -v 2 -l 2 -j 2 -m conv -g 4 -F 2 -I "
      "NHWC -f NHWC "
      "-O NHWC -t 1",
      "convbfp16 -n 2 -c 4 -! 4 -H 6 -W 6 -k 8 -@ 3 -y 3 -x 3 -$ 1 -p 1 -q 1 -# 1 -u 1 -v 1 -^ 1 -l 1 -j 1 "
      "-m conv -g "
      "1 -F 4 -_ 3 -t 1",
      "conv -n 2 -c 8 -H 8 -W 8 -k 16 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 1 -b 1 -t 1",
      "bnorm -n 32 -c 64 -H 28 -W 28 -m 1 --forw 2",
      "bnormfp16 -n 4 -c 16 -H 7 -W 7 -m 1 --forw 1 -s 1 -r 0 -L NHWC",
      "bnorm -n 4 -c 16 -H 7 -W 7 -m 1 --forw 0 -b 1",
      "pool -n 2 -c 16 -H 112 -W 112 -y 3 -x 3 -u 2 -v 2 -p 1 -q 1 -m max -F 1",
  };
  for (const char* line : lines) {
    const Graph g = only_graph(line);
    const std::string back = miopen_driver_line(g);
    // Parsing the exported line makes the same graph.
    auto again = miopen(back);
    ASSERT_EQ(again.graphs.size(), 1u) << back;
    auto a = miopen(line).graphs[0].graph, b = again.graphs[0].graph;
    a.erase("name");
    b.erase("name");
    EXPECT_EQ(a, b) << line << "\n -> " << back;
  }
}

TEST(MiopenDriver, ExportRefusesWhatMIOpenDriverCannotSay) {
  Graph g = only_graph("conv -n 2 -c 8 -H 8 -W 8 -k 8 -p 1 -q 1 -F 1");
  g.nodes[0].params = [] {
    ConvParams p;
    p.pre_padding = {1, 1};
    p.post_padding = {0, 0};
    p.stride = p.dilation = {1, 1};
    return p;
  }();
  EXPECT_NE(IMPORT_ERROR(miopen_driver_line(g)).find("asymmetric padding"), std::string::npos);
}

}  // namespace
}  // namespace dnnbench::testing
