#include "input/onednn_verbose.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "graph/errors.hpp"
#include "input/benchdnn.hpp"
#include "input/log_lines.hpp"

namespace dnnbench {
namespace {

namespace fs = std::filesystem;

// Fields after `exec`: engine, primitive kind, implementation, propagation kind, memory
// descriptors, attributes, auxiliary (alg, flags), problem, time (oneDNN 2.x and 3.x alike; 3.x
// puts `primitive,` before `exec`, and a timestamp before that where ONEDNN_VERBOSE_TIMESTAMP=1).
constexpr std::size_t kFieldsAfterExec = 9;

std::vector<std::string> split_fields(std::string_view text, char sep) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (true) {
    const auto at = text.find(sep, from);
    out.emplace_back(text.substr(from, at == std::string_view::npos ? std::string_view::npos : at - from));
    if (at == std::string_view::npos) return out;
    from = at + 1;
  }
}

bool is_type_name(std::string_view t) {
  return t == "f32" || t == "f16" || t == "bf16" || t == "f64" || t == "s8" || t == "u8" || t == "s32" ||
         t == "f8_e5m2" || t == "f8_e4m3" || t == "undef";
}

// One memory descriptor: `src_f32::blocked:abcd:f0` (2.x) or `src:f32::blocked:abcd::f0` (3.x).
struct Md {
  std::string type;  // empty: undef (the tensor is absent)
  std::string tag;   // the layout's tag; empty: undef or any
};

std::map<std::string, Md> parse_mds(const std::string& field) {
  std::map<std::string, Md> mds;
  for (const auto& text : split_fields(field, ' ')) {
    std::vector<std::string> parts;
    for (auto& p : split_fields(text, ':'))
      if (!p.empty()) parts.push_back(std::move(p));
    if (parts.empty()) continue;
    std::string name;
    Md md;
    std::size_t rest = 1;
    if (parts.size() > 1 && is_type_name(parts[1])) {
      name = parts[0];
      md.type = parts[1];
      rest = 2;
    } else if (const auto u = parts[0].rfind('_'); u != std::string::npos) {
      name = parts[0].substr(0, u);
      md.type = parts[0].substr(u + 1);
    } else {
      continue;
    }
    if (md.type == "undef") md.type.clear();
    for (std::size_t k = rest; k + 1 < parts.size(); ++k)
      if (parts[k] == "blocked") md.tag = parts[k + 1];
    mds[name] = md;
  }
  return mds;
}

// A layout the primitive chose for itself (aBcd8b: channels in blocks of 8) is not what the
// framework held; its outer dims' order (abcd) is the logical layout the framework's tensor had
// before oneDNN reordered it. A blocked layout whose outer order no framework holds (BAcd16a16b:
// the weights of a backward-data convolution, blocked transposed) came from a plain tensor: the
// identity order then.
std::string plain_order(const std::string& tag) {
  std::string out;
  bool blocked = false;
  for (char c : tag) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      blocked = true;
      break;
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (!blocked || out.size() < 3) return out;
  std::string identity, channels_last;
  for (std::size_t i = 0; i < out.size(); ++i) identity += static_cast<char>('a' + i);
  channels_last = identity.substr(0, 1) + identity.substr(2) + identity.substr(1, 1);  // acdb
  return out == identity || out == channels_last ? out : identity;
}

// The post-ops in benchdnn's spelling: `attr-post-ops:eltwise_relu+binary_add:f32:2+sum` ->
// "relu+add:f32:2+sum" (a binary op's data type and mask of broadcast dims; oneDNN 3.x adds the
// input's tag after the mask, which the graph does not need); empty without post-ops.
std::string post_ops(const std::string& attrs) {
  for (const auto& a : split_fields(attrs, ' ')) {
    if (!a.starts_with("attr-post-ops:")) continue;
    std::string out;
    for (auto op : split_fields(a.substr(14), '+')) {
      if (op.starts_with("eltwise_")) op = op.substr(8);
      if (op.starts_with("binary_")) {
        const auto parts = split_fields(op.substr(7), ':');
        op.clear();
        for (std::size_t k = 0; k < parts.size() && k < 3; ++k) op += (k ? ":" : "") + parts[k];
      }
      out += (out.empty() ? "" : "+") + op;
    }
    return out;
  }
  return "";
}

// `alg:pooling_max`, `flags:CH` of the auxiliary field.
std::string aux_value(const std::string& aux, std::string_view key) {
  for (const auto& a : split_fields(aux, ' '))
    if (a.starts_with(key) && a.size() > key.size() && a[key.size()] == ':') return a.substr(key.size() + 1);
  return "";
}

struct Problem {
  std::string kind, prop, mds, attrs, aux, desc;
  std::size_t first_line = 0;
  std::int64_t executions = 0;
};

bool forward(const std::string& prop) {
  return prop.starts_with("forward");
}

// The benchdnn command line of one problem, or the reason it has none.
struct BenchdnnCommand {
  std::vector<std::string> tokens;
  std::string not_imported;
};

// The descriptor of a role: oneDNN 2.x names a backward primitive's tensors src, wei, dst (and a
// norm's data), 3.x diff_src, diff_wei, diff_dst; the first present of `names` is the role's.
using Names = std::vector<const char*>;

const Md* find_md(const std::map<std::string, Md>& mds, const Names& names) {
  for (const char* n : names)
    if (const auto it = mds.find(n); it != mds.end() && !it->second.type.empty()) return &it->second;
  return nullptr;
}

// --dt=src:wei:dst from each role's type (f32 where the log shows none).
std::string dt_of(const std::map<std::string, Md>& mds, const std::vector<Names>& roles) {
  std::string out;
  for (const auto& role : roles) {
    const Md* md = find_md(mds, role);
    out += (out.empty() ? "" : ":") + (md ? md->type : std::string("f32"));
  }
  return out;
}

// oneDNN's memory descriptors have at most 12 dimensions (DNNL_MAX_NDIMS): a tag with more
// letters is not one, and its plain order would run past 'z' into bytes that are not letters.
constexpr std::size_t kMaxTagDims = 12;

void add_tag(BenchdnnCommand& c, const std::map<std::string, Md>& mds, const Names& role,
             const char* option) {
  const Md* md = find_md(mds, role);
  if (!md || md->tag.empty()) return;
  const auto order = plain_order(md->tag);
  if (order.size() > kMaxTagDims) {
    if (c.not_imported.empty())
      c.not_imported = fmt::format("the {} memory tag has {} dimensions, more than oneDNN's {}", option,
                                   order.size(), kMaxTagDims);
    return;
  }
  c.tokens.push_back(fmt::format("--{}={}", option, order));
}

BenchdnnCommand command_for(const Problem& p) {
  BenchdnnCommand c;
  const auto mds = parse_mds(p.mds);
  const std::string ops = post_ops(p.attrs);
  if (p.kind == "convolution") {
    c.tokens = {"--conv"};
    const Names src = {"diff_src", "src"}, wei = {"diff_wei", "wei"}, dst = {"diff_dst", "dst"};
    if (forward(p.prop)) {
      c.tokens.push_back(find_md(mds, {"bia"}) ? "--dir=FWD_B" : "--dir=FWD_D");
    } else if (p.prop == "backward_data") {
      c.tokens.push_back("--dir=BWD_D");
    } else if (p.prop == "backward_weights") {
      c.tokens.push_back(find_md(mds, {"diff_bia", "bia"}) ? "--dir=BWD_WB" : "--dir=BWD_W");
    } else {
      c.not_imported = fmt::format("convolution propagation kind {} is not imported", p.prop);
      return c;
    }
    c.tokens.push_back("--dt=" + dt_of(mds, {src, wei, dst}));
    add_tag(c, mds, src, "stag");
    add_tag(c, mds, wei, "wtag");
    add_tag(c, mds, dst, "dtag");
  } else if (p.kind == "matmul") {
    c.tokens = {"--matmul", "--dt=" + dt_of(mds, {{"src"}, {"wei"}, {"dst"}})};
    add_tag(c, mds, {"src"}, "stag");
    add_tag(c, mds, {"wei"}, "wtag");
    add_tag(c, mds, {"dst"}, "dtag");
    if (const Md* bias = find_md(mds, {"bia"})) c.tokens.push_back("--bia_dt=" + bias->type);
  } else if (p.kind == "batch_normalization" || p.kind == "layer_normalization") {
    const bool bnorm = p.kind == "batch_normalization";
    c.tokens = {bnorm ? "--bnorm" : "--lnorm"};
    c.tokens.push_back(p.prop == "forward_training" ? "--dir=FWD_D"
                       : forward(p.prop)            ? "--dir=FWD_I"
                       : p.prop == "backward_data"  ? "--dir=BWD_D"
                                                    : "--dir=BWD_DW");
    const Names data = forward(p.prop) ? Names{"src", "data"} : Names{"diff_src", "data", "src"};
    c.tokens.push_back("--dt=" + dt_of(mds, {data}));
    add_tag(c, mds, data, "tag");
    if (const auto flags = aux_value(p.aux, "flags"); !flags.empty()) c.tokens.push_back("--flags=" + flags);
  } else if (p.kind == "pooling" || p.kind == "pooling_v2") {
    c.tokens = {"--pool", p.prop == "forward_training" ? "--dir=FWD_D"
                          : forward(p.prop)            ? "--dir=FWD_I"
                                                       : "--dir=BWD_D"};
    const Names data = forward(p.prop) ? Names{"src"} : Names{"diff_src", "src"};
    c.tokens.push_back("--dt=" + dt_of(mds, {data}));
    add_tag(c, mds, data, "tag");
    if (const auto alg = aux_value(p.aux, "alg"); !alg.empty()) c.tokens.push_back("--alg=" + alg);
  } else {
    c.not_imported =
        fmt::format("oneDNN {} primitives are not imported (the graph format has no node for them)", p.kind);
  }
  if (c.not_imported.empty()) {
    if (!ops.empty()) c.tokens.push_back("--attr-post-ops=" + ops);
    c.tokens.push_back(p.desc);
  }
  return c;
}

class VerboseReader {
 public:
  explicit VerboseReader(std::string file) : file_(std::move(file)) {}

