// oneDNN benchdnn problem descriptors and batch files -> hipDNN graphs (docs/import.md). The
// descriptor grammar and its implicit rules are benchdnn's (tests/benchdnn/<driver>/*.cpp,
// str2desc): `_` is ignored, missing smaller spatial dims repeat the larger ones (square or
// cubic problems), a missing output size is computed, a missing padding is the one that gives
// the output, mb defaults to 2, and benchdnn's dilation counts the holes (d0 = dense), so the
// graph's dilation is d + 1.
#include "input/benchdnn.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "graph/errors.hpp"
#include "input/archive.hpp"
#include "input/graph_builder.hpp"
#include "input/text_lines.hpp"
#include "sys/ascii_case.hpp"
#include "tensor/dense.hpp"

namespace dnnbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Drivers whose descriptors become graphs, and the others benchdnn has (recognised, so that a
// batch file of them is reported as not imported rather than malformed).
constexpr std::string_view kDrivers[] = {"conv", "matmul", "bnorm", "lnorm", "pool"};
constexpr std::string_view kOtherDrivers[] = {"deconv",     "ip",      "eltwise", "softmax",   "reorder",
                                              "sum",        "concat",  "binary",  "reduction", "shuffle",
                                              "resampling", "lrn",     "rnn",     "prelu",     "gnorm",
                                              "brgemm",     "zeropad", "self",    "graph"};

// Options that steer benchdnn's own run (modes, timing, implementation filters, engines) and
// change nothing in the problem: accepted and ignored.
constexpr std::string_view kRunOptions[] = {
    "mode",
    "engine",
    "impl",
    "skip-impl",
    "perf-template",
    "fix-times-per-prb",
    "max-ms-per-prb",
    "memory-kind",
    "cold-cache",
    "canonical",
    "start",
    "allow-enum-tags-only",
    "attr-scratchpad",
    "attr-fpmath",
    "attr-deterministic",
    "attr-acc-mode",
    "ctx-init",
    "ctx-exe",
    "api",
    "summary",
    "num-streams",
    "check-ref-impl",
    "execution-mode",
    "repeats-per-prb",
    "mem-check",
    "match",
    "inplace",
    "verbose",
    "mode-modifier",
    "fast-ref",
    "fast-ref-gpu",
    "cpu-isa-hints",
    "test-mode",
    "global-impl",
    "global-skip-impl",
    "alg",  // conv --alg=direct/wino/auto picks an algorithm, not a problem
    "scratchpad",
    "attr-zero-points",
    "attr-scales",
    "attr-rounding-mode",
    "dropout",
    "strict",
    "encoding",
    "runtime_dims_masks",
    "runtime-dims-masks",
    "use-lib"};

// Options that change the problem, each holding a comma-separated list (benchdnn runs every
// combination).
constexpr std::string_view kProblemOptions[] = {
    "dir", "dt",       "cfg", "sdt",   "ddt",           "stag",   "wtag",     "dtag",
    "tag", "stat_tag", "mb",  "flags", "attr-post-ops", "bia_dt", "bia_mask", "ss_dt"};

// Spellings benchdnn accepts for the same option.
std::string canonical_option(std::string name) {
  if (name == "bia-dt") return "bia_dt";
  if (name == "bia-mask") return "bia_mask";
  if (name == "stat-tag") return "stat_tag";
  if (name == "ss-dt") return "ss_dt";
  if (name == "post-ops") return "attr-post-ops";
  return name;
}

// A problem option's list: `--attr-post-ops` lists are separated by ',' as well, its ops by '+'.
std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::stringstream in(text);
  while (std::getline(in, part, sep)) parts.push_back(part);
  if (parts.empty()) parts.push_back("");
  return parts;
}

struct Problem {
  std::string driver;
  std::map<std::string, std::string> options;  // one value of each list
  std::string get(const std::string& name, const std::string& fallback = "") const {
    const auto it = options.find(name);
    return it == options.end() || it->second.empty() ? fallback : it->second;
  }
};

class Where {
 public:
  Where(std::string file, std::size_t line) : file_(std::move(file)), line_(line) {}
  std::string source() const { return fmt::format("{}:{}", file_, line_); }
  [[noreturn]] void fail(const std::string& message) const { throw InputError(source(), "", message); }
  const std::string& file() const { return file_; }
  std::size_t line() const { return line_; }

 private:
  std::string file_;
  std::size_t line_;
};

// A problem that benchdnn can run but the graph format (or this converter) cannot express.
struct NotImportable {
  std::string reason;
};

std::optional<DataType> benchdnn_dtype(const std::string& name) {
  if (name == "f32") return DataType::f32;
  if (name == "f16") return DataType::f16;
  if (name == "bf16") return DataType::bf16;
  if (name == "f64") return DataType::f64;
  return std::nullopt;
}

// --dt=f32, --dt=bf16:bf16:f32 (src:wei:dst), or the older --cfg=f32 / f16 / bf16bf16f32.
std::vector<DataType> data_types(const Problem& p, std::size_t tensors) {
  std::string dt = p.get("dt");
  if (dt.empty()) {
    const std::string cfg = p.get("cfg", "f32");
    static const std::map<std::string, std::string> cfgs{{"f32", "f32"},
                                                         {"f16", "f16"},
                                                         {"f16f16f16", "f16"},
                                                         {"bf16bf16bf16", "bf16"},
                                                         {"bf16bf16f32", "bf16:bf16:f32"},
                                                         {"f32bf16bf16", "f32:bf16:bf16"},
                                                         {"f64", "f64"}};
    const auto it = cfgs.find(cfg);
    if (it == cfgs.end())
      throw NotImportable{fmt::format("--cfg={} is not imported (f32, f16 and bf16 are)", cfg)};
    dt = it->second;
  }
  std::vector<DataType> types;
  for (const auto& part : split(dt, ':')) {
    const auto type = benchdnn_dtype(part);
    if (!type)
      throw NotImportable{fmt::format("data type {} is not imported (f32, f16, bf16 and f64 are)", part)};
    types.push_back(*type);
  }
  if (types.size() == 1) types.assign(tensors, types[0]);
  if (types.size() != tensors)
    throw NotImportable{
        fmt::format("--dt={} names {} data types; expected 1 or {}", dt, types.size(), tensors)};
  return types;
}

