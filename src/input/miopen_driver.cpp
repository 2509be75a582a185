// MIOpenDriver command lines -> hipDNN graphs (docs/import.md). The flags and their defaults are
// those MIOpenDriver documents for conv / convfp16 / convbfp16 (driver/conv_driver.hpp), bnorm /
// bnormfp16 (driver/bn_driver.hpp) and pool / poolfp16 (driver/pool_driver.hpp).
#include "input/miopen_driver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <map>
#include <span>

#include "graph/errors.hpp"
#include "input/graph_builder.hpp"
#include "input/import.hpp"
#include "input/text_lines.hpp"

namespace dnnbench {
namespace {

using nlohmann::json;

// How a flag is used: a value of the problem, or a setting of the driver's own run (timing,
// verification, files) that changes nothing in the graph and is accepted and ignored.
enum class FlagUse { problem, run_control };

struct FlagSpec {
  std::string_view name;  // long name, without "--"
  char short_name;        // 0: none
  std::string_view default_value;
  FlagUse use = FlagUse::problem;
};

// driver/conv_driver.hpp AddCmdLineArgs.
constexpr FlagSpec kConvFlags[] = {
    {"in_layout", 'I', ""},
    {"out_layout", 'O', ""},
    {"fil_layout", 'f', ""},
    {"spatial_dim", '_', "2"},
    {"forw", 'F', "0"},
    {"batchsize", 'n', "100"},
    {"in_channels", 'c', "3"},
    {"in_d", '!', "32"},
    {"in_h", 'H', "32"},
    {"in_w", 'W', "32"},
    {"out_channels", 'k', "32"},
    {"fil_d", '@', "3"},
    {"fil_h", 'y', "3"},
    {"fil_w", 'x', "3"},
    {"conv_stride_d", '#', "1"},
    {"conv_stride_h", 'u', "1"},
    {"conv_stride_w", 'v', "1"},
    {"pad_d", '$', "0"},
    {"pad_h", 'p', "0"},
    {"pad_w", 'q', "0"},
    {"pad_val", 'r', "0"},
    {"trans_output_pad_d", '%', "0"},
    {"trans_output_pad_h", 'Y', "0"},
    {"trans_output_pad_w", 'X', "0"},
    {"dilation_d", '^', "1"},
    {"dilation_h", 'l', "1"},
    {"dilation_w", 'j', "1"},
    {"group_count", 'g', "1"},
    {"mode", 'm', "conv"},
    {"pad_mode", 'z', "default"},
    {"bias", 'b', "0"},
    {"tensor_vect", 'Z', "0"},
    {"vector_length", 'L', "1"},
    {"in_cast_type", 0, "-1"},
    {"wei_cast_type", 0, "-1"},
    {"out_cast_type", 0, "-1"},
    {"iter", 'i', "10", FlagUse::run_control},
    {"verify", 'V', "1", FlagUse::run_control},
    {"verification_cache", 'C', "", FlagUse::run_control},
    {"time", 't', "0", FlagUse::run_control},
    {"wall", 'w', "0", FlagUse::run_control},
    {"search", 's', "0", FlagUse::run_control},
    {"printconv", 'P', "1", FlagUse::run_control},
    {"dump_output", 'o', "0", FlagUse::run_control},
    {"in_data", 'd', "", FlagUse::run_control},
    {"weights", 'e', "", FlagUse::run_control},
    {"in_bias", 'a', "", FlagUse::run_control},
    {"dout_data", 'D', "", FlagUse::run_control},
    {"solution", 'S', "-1", FlagUse::run_control},
    {"gpubuffer_check", '~', "0", FlagUse::run_control},
};

// driver/bn_driver.hpp AddCmdLineArgs.
constexpr FlagSpec kBnormFlags[] = {
    {"forw", 'F', "0"},
    {"back", 'b', "0"},
    {"batchsize", 'n', "32"},
    {"in_channels", 'c', "3"},
    {"in_h", 'H', "32"},
    {"in_w", 'W', "32"},
    {"in_d", 'D', "0"},
    {"layout", 'L', ""},
    {"alpha", 'A', "1.0"},
    {"beta", 'B', "0."},
    {"mode", 'm', "0"},
    {"save", 's', "0"},
    {"run", 'r', "0"},
    {"iter", 'i', "1", FlagUse::run_control},
    {"verify", 'V', "1", FlagUse::run_control},
    {"time", 't', "0", FlagUse::run_control},
    {"printconv", 'P', "1", FlagUse::run_control},
    {"wall", 'w', "0", FlagUse::run_control},
};

// driver/pool_driver.hpp AddCmdLineArgs.
constexpr FlagSpec kPoolFlags[] = {
    {"forw", 'F', "0"},
    {"batchsize", 'n', "100"},
    {"in_channels", 'c', "3"},
    {"in_h", 'H', "32"},
    {"in_w", 'W', "32"},
    {"win_h", 'y', "3"},
    {"win_w", 'x', "3"},
    {"pool_stride_0", 'u', "1"},
    {"pool_stride_1", 'v', "1"},
    {"pad_h", 'p', "0"},
    {"pad_w", 'q', "0"},
    {"pad_val", 'r', "0"},
    {"mode", 'm', "max"},
    {"pad_mode", 'z', "default"},
    {"iter", 'i', "10", FlagUse::run_control},
    {"verify", 'V', "1", FlagUse::run_control},
    {"time", 't', "0", FlagUse::run_control},
    {"wall", 'w', "0", FlagUse::run_control},
    {"print", 'P', "1", FlagUse::run_control},
};

enum class Command { conv, bnorm, pool };

struct CommandSpec {
  std::string_view name;
  Command command;
  DataType type;
};

constexpr CommandSpec kCommands[] = {
    {"conv", Command::conv, DataType::f32},       {"convfp16", Command::conv, DataType::f16},
    {"convbfp16", Command::conv, DataType::bf16}, {"bnorm", Command::bnorm, DataType::f32},
    {"bnormfp16", Command::bnorm, DataType::f16}, {"pool", Command::pool, DataType::f32},
    {"poolfp16", Command::pool, DataType::f16},
};

// MIOpenDriver commands this converter knows but cannot turn into graphs, and why.
const std::map<std::string_view, std::string_view>& known_other_commands() {
  static const std::map<std::string_view, std::string_view> commands{
      {"convint8", "int8 convolutions are not imported (no int8 path in the providers yet)"},
      {"convfp8", "fp8 convolutions are not imported"},
      {"convbfp8", "fp8 convolutions are not imported"},
      {"CBAInfer", "fused conv-bias-activation driver lines are not imported"},
      {"CBAInferfp16", "fused conv-bias-activation driver lines are not imported"},
      {"activ", "activation driver lines are not imported"},
      {"activfp16", "activation driver lines are not imported"},
      {"softmax", "softmax has no hipDNN graph node"},
      {"softmaxfp16", "softmax has no hipDNN graph node"},
      {"lrn", "LRN has no hipDNN graph node"},
      {"lrnfp16", "LRN has no hipDNN graph node"},
      {"gemm", "gemm driver lines are not imported"},
      {"rnn", "RNN has no hipDNN graph node"},
      {"rnnfp16", "RNN has no hipDNN graph node"},
      {"ctc", "CTC has no hipDNN graph node"},
      {"dropout", "dropout has no hipDNN graph node"},
  };
  return commands;
}

class LineError {
 public:
  LineError(const std::string& file, std::size_t line) : where_(fmt::format("{}:{}", file, line)) {}
  [[noreturn]] void operator()(const std::string& message) const { throw InputError(where_, "", message); }
  const std::string& where() const { return where_; }

