#pragma once
// One head of a transformer block whose M is built from scores (the universal and attention
// mixers; docs/transformer.md §3, §8), for one sample, as the fused heads kernel
// (model/modules/heads_kernel.hpp) runs it:
//   S = Q·Kᵀ                        the head's scales (Σ, 1/√r) are folded into Q beforehand;
//                                   the distance form (model/mixers/distance.hpp) subtracts
//                                   ½‖Q_i‖² + ½‖K_j‖², so that S_ij = −½‖Q_i − K_j‖²
//   P = softmax over j ≤ i of S_i·   (causal; over every j otherwise)
//   M = (1−γ)·A + γ·P               gated (universal); attention is P alone (γ = 1)
//   out = M·V
// with the linear branch A = S, or when causal A = D·(L⊙S), L the causal mask and D the row
// weights 1/(i + 1) (the mean over the positions row i reads; docs/transformer.md §10); and its
// backward from dOut:
//   dM = dOut·Vᵀ,  dV = Mᵀ·dOut,  dγ = Σ dM⊙(P − A),
//   dS = γ·P⊙(dM − Σ_j dM_ij P_ij) + (1−γ)·D·(L⊙dM),  dQ = dS·K,  dK = dSᵀ·Q,
// and for the distance form dQ_i −= R_i·Q_i, dK_j −= C_j·K_j with R_i = Σ_j dS_ij, C_j = Σ_i dS_ij.
// The rows of the exponentials are computed with Eigen's vectorised exp. The composite graph of
// the mixer (universal.hpp, attention.hpp) is the reference these are tested against.
#include <cmath>

#include "tensor/causal_product.hpp"
#include "tensor/small_gemm.hpp"
#include "tensor/tensor.hpp"

