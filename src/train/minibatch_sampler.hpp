#pragma once
// Minibatches: the training set is reshuffled every epoch and batches are read off the shuffled
// order (crossing into the next epoch when needed), so every batch is a uniform draw and every
// sample is seen equally often. Its state is part of a checkpoint.
#include <cstdint>
#include <numeric>
#include <vector>

#include "data/rng.hpp"

namespace ufl::train {

class MinibatchSampler {
 public:
  MinibatchSampler(int train_size, std::uint64_t seed)
      : rng_(seed, data::Stream::kMinibatches), order_(train_size) {
    reshuffle();
  }

  int next() {
    if (position_ == order_.size()) reshuffle();
    return order_[position_++];
  }

  // The sampler's state before `draws` more indices, so that an abandoned step can be undone
  // (rewind). The order is copied only when those draws cross into a new epoch, which
  // reshuffles it.
  struct Bookmark {
    data::RngState rng;
    std::uint64_t position;
    std::vector<std::int32_t> order;  // empty when the draws stay within the epoch
  };
  Bookmark bookmark(int draws) const {
    Bookmark mark{rng_.state(), position_, {}};
    if (position_ + std::uint64_t(draws) > order_.size()) mark.order = order_;
    return mark;
  }
  void rewind(Bookmark mark) {
    rng_.restore(mark.rng);
    if (!mark.order.empty()) order_ = std::move(mark.order);
    position_ = mark.position;
  }

  data::RngState rng_state() const { return rng_.state(); }
  const std::vector<std::int32_t>& order() const { return order_; }
  std::uint64_t position() const { return position_; }
  void restore(const data::RngState& state, std::vector<std::int32_t> order,
               std::uint64_t position) {
    rng_.restore(state);
    order_ = std::move(order);
    position_ = position;
  }

 private:
  void reshuffle() {
    std::iota(order_.begin(), order_.end(), 0);
    rng_.shuffle(order_.begin(), order_.end());
    position_ = 0;
  }

  data::Rng rng_;
  std::vector<std::int32_t> order_;
  std::uint64_t position_ = 0;
};

}  // namespace ufl::train
