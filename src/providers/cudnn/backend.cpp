#include "providers/cudnn/backend.hpp"

#include <array>

#include "providers/provider.hpp"

namespace dnnbench::cudnn {

std::string last_error() {
  // cuDNN's messages are a few lines; 4 KiB holds any of them.
  std::array<char, 4096> buf{};
  cudnnGetLastErrorString(buf.data(), buf.size());
  std::string text(buf.data());
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

std::string status_message(cudnnStatus_t status, std::string_view what) {
  std::string message = std::string(what) + ": " + cudnnGetErrorString(status) + " (" +
                        std::to_string(static_cast<int>(status)) + ")";
  const std::string reason = last_error();
  if (!reason.empty()) message += ": " + reason;
  return message;
}

void check(cudnnStatus_t status, std::string_view what) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  if (is_not_supported(status)) throw Unsupported(status_message(status, what));
  throw std::runtime_error(status_message(status, what));
}

Descriptor::Descriptor(cudnnBackendDescriptorType_t type) {
  check(cudnnBackendCreateDescriptor(type, &desc_), "creating a backend descriptor");
}

Descriptor::~Descriptor() {
  if (desc_) cudnnBackendDestroyDescriptor(desc_);
}

void Descriptor::finalize(std::string_view what) {
  check(cudnnBackendFinalize(desc_), what);
}

cudnnStatus_t Descriptor::try_finalize() {
  return cudnnBackendFinalize(desc_);
}

void set_raw(const Descriptor& d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
             std::int64_t count, const void* values) {
  check(cudnnBackendSetAttribute(d.get(), name, type, count, values),
        "setting attribute " + std::to_string(static_cast<int>(name)));
}

void set(const Descriptor& d, cudnnBackendAttributeName_t name, const Descriptor& value) {
  cudnnBackendDescriptor_t raw = value.get();
  set_raw(d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &raw);
}

void set(const Descriptor& d, cudnnBackendAttributeName_t name,
         const std::vector<const Descriptor*>& values) {
  std::vector<cudnnBackendDescriptor_t> raw;
  raw.reserve(values.size());
  for (const auto* v : values) raw.push_back(v->get());
  set_raw(d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<std::int64_t>(raw.size()), raw.data());
}

void set_pointers(const Descriptor& d, cudnnBackendAttributeName_t name, std::span<void* const> values) {
  set_raw(d, name, CUDNN_TYPE_VOID_PTR, static_cast<std::int64_t>(values.size()), values.data());
}

std::int64_t count_of(const Descriptor& d, cudnnBackendAttributeName_t name,
                      cudnnBackendAttributeType_t type) {
  std::int64_t count = 0;
  check(cudnnBackendGetAttribute(d.get(), name, type, 0, &count, nullptr),
        "counting attribute " + std::to_string(static_cast<int>(name)));
  return count;
}

template <class T>
std::vector<T> get_all(const Descriptor& d, cudnnBackendAttributeName_t name, std::int64_t max) {
  std::vector<T> values(static_cast<std::size_t>(max));
  std::int64_t returned = 0;
  check(cudnnBackendGetAttribute(d.get(), name, AttrType<T>::value, max, &returned, values.data()),
        "reading attribute " + std::to_string(static_cast<int>(name)));
  values.resize(static_cast<std::size_t>(std::min(returned, max)));
  return values;
}

template std::vector<std::int64_t> get_all(const Descriptor&, cudnnBackendAttributeName_t, std::int64_t);
template std::vector<cudnnBackendKnobType_t> get_all(const Descriptor&, cudnnBackendAttributeName_t,
                                                     std::int64_t);
template std::vector<cudnnBackendNumericalNote_t> get_all(const Descriptor&, cudnnBackendAttributeName_t,
                                                          std::int64_t);
template std::vector<cudnnBackendBehaviorNote_t> get_all(const Descriptor&, cudnnBackendAttributeName_t,
                                                         std::int64_t);

std::vector<Descriptor> get_descriptors(const Descriptor& d, cudnnBackendAttributeName_t name,
                                        cudnnBackendDescriptorType_t type, std::int64_t max) {
  std::vector<Descriptor> owned;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (std::int64_t i = 0; i < max; ++i) {
    owned.emplace_back(type);
    raw.push_back(owned.back().get());
  }
  std::int64_t returned = 0;
  check(cudnnBackendGetAttribute(d.get(), name, CUDNN_TYPE_BACKEND_DESCRIPTOR, max, &returned, raw.data()),
        "reading descriptor attribute " + std::to_string(static_cast<int>(name)));
  owned.resize(static_cast<std::size_t>(std::min(returned, max)));
  return owned;
}

Handle::Handle() {
  check(cudnnCreate(&handle_), "cudnnCreate");
}

Handle::~Handle() {
  if (handle_) cudnnDestroy(handle_);
}

}  // namespace dnnbench::cudnn
