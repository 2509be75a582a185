#pragma once
// Index mappers shared by the element-wise and normalising ops: numpy-style broadcasting
// (dims aligned from the right, a dim of 1 repeats) and a split of a tensor's axes into kept
// and reduced ones.
#include <cstdint>
#include <vector>

namespace dnnbench::ref {

// True when a tensor of `from` dims broadcasts to `to` dims: rank(from) <= rank(to) and each of
// from's dims, aligned from the right, equals to's or is 1.
bool broadcastable(const std::vector<std::int64_t>& from, const std::vector<std::int64_t>& to);

// Maps a C-order linear index over `to` dims onto the linear index of the broadcast `from` tensor.
class BroadcastMap {
 public:
  // Throws std::invalid_argument when `from` does not broadcast to `to`.
  BroadcastMap(const std::vector<std::int64_t>& from, const std::vector<std::int64_t>& to);
  std::int64_t operator()(std::int64_t to_index) const;
  // How far the `from` index moves per step of to's last dim: 1, or 0 where it repeats.
  std::int64_t last_stride() const { return strides_.empty() ? 0 : strides_.back(); }
  bool identity() const { return identity_; }

 private:
  std::vector<std::int64_t> to_dims_;
  std::vector<std::int64_t> strides_;  // per `to` dim: from's C-order stride, 0 where broadcast
  bool identity_ = false;
};

// The axes of `dims` split into kept (outer) and reduced (inner) ones. Element (o, i) lies at
// outer_offset(o) + inner_offsets()[i]; o enumerates the kept axes in C order, which is also the
// linear index into the reduced tensor (`dims` with reduced axes set to 1), and i enumerates the
// reduced axes in C order.
class AxisSplit {
 public:
  AxisSplit(const std::vector<std::int64_t>& dims, const std::vector<bool>& reduced);
  std::int64_t outer_count() const { return outer_count_; }
  std::int64_t inner_count() const { return static_cast<std::int64_t>(inner_offsets_.size()); }
  std::int64_t outer_offset(std::int64_t outer) const;
  const std::vector<std::int64_t>& inner_offsets() const { return inner_offsets_; }

 private:
  std::vector<std::int64_t> outer_dims_, outer_strides_;  // kept axes and their strides in `dims`
  std::int64_t outer_count_ = 1;
  std::vector<std::int64_t> inner_offsets_;
};

}  // namespace dnnbench::ref
