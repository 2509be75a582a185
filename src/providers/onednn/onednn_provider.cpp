// The oneDNN provider. Engines are the implementations oneDNN's primitive-descriptor iterator
// lists for the graph's primitive (library order: the first is the library's pick); the one
// knob is `layout` (the implementation's preferred layouts, or the user's own strides).
#include "providers/onednn/onednn_provider.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include "providers/onednn/dnnl_shim.hpp"
#include "providers/onednn/lowering.hpp"
#include "providers/onednn/plan.hpp"

namespace dnnbench {

namespace onednn {
namespace {

constexpr std::string_view kLayoutKnob = "layout";

// One implementation, found by walking the iterator under each value of the layout knob.
struct Candidate {
  std::string id;
  std::string layouts;  // note: the layouts it runs on where first found
  // The layout values that reach it, in knob order, each with the layouts it then runs on.
  std::vector<std::pair<Layout, std::string>> reached;
};

// Calls visit(id, pd) per implementation in library order until it returns false; a name
// seen before gets "#2", "#3", ... Returns whether a visit stopped the walk.
bool walk_impls(dnnl::primitive_desc& pd, const std::function<bool(const std::string&)>& visit) {
  if (!pd) return false;
  std::map<std::string, int> seen;
  do {
    const std::string name = pd.impl_info_str();
    const int n = ++seen[name];
    if (!visit(n == 1 ? name : name + "#" + std::to_string(n))) return true;
  } while (pd.next_impl());
  return false;
}

dnnl::memory::desc impl_md(const dnnl::primitive_desc& pd, const ArgSpec& arg) {
  if (arg.from_attr) return arg.md;
  auto md = pd.query_md(dnnl::query::exec_arg_md, arg.arg);
  return md.get_size() == 0 ? arg.md : md;
}

std::string layouts_note(const dnnl::primitive_desc& pd, const Lowered& low) {
  std::string text;
  for (const auto& arg : low.args)
    if (arg.show_layout) text += (text.empty() ? "" : ", ") + arg.label + "=" + layout_name(impl_md(pd, arg));
  return "layouts: " + text;
}

// What the implementation runs on under one layout value, to tell plans apart.
std::string signature(const dnnl::primitive_desc& pd, const Lowered& low) {
  std::string text;
  for (const auto& arg : low.args) text += arg.label + "=" + layout_name(impl_md(pd, arg)) + ";";
  return text;
}

std::vector<Candidate> enumerate(const Lowered& low) {
  std::vector<Candidate> found;
  // Without a layout knob every value gives the same descriptor: walk it once, as `any`.
  const std::vector<Layout> layouts = low.layout_knob
                                          ? std::vector<Layout>(std::begin(kLayouts), std::end(kLayouts))
                                          : std::vector<Layout>{Layout::any};
  for (const Layout layout : layouts) {
    auto it = low.make_pd(layout, low.attr);
    walk_impls(it.pd, [&](const std::string& id) {
      auto c = std::find_if(found.begin(), found.end(), [&](const Candidate& k) { return k.id == id; });
      if (c == found.end()) {
        Candidate fresh;
        fresh.id = id;
        fresh.layouts = layouts_note(it.pd, low);
        found.push_back(std::move(fresh));
        c = found.end() - 1;
      }
      c->reached.emplace_back(layout, signature(it.pd, low));
      return true;
    });
  }
  return found;
}

std::vector<Candidate> enumerate_or_throw(const Lowered& low) {
  auto found = translate_errors("enumerating implementations", [&] { return enumerate(low); });
  if (found.empty())
    throw Unsupported("oneDNN has no implementation of " + low.primitive +
                      " for this graph (its data types, layouts, shapes or fused post-ops)");
  return found;
}

const Candidate* find_candidate(const std::vector<Candidate>& found, const std::string& id) {
  for (const auto& c : found)
    if (c.id == id) return &c;
  return nullptr;
}

PlanSpec spec_for(const std::string& id, Layout layout) {
  return PlanSpec{id, {Knob{std::string(kLayoutKnob), std::string(layout_value(layout))}}};
}

Layout requested_layout(const PlanSpec& spec) {
  Layout layout = Layout::any;
  for (const auto& knob : spec.knobs) {
    if (knob.name != kLayoutKnob) throw Unsupported("oneDNN plans have no knob '" + knob.name + "'");
    const auto* match = std::find_if(std::begin(kLayouts), std::end(kLayouts),
                                     [&](Layout l) { return layout_value(l) == knob.value; });
    if (match == std::end(kLayouts))
      throw Unsupported("knob layout takes any, plain_data or plain, not '" + knob.value + "'");
    layout = *match;
  }
  return layout;
}

class OneDnnProvider final : public Provider {
 public:
  std::string_view name() const override { return "onednn"; }
  DeviceKind device() const override { return DeviceKind::host; }
  std::string version() const override { return library_version(); }
  std::unique_ptr<Stream> make_stream() override { return std::make_unique<HostStream>(); }