// Tags: plain (abx, nchw, any, ...) or channels-last (axb, nhwc, ...); blocked formats are not
// imported.
bool channels_last_tag(const std::string& tag, std::string_view option) {
  static const std::vector<std::string> plain{"",      "any",    "abx",  "a",     "ab",     "abc",   "abcd",
                                              "abcde", "abcdef", "nc",   "ncw",   "nchw",   "ncdhw", "oiw",
                                              "oihw",  "oidhw",  "goiw", "goihw", "goidhw", "x"};
  static const std::vector<std::string> last{"axb",  "acb",   "acdb",   "acdeb", "nwc",
                                             "nhwc", "ndhwc", "owi",    "ohwi",  "odhwi",
                                             "gowi", "gohwi", "godhwi", "abdc",  "abdec"};
  if (std::find(plain.begin(), plain.end(), tag) != plain.end()) return false;
  if (std::find(last.begin(), last.end(), tag) != last.end()) return true;
  throw NotImportable{
      fmt::format("--{}={} is not imported (plain and channels-last layouts are)", option, tag)};
}

// Reads `key<number>` fields of a descriptor; the rest (after `n`) is the problem's name.
struct Fields {
  std::map<std::string, std::int64_t> values;
  std::string name;
  bool has(const std::string& key) const { return values.count(key) > 0; }
  std::int64_t get(const std::string& key, std::int64_t fallback) const {
    const auto it = values.find(key);
    return it == values.end() ? fallback : it->second;
  }
};

Fields parse_fields(const std::string& desc, const std::vector<std::string_view>& keys, const Where& where) {
  Fields f;
  std::size_t at = 0;
  while (at < desc.size()) {
    if (desc[at] == '_') {
      ++at;
      continue;
    }
    std::string_view matched;
    for (auto key : keys)  // longest keys first in `keys`, so `ic` is not read as `i`
      if (desc.compare(at, key.size(), key) == 0 && at + key.size() < desc.size() &&
          std::isdigit(static_cast<unsigned char>(desc[at + key.size()]))) {
        matched = key;
        break;
      }
    if (matched.empty()) {
      if (desc[at] == 'n') {
        f.name = desc.substr(at + 1);
        if (f.name.size() >= 2 && f.name.front() == '"' && f.name.back() == '"')
          f.name = f.name.substr(1, f.name.size() - 2);
        break;
      }
      where.fail(
          fmt::format("descriptor `{}`: unexpected `{}` at character {}; expected one of {} followed by a "
                      "number, or n\"name\"",
                      desc, desc.substr(at, 8), at + 1, fmt::join(keys, ", ")));
    }
    at += matched.size();
    std::size_t end = at;
    while (end < desc.size() && std::isdigit(static_cast<unsigned char>(desc[end]))) ++end;
    const std::string key(matched);
    const auto parsed = parse_size(desc.substr(at, end - at));
    if (!parsed)
      where.fail(fmt::format("descriptor `{}`: {}{} is out of range", desc, key, desc.substr(at, end - at)));
    const std::int64_t value = *parsed;
    if (f.has(key) && f.values[key] != value)
      where.fail(
          fmt::format("descriptor `{}`: {} is given twice ({} and {})", desc, key, f.values[key], value));
    f.values[key] = value;
    at = end;
  }
  return f;
}

// The spatial geometry of a conv or pool descriptor: per spatial dim (D, H, W order) input,
// output, kernel, stride, left and right padding and graph dilation.
struct Spatial {
  std::vector<std::int64_t> in, out, kernel, stride, pre, post, dilation;
};

