#pragma once
// A per-sample op that keeps activations from its forward for its backward (the fused kernels):
// its scratch holds every sample's activations; its temporaries are its share of the tape's
// workspace of the sample's group (Tape::group_workspace), which every op of the group uses in
// turn. A group's samples run one after another on one thread, so they reuse the temporaries
// while they are in cache. Its first operand (kBatched) is the batched input: each such op's
// Operand enum names it first.
#include <cstddef>

#include "tape/tape.hpp"

namespace ufl {

template <class T>
struct KeepingOp : Op<T> {
  static constexpr int kBatched = 0;  // the operand whose batch the kept activations span

  virtual std::size_t kept_size() const = 0;         // elements kept per sample
  virtual std::size_t temporaries_size() const = 0;  // elements of temporaries per group

  std::size_t extra_scratch_elements(const Tape<T>& tape) const override {
    return batch(tape) * kept_size();
  }
  std::size_t group_workspace_elements(const Tape<T>&) const override { return temporaries_size(); }
  // Sample b's kept activations.
  T* kept(int b) const { return this->scratch + std::size_t(b) * kept_size(); }
  // The temporaries of sample b's group, valid during one forward or backward call.
  T* temporaries(const Tape<T>& tape, int b) const { return tape.group_workspace(b); }

 private:
  std::size_t batch(const Tape<T>& tape) const {
    return std::size_t(this->shape_of(tape, kBatched).batch);
  }
};

}  // namespace ufl
