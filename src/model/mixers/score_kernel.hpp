#pragma once
// The score kernel: the fused computation of one transformer head whose M is built from scores
// (the universal, attention and distance mixers; docs/transformer.md §3, §8), for one sample, as
// the fused heads kernel (model/modules/heads_kernel.hpp) runs it: S = f(Q, K) by the head's score
// function, Q·Kᵀ for most (the head's scales, Σ and 1/√r, are folded into Q and K beforehand),
// then the score core (score_core.hpp): P, M = (1−γ)·A + γ·P or P alone, out = M·V, and the
// backward. The composite graph of the mixer (universal.hpp, attention.hpp) is the reference
// these are tested against.
#include <algorithm>

#include "model/mixers/score_core.hpp"

namespace ufl::model {

struct ScoreKernelShape {
  int n = 0, rank = 0, values = 0;  // positions, columns of Q and K, columns of V
  bool causal = false;
  bool gated = false;                             // M = (1−γ)·A + γ·P; else M = P
  const ScoreFunction* function = &dot_scores();  // S from Q and K, without a metric
  ScoreCoreShape core() const { return {n, causal, gated}; }
  // Kept per sample: P, and the linear branch A when gated.
  std::size_t kept_size() const { return std::size_t(gated ? 2 : 1) * n * n; }
  // Temporaries: Kᵀ or Vᵀ (max(r, values)×n), M or dM (n×n), dS (n×n), dQ, dK (n×r), dV, then
  // the score function's backward scratch; its forward scratch from the start.
  std::size_t backward_scratch_offset() const {
    const std::size_t wide = std::size_t(std::max(rank, values));
    return wide * n + 2 * std::size_t(n) * n + 2 * std::size_t(n) * rank + std::size_t(n) * values;
  }
  std::size_t temporaries_size() const {
    return std::max(backward_scratch_offset() + function->backward_scratch(n, rank, false),
                    function->forward_scratch(n, rank, false));
  }
};

template <class T>
struct ScoreKernelForward {
  ConstStridedMap<T> queries, keys, values;  // n×r, n×r, n×values (columns of the projections)
  T gamma;                                   // read when gated
  T* kept;                                   // kept_size() elements
  StridedMap<T> out;                         // n×values (the head's columns of the output)
  T* temporaries;
};

template <class T>
struct ScoreKernelBackward {
  ConstStridedMap<T> queries, keys, values;
  T gamma;
  const T* kept;
  ConstStridedMap<T> d_out;
  // Written (not added to): the gradients of Q, K and V; may be the columns Q, K, V came from.
  StridedMap<T> d_queries, d_keys, d_values;
  T* d_gamma;  // added to; nullptr when not gated
  T* temporaries;
};

// The heads' order of the gate's backward sums (score_core.hpp).
inline constexpr GateBackwardOrder kHeadGateOrder{false, false};

template <class T>
void score_kernel_forward(const ScoreKernelShape& shape, const ScoreKernelForward<T>& v) {
  const int n = shape.n;
  // S into P's buffer (attention) or the kept A (gated); P from it.
  MatrixMap<T> probabilities(v.kept, n, n);
  MatrixMap<T> scores(shape.gated ? v.kept + std::size_t(n) * n : v.kept, n, n);
  shape.function->forward(
      ScoreOperands<T>{v.queries, v.keys, nullptr, {n, shape.causal}, v.temporaries}, scores);
  MatrixMap<T> mixer(v.temporaries + std::size_t(std::max(shape.rank, shape.values)) * n, n, n);
  score_core_forward<T>(shape.core(), scores, probabilities, mixer, v.gamma, v.values, v.out);
}

template <class T>
void score_kernel_backward(const ScoreKernelShape& shape, const ScoreKernelBackward<T>& v) {
  const int n = shape.n, r = shape.rank;
  const ConstMatrixMap<T> probabilities(v.kept, n, n);
  const ConstMatrixMap<T> scores(shape.gated ? v.kept + std::size_t(n) * n : v.kept, n, n);
  T* at = v.temporaries;
  auto take = [&at](Eigen::Index rows, Eigen::Index cols) {
    MatrixMap<T> block(at, rows, cols);
    at += std::size_t(rows) * cols;
    return block;
  };
  MatrixMap<T> transposed = take(std::max(r, shape.values), n);  // Vᵀ
  MatrixMap<T> mixer = take(n, n), d_scores = take(n, n);
  MatrixMap<T> d_queries = take(n, r), d_keys = take(n, r), d_values = take(n, shape.values);

  score_core_backward<T>(shape.core(), kHeadGateOrder,
                         {scores, probabilities, v.gamma, v.values, v.d_out,
                          MatrixMap<T>(transposed.data(), shape.values, n), mixer, d_scores,
                          d_scores, d_values.data(), false, v.d_gamma});
  // dQ and dK from dS.
  shape.function->backward(ScoreOperands<T>{v.queries, v.keys, nullptr, {n, shape.causal}, at},
                           read_only(d_scores), d_queries, d_keys, nullptr);
  StridedMap<T>(v.d_queries) = d_queries;
  StridedMap<T>(v.d_keys) = d_keys;
  StridedMap<T>(v.d_values) = d_values;
}

}  // namespace ufl::model