Spatial spatial_geometry(const Fields& f, const std::string& desc, const Where& where, bool has_dilation) {
  const char* dims[] = {"d", "h", "w"};
  const auto given = [&](const char* d) {
    for (const char* k : {"i", "o", "k", "s", "p", "d"}) {
      if (std::string(k) == "d" && !has_dilation) continue;
      if (f.has(std::string(k) + d)) return true;
    }
    return false;
  };
  int ndims = given("d") ? 3 : given("h") ? 2 : 1;
  // Square / cubic forms: an unspecified smaller dim takes the value of the larger one.
  const auto value = [&](const char* k, int d, std::int64_t fallback) -> std::int64_t {
    for (int from = d; from >= 3 - ndims; --from) {
      const std::string key = std::string(k) + dims[from];
      if (f.has(key)) return f.get(key, fallback);
    }
    return fallback;
  };
  Spatial s;
  for (int d = 3 - ndims; d < 3; ++d) {
    const std::int64_t in = value("i", d, 0), kernel = value("k", d, 0), stride = value("s", d, 1);
    const std::int64_t dil = has_dilation ? value("d", d, 0) + 1 : 1;
    if (in <= 0) where.fail(fmt::format("descriptor `{}`: i{} is missing or zero", desc, dims[d]));
    if (kernel <= 0) where.fail(fmt::format("descriptor `{}`: k{} is missing or zero", desc, dims[d]));
    if (stride <= 0) where.fail(fmt::format("descriptor `{}`: s{} must be positive", desc, dims[d]));
    const std::int64_t extent = (kernel - 1) * dil + 1;
    std::int64_t out = value("o", d, 0);
    std::int64_t pad = value("p", d, -1);
    if (out == 0) {
      if (pad < 0) pad = 0;
      out = (in - extent + 2 * pad) / stride + 1;
    } else if (pad < 0) {
      pad = std::max<std::int64_t>(((out - 1) * stride - in + extent) / 2, 0);
    }
    if (out <= 0)
      where.fail(fmt::format("descriptor `{}`: the output along {} would be empty", desc, dims[d]));
    // benchdnn's right padding: what makes the given output size.
    std::int64_t post = (out - 1) * stride - in + extent - pad;
    if (window_output_size(in, pad, pad, kernel, stride, dil) == out) post = pad;
    if (post < 0 || window_output_size(in, pad, post, kernel, stride, dil) != out)
      where.fail(fmt::format("descriptor `{}`: o{}={} cannot come from i{}={} k{}={} s{}={} p{}={}", desc,
                             dims[d], out, dims[d], in, dims[d], kernel, dims[d], stride, dims[d], pad));
    s.in.push_back(in);
    s.out.push_back(out);
    s.kernel.push_back(kernel);
    s.stride.push_back(stride);
    s.pre.push_back(pad);
    s.post.push_back(post);
    s.dilation.push_back(dil);
  }
  return s;
}

std::vector<std::int64_t> nc_dims(std::int64_t n, std::int64_t c, const std::vector<std::int64_t>& spatial) {
  std::vector<std::int64_t> v{n, c};
  v.insert(v.end(), spatial.begin(), spatial.end());
  return v;
}

std::int64_t minibatch(const Problem& p, const Fields& f, const Where& where) {
  const std::string mb = p.get("mb", "0");
  const auto parsed = parse_size(mb);
  if (!parsed) where.fail(fmt::format("--mb={}: expected a non-negative integer", mb));
  const std::int64_t forced = *parsed;
  return forced > 0 ? forced : f.get("mb", 2);
}

// One post-op of --attr-post-ops: a unary eltwise op, or a binary op with its second input's data
// type and broadcast (a bit per output dim: set, the input has that dim; clear, it is broadcast).
struct PostOp {
  std::string op;  // the pointwise node's operation
  bool binary = false;
  DataType type = DataType::f32;
  // The mask, or a policy name resolved against the output's rank when the graph is built.
  std::optional<std::int64_t> mask;
  std::string policy;
};

// Which output dims a binary post-op's input has: oneDNN's policies (common: a scalar; per_oc: the
// channels, dim 1; per_tensor: all) or a mask of dims, as oneDNN's verbose log prints it.
std::vector<std::int64_t> binary_input_dims(const PostOp& op, const std::vector<std::int64_t>& out) {
  std::int64_t mask = 0;
  const auto rank = static_cast<std::int64_t>(out.size());
  if (op.mask) {
    mask = *op.mask;
  } else if (op.policy == "common") {
    mask = 0;
  } else if (op.policy == "per_oc") {
    mask = 1 << 1;
  } else if (op.policy == "per_tensor") {
    mask = (std::int64_t{1} << rank) - 1;
  } else {
    throw NotImportable{
        fmt::format("binary post-op policy {} is not imported (common, per_oc, per_tensor and "
                    "masks are)",
                    op.policy)};
  }
  if (mask < 0 || mask >= (std::int64_t{1} << rank))
    throw NotImportable{
        fmt::format("binary post-op mask {} names a dim the output (rank {}) has not", mask, rank)};
  std::vector<std::int64_t> dims(out.size(), 1);
  for (std::size_t d = 0; d < out.size(); ++d)
    if (mask & (std::int64_t{1} << d)) dims[d] = out[d];
  return dims;
}

// --attr-post-ops=relu+add:f32:per_oc+sum: unary eltwise post-ops, binary ones (add, sub, mul,
// div, max, min with a data type and a policy or mask) and `sum` (dst += the op's result: a
// residual add of a full tensor; with a scale of 1 only) as pointwise nodes.
std::vector<PostOp> post_op_nodes(const Problem& p) {
  const std::string text = p.get("attr-post-ops");
  std::vector<PostOp> ops;
  if (text.empty()) return ops;
  static const std::map<std::string, std::string> unary{{"relu", "relu_fwd"},
                                                        {"gelu_erf", "gelu_fwd"},
                                                        {"gelu_tanh", "gelu_approx_tanh_fwd"},
                                                        {"logistic", "sigmoid_fwd"},
                                                        {"tanh", "tanh_fwd"},
                                                        {"swish", "swish_fwd"},
                                                        {"elu", "elu_fwd"},
                                                        {"exp", "exp"},
                                                        {"log", "log"},
                                                        {"sqrt", "sqrt"},
                                                        {"abs", "abs"},
                                                        {"eltwise_relu", "relu_fwd"}};
  static const std::set<std::string> binary{"add", "sub", "mul", "div", "max", "min"};
  for (const auto& op : split(text, '+')) {
    const auto parts = split(op, ':');
    if (binary.count(parts[0])) {
      PostOp post;
      post.op = parts[0];
      post.binary = true;
      if (parts.size() > 1) {
        const auto type = benchdnn_dtype(parts[1]);
        if (!type) throw NotImportable{fmt::format("post-op {}: data type {} is not imported", op, parts[1])};
        post.type = *type;
      }
      const std::string policy = parts.size() > 2 ? parts[2] : "common";
      if (const auto mask = parse_size(policy))
        post.mask = static_cast<std::int64_t>(*mask);
      else
        post.policy = policy;
      ops.push_back(post);
      continue;
    }
    if (parts[0] == "sum") {
      if (parts.size() > 1 && parts[1] != "1" && parts[1] != "1.0" && parts[1] != "1.f")
        throw NotImportable{fmt::format("post-op {} (a scaled sum) is not imported", op)};
      if (parts.size() > 2 && parts[2] != "0")
        throw NotImportable{fmt::format("post-op {} (a sum with a zero point) is not imported", op)};
      PostOp post;
      post.op = "add";
      post.binary = true;
      post.policy = "per_tensor";
      ops.push_back(post);
      continue;
    }
    const auto it = unary.find(parts[0]);
    if (it == unary.end())
      throw NotImportable{
          fmt::format("post-op {} is not imported (unary eltwise, binary and sum post-ops are)", parts[0])};
    if (parts.size() > 1 && !(parts[0] == "relu" && (parts[1] == "0" || parts[1] == "0.0")))
      throw NotImportable{fmt::format("post-op {} with parameters is not imported", op)};
    PostOp post;
    post.op = it->second;
    ops.push_back(post);
  }
  return ops;
}

