#include "reference/broadcast.hpp"

#include <stdexcept>
#include <string>

#include "tensor/dense.hpp"

namespace dnnbench::ref {

bool broadcastable(const std::vector<std::int64_t>& from, const std::vector<std::int64_t>& to) {
  if (from.size() > to.size()) return false;
  const std::size_t lead = to.size() - from.size();
  for (std::size_t k = 0; k < from.size(); ++k)
    if (from[k] != 1 && from[k] != to[lead + k]) return false;
  return true;
}

BroadcastMap::BroadcastMap(const std::vector<std::int64_t>& from, const std::vector<std::int64_t>& to)
    : to_dims_(to), strides_(to.size(), 0) {
  if (!broadcastable(from, to)) throw std::invalid_argument("dims do not broadcast");
  const auto from_strides = c_order_strides(from);
  const std::size_t lead = to.size() - from.size();
  identity_ = product(from) == product(to);
  for (std::size_t k = 0; k < from.size(); ++k)
    if (from[k] != 1) strides_[lead + k] = from_strides[k];
}

std::int64_t BroadcastMap::operator()(std::int64_t to_index) const {
  if (identity_) return to_index;
  std::int64_t from_index = 0;
  for (std::size_t k = to_dims_.size(); k-- > 0;) {
    const std::int64_t extent = to_dims_[k];
    from_index += (to_index % extent) * strides_[k];
    to_index /= extent;
  }
  return from_index;
}

AxisSplit::AxisSplit(const std::vector<std::int64_t>& dims, const std::vector<bool>& reduced) {
  if (reduced.size() != dims.size()) throw std::invalid_argument("axis mask rank differs from dims rank");
  const auto strides = c_order_strides(dims);
  std::vector<std::int64_t> inner_dims, inner_strides;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    if (reduced[k]) {
      inner_dims.push_back(dims[k]);
      inner_strides.push_back(strides[k]);
    } else {
      outer_dims_.push_back(dims[k]);
      outer_strides_.push_back(strides[k]);
      outer_count_ *= dims[k];
    }
  }
  // Offsets of every reduced-axes position, in C order over the reduced axes.
  const std::int64_t inner = product(inner_dims);
  inner_offsets_.resize(static_cast<std::size_t>(inner));
  for (std::int64_t i = 0; i < inner; ++i) {
    std::int64_t rest = i, offset = 0;
    for (std::size_t k = inner_dims.size(); k-- > 0;) {
      offset += (rest % inner_dims[k]) * inner_strides[k];
      rest /= inner_dims[k];
    }
    inner_offsets_[static_cast<std::size_t>(i)] = offset;
  }
}

std::int64_t AxisSplit::outer_offset(std::int64_t outer) const {
  std::int64_t offset = 0;
  for (std::size_t k = outer_dims_.size(); k-- > 0;) {
    offset += (outer % outer_dims_[k]) * outer_strides_[k];
    outer /= outer_dims_[k];
  }
  return offset;
}

}  // namespace dnnbench::ref