 private:
  std::string where_;
};

// The flags of one line, by long name, with the spelling each was given as.
class Flags {
 public:
  Flags(std::span<const FlagSpec> specs, const std::string& command, const LineError& error)
      : specs_(specs), command_(command), error_(error) {}

  void parse(const std::vector<std::string>& tokens, std::size_t first) {
    for (std::size_t k = first; k < tokens.size(); ++k) {
      const std::string& token = tokens[k];
      std::string value;
      const FlagSpec* spec = nullptr;
      bool has_value = false;
      if (token.starts_with("--") && token.size() > 2) {
        std::string name = token.substr(2);
        if (const auto eq = name.find('='); eq != std::string::npos) {
          value = name.substr(eq + 1);
          name.resize(eq);
          has_value = true;
        }
        spec = find_long(name);
      } else if (token.size() == 2 && token[0] == '-') {
        spec = find_short(token[1]);
      } else {
        error_(fmt::format("unexpected `{}`; expected a flag of `{}` (-x VALUE or --name VALUE)", token,
                           command_));
      }
      if (!spec) error_(fmt::format("unknown flag {} for MIOpenDriver {}", token, command_));
      if (!has_value) {
        if (k + 1 >= tokens.size()) error_(fmt::format("flag {} has no value", token));
        value = tokens[++k];
      }
      const auto [it, inserted] = given_.try_emplace(std::string(spec->name), Given{value, token});
      if (!inserted && it->second.value != value)
        error_(fmt::format("conflicting values for {}: {} (as {}) and {} (as {})", spelling(*spec),
                           it->second.value, it->second.token, value, token));
    }
  }

  bool given(std::string_view name) const { return given_.count(std::string(name)) > 0; }
  std::string str(std::string_view name) const {
    if (const auto it = given_.find(std::string(name)); it != given_.end()) return it->second.value;
    return std::string(spec(name).default_value);
  }
  std::int64_t integer(std::string_view name) const {
    const std::string text = str(name);
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
      error_(fmt::format("{}: expected an integer, got `{}`", flag_text(name), text));
    return value;
  }
  double real(std::string_view name) const {
    const std::string text = str(name);
    try {
      std::size_t used = 0;
      const double value = std::stod(text, &used);
      if (used == text.size()) return value;
    } catch (const std::exception&) {
    }
    error_(fmt::format("{}: expected a number, got `{}`", flag_text(name), text));
  }
  // The flag as the line spelled it, else as -x / --name.
  std::string flag_text(std::string_view name) const {
    if (const auto it = given_.find(std::string(name)); it != given_.end()) return it->second.token;
    return spelling(spec(name));
  }
  [[noreturn]] void fail(std::string_view name, const std::string& message) const {
    error_(fmt::format("{} {}: {}", flag_text(name), str(name), message));
  }