  void line(std::string_view text, std::size_t number) {
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (!is_onednn_verbose_line(text)) return;
    const auto fields = split_fields(text, ',');
    std::size_t exec = 0;
    for (std::size_t k = 1; k < fields.size() && k < 4; ++k)
      if (fields[k] == "exec") exec = k;
    if (exec == 0) return;  // info, create and graph lines: no execution
    if (fields.size() < exec + 1 + kFieldsAfterExec) {
      // A line cut short (a killed process, interleaved writes of two threads).
      result_.not_imported.push_back({fmt::format("{}:{}", file_, number), "verbose",
                                      fmt::format("an execution line with {} of its {} fields after `exec` "
                                                  "(cut short, or two threads' output mixed)",
                                                  fields.size() - exec - 1, kFieldsAfterExec)});
      return;
    }
    const auto& f = fields;
    Problem p{f[exec + 2], f[exec + 4], f[exec + 5], f[exec + 6], f[exec + 7], f[exec + 8], number, 0};
    // The implementation and the time are left out: one problem, whichever kernel ran it.
    const std::string key = fmt::format("{},{},{},{},{},{}", p.kind, p.prop, p.mds, p.attrs, p.aux, p.desc);
    auto [it, added] = index_.try_emplace(key, problems_.size());
    if (added) problems_.push_back(std::move(p));
    ++problems_[it->second].executions;
  }

