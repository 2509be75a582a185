#include "providers/onednn/plan.hpp"

#include <oneapi/dnnl/dnnl_debug.h>

#include <cmath>
#include <stdexcept>

#include "providers/onednn/dnnl_shim.hpp"

namespace dnnbench::onednn {

namespace {

dnnl::stream& dnnl_stream(Stream& stream) {
  auto* host = dynamic_cast<HostStream*>(&stream);
  if (!host) throw std::invalid_argument("oneDNN plans run on a stream made by the oneDNN provider");
  return host->get();
}

DataType from_dnnl(dnnl::memory::data_type type) {
  using dt = dnnl::memory::data_type;
  switch (type) {
    case dt::f32:
      return DataType::f32;
    case dt::f16:
      return DataType::f16;
    case dt::bf16:
      return DataType::bf16;
    case dt::s8:
      return DataType::i8;
    case dt::u8:
      return DataType::u8;
    case dt::s32:
      return DataType::i32;
    default:
      break;
  }
  throw std::logic_error("oneDNN provider: unexpected data type");
}

// Calls fn(from_offset, to_offset) for every element of two plain views of the same dims.
template <class Fn>
void for_each_pair(const dnnl::memory::desc& from, const dnnl::memory::desc& to, Fn&& fn) {
  const auto dims = from.dims();
  const auto fs = plain_strides(from), ts = plain_strides(to);
  std::int64_t total = 1;
  for (auto d : dims) total *= d;
  std::vector<std::int64_t> index(dims.size(), 0);
  for (std::int64_t n = 0; n < total; ++n) {
    std::int64_t fo = 0, to_off = 0;
    for (std::size_t k = 0; k < dims.size(); ++k) fo += index[k] * fs[k], to_off += index[k] * ts[k];
    fn(fo, to_off);
    for (std::size_t k = dims.size(); k-- > 0;)
      if (++index[k] < dims[k])
        break;
      else
        index[k] = 0;
  }
}

// Element-wise host conversion between two plain memories of the same dims.
template <class Op>
void convert(const dnnl::memory& from, const dnnl::memory& to, Op&& op) {
  const auto fmd = from.get_desc(), tmd = to.get_desc();
  const DataType ft = from_dnnl(fmd.data_type()), tt = from_dnnl(tmd.data_type());
  const auto* src = static_cast<const std::byte*>(from.get_data_handle());
  auto* dst = static_cast<std::byte*>(to.get_data_handle());
  const auto fsize = static_cast<std::int64_t>(dtype_size(ft)),
             tsize = static_cast<std::int64_t>(dtype_size(tt));
  for_each_pair(fmd, tmd, [&](std::int64_t fo, std::int64_t too) {
    store_element(tt, dst + too * tsize, op(load_element(ft, src + fo * fsize)));
  });
}

// "aBcd8b" for fp32, "acdb:f16" for other types.
std::string describe(const dnnl::memory::desc& md) {
  const bool f32 = md.data_type() == dnnl::memory::data_type::f32;
  return layout_name(md) + (f32 ? "" : std::string(":") + dnnl_dt2str(md.data.data_type));
}

}  // namespace

HostStream::HostStream() : stream_(cpu_engine()) {}

OneDnnPlan::OneDnnPlan(std::string name, std::vector<ArgSpec> args, PdIterator pd)
    : name_(std::move(name)), args_(std::move(args)), it_(std::move(pd)) {
  primitive_ = dnnl::primitive(pd_);
  const auto scratch_md = pd_.scratchpad_desc();
  scratchpad_bytes_ = scratch_md.get_size();
  if (scratchpad_bytes_ > 0) scratchpad_ = dnnl::memory(scratch_md, cpu_engine());
}

void OneDnnPlan::bind(const Bindings& bindings, Stream& stream) {
  auto& s = dnnl_stream(stream);
  const auto& engine = cpu_engine();
  slots_.clear();
  exec_args_.clear();
  notes_.clear();
  bound_ = false;
  for (const auto& spec : args_) {
    Slot slot;
    slot.spec = spec;
    slot.impl_md = spec.from_attr ? spec.md : pd_.query_md(dnnl::query::exec_arg_md, spec.arg);
    if (slot.impl_md.get_size() == 0) slot.impl_md = spec.md;
    if (spec.transfer != Transfer::discard) slot.user = dnnl::memory(spec.md, engine, bindings.at(spec.uid));
    const bool same = spec.transfer == Transfer::direct && slot.impl_md == spec.md;
    if (!same) slot.internal = dnnl::memory(slot.impl_md, engine);
    switch (spec.transfer) {
      case Transfer::direct:
        if (same) break;
        if (spec.output) {
          slot.back = dnnl::reorder(slot.internal, slot.user);
          notes_.push_back("reorder " + spec.label + " back: " + describe(slot.impl_md) + " -> " +
                           describe(spec.md));
        } else {
          dnnl::reorder(slot.user, slot.internal).execute(s, slot.user, slot.internal);
          notes_.push_back("reorder " + spec.label + ": " + describe(spec.md) + " -> " +
                           describe(slot.impl_md));
        }
        break;
      case Transfer::inv_variance_to_variance:
        convert(slot.user, slot.internal, [](double inv) { return 1.0 / (inv * inv); });
        notes_.push_back("convert inv_variance -> variance (1/x^2) for " + spec.label);
        break;
      case Transfer::variance_to_inv_variance:
        notes_.push_back("convert variance -> inv_variance (1/sqrt(x+eps)) for " + spec.label);
        break;
      case Transfer::discard:
        break;
    }
    exec_args_[spec.arg] = same ? slot.user : slot.internal;
    slots_.push_back(std::move(slot));
  }
  if (scratchpad_bytes_ > 0) exec_args_[DNNL_ARG_SCRATCHPAD] = scratchpad_;
  s.wait();
  bound_ = true;
}

void OneDnnPlan::execute(Stream& stream) {
  if (!bound_) throw std::logic_error("oneDNN plan '" + name_ + "' executed before bind()");
  primitive_.execute(dnnl_stream(stream), exec_args_);
}

void OneDnnPlan::publish_outputs(Stream& stream) {
  if (!bound_) throw std::logic_error("oneDNN plan '" + name_ + "' published before bind()");
  auto& s = dnnl_stream(stream);
  for (auto& slot : slots_)
    if (slot.back) slot.back.execute(s, slot.internal, slot.user);
  s.wait();
  for (auto& slot : slots_)
    if (slot.spec.transfer == Transfer::variance_to_inv_variance) {
      const double eps = slot.spec.epsilon;
      convert(slot.internal, slot.user, [eps](double var) { return 1.0 / std::sqrt(var + eps); });
    }
}

}  // namespace dnnbench::onednn