  std::vector<EngineInfo> engines(const Graph& graph) override {
    const Lowered low = lower_graph(graph);
    std::vector<EngineInfo> engines;
    for (const auto& c : enumerate_or_throw(low)) {
      EngineInfo info{c.id, c.id, {c.layouts}};
      if (c.id.rfind("ref:", 0) == 0) info.notes.push_back("reference implementation");
      if (c.reached.front().first != Layout::any)
        info.notes.push_back("reached only with layout=" +
                             std::string(layout_value(c.reached.front().first)));
      engines.push_back(std::move(info));
    }
    return engines;
  }

  PlanSpec heuristic_plan(const Graph& graph, const EngineInfo& engine) override {
    const auto found = enumerate_or_throw(lower_graph(graph));
    const Candidate* c = find_candidate(found, engine.id);
    return spec_for(engine.id, c ? c->reached.front().first : Layout::any);
  }

  // The heuristic plan, then each other layout value under which the implementation runs on
  // different layouts (a value that changes nothing is not a separate plan).
  std::vector<PlanSpec> plan_space(const Graph& graph, const EngineInfo& engine,
                                   const SweepLimits& limits) override {
    const auto found = enumerate_or_throw(lower_graph(graph));
    const Candidate* c = find_candidate(found, engine.id);
    if (!c) throw Unsupported("oneDNN lists no implementation '" + engine.id + "' for this graph");
    std::vector<PlanSpec> plans;
    std::vector<std::string> seen;
    for (const auto& [layout, sig] : c->reached) {
      const auto same = std::find(seen.begin(), seen.end(), sig);
      if (same == seen.end()) {
        seen.push_back(sig);
        plans.push_back(spec_for(engine.id, layout));
      } else if (layout == Layout::plain && same != seen.begin()) {
        // plain_data that changed nothing beyond plain is plain: name it so.
        plans[static_cast<std::size_t>(same - seen.begin())] = spec_for(engine.id, layout);
      }
    }
    if (limits.max_plans > 0 && plans.size() > static_cast<std::size_t>(limits.max_plans))
      plans.resize(static_cast<std::size_t>(limits.max_plans));
    return plans;
  }

  std::unique_ptr<Plan> build(const Graph& graph, const PlanSpec& spec) override {
    const Layout layout = requested_layout(spec);
    const Lowered low = lower_graph(graph);
    return translate_errors("building " + spec.name(), [&]() -> std::unique_ptr<Plan> {
      auto it = low.make_pd(layout, low.attr);
      // Never run another implementation than the one requested.
      if (!walk_impls(it.pd, [&](const std::string& id) { return id != spec.engine_id; }))
        throw Unsupported("implementation " + spec.engine_id + " is not available for layout " +
                          std::string(layout_value(layout)));
      return std::make_unique<OneDnnPlan>(spec.name(), low.args, std::move(it));
    });
  }
};

}  // namespace
}  // namespace onednn

std::unique_ptr<Provider> make_onednn_provider() {
  return std::make_unique<onednn::OneDnnProvider>();
}

}  // namespace dnnbench