 private:
  struct Given {
    std::string value, token;
  };
  const FlagSpec& spec(std::string_view name) const {
    for (const auto& s : specs_)
      if (s.name == name) return s;
    throw std::logic_error("no MIOpenDriver flag " + std::string(name));
  }
  const FlagSpec* find_long(std::string_view name) const {
    for (const auto& s : specs_)
      if (s.name == name) return &s;
    return nullptr;
  }
  const FlagSpec* find_short(char c) const {
    for (const auto& s : specs_)
      if (s.short_name == c) return &s;
    return nullptr;
  }
  static std::string spelling(const FlagSpec& s) {
    return s.short_name ? fmt::format("-{} (--{})", s.short_name, s.name) : fmt::format("--{}", s.name);
  }

  std::span<const FlagSpec> specs_;
  std::string command_;
  const LineError& error_;
  std::map<std::string, Given> given_;
};

// Layout names MIOpenDriver accepts and whether they are channels-last.
bool channels_last_layout(const Flags& flags, std::string_view name, int spatial_dims) {
  const std::string layout = flags.str(name);
  if (layout.empty()) return false;
  const std::string_view nc = spatial_dims == 3 ? "NCDHW" : "NCHW";
  const std::string_view nl = spatial_dims == 3 ? "NDHWC" : "NHWC";
  if (layout == nc) return false;
  if (layout == nl) return true;
  flags.fail(name, fmt::format("expected {} or {} for a {}-D problem", nc, nl, spatial_dims));
}

// "same" and "valid" padding as MIOpen computes them (driver/pool_driver.hpp VerifyForward):
// same pads by max(window - stride, 0) (or window - in % stride when stride does not divide in),
// halved; the odd element goes after, so that the output is ceil(in / stride).
void apply_pad_mode(const Flags& flags, const std::vector<std::int64_t>& in,
                    const std::vector<std::int64_t>& window, const std::vector<std::int64_t>& stride,
                    std::vector<std::int64_t>& pre, std::vector<std::int64_t>& post) {
  const std::string mode = flags.str("pad_mode");
  if (mode == "default") return;
  if (mode != "same" && mode != "valid") flags.fail("pad_mode", "expected default, same or valid");
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (mode == "valid") {
      pre[d] = post[d] = 0;
      continue;
    }
    const std::int64_t total = in[d] % stride[d] == 0
                                   ? std::max<std::int64_t>(window[d] - stride[d], 0)
                                   : std::max<std::int64_t>(window[d] - in[d] % stride[d], 0);
    pre[d] = total / 2;
    post[d] = total - pre[d];
  }
}

std::string graph_name(const std::string& file, std::size_t line, std::string_view command,
                       std::string_view what) {
  std::string stem = std::filesystem::path(file).stem().string();
  if (stem.empty()) stem = "miopen";
  return fmt::format("{}_l{}_{}_{}", stem, line, command, what);
}

void require_positive(const Flags& flags, std::initializer_list<std::string_view> names) {
  for (auto name : names)
    if (flags.integer(name) <= 0) flags.fail(name, "expected a positive integer");
}

void require_non_negative(const Flags& flags, std::initializer_list<std::string_view> names) {
  for (auto name : names)
    if (flags.integer(name) < 0) flags.fail(name, "expected zero or a positive integer");
}

struct LineContext {
  const std::string& file;
  std::size_t line;
  std::string_view command;
  DataType type;
  std::int64_t count;
  ImportResult& result;
  std::string source() const { return fmt::format("{}:{}", file, line); }
  void add(json graph) const { result.graphs.push_back({std::move(graph), source(), count}); }
  void skip(const std::string& reason) const {
    result.not_imported.push_back({source(), std::string(command), reason});
  }
};

void convert_conv(const Flags& f, const LineContext& ctx) {
  const std::int64_t spatial = f.integer("spatial_dim");
  if (spatial != 2 && spatial != 3) f.fail("spatial_dim", "expected 2 or 3");
  const bool is3d = spatial == 3;
  // A 2-D line may spell depth flags that change nothing (-! 1, -$ 0); any other value conflicts.
  if (!is3d) {
    for (auto name : {"in_d", "fil_d", "conv_stride_d", "dilation_d"})
      if (f.given(name) && f.str(name) != "1")
        f.fail(name, "a depth other than 1 needs --spatial_dim 3 (-_ 3)");
    for (auto name : {"pad_d", "trans_output_pad_d"})
      if (f.given(name) && f.str(name) != "0") f.fail(name, "a depth padding needs --spatial_dim 3 (-_ 3)");
  }
  require_positive(f, {"batchsize", "in_channels", "in_h", "in_w", "out_channels", "fil_h", "fil_w",
                       "conv_stride_h", "conv_stride_w", "dilation_h", "dilation_w", "group_count"});
  require_non_negative(f, {"pad_h", "pad_w", "trans_output_pad_h", "trans_output_pad_w"});
  if (is3d) {
    require_positive(f, {"in_d", "fil_d", "conv_stride_d", "dilation_d"});
    require_non_negative(f, {"pad_d", "trans_output_pad_d"});
  }
  const std::int64_t forw = f.integer("forw");
  if (forw < 0 || forw > 7) f.fail("forw", "expected 0 (all), 1 (fwd), 2 (bwd), 4 (wrw) or their sums");
  const std::string mode = f.str("mode");
  if (mode != "conv" && mode != "trans") f.fail("mode", "expected conv or trans");
  const bool trans = mode == "trans";

  if (f.integer("tensor_vect") != 0 || f.integer("vector_length") != 1)
    return ctx.skip("vectorized tensors (-Z / -L) have no hipDNN layout");
  if (f.integer("pad_val") != 0) return ctx.skip("a non-zero padding value (-r) has no hipDNN equivalent");
  for (auto name : {"in_cast_type", "wei_cast_type", "out_cast_type"})
    if (f.str(name) != "-1") return ctx.skip(fmt::format("--{} (fp8 casts) is not imported", name));

  const int sd = is3d ? 3 : 2;
  const bool x_last = channels_last_layout(f, "in_layout", sd);
  const bool w_last = channels_last_layout(f, "fil_layout", sd);
  const bool y_last = channels_last_layout(f, "out_layout", sd);

  const std::int64_t n = f.integer("batchsize"), c = f.integer("in_channels"), k = f.integer("out_channels"),
                     g = f.integer("group_count");
  const auto dims3 = [&](std::string_view d, std::string_view h, std::string_view w) {
    std::vector<std::int64_t> v;
    if (is3d) v.push_back(f.integer(d));
    v.push_back(f.integer(h));
    v.push_back(f.integer(w));
    return v;
  };
  const auto in = dims3("in_d", "in_h", "in_w");
  const auto fil = dims3("fil_d", "fil_h", "fil_w");
  const auto stride = dims3("conv_stride_d", "conv_stride_h", "conv_stride_w");
  const auto dilation = dims3("dilation_d", "dilation_h", "dilation_w");
  auto pre = dims3("pad_d", "pad_h", "pad_w");
  const auto out_pad = dims3("trans_output_pad_d", "trans_output_pad_h", "trans_output_pad_w");
  auto post = pre;
  if (c % g != 0) f.fail("group_count", fmt::format("does not divide the input channels ({})", c));
  if (k % g != 0) f.fail("group_count", fmt::format("does not divide the output channels ({})", k));
  if (!trans)
    apply_pad_mode(f, in, fil, stride, pre, post);
  else if (f.str("pad_mode") != "default")
    return ctx.skip("--pad_mode same/valid with --mode trans is not imported");

  // The convolution as the graph sees it: `small` is the forward conv's output side. For a
  // transposed convolution (MIOpen's `trans`), its forward pass is the backward-data pass of the
  // convolution that maps the output back to the input.
  std::vector<std::int64_t> out(in.size());
  for (std::size_t d = 0; d < in.size(); ++d) {
    out[d] = trans ? (in[d] - 1) * stride[d] - pre[d] - post[d] + dilation[d] * (fil[d] - 1) + 1 + out_pad[d]
                   : window_output_size(in[d], pre[d], post[d], fil[d], stride[d], dilation[d]);
    if (out[d] <= 0)
      throw InputError(
          ctx.source(), "",
          fmt::format("the output would be empty (spatial dim {}: input {}, filter {}, stride {}, "
                      "padding {})",
                      d, in[d], fil[d], stride[d], pre[d]));
    if (trans && out_pad[d] >= stride[d])
      f.fail(is3d && d == 0       ? "trans_output_pad_d"
             : d + 1 == in.size() ? "trans_output_pad_w"
                                  : "trans_output_pad_h",
             "expected an output padding below the stride");
  }
  const auto concat = [](std::int64_t a, std::int64_t b, const std::vector<std::int64_t>& rest) {
    std::vector<std::int64_t> v{a, b};
    v.insert(v.end(), rest.begin(), rest.end());
    return v;
  };
  // Conv terms: X (C_conv channels, large side), Y (K_conv channels, small side), W [K_conv, C_conv/g, ...].
  const std::int64_t conv_c = trans ? k : c, conv_k = trans ? c : k;
  const auto& big = trans ? out : in;
  const auto& small = trans ? in : out;
  const auto x_dims = concat(n, conv_c, big), y_dims = concat(n, conv_k, small),
             w_dims = concat(conv_k, conv_c / g, fil);
  // The user's tensors: input (-I), filter (-f), output (-O); for trans the input is the conv's Y.
  const bool big_last = trans ? y_last : x_last, small_last = trans ? x_last : y_last;
  const ConvSettings settings{pre, post, stride, dilation, true};

  struct Pass {
    int bit;
    std::string_view name;  // of the MIOpen pass
  };
  for (const Pass pass : {Pass{1, "fwd"}, Pass{2, "bwd"}, Pass{4, "wrw"}}) {
    if (forw != 0 && !(forw & pass.bit)) continue;
    // Which conv pass runs: for trans, fwd <-> bwd data.
    std::string_view conv_pass = pass.name;
    if (trans && pass.name != "wrw") conv_pass = pass.name == "fwd" ? "bwd" : "fwd";
    GraphBuilder b(graph_name(ctx.file, ctx.line, ctx.command, pass.name), ctx.type);
    const auto w_strides = layout_strides(w_dims, w_last);
    if (conv_pass == "fwd") {
      const auto x = b.tensor(trans ? "dy" : "x", x_dims, layout_strides(x_dims, big_last));
      const auto w = b.tensor("w", w_dims, w_strides);
      const bool bias = f.integer("bias") != 0 && pass.name == "fwd";
      const auto y = bias ? b.intermediate("conv_out", y_dims)
                          : b.tensor(trans ? "dx" : "y", y_dims, layout_strides(y_dims, small_last));
      b.conv("fwd", x, w, y, settings);
      if (bias) {
        const std::vector<std::int64_t> bias_dims =
            concat(1, conv_k, std::vector<std::int64_t>(in.size(), 1));
        const auto bt = b.tensor("bias", bias_dims);
        const auto out_t = b.tensor("y", y_dims, layout_strides(y_dims, small_last));
        b.pointwise("add", y, bt, out_t, "bias");
      }
    } else if (conv_pass == "bwd") {
      const auto dy = b.tensor(trans ? "x" : "dy", y_dims, layout_strides(y_dims, small_last));
      const auto w = b.tensor("w", w_dims, w_strides);
      const bool bias = f.integer("bias") != 0 && pass.name == "fwd";
      const auto dx = bias ? b.intermediate("conv_out", x_dims)
                           : b.tensor(trans ? "y" : "dx", x_dims, layout_strides(x_dims, big_last));
      b.conv("bwd_data", dy, w, dx, settings);
      if (bias) {
        const std::vector<std::int64_t> bias_dims =
            concat(1, conv_c, std::vector<std::int64_t>(in.size(), 1));
        const auto bt = b.tensor("bias", bias_dims);
        const auto out_t = b.tensor("y", x_dims, layout_strides(x_dims, big_last));
        b.pointwise("add", dx, bt, out_t, "bias");
      }
    } else {
      // wrw: the conv's X is the large side, its dY the small side.
      const auto x = b.tensor(trans ? "dy" : "x", x_dims, layout_strides(x_dims, big_last));
      const auto dy = b.tensor(trans ? "x" : "dy", y_dims, layout_strides(y_dims, small_last));
      const auto dw = b.tensor("dw", w_dims, w_strides);
      b.conv("bwd_weights", x, dy, dw, settings);
    }
    ctx.add(b.take());
  }
  if (f.integer("bias") != 0 && (forw == 0 || (forw & 6)))
    ctx.skip("the bias gradient of -b 1 (MIOpen's backward bias pass) is not imported");
}

// MIOpen's default epsilon for the driver's batch norm (driver/bn_driver.hpp EPSILON).
constexpr double kBnEpsilon = 1e-5;
// The exponential average factor MIOpen's driver uses for running statistics.
constexpr double kBnMomentum = 0.1;

void convert_bnorm(const Flags& f, const LineContext& ctx) {
  require_positive(f, {"batchsize", "in_channels", "in_h", "in_w"});
  require_non_negative(f, {"in_d"});
  const std::int64_t forw = f.integer("forw"), back = f.integer("back");
  if (forw < 0 || forw > 2) f.fail("forw", "expected 0 (off), 1 (training) or 2 (inference)");
  if (back < 0 || back > 1) f.fail("back", "expected 0 or 1");
  if (forw != 0 && back != 0)
    throw InputError(ctx.source(), "",
                     fmt::format("conflicting flags {} {} and {} {}: a bnorm line runs forward or backward, "
                                 "not both",
                                 f.flag_text("forw"), forw, f.flag_text("back"), back));
  const std::int64_t mode = f.integer("mode");
  if (mode != 0 && mode != 1) f.fail("mode", "expected 0 (per-activation) or 1 (spatial)");
  for (auto name : {"save", "run"})
    if (f.integer(name) != 0 && f.integer(name) != 1) f.fail(name, "expected 0 or 1");
  if (mode == 0)
    return ctx.skip("per-activation batch norm (-m 0) has no hipDNN node; spatial (-m 1) is imported");
  if (f.real("alpha") != 1.0 || f.real("beta") != 0.0)
    return ctx.skip("alpha/beta blending (-A / -B) has no hipDNN equivalent");

  const std::int64_t depth = f.integer("in_d");
  const bool is3d = depth > 0;
  std::vector<std::int64_t> dims{f.integer("batchsize"), f.integer("in_channels")};
  if (is3d) dims.push_back(depth);
  dims.push_back(f.integer("in_h"));
  dims.push_back(f.integer("in_w"));
  const bool last = channels_last_layout(f, "layout", is3d ? 3 : 2);
  std::vector<std::int64_t> stats(dims.size(), 1);
  stats[1] = dims[1];
  const auto strides = layout_strides(dims, last);
  const bool inference = forw == 2;
  const bool backward = forw == 0 && back == 1;
  GraphBuilder b(graph_name(ctx.file, ctx.line, ctx.command,
                            inference  ? "infer"
                            : backward ? "bwd"
                                       : "train"),
                 ctx.type);
  // Statistics, scale and bias stay fp32 for fp16 data, as MIOpen keeps them.
  const auto stat = [&](const std::string& name) { return b.tensor(name, stats, {}, DataType::f32); };
  if (inference) {
    const auto x = b.tensor("x", dims, strides);
    const auto mean = stat("mean"), variance = stat("variance"), scale = stat("scale"), bias = stat("bias");
    const auto eps = b.scalar("epsilon", kBnEpsilon);
    const auto y = b.tensor("y", dims, strides);
    b.node("BatchnormInferenceAttributesVarianceExt", "batchnorm",
           {{"x", x},
            {"mean", mean},
            {"variance", variance},
            {"scale", scale},
            {"bias", bias},
            {"epsilon", eps}},
           {{"y", y}});
  } else if (backward) {
    const auto dy = b.tensor("dy", dims, strides);
    const auto x = b.tensor("x", dims, strides);
    const auto mean = stat("mean"), inv_variance = stat("inv_variance"), scale = stat("scale");
    const auto dx = b.tensor("dx", dims, strides);
    const auto dscale = stat("dscale"), dbias = stat("dbias");
    b.node("BatchnormBackwardAttributes", "batchnorm_bwd",
           {{"dy", dy}, {"x", x}, {"mean", mean}, {"inv_variance", inv_variance}, {"scale", scale}},
           {{"dx", dx}, {"dscale", dscale}, {"dbias", dbias}});
  } else {
    const auto x = b.tensor("x", dims, strides);
    const auto scale = stat("scale"), bias = stat("bias");
    const auto eps = b.scalar("epsilon", kBnEpsilon);
    std::vector<std::pair<std::string, std::int64_t>> inputs{
        {"x", x}, {"scale", scale}, {"bias", bias}, {"epsilon", eps}};
    const bool running = f.integer("run") == 1, save = f.integer("save") == 1;
    if (running) {
      inputs.emplace_back("prev_running_mean", stat("prev_running_mean"));
      inputs.emplace_back("prev_running_variance", stat("prev_running_variance"));
      inputs.emplace_back("momentum", b.scalar("momentum", kBnMomentum));
    }
    std::vector<std::pair<std::string, std::int64_t>> outputs{{"y", b.tensor("y", dims, strides)}};
    if (save) {
      outputs.emplace_back("mean", stat("mean"));
      outputs.emplace_back("inv_variance", stat("inv_variance"));
    }
    if (running) {
      outputs.emplace_back("next_running_mean", stat("next_running_mean"));
      outputs.emplace_back("next_running_variance", stat("next_running_variance"));
    }
    b.node("BatchnormAttributes", "batchnorm", inputs, outputs);
  }
  ctx.add(b.take());
}

void convert_pool(const Flags& f, const LineContext& ctx) {
  require_positive(
      f, {"batchsize", "in_channels", "in_h", "in_w", "win_h", "win_w", "pool_stride_0", "pool_stride_1"});
  require_non_negative(f, {"pad_h", "pad_w"});
  const std::int64_t forw = f.integer("forw");
  if (forw != 0 && forw != 1) f.fail("forw", "expected 0 (forward and backward) or 1 (forward only)");
  const std::string mode = f.str("mode");
  if (mode != "max" && mode != "avg") f.fail("mode", "expected max or avg");
  if (f.integer("pad_val") != 0) return ctx.skip("a non-zero padding value (-r) has no hipDNN equivalent");
  const std::vector<std::int64_t> in{f.integer("in_h"), f.integer("in_w")};
  PoolSettings s;
  s.window = {f.integer("win_h"), f.integer("win_w")};
  s.stride = {f.integer("pool_stride_0"), f.integer("pool_stride_1")};
  s.pre_padding = {f.integer("pad_h"), f.integer("pad_w")};
  s.post_padding = s.pre_padding;
  apply_pad_mode(f, in, s.window, s.stride, s.pre_padding, s.post_padding);
  // miopenPoolingAverage leaves the padding out of the divisor.
  s.mode = mode == "max" ? "MAXPOOL" : "AVGPOOL_EXCLUDE_PADDING";
  std::vector<std::int64_t> x_dims{f.integer("batchsize"), f.integer("in_channels"), in[0], in[1]};
  std::vector<std::int64_t> y_dims{x_dims[0], x_dims[1], 0, 0};
  for (std::size_t d = 0; d < 2; ++d) {
    y_dims[d + 2] = window_output_size(in[d], s.pre_padding[d], s.post_padding[d], s.window[d], s.stride[d]);
    if (y_dims[d + 2] <= 0)
      throw InputError(
          ctx.source(), "",
          fmt::format("the pooling output would be empty (input {} with window {})", in[d], s.window[d]));
  }
  GraphBuilder b(graph_name(ctx.file, ctx.line, ctx.command, "fwd"), ctx.type);
  const auto x = b.tensor("x", x_dims);
  const auto y = b.tensor("y", y_dims);
  b.pool(x, y, s);
  ctx.add(b.take());
  if (forw == 0) ctx.skip("pooling backward has no hipDNN graph node; the forward pass is imported");
}

}  // namespace