  ImportResult finish() {
    for (const auto& p : problems_) {
      const std::string source = fmt::format("{}:{}", file_, p.first_line);
      const auto command = command_for(p);
      if (!command.not_imported.empty()) {
        result_.not_imported.push_back({source, p.kind, with_count(command.not_imported, p)});
        continue;
      }
      try {
        auto converted = import_benchdnn_tokens(command.tokens, file_, p.first_line);
        for (auto& g : converted.graphs) {
          g.count = p.executions;
          result_.graphs.push_back(std::move(g));
        }
        for (auto& n : converted.not_imported) {
          n.op = p.kind;
          n.reason = with_count(n.reason, p);
          result_.not_imported.push_back(std::move(n));
        }
      } catch (const InputError& e) {
        result_.not_imported.push_back({source, p.kind, with_count(e.what(), p)});
      }
    }
    return std::move(result_);
  }

 private:
  static std::string with_count(const std::string& reason, const Problem& p) {
    return fmt::format("{} ({} execution{})", reason, p.executions, p.executions == 1 ? "" : "s");
  }

  std::string file_;
  std::vector<Problem> problems_;  // in the order first met
  std::map<std::string, std::size_t> index_;
  ImportResult result_;
};

}  // namespace

bool is_onednn_verbose_line(std::string_view line) {
  return line.starts_with("onednn_verbose,") || line.starts_with("dnnl_verbose,");
}

ImportResult import_onednn_verbose_text(const std::string& text, const std::string& file) {
  VerboseReader reader(file);
  std::size_t number = 0, from = 0;
  while (from <= text.size()) {
    const auto at = text.find('\n', from);
    const auto end = at == std::string::npos ? text.size() : at;
    reader.line(std::string_view(text).substr(from, end - from), ++number);
    if (at == std::string::npos) break;
    from = at + 1;
  }
  return reader.finish();
}

ImportResult import_onednn_verbose_file(const fs::path& path) {
  VerboseReader reader(path.string());
  // A log of gigabytes takes a while: say how far it is, on a terminal only.
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  const auto progress = [&](std::uint64_t bytes) {
    fmt::print(stderr, "\rdnnbench: reading {}: {} MiB", path.string(), bytes >> 20);
  };
  const auto end = for_each_log_line(
      path, [&](std::string_view line, std::size_t number) { reader.line(line, number); },
      terminal ? std::function<void(std::uint64_t)>(progress) : nullptr);
  if (terminal && end.bytes >= (16ull << 20)) fmt::print(stderr, "\n");
  auto result = reader.finish();
  if (!end.problem.empty())
    result.not_imported.push_back(
        {fmt::format("{}:{}", path.string(), end.lines + 1), "log",
         fmt::format("the file ends here: {}; the lines before were imported", end.problem)});
  return result;
}

}  // namespace dnnbench