// Adds the post-ops after `from` (an intermediate when there are any); the last writes `y`.
void finish_with_post_ops(GraphBuilder& b, const std::vector<PostOp>& ops, std::int64_t from,
                          const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& strides,
                          DataType type) {
  std::int64_t current = from;
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const bool last = k + 1 == ops.size();
    std::int64_t other = -1;
    if (ops[k].binary) {
      const auto other_dims = binary_input_dims(ops[k], dims);
      // A full-size input (a residual) takes the output's layout; a broadcast one is packed.
      other = b.tensor(fmt::format("post_op_{}_src1", k), other_dims,
                       other_dims == dims ? strides : std::vector<std::int64_t>{}, ops[k].type);
    }
    const std::int64_t next =
        last ? b.tensor("y", dims, strides, type) : b.intermediate(fmt::format("post_op_{}", k), dims);
    b.pointwise(ops[k].op, current, other, next, fmt::format("post_op_{}", k));
    current = next;
  }
}

std::string problem_name(const Where& where, const std::string& driver, const std::string& what,
                         const std::string& descriptor_name) {
  fs::path file(where.file());
  if (is_compressed_file_path(file)) file = file.stem();  // verbose.log.gz: named as verbose.log is
  std::string stem = file.stem().string();
  std::string name = fmt::format("{}_l{}_{}_{}", stem, where.line(), driver, what);
  if (!descriptor_name.empty()) name += "_" + descriptor_name;
  return name;
}

json convert_conv(const Problem& p, const std::string& desc, const Where& where) {
  const Fields f = parse_fields(desc, {"mb", "ic", "id", "ih", "iw", "oc", "od", "oh", "ow", "kd", "kh",
                                       "kw", "sd", "sh", "sw", "pd", "ph", "pw", "dd", "dh", "dw", "g"},
                                where);
  const std::int64_t g = f.get("g", 1), ic = f.get("ic", 0), oc = f.get("oc", 0), mb = minibatch(p, f, where);
  if (ic <= 0 || oc <= 0) where.fail(fmt::format("descriptor `{}`: ic and oc are required", desc));
  if (g <= 0 || ic % g != 0 || oc % g != 0)
    where.fail(fmt::format("descriptor `{}`: g{} does not divide ic{} and oc{}", desc, g, ic, oc));
  const Spatial s = spatial_geometry(f, desc, where, true);
  const std::string dir = p.get("dir", "FWD_B");
  const auto types = data_types(p, 3);  // src, wei, dst
  const bool x_last = channels_last_tag(p.get("stag"), "stag");
  const bool w_last = channels_last_tag(p.get("wtag"), "wtag");
  const bool y_last = channels_last_tag(p.get("dtag"), "dtag");
  const auto x_dims = nc_dims(mb, ic, s.in), y_dims = nc_dims(mb, oc, s.out),
             w_dims = nc_dims(oc, ic / g, s.kernel);
  const ConvSettings settings{s.pre, s.post, s.stride, s.dilation, true};
  const auto post_ops = post_op_nodes(p);
  GraphBuilder b(problem_name(where, "conv", ascii_lower(dir), f.name), types[0]);
  if (dir == "FWD_B" || dir == "FWD_D" || dir == "FWD_I") {
    const bool bias = dir == "FWD_B";
    const auto x = b.tensor("x", x_dims, layout_strides(x_dims, x_last), types[0]);
    const auto w = b.tensor("w", w_dims, layout_strides(w_dims, w_last), types[1]);
    const auto y_strides = layout_strides(y_dims, y_last);
    const bool fused = bias || !post_ops.empty();
    const auto y = fused ? b.intermediate("conv_out", y_dims) : b.tensor("y", y_dims, y_strides, types[2]);
    b.conv("fwd", x, w, y, settings);
    std::int64_t last = y;
    if (bias) {
      const auto bt =
          b.tensor("bias", nc_dims(1, oc, std::vector<std::int64_t>(s.in.size(), 1)), {}, DataType::f32);
      last = post_ops.empty() ? b.tensor("y", y_dims, y_strides, types[2]) : b.intermediate("biased", y_dims);
      b.pointwise("add", y, bt, last, "bias");
    }
    if (!post_ops.empty()) finish_with_post_ops(b, post_ops, last, y_dims, y_strides, types[2]);
  } else {
    if (!post_ops.empty()) throw NotImportable{"post-ops on a backward convolution are not imported"};
    if (dir == "BWD_D") {
      const auto dy = b.tensor("dy", y_dims, layout_strides(y_dims, y_last), types[2]);
      const auto w = b.tensor("w", w_dims, layout_strides(w_dims, w_last), types[1]);
      const auto dx = b.tensor("dx", x_dims, layout_strides(x_dims, x_last), types[0]);
      b.conv("bwd_data", dy, w, dx, settings);
    } else if (dir == "BWD_W" || dir == "BWD_WB") {
      const auto x = b.tensor("x", x_dims, layout_strides(x_dims, x_last), types[0]);
      const auto dy = b.tensor("dy", y_dims, layout_strides(y_dims, y_last), types[2]);
      const auto dw = b.tensor("dw", w_dims, layout_strides(w_dims, w_last), types[1]);
      b.conv("bwd_weights", x, dy, dw, settings);
    } else {
      where.fail(
          fmt::format("--dir={}: expected FWD_B, FWD_D, FWD_I, BWD_D, BWD_W or BWD_WB for --conv", dir));
    }
  }
  return b.take();
}