ImportResult import_miopen_driver_text(const std::string& text, const std::string& file) {
  ImportResult result;
  for (const auto& line : source_lines(text)) {
    const LineError error(file, line.number);
    auto tokens = line.tokens;
    std::size_t at = 0;
    std::int64_t count = 1;
    // A leading repeat count ("12 conv -n ..."), as logs of real models are summarised.
    if (!tokens.empty() && std::all_of(tokens[0].begin(), tokens[0].end(), ::isdigit)) {
      const auto parsed = parse_size(tokens[0]);
      if (!parsed || *parsed <= 0)
        error(fmt::format("the repeat count {} must be a positive integer", tokens[0]));
      count = *parsed;
      ++at;
    }
    // "./bin/MIOpenDriver conv ...", or a log prefix ending in the driver's path.
    for (std::size_t k = at; k < tokens.size(); ++k)
      if (tokens[k].ends_with("MIOpenDriver")) {
        at = k + 1;
        break;
      }
    if (at >= tokens.size()) error("no MIOpenDriver command on the line");
    const std::string& command = tokens[at];
    const auto spec = std::find_if(std::begin(kCommands), std::end(kCommands),
                                   [&](const CommandSpec& c) { return c.name == command; });
    if (spec == std::end(kCommands)) {
      const auto& others = known_other_commands();
      const auto other = others.find(command);
      if (other == others.end() && command.starts_with("-"))
        error(
            fmt::format("the line starts with the flag {}; expected a MIOpenDriver command (conv, convfp16, "
                        "convbfp16, bnorm, bnormfp16, pool, poolfp16)",
                        command));
      result.not_imported.push_back({fmt::format("{}:{}", file, line.number), command,
                                     other != others.end()
                                         ? std::string(other->second)
                                         : "not a MIOpenDriver command this tool imports (conv, "
                                           "convfp16, convbfp16, bnorm, bnormfp16, pool, poolfp16)"});
      continue;
    }
    const std::span<const FlagSpec> specs =
        spec->command == Command::conv    ? std::span<const FlagSpec>(kConvFlags)
        : spec->command == Command::bnorm ? std::span<const FlagSpec>(kBnormFlags)
                                          : std::span<const FlagSpec>(kPoolFlags);
    Flags flags(specs, command, error);
    flags.parse(tokens, at + 1);
    const LineContext ctx{file, line.number, spec->name, spec->type, count, result};
    switch (spec->command) {
      case Command::conv:
        convert_conv(flags, ctx);
        break;
      case Command::bnorm:
        convert_bnorm(flags, ctx);
        break;
      case Command::pool:
        convert_pool(flags, ctx);
        break;
    }
  }
  return result;
}