namespace ufl::model {

template <class T>
using StridedMap = Eigen::Map<RowMatrix<T>, 0, Eigen::OuterStride<>>;
template <class T>
using ConstStridedMap = Eigen::Map<const RowMatrix<T>, 0, Eigen::OuterStride<>>;

struct ScoreHeadShape {
  int n = 0, rank = 0, values = 0;  // positions, columns of Q and K, columns of V
  bool causal = false;
  bool gated = false;     // M = (1−γ)·A + γ·P; else M = P
  bool distance = false;  // S = Q·Kᵀ − ½‖Q_i‖² − ½‖K_j‖²; else S = Q·Kᵀ
  // Kept per sample: P, and the linear branch A when gated.
  std::size_t kept_size() const { return std::size_t(gated ? 2 : 1) * n * n; }
  // Temporaries: Kᵀ or Vᵀ (max(r, values)×n), M or dM (n×n), dS (n×n), dQ, dK (n×r), dV.
  std::size_t temporaries_size() const {
    const std::size_t wide = std::size_t(std::max(rank, values));
    return wide * n + 2 * std::size_t(n) * n + 2 * std::size_t(n) * rank + std::size_t(n) * values;
  }
};

template <class T>
struct ScoreHeadForward {
  ConstStridedMap<T> queries, keys, values;  // n×r, n×r, n×values (columns of the projections)
  T gamma;                                   // read when gated
  T* kept;                                   // kept_size() elements
  StridedMap<T> out;                         // n×values (the head's columns of the output)
  T* temporaries;
};

template <class T>
struct ScoreHeadBackward {
  ConstStridedMap<T> queries, keys, values;
  T gamma;
  const T* kept;
  ConstStridedMap<T> d_out;
  // Written (not added to): the gradients of Q, K and V; may be the columns Q, K, V came from.
  StridedMap<T> d_queries, d_keys, d_values;
  T* d_gamma;  // added to; nullptr when not gated
  T* temporaries;
};

// The row softmax of S over j ≤ i (causal) or every j, into P; entries above the diagonal of a
// causal P are 0.
template <class T>
void score_softmax(const T* s, T* p, int n, bool causal) {
  for (int i = 0; i < n; ++i) {
    const int length = causal ? i + 1 : n;
    Eigen::Map<const Eigen::Array<T, 1, Eigen::Dynamic>> in(s + std::size_t(i) * n, length);
    Eigen::Map<Eigen::Array<T, 1, Eigen::Dynamic>> out(p + std::size_t(i) * n, length);
    out = (in - in.maxCoeff()).exp();
    out *= T(1) / out.sum();
    for (int j = length; j < n; ++j) p[std::size_t(i) * n + j] = T(0);
  }
}

// The products of a head: over the lower triangle only when causal (tensor/causal_product.hpp).
template <class T>
struct HeadProducts {
  int n;
  bool causal;
  // C (n×n) = A·Bᵀ, Bᵀ given (inner×n).
  template <class A, class C>
  void scores(const A& a, const ConstMatrixMap<T>& bt, C&& c) const {
    if (causal)
      causal_scores<T>(a.data(), a.outerStride(), bt.data(), bt.outerStride(), c.data(), n,
                       int(a.cols()));
    else
      multiply(c, a, bt);
  }
  // C = M·B and C = Mᵀ·B, M n×n (zero above its diagonal when causal).
  template <class B, class C>
  void mix(const ConstMatrixMap<T>& m, const B& b, C&& c) const {
    if (causal)
      causal_mix<T>(m.data(), b.data(), b.outerStride(), c.data(), c.outerStride(), n,
                    int(c.cols()));
    else
      multiply(c, m, b);
  }
  template <class B, class C>
  void mix_transposed(const ConstMatrixMap<T>& m, const B& b, C&& c) const {
    if (causal)
      causal_mix_transposed<T>(m.data(), b.data(), b.outerStride(), c.data(), c.outerStride(), n,
                               int(c.cols()));
    else
      multiply_at(c, m, b);
  }
};

template <class T>
void score_head_forward(const ScoreHeadShape& shape, const ScoreHeadForward<T>& v) {
  const int n = shape.n;
  const HeadProducts<T> products{n, shape.causal};
  MatrixMap<T> probabilities(v.kept, n, n);
  MatrixMap<T> keys_transposed(v.temporaries, shape.rank, n);
  keys_transposed = v.keys.transpose();
  // S into P's buffer (attention) or the kept A (gated); P from it.
  MatrixMap<T> scores(shape.gated ? v.kept + std::size_t(n) * n : v.kept, n, n);
  products.scores(v.queries, ConstMatrixMap<T>(keys_transposed.data(), shape.rank, n), scores);
  if (shape.distance) {
    // −½‖K_j‖² into memory the forward does not otherwise use (after M's), then every row.
    T* key_terms =
        v.temporaries + std::size_t(std::max(shape.rank, shape.values)) * n + std::size_t(n) * n;
    for (int j = 0; j < n; ++j) key_terms[j] = T(-0.5) * v.keys.row(j).squaredNorm();
    for (int i = 0; i < n; ++i) {
      const int length = shape.causal ? i + 1 : n;
      const T query_term = T(-0.5) * v.queries.row(i).squaredNorm();
      scores.row(i).head(length).array() +=
          query_term + Eigen::Map<const Eigen::Array<T, 1, Eigen::Dynamic>>(key_terms, length);
    }
  }
  score_softmax(scores.data(), probabilities.data(), n, shape.causal);
  StridedMap<T> out(v.out);
  if (!shape.gated) {
    products.mix(ConstMatrixMap<T>(probabilities.data(), n, n), v.values, out);
    return;
  }
  if (shape.causal)
    for (int i = 0; i < n; ++i) {
      scores.row(i).head(i + 1) *= T(1) / T(i + 1);
      scores.row(i).tail(n - 1 - i).setZero();
    }
  MatrixMap<T> mixer(v.temporaries + std::size_t(std::max(shape.rank, shape.values)) * n, n, n);
  mixer = (T(1) - v.gamma) * scores + v.gamma * probabilities;
  products.mix(ConstMatrixMap<T>(mixer.data(), n, n), v.values, out);
}

template <class T>
void score_head_backward(const ScoreHeadShape& shape, const ScoreHeadBackward<T>& v) {
  const int n = shape.n, r = shape.rank;
  const HeadProducts<T> products{n, shape.causal};
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

  // dV = Mᵀ·dOut; dM = dOut·Vᵀ (into d_scores; when causal only j ≤ i is meaningful).
  if (shape.gated) {
    mixer = (T(1) - v.gamma) * scores + v.gamma * probabilities;
    products.mix_transposed(ConstMatrixMap<T>(mixer.data(), n, n), v.d_out, d_values);
  } else {
    products.mix_transposed(probabilities, v.d_out, d_values);
  }
  MatrixMap<T> values_transposed(transposed.data(), shape.values, n);
  values_transposed = v.values.transpose();
  products.scores(v.d_out, ConstMatrixMap<T>(values_transposed.data(), shape.values, n), d_scores);
  // dγ, and dS in place of dM, row by row over j ≤ i (causal) or every j.
  const T gate = shape.gated ? v.gamma : T(1);
  T d_gamma = 0;
  for (int i = 0; i < n; ++i) {
    const int length = shape.causal ? i + 1 : n;
    auto d_row = d_scores.row(i).head(length).array();
    const auto p_row = probabilities.row(i).head(length).array();
    if (shape.gated) d_gamma += (d_row * (p_row - scores.row(i).head(length).array())).sum();
    const T inner = (d_row * p_row).sum();
    const T linear = shape.causal ? (T(1) - gate) / T(i + 1) : T(1) - gate;
    d_row = gate * p_row * (d_row - inner) + linear * d_row;
    d_scores.row(i).tail(n - length).setZero();
  }
  if (v.d_gamma != nullptr) *v.d_gamma += d_gamma;
  // dQ = dS·K, dK = dSᵀ·Q.
  const ConstMatrixMap<T> d_s(d_scores.data(), n, n);
  products.mix(d_s, v.keys, d_queries);
  products.mix_transposed(d_s, v.queries, d_keys);
  if (shape.distance) {
    // The column sums C in Vᵀ's memory, free now; the row sums R row by row.
    Eigen::Map<Eigen::Array<T, 1, Eigen::Dynamic>> column_sums(transposed.data(), n);
    column_sums.setZero();
    for (int i = 0; i < n; ++i) {
      column_sums += d_s.row(i).array();
      d_queries.row(i) -= d_s.row(i).sum() * v.queries.row(i);
    }
    for (int j = 0; j < n; ++j) d_keys.row(j) -= column_sums[j] * v.keys.row(j);
  }
  StridedMap<T>(v.d_queries) = d_queries;
  StridedMap<T>(v.d_keys) = d_keys;
  StridedMap<T>(v.d_values) = d_values;
}

}  // namespace ufl::model