// Matmul dims "MxK:KxN[:MxN]" with optional batch dims, broadcast where 1.
json convert_matmul(const Problem& p, const std::string& desc, const Where& where) {
  std::string dims_text = desc, name;
  if (const auto q = desc.find("n\""); q != std::string::npos) {
    dims_text = desc.substr(0, q);
    name = desc.substr(q + 2);
    if (!name.empty() && name.back() == '"') name.pop_back();
  } else if (const auto u = desc.find("_n"); u != std::string::npos) {
    dims_text = desc.substr(0, u);
    name = desc.substr(u + 2);
  }
  while (!dims_text.empty() && dims_text.back() == '_') dims_text.pop_back();
  const auto parts = split(dims_text, ':');
  if (parts.size() < 2 || parts.size() > 3)
    where.fail(
        fmt::format("descriptor `{}`: expected MxK:KxN[:MxN] (batch dims in front: BxMxK:BxKxN)", desc));
  std::vector<std::vector<std::int64_t>> dims;
  for (const auto& part : parts) {
    std::vector<std::int64_t> d;
    for (const auto& n : split(part, 'x')) {
      const auto size = parse_size(n);
      if (!size || *size <= 0)
        where.fail(fmt::format("descriptor `{}`: `{}` is not a positive dimension", desc, n));
      d.push_back(*size);
    }
    if (d.size() < 2) where.fail(fmt::format("descriptor `{}`: `{}` needs at least 2 dims", desc, part));
    dims.push_back(d);
  }
  auto& a = dims[0];
  auto& w = dims[1];
  if (a.size() != w.size())
    where.fail(fmt::format("descriptor `{}`: src and weights have different ranks", desc));
  const std::size_t r = a.size();
  if (a[r - 1] != w[r - 2])
    where.fail(fmt::format("descriptor `{}`: K differs between src ({}) and weights ({})", desc, a[r - 1],
                           w[r - 2]));
  std::vector<std::int64_t> c(r);
  for (std::size_t d = 0; d + 2 < r; ++d) {
    if (a[d] != w[d] && a[d] != 1 && w[d] != 1)
      where.fail(fmt::format("descriptor `{}`: batch dim {} differs ({} and {}) and neither is 1", desc, d,
                             a[d], w[d]));
    c[d] = std::max(a[d], w[d]);
  }
  c[r - 2] = a[r - 2];
  c[r - 1] = w[r - 1];
  if (dims.size() == 3 && dims[2] != c)
    where.fail(fmt::format("descriptor `{}`: the dst dims do not follow from src and weights", desc));
  const auto types = data_types(p, 3);
  // Tags: plain, or the last two dims swapped (ba, acb, abdc: a transposed operand).
  const auto strides_for = [&](const std::vector<std::int64_t>& d, const std::string& option) {
    const std::string tag = p.get(option);
    auto strides = c_order_strides(d);
    if (tag.empty() || tag == "any" || tag == std::string("abcdefgh").substr(0, d.size())) return strides;
    std::string swapped = std::string("abcdefgh").substr(0, d.size());
    std::swap(swapped[d.size() - 1], swapped[d.size() - 2]);
    if (tag != swapped)
      throw NotImportable{
          fmt::format("--{}={} is not imported (plain or transposed layouts are)", option, tag)};
    std::vector<std::int64_t> t = d;
    std::swap(t[r - 1], t[r - 2]);
    auto ts = c_order_strides(t);
    std::swap(ts[r - 1], ts[r - 2]);
    return ts;
  };
  const auto post_ops = post_op_nodes(p);
  const std::string bia_dt = p.get("bia_dt", "undef");
  const bool bias = bia_dt != "undef";
  GraphBuilder b(problem_name(where, "matmul", "fwd", name), types[0]);
  const auto at = b.tensor("a", a, strides_for(a, "stag"), types[0]);
  const auto bt = b.tensor("b", w, strides_for(w, "wtag"), types[1]);
  const auto c_strides = strides_for(c, "dtag");
  const bool fused = bias || !post_ops.empty();
  const auto ct = fused ? b.intermediate("mm_out", c) : b.tensor("c", c, c_strides, types[2]);
  b.matmul(at, bt, ct);
  std::int64_t last = ct;
  if (bias) {
    const auto bias_type = benchdnn_dtype(bia_dt);
    if (!bias_type) throw NotImportable{fmt::format("--bia_dt={} is not imported", bia_dt)};
    // benchdnn's default bias mask is per column of the output (bit of the last dim).
    const auto mask_value = parse_size(p.get("bia_mask", std::to_string(1 << (r - 1))));
    if (!mask_value)
      where.fail(fmt::format("--bia_mask={}: expected a non-negative integer", p.get("bia_mask")));
    const std::int64_t mask = *mask_value;
    std::vector<std::int64_t> bias_dims(r, 1);
    for (std::size_t d = 0; d < r; ++d)
      if (mask & (std::int64_t{1} << d)) bias_dims[d] = c[d];
    const auto bias_t = b.tensor("bias", bias_dims, {}, *bias_type);
    last = post_ops.empty() ? b.tensor("c", c, c_strides, types[2]) : b.intermediate("biased", c);
    b.pointwise("add", ct, bias_t, last, "bias");
  }
  if (!post_ops.empty()) finish_with_post_ops(b, post_ops, last, c, c_strides, types[2]);
  return b.take();
}