bool looks_like_miopen_driver_line(const std::vector<std::string>& tokens) {
  std::size_t at = 0;
  if (!tokens.empty() && std::all_of(tokens[0].begin(), tokens[0].end(), ::isdigit)) ++at;
  for (std::size_t k = at; k < tokens.size(); ++k)
    if (tokens[k].ends_with("MIOpenDriver")) return true;
  if (at >= tokens.size()) return false;
  const auto& command = tokens[at];
  return std::any_of(std::begin(kCommands), std::end(kCommands),
                     [&](const CommandSpec& c) { return c.name == command; }) ||
         known_other_commands().count(command) > 0;
}

}  // namespace dnnbench

namespace dnnbench {
namespace {

[[noreturn]] void export_error(const Graph& graph, const std::string& message) {
  throw InputError(graph.source_path.empty() ? graph.name : graph.source_path, "",
                   "cannot write a MIOpenDriver line: " + message);
}

// "NCHW"-style name of a tensor's layout, or "" when it is neither packed channels-first nor
// packed channels-last.
std::string layout_name(const TensorDesc& t) {
  const bool is3d = t.dims.size() == 5;
  if (t.strides == layout_strides(t.dims, false)) return is3d ? "NCDHW" : "NCHW";
  if (t.strides == layout_strides(t.dims, true)) return is3d ? "NDHWC" : "NHWC";
  return "";
}

std::string command_for(const Graph& graph, std::string_view base, DataType type) {
  switch (type) {
    case DataType::f32:
      return std::string(base);
    case DataType::f16:
      return std::string(base) + "fp16";
    case DataType::bf16:
      if (base == "conv") return "convbfp16";
      [[fallthrough]];
    default:
      export_error(graph, fmt::format("MIOpenDriver has no {} command for {} data", base, dtype_name(type)));
  }
}

std::string conv_line(const Graph& graph) {
  const Node& conv = graph.nodes.front();
  const auto& p = conv.as<ConvParams>();
  if (!p.cross_correlation)
    export_error(graph, "conv_mode CONVOLUTION (flipped filter) has no MIOpenDriver flag");
  if (p.pre_padding != p.post_padding) export_error(graph, "asymmetric padding has no MIOpenDriver flag");
  const bool bias = graph.nodes.size() == 2;
  if (graph.nodes.size() > 2 ||
      (bias && (conv.kind != OpKind::conv_fwd || graph.nodes[1].kind != OpKind::pointwise ||
                graph.nodes[1].as<PointwiseParams>().op != PointwiseOp::add)))
    export_error(graph, "expected one convolution, optionally followed by a bias add");
  const TensorDesc *x = nullptr, *w = nullptr, *y = nullptr;
  int forw = 1;
  if (conv.kind == OpKind::conv_fwd) {
    x = &graph.tensor(*conv.input("x"));
    w = &graph.tensor(*conv.input("w"));
    y = &graph.tensor(bias ? *graph.nodes[1].output("out_0") : *conv.output("y"));
  } else if (conv.kind == OpKind::conv_bwd_data) {
    forw = 2;
    x = &graph.tensor(*conv.output("dx"));
    w = &graph.tensor(*conv.input("w"));
    y = &graph.tensor(*conv.input("dy"));
  } else {
    forw = 4;
    x = &graph.tensor(*conv.input("x"));
    w = &graph.tensor(*conv.output("dw"));
    y = &graph.tensor(*conv.input("dy"));
  }
  if (x->dims.size() != 4 && x->dims.size() != 5)
    export_error(graph, "MIOpenDriver convolutions are 2-D or 3-D");
  const bool is3d = x->dims.size() == 5;
  const auto sp = [&](const std::vector<std::int64_t>& v, std::size_t d) { return v[d]; };
  std::string line =
      fmt::format("{} -n {} -c {}", command_for(graph, "conv", x->dtype), x->dims[0], x->dims[1]);
  const std::size_t h = is3d ? 1 : 0;
  if (is3d) line += fmt::format(" -! {}", x->dims[2]);
  line += fmt::format(" -H {} -W {} -k {}", x->dims[2 + h], x->dims[3 + h], w->dims[0]);
  if (is3d) line += fmt::format(" -@ {}", w->dims[2]);
  line += fmt::format(" -y {} -x {}", w->dims[2 + h], w->dims[3 + h]);
  if (is3d) line += fmt::format(" -$ {}", sp(p.pre_padding, 0));
  line += fmt::format(" -p {} -q {}", sp(p.pre_padding, h), sp(p.pre_padding, h + 1));
  if (is3d) line += fmt::format(" -# {}", sp(p.stride, 0));
  line += fmt::format(" -u {} -v {}", sp(p.stride, h), sp(p.stride, h + 1));
  if (is3d) line += fmt::format(" -^ {}", sp(p.dilation, 0));
  line += fmt::format(" -l {} -j {}", sp(p.dilation, h), sp(p.dilation, h + 1));
  line += fmt::format(" -m conv -g {} -F {}", x->dims[1] / w->dims[1], forw);
  if (is3d) line += " -_ 3";
  const std::string xl = layout_name(*x), wl = layout_name(*w), yl = layout_name(*y);
  if (xl.empty() || wl.empty() || yl.empty()) export_error(graph, "a tensor is neither packed NCHW nor NHWC");
  const std::string plain = is3d ? "NCDHW" : "NCHW";
  if (xl != plain || wl != plain || yl != plain) line += fmt::format(" -I {} -f {} -O {}", xl, wl, yl);
  if (bias) line += " -b 1";
  return line + " -t 1";
}

std::string bnorm_line(const Graph& graph) {
  const Node& node = graph.nodes.front();
  const bool inference = node.kind == OpKind::batchnorm_inference;
  const bool backward = node.type == "BatchnormBackwardAttributes";
  if (!inference && node.type != "BatchnormAttributes" && !backward) export_error(graph, "not a batch norm");
  if (inference && !node.as<BatchnormParams>().variance_ext)
    export_error(graph,
                 "MIOpen's inference batch norm takes the variance, not its inverse (use ...VarianceExt)");
  const auto x_uid = node.input("x");
  if (!x_uid) export_error(graph, "the batch norm has no x");
  const TensorDesc& x = graph.tensor(*x_uid);
  if (x.dims.size() != 4 && x.dims.size() != 5)
    export_error(graph, "MIOpenDriver batch norms are 2-D or 3-D");
  const bool is3d = x.dims.size() == 5;
  std::string line =
      fmt::format("{} -n {} -c {}", command_for(graph, "bnorm", x.dtype), x.dims[0], x.dims[1]);
  if (is3d) line += fmt::format(" -D {}", x.dims[2]);
  line += fmt::format(" -H {} -W {} -m 1", x.dims[is3d ? 3 : 2], x.dims[is3d ? 4 : 3]);
  if (inference)
    line += " --forw 2";
  else if (backward)
    line += " --forw 0 -b 1";
  else
    line += fmt::format(" --forw 1 -s {} -r {}", node.output("mean") ? 1 : 0,
                        node.input("prev_running_mean") ? 1 : 0);
  const std::string layout = layout_name(x);
  if (layout.empty()) export_error(graph, "x is neither packed NCHW nor NHWC");
  if (layout != (is3d ? "NCDHW" : "NCHW")) line += " -L " + layout;
  return line;
}

std::string pool_line(const Graph& graph) {
  const Node& node = graph.nodes.front();
  const auto& p = node.as<ResampleParams>();
  const TensorDesc& x = graph.tensor(*node.input("x"));
  if (x.dims.size() != 4) export_error(graph, "MIOpenDriver pooling is 2-D");
  if (p.pre_padding != p.post_padding) export_error(graph, "asymmetric padding has no MIOpenDriver flag");
  if (p.mode == ResampleMode::avgpool_include_padding)
    export_error(graph, "MIOpenDriver's avg pooling leaves the padding out (AVGPOOL_EXCLUDE_PADDING)");
  if (layout_name(x) != "NCHW") export_error(graph, "MIOpenDriver pooling is NCHW");
  return fmt::format("{} -n {} -c {} -H {} -W {} -y {} -x {} -u {} -v {} -p {} -q {} -m {} -F 1",
                     command_for(graph, "pool", x.dtype), x.dims[0], x.dims[1], x.dims[2], x.dims[3],
                     p.window[0], p.window[1], p.stride[0], p.stride[1], p.pre_padding[0], p.pre_padding[1],
                     p.mode == ResampleMode::maxpool ? "max" : "avg");
}

}  // namespace

std::string miopen_driver_line(const Graph& graph) {
  if (graph.nodes.empty()) export_error(graph, "the graph has no node");
  const Node& first = graph.nodes.front();
  switch (first.kind) {
    case OpKind::conv_fwd:
    case OpKind::conv_bwd_data:
    case OpKind::conv_bwd_weights:
      return conv_line(graph);
    case OpKind::batchnorm_inference:
    case OpKind::batchnorm_training:
    case OpKind::batchnorm_backward:
      if (graph.nodes.size() != 1) break;
      return bnorm_line(graph);
    case OpKind::resample:
      if (graph.nodes.size() != 1) break;
      return pool_line(graph);
    case OpKind::unsupported:
      if (graph.nodes.size() == 1 &&
          (first.type == "BatchnormAttributes" || first.type == "BatchnormBackwardAttributes"))
        return bnorm_line(graph);
      break;
    default:
      break;
  }
  export_error(graph, "expected a graph of one convolution, batch norm or pooling");
}

}  // namespace dnnbench
