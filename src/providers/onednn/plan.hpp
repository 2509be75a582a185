#pragma once
// A built oneDNN plan: one primitive of one implementation, its scratchpad, and the memories
// that carry the user's buffers into the implementation's layouts and back.
#include <oneapi/dnnl/dnnl.hpp>

#include <string>
#include <unordered_map>
#include <vector>

#include "providers/onednn/lowering.hpp"
#include "providers/provider.hpp"

namespace dnnbench::onednn {

class HostStream final : public Stream {
 public:
  HostStream();
  void synchronize() override { stream_.wait(); }
  dnnl::stream& get() { return stream_; }

 private:
  dnnl::stream stream_;
};

class OneDnnPlan final : public Plan {
 public:
  // Creates the primitive: the expensive step (JIT code generation) the caller times as build.
  OneDnnPlan(std::string name, std::vector<ArgSpec> args, PdIterator pd);
  OneDnnPlan(const OneDnnPlan&) = delete;
  OneDnnPlan& operator=(const OneDnnPlan&) = delete;

  std::string name() const override { return name_; }
  std::size_t workspace_bytes() const override { return scratchpad_bytes_; }
  void bind(const Bindings& bindings, Stream& stream) override;
  void execute(Stream& stream) override;
  void publish_outputs(Stream& stream) override;
  std::vector<std::string> notes() const override { return notes_; }

 private:
  struct Slot {
    ArgSpec spec;
    dnnl::memory::desc impl_md;  // what the implementation works on
    dnnl::memory user;           // the user's buffer (empty for discarded outputs)
    dnnl::memory internal;       // the implementation's copy, when it differs from the user's
    dnnl::reorder back;          // internal -> user for reordered outputs
  };

  std::string name_;
  std::vector<ArgSpec> args_;
  PdIterator it_;  // positioned at the plan's implementation
  dnnl::primitive_desc& pd_ = it_.pd;
  dnnl::primitive primitive_;
  std::size_t scratchpad_bytes_ = 0;
  dnnl::memory scratchpad_;
  std::vector<Slot> slots_;
  std::unordered_map<int, dnnl::memory> exec_args_;
  std::vector<std::string> notes_;
  bool bound_ = false;
};

}  // namespace dnnbench::onednn