// benchdnn's default epsilon for bnorm and lnorm (1/16: exact in every data type).
constexpr double kNormEpsilon = 1.0 / 16;

json convert_bnorm(const Problem& p, const std::string& desc, const Where& where) {
  const Fields f = parse_fields(desc, {"mb", "ic", "id", "ih", "iw", "eps"}, where);
  const std::int64_t mb = minibatch(p, f, where), ic = f.get("ic", 0);
  if (ic <= 0) where.fail(fmt::format("descriptor `{}`: ic is required", desc));
  std::vector<std::int64_t> spatial;
  if (f.has("id"))
    spatial = {f.get("id", 1), f.get("ih", f.get("id", 1)), f.get("iw", f.get("ih", f.get("id", 1)))};
  else if (f.has("ih"))
    spatial = {f.get("ih", 1), f.get("iw", f.get("ih", 1))};
  else if (f.has("iw"))
    spatial = {f.get("iw", 1)};
  const auto dims = nc_dims(mb, ic, spatial);
  const std::string dir = p.get("dir", "FWD_D"), flags = p.get("flags");
  if (flags.find_first_not_of("GSCHRMA") != std::string::npos)
    where.fail(fmt::format("--flags={}: expected letters of G, S, C, H, R, M, A", flags));
  if (flags.find('A') != std::string::npos) throw NotImportable{"--flags=A (fused add) is not imported"};
  const auto strides = layout_strides(dims, channels_last_tag(p.get("tag"), "tag"));
  const DataType type = data_types(p, 1)[0];
  std::vector<std::int64_t> stats(dims.size(), 1);
  stats[1] = ic;
  const double eps = kNormEpsilon;
  const bool global = flags.find('G') != std::string::npos;
  const bool relu = flags.find('R') != std::string::npos;
  GraphBuilder b(problem_name(where, "bnorm", ascii_lower(dir), f.name), type);
  const auto stat = [&](const std::string& n) { return b.tensor(n, stats, {}, DataType::f32); };
  if (dir == "FWD_I" || (dir == "FWD_D" && global)) {
    const auto x = b.tensor("x", dims, strides);
    const auto mean = stat("mean"), variance = stat("variance"), scale = stat("scale"), bias = stat("bias");
    const auto e = b.scalar("epsilon", eps);
    const auto y = relu ? b.intermediate("bn_out", dims) : b.tensor("y", dims, strides);
    b.node(
        "BatchnormInferenceAttributesVarianceExt", "batchnorm",
        {{"x", x}, {"mean", mean}, {"variance", variance}, {"scale", scale}, {"bias", bias}, {"epsilon", e}},
        {{"y", y}});
    if (relu) b.pointwise("relu_fwd", y, -1, b.tensor("y_relu", dims, strides), "relu");
  } else if (dir == "FWD_D") {
    const auto x = b.tensor("x", dims, strides);
    const auto scale = stat("scale"), bias = stat("bias");
    const auto e = b.scalar("epsilon", eps);
    const auto y = b.tensor("y", dims, strides);
    b.node("BatchnormAttributes", "batchnorm", {{"x", x}, {"scale", scale}, {"bias", bias}, {"epsilon", e}},
           {{"y", y}, {"mean", stat("mean")}, {"inv_variance", stat("inv_variance")}});
    if (relu) throw NotImportable{"--flags=R (fused ReLU) on training batch norm is not imported"};
  } else if (dir == "BWD_D" || dir == "BWD_DW") {
    const auto dy = b.tensor("dy", dims, strides);
    const auto x = b.tensor("x", dims, strides);
    const auto mean = stat("mean"), inv_variance = stat("inv_variance"), scale = stat("scale");
    const auto dx = b.tensor("dx", dims, strides);
    b.node("BatchnormBackwardAttributes", "batchnorm_bwd",
           {{"dy", dy}, {"x", x}, {"mean", mean}, {"inv_variance", inv_variance}, {"scale", scale}},
           {{"dx", dx}, {"dscale", stat("dscale")}, {"dbias", stat("dbias")}});
  } else {
    where.fail(fmt::format("--dir={}: expected FWD_D, FWD_I, BWD_D or BWD_DW for --bnorm", dir));
  }
  return b.take();
}

