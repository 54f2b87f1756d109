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