json convert_lnorm(const Problem& p, const std::string& desc, const Where& where) {
  std::string dims_text = desc, name;
  if (const auto n = desc.find('n'); n != std::string::npos) {
    dims_text = desc.substr(0, n);
    name = desc.substr(n + 1);
    if (name.size() >= 2 && name.front() == '"') name = name.substr(1, name.size() - 2);
  }
  while (!dims_text.empty() && dims_text.back() == '_') dims_text.pop_back();
  const auto parts = split(dims_text, ':');
  std::vector<std::int64_t> dims;
  for (const auto& d : split(parts[0], 'x')) {
    const auto size = parse_size(d);
    if (!size || *size <= 0)
      where.fail(fmt::format("descriptor `{}`: `{}` is not a positive dimension; expected AxBxC", desc, d));
    dims.push_back(*size);
  }
  if (dims.size() < 2) where.fail(fmt::format("descriptor `{}`: expected at least 2 dims (AxC)", desc));
  const std::string dir = p.get("dir", "FWD_D");
  const auto types = data_types(p, p.get("dt").find(':') != std::string::npos ? 2 : 1);
  const DataType type = types[0];
  const DataType out_type = types.back();
  if (channels_last_tag(p.get("tag"), "tag"))
    throw NotImportable{"a channels-last --tag for lnorm is not imported"};
  std::vector<std::int64_t> stats = dims;
  stats.back() = 1;
  const std::vector<std::int64_t> norm{dims.back()};
  GraphBuilder b(problem_name(where, "lnorm", ascii_lower(dir), name), type);
  if (dir != "FWD_D" && dir != "FWD_I") {
    if (dir == "BWD_D" || dir == "BWD_DW")
      throw NotImportable{"layer norm backward has no hipDNN graph node"};
    where.fail(fmt::format("--dir={}: expected FWD_D, FWD_I, BWD_D or BWD_DW for --lnorm", dir));
  }
  const bool training = dir == "FWD_D";
  const auto x = b.tensor("x", dims);
  const auto scale = b.tensor("scale", norm, {}, DataType::f32),
             bias = b.tensor("bias", norm, {}, DataType::f32);
  const auto e = b.scalar("epsilon", kNormEpsilon);
  const auto y = b.tensor("y", dims, {}, out_type);
  const auto mean = training ? b.tensor("mean", stats, {}, DataType::f32) : -1;
  const auto inv = training ? b.tensor("inv_variance", stats, {}, DataType::f32) : -1;
  b.layernorm(x, scale, bias, e, y, mean, inv, training, "layernorm");
  return b.take();
}

json convert_pool(const Problem& p, const std::string& desc, const Where& where) {
  const Fields f = parse_fields(desc, {"mb", "ic", "id", "ih", "iw", "od", "oh", "ow", "kd", "kh",
                                       "kw", "sd", "sh", "sw", "pd", "ph", "pw", "dd", "dh", "dw"},
                                where);
  const std::int64_t mb = minibatch(p, f, where), ic = f.get("ic", 0);
  if (ic <= 0) where.fail(fmt::format("descriptor `{}`: ic is required", desc));
  for (const char* d : {"dd", "dh", "dw"})
    if (f.get(d, 0) != 0) throw NotImportable{"dilated pooling has no hipDNN equivalent"};
  const Spatial s = spatial_geometry(f, desc, where, false);
  const std::string dir = p.get("dir", "FWD_D");
  if (dir == "BWD_D") throw NotImportable{"pooling backward has no hipDNN graph node"};
  if (dir != "FWD_D" && dir != "FWD_I")
    where.fail(fmt::format("--dir={}: expected FWD_D, FWD_I or BWD_D for --pool", dir));
  const std::string alg = p.get("alg", "max");
  PoolSettings ps{s.kernel, s.stride, s.pre, s.post, "MAXPOOL"};
  if (alg == "max" || alg == "pooling_max")
    ps.mode = "MAXPOOL";
  else if (alg == "avg_np" || alg == "pooling_avg_exclude_padding")
    ps.mode = "AVGPOOL_EXCLUDE_PADDING";
  else if (alg == "avg_p" || alg == "pooling_avg_include_padding")
    ps.mode = "AVGPOOL_INCLUDE_PADDING";
  else
    where.fail(fmt::format("--alg={}: expected max, avg_np or avg_p for --pool", alg));
  const DataType type = data_types(p, 1)[0];
  const bool last = channels_last_tag(p.get("tag"), "tag");
  const auto x_dims = nc_dims(mb, ic, s.in), y_dims = nc_dims(mb, ic, s.out);
  GraphBuilder b(problem_name(where, "pool", ascii_lower(dir), f.name), type);
  const auto x = b.tensor("x", x_dims, layout_strides(x_dims, last));
  const auto y = b.tensor("y", y_dims, layout_strides(y_dims, last));
  b.pool(x, y, ps);
  return b.take();
}

class Reader {
 public:
  ImportResult result;

  void read_file(const fs::path& path, int depth) {
    if (depth > kMaxBatchDepth)
      throw InputError(path.string(), "",
                       fmt::format("--batch files nest more than {} levels deep", kMaxBatchDepth));
    std::ifstream in(path, std::ios::binary);
    if (!in)
      throw InputError(path.string(), "", std::string("cannot open the file: ") + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    for (const auto& line : source_lines(text.str())) read_line(path, line, depth);
  }

  // One line's tokens, as if it stood at `file`:`line` (no --batch inside: there is no folder).
  void read_tokens(const std::string& file, std::size_t line, const std::vector<std::string>& tokens) {
    read_line(fs::path(file), SourceLine{line, tokens}, kMaxBatchDepth);
  }

 private:
  // benchdnn's own batch files nest 2-3 levels; this only stops a file that includes itself.
  static constexpr int kMaxBatchDepth = 16;

  void read_line(const fs::path& path, const SourceLine& line, int depth) {
    const Where where(path.string(), line.number);
    for (std::size_t k = 0; k < line.tokens.size(); ++k) {
      const std::string& token = line.tokens[k];
      if (k == 0 && (token == "benchdnn" || token.ends_with("/benchdnn"))) continue;
      if (!token.starts_with("--")) {
        descriptor(token, where);
        continue;
      }
      std::string name = token.substr(2), value;
      const auto eq = name.find('=');
      const bool has_value = eq != std::string::npos;
      if (has_value) {
        value = name.substr(eq + 1);
        name.resize(eq);
      }
      if (!has_value &&
          (std::find(std::begin(kDrivers), std::end(kDrivers), name) != std::end(kDrivers) ||
           std::find(std::begin(kOtherDrivers), std::end(kOtherDrivers), name) != std::end(kOtherDrivers))) {
        if (name != driver_) options_.clear();
        driver_ = name;
        continue;
      }
      if (name == "reset") {
        options_.clear();
        continue;
      }
      if (name == "batch") {
        if (!has_value || value.empty()) where.fail("--batch needs a file: --batch=FILE");
        fs::path batch(value);
        if (batch.is_relative()) batch = path.parent_path() / batch;
        read_file(batch, depth + 1);
        continue;
      }
      name = canonical_option(name);
      if (std::find(std::begin(kRunOptions), std::end(kRunOptions), name) != std::end(kRunOptions) ||
          name.starts_with("v") || name.starts_with("cpu-") || name.starts_with("attr-scratch")) {
        if (name == "alg" && driver_ == "pool") options_[name] = split(value, ',');
        continue;
      }
      if (std::find(std::begin(kProblemOptions), std::end(kProblemOptions), name) ==
          std::end(kProblemOptions))
        where.fail(fmt::format("unknown benchdnn option {}", token));
      if (!has_value) where.fail(fmt::format("option {} needs a value: {}=VALUE", token, token));
      options_[name] = split(value, ',');
    }
  }

  void descriptor(const std::string& desc, const Where& where) {
    std::string driver = driver_;
    if (driver.empty()) driver = guess_driver(desc);
    if (driver.empty())
      where.fail(
          fmt::format("descriptor `{}` comes before any driver option (--conv, --matmul, --bnorm, --lnorm, "
                      "--pool) and its kind cannot be told from its fields",
                      desc));
    if (std::find(std::begin(kDrivers), std::end(kDrivers), driver) == std::end(kDrivers)) {
      result.not_imported.push_back(
          {where.source(), driver, fmt::format("benchdnn --{} problems are not imported", driver)});
      return;
    }
    // Every combination of the list-valued options, in benchdnn's order (the last option varies fastest).
    std::vector<std::pair<std::string, std::vector<std::string>>> lists(options_.begin(), options_.end());
    std::vector<std::size_t> index(lists.size(), 0);
    std::size_t variant = 0;
    while (true) {
      Problem p{driver, {}};
      for (std::size_t k = 0; k < lists.size(); ++k) p.options[lists[k].first] = lists[k].second[index[k]];
      convert(p, desc, where, variant++);
      std::size_t k = lists.size();
      while (k > 0) {
        --k;
        if (++index[k] < lists[k].second.size()) break;
        index[k] = 0;
        if (k == 0) return;
      }
      if (lists.empty()) return;
    }
  }

  void convert(const Problem& p, const std::string& desc, const Where& where, std::size_t variant) {
    try {
      json graph;
      if (p.driver == "conv")
        graph = convert_conv(p, desc, where);
      else if (p.driver == "matmul")
        graph = convert_matmul(p, desc, where);
      else if (p.driver == "bnorm")
        graph = convert_bnorm(p, desc, where);
      else if (p.driver == "lnorm")
        graph = convert_lnorm(p, desc, where);
      else
        graph = convert_pool(p, desc, where);
      if (variant > 0) graph["name"] = fmt::format("{}_v{}", graph["name"].get<std::string>(), variant);
      result.graphs.push_back({std::move(graph), where.source(), 1});
    } catch (const NotImportable& e) {
      result.not_imported.push_back({where.source(), p.driver, e.reason});
    }
  }

  // A descriptor met before any driver option: its fields tell the kind.
  static std::string guess_driver(const std::string& desc) {
    if (desc.find(':') != std::string::npos ||
        (desc.find('x') != std::string::npos && desc.find("ic") == std::string::npos))
      return desc.find(':') != std::string::npos ? "matmul" : "lnorm";
    if (desc.find("oc") != std::string::npos) return "conv";
    if (desc.find("kh") != std::string::npos || desc.find("kw") != std::string::npos ||
        desc.find("kd") != std::string::npos)
      return "pool";
    if (desc.find("ic") != std::string::npos) return "bnorm";
    return "";
  }

  std::string driver_;
  std::map<std::string, std::vector<std::string>> options_;
};

}  // namespace

bool looks_like_benchdnn_line(const std::vector<std::string>& tokens) {
  std::size_t at = 0;
  if (!tokens.empty() && (tokens[0] == "benchdnn" || tokens[0].ends_with("/benchdnn"))) ++at;
  return at < tokens.size() && tokens[at].starts_with("--");
}

ImportResult import_benchdnn_file(const fs::path& path) {
  Reader reader;
  reader.read_file(path, 0);
  return std::move(reader.result);
}

ImportResult import_benchdnn_tokens(const std::vector<std::string>& tokens, const std::string& file,
                                    std::size_t line) {
  Reader reader;
  reader.read_tokens(file, line, tokens);
  return std::move(reader.result);
}

}  // namespace dnnbench
