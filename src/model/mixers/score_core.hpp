#pragma once
// The score core: what every fused kernel whose M is built from scores shares — the universal
// layer's dense and structured kernels (universal.hpp, universal_structured.hpp) and the heads of
// a transformer block (score_kernel.hpp) — written once (docs/experiment.md §2, docs/transformer.md
// §8):
//   S = f(L, R)                     a score function of two n×r factors (ScoreFunction below)
//   P = softmax over j ≤ i of S_i·   (causal; over every j otherwise): softmax_row, the one
//                                   vectorised row softmax of the kernels
//   M = (1−γ)·A + γ·P               gated; M = P without a gate
//   out = M·V
// with the linear branch A = S, or when causal A = D·(L⊙S), L the causal mask and D the row
// weights 1/(i + 1) (docs/universal_head.md §1). Its backward from dOut:
//   dV = Mᵀ·dOut,  dM = dOut·Vᵀ,  dγ = Σ dM⊙(P − A),
//   dS = γ·P⊙(dM − Σ_j dM_ij P_ij) + (1−γ)·D·(L⊙dM),
// then the score function's backward from dS. The products run over the lower triangle only when
// causal (tensor/causal_product.hpp).
//
// A score function makes S from the rows of L and R, with a metric σ (r weights, the universal
// layer's Σ) or without one (a transformer head folds its scales into Q and K beforehand): the
// bilinear form S = L·diag(σ)·Rᵀ (dot_scores below) or any other (the distance mixer's negative
// squared distance, model/mixers/distance.hpp). The kernels take it as an object, so a score mixer
// that is not Q·Kᵀ defines its function in its own file and runs on every fused kernel but the
// structured one, which expands the bilinear form.
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "tape/ops.hpp"
#include "tensor/causal_product.hpp"
#include "tensor/small_gemm.hpp"
#include "tensor/tensor.hpp"

namespace ufl::model {

template <class T>
using StridedMap = Eigen::Map<RowMatrix<T>, 0, Eigen::OuterStride<>>;
template <class T>
using ConstStridedMap = Eigen::Map<const RowMatrix<T>, 0, Eigen::OuterStride<>>;

// A row-major matrix, map or block of one as a strided map, to read or to write.
template <class Matrix>
auto strided(const Matrix& m) {
  using T = typename Matrix::Scalar;
  return ConstStridedMap<T>(m.data(), m.rows(), m.cols(), Eigen::OuterStride<>(m.outerStride()));
}
template <class T>
StridedMap<T> strided_out(MatrixMap<T> m) {
  return StridedMap<T>(m.data(), m.rows(), m.cols(), Eigen::OuterStride<>(m.outerStride()));
}

// The products of the core: over the lower triangle only when causal.
template <class T>
struct ScoreProducts {
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
  // C = M·B and C (+)= Mᵀ·B, M n×n (zero above its diagonal when causal; C is then written,
  // never added to).
  template <class B, class C>
  void mix(const ConstMatrixMap<T>& m, const B& b, C&& c) const {
    if (causal)
      causal_mix<T>(m.data(), b.data(), b.outerStride(), c.data(), c.outerStride(), n,
                    int(c.cols()));
    else
      multiply(c, m, b);
  }
  template <class B, class C>
  void mix_transposed(const ConstMatrixMap<T>& m, const B& b, C&& c,
                      bool accumulate = false) const {
    if (causal)
      causal_mix_transposed<T>(m.data(), b.data(), b.outerStride(), c.data(), c.outerStride(), n,
                               int(c.cols()));
    else
      multiply_at(c, m, b, accumulate);
  }
};

// P = softmax(S) over one row of `length` entries, the row maximum subtracted so that large
// logits stay finite; `p` may be `s`.
template <class T>
void softmax_row(const T* s, T* p, int length) {
  Eigen::Map<const Eigen::Array<T, 1, Eigen::Dynamic>> in(s, length);
  Eigen::Map<Eigen::Array<T, 1, Eigen::Dynamic>> out(p, length);
  out = (in - in.maxCoeff()).exp();
  out *= T(1) / out.sum();
}

// ---- score functions ---------------------------------------------------------------------------

// One sample's operands of a score function: S (n×n) from the rows of L and R (n×r each).
template <class T>
struct ScoreOperands {
  ConstStridedMap<T> left, right;
  const T* metric;  // σ (r weights), or nullptr: none
  ScoreProducts<T> products;
  T* scratch;  // forward_scratch or backward_scratch elements
};

// How S is made from L, R and σ, with its backward and its composite graph. An object the
// kernels call per sample; one instance per function (dot_scores(), negative_distance_scores()).
class ScoreFunction {
 public:
  virtual ~ScoreFunction() = default;
  virtual std::string_view name() const = 0;
  // S = L·diag(σ)·Rᵀ, which the structured kernel expands (universal_structured.hpp).
  virtual bool bilinear() const { return false; }
  // Elements of scratch the forward and the backward use, for n positions and rank r.
  virtual std::size_t forward_scratch(int n, int r, bool metric) const = 0;
  virtual std::size_t backward_scratch(int n, int r, bool metric) const = 0;
  // S from the operands into `scores` (when causal only j ≤ i need be right).
  virtual void forward(const ScoreOperands<float>& in, MatrixMap<float> scores) const = 0;
  virtual void forward(const ScoreOperands<double>& in, MatrixMap<double> scores) const = 0;
  // From dS: dL and dR written, dσ added to (nullptr: not needed; only with a metric).
  virtual void backward(const ScoreOperands<float>& in, ConstMatrixMap<float> d_scores,
                        MatrixMap<float> d_left, MatrixMap<float> d_right,
                        float* d_metric) const = 0;
  virtual void backward(const ScoreOperands<double>& in, ConstMatrixMap<double> d_scores,
                        MatrixMap<double> d_left, MatrixMap<double> d_right,
                        double* d_metric) const = 0;
  // S op by op on the tape from U, V [B, n, r] and σ [1, 1, r]: the composite graph.
  virtual Var record(Tape<float>& tape, Var u, Var v, Var sigma, const std::string& name) const = 0;
  virtual Var record(Tape<double>& tape, Var u, Var v, Var sigma,
                     const std::string& name) const = 0;
};

// A ScoreFunction from a class with template members forward<T>, backward<T> and record<T>.
template <class Function>
class ScoreFunctionOf : public ScoreFunction {
 public:
  void forward(const ScoreOperands<float>& in, MatrixMap<float> scores) const override {
    self().forward(in, scores);
  }
  void forward(const ScoreOperands<double>& in, MatrixMap<double> scores) const override {
    self().forward(in, scores);
  }
  void backward(const ScoreOperands<float>& in, ConstMatrixMap<float> d_scores,
                MatrixMap<float> d_left, MatrixMap<float> d_right, float* d_metric) const override {
    self().backward(in, d_scores, d_left, d_right, d_metric);
  }
  void backward(const ScoreOperands<double>& in, ConstMatrixMap<double> d_scores,
                MatrixMap<double> d_left, MatrixMap<double> d_right,
                double* d_metric) const override {
    self().backward(in, d_scores, d_left, d_right, d_metric);
  }
  Var record(Tape<float>& tape, Var u, Var v, Var sigma, const std::string& name) const override {
    return self().record(tape, u, v, sigma, name);
  }
  Var record(Tape<double>& tape, Var u, Var v, Var sigma, const std::string& name) const override {
    return self().record(tape, u, v, sigma, name);
  }

 private:
  const Function& self() const { return static_cast<const Function&>(*this); }
};

// The bilinear form S = L·diag(σ)·Rᵀ (S = Q·Kᵀ without a metric). Backward, with LΣ = L·diag(σ):
// dR = dSᵀ·LΣ, dσ = column sums of (dS·R)⊙L, dL = (dS·R)·diag(σ).
class DotScores : public ScoreFunctionOf<DotScores> {
 public:
  std::string_view name() const override { return "dot"; }
  bool bilinear() const override { return true; }
  // LΣ (n×r, with a metric) and Rᵀ (r×n); backward LΣ.
  std::size_t forward_scratch(int n, int r, bool metric) const override {
    return std::size_t(metric ? 2 : 1) * n * r;
  }
  std::size_t backward_scratch(int n, int r, bool metric) const override {
    return metric ? std::size_t(n) * r : 0;
  }

  // LΣ into the scratch (with a metric) and Rᵀ after it; S = (LΣ)·Rᵀ. Returns LΣ (or L).
  template <class T>
  static void product(const ScoreOperands<T>& in, MatrixMap<T> scores) {
    const Eigen::Index n = in.left.rows(), r = in.left.cols();
    T* at = in.scratch;
    if (in.metric != nullptr) {
      MatrixMap<T> left_metric(at, n, r);
      at += n * r;
      const Eigen::Map<const Eigen::Array<T, 1, Eigen::Dynamic>> sigma_row(in.metric, r);
      left_metric.array() = in.left.array().rowwise() * sigma_row;
    }
    MatrixMap<T> right_transposed(at, r, n);
    right_transposed = in.right.transpose();
    const ConstMatrixMap<T> bt(right_transposed.data(), r, n);
    if (in.metric != nullptr)
      in.products.scores(ConstMatrixMap<T>(in.scratch, n, r), bt, scores);
    else
      in.products.scores(in.left, bt, scores);
  }
  template <class T>
  void forward(const ScoreOperands<T>& in, MatrixMap<T> scores) const {
    product(in, scores);
  }

  // dL = dS·R and dR = dSᵀ·(LΣ) (LΣ into the scratch); with a metric, `scaled_left` then scales
  // dL by σ and adds dσ. Shared with the distance form, which adds its norms' terms between.
  template <class T>
  static void product_backward(const ScoreOperands<T>& in, ConstMatrixMap<T> d_scores,
                               MatrixMap<T> d_left, MatrixMap<T> d_right) {
    const Eigen::Index n = in.left.rows(), r = in.left.cols();
    in.products.mix(d_scores, in.right, d_left);
    if (in.metric == nullptr) {
      in.products.mix_transposed(d_scores, in.left, d_right);
      return;
    }
    MatrixMap<T> left_metric(in.scratch, n, r);
    const Eigen::Map<const Eigen::Array<T, 1, Eigen::Dynamic>> sigma_row(in.metric, r);
    left_metric.array() = in.left.array().rowwise() * sigma_row;
    in.products.mix_transposed(d_scores, left_metric, d_right);
  }
  template <class T>
  void backward(const ScoreOperands<T>& in, ConstMatrixMap<T> d_scores, MatrixMap<T> d_left,
                MatrixMap<T> d_right, T* d_metric) const {
    product_backward(in, d_scores, d_left, d_right);
    if (in.metric == nullptr) return;
    const Eigen::Index n = in.left.rows(), r = in.left.cols();
    // Row by row, so each step is one contiguous vector operation (column sums of a row-major
    // matrix written as .colwise().sum() walk it column by column).
    for (Eigen::Index i = 0; i < n; ++i) {
      T* d_left_row = d_left.data() + i * r;
      const T* left_row = in.left.data() + i * in.left.outerStride();
      if (d_metric != nullptr)
        for (Eigen::Index k = 0; k < r; ++k) d_metric[k] += d_left_row[k] * left_row[k];
      for (Eigen::Index k = 0; k < r; ++k) d_left_row[k] *= in.metric[k];
    }
  }

  template <class T>
  Var record(Tape<T>& tape, Var u, Var v, Var sigma, const std::string& name) const {
    const Var u_sigma = diag_scale(tape, u, sigma, "U_Sigma");
    return matmul(tape, u_sigma, v, false, true, name);
  }
};

// Defined in score_core.cpp: its one instance, and with it DotScores's float and double kernels,
// is compiled there rather than in every file that reads a mixer's default score function.
const ScoreFunction& dot_scores();

// ---- the core ----------------------------------------------------------------------------------

struct ScoreCoreShape {
  int n = 0;
  bool causal = false;  // P over j ≤ i; the linear branch D·(L⊙S)
  bool gated = false;   // M = (1−γ)·A + γ·P; else M = P
};

// The order of two sums of the backward, which the kernels took differently before they shared
// this core; each keeps its own so that results stay bit-identical (with fused multiply-adds,
// a·b + c·d and c·d + a·b round differently, and one sum over a matrix differs from its row sums).
struct GateBackwardOrder {
  bool whole_matrix_gate = false;  // dγ as one sum over the matrix (the dense kernel); else by row
  bool linear_term_first = false;  // dS = (1−γ)·dM + γ·P⊙(…) (the universal kernels); else the
                                   // softmax term first (the heads)
};

// Forward of one sample. `scores` holds S and, gated and causal, becomes A; P into `p` (zero above
// the diagonal when causal; `p` may be `scores` when not gated); M into `mixer` (n×n, gated);
// out = M·V.
template <class T>
void score_core_forward(const ScoreCoreShape& shape, MatrixMap<T> scores, MatrixMap<T> p,
                        MatrixMap<T> mixer, T gamma, ConstStridedMap<T> values, StridedMap<T> out) {
  const int n = shape.n;
  for (int i = 0; i < n; ++i) {
    const int length = shape.causal ? i + 1 : n;
    softmax_row(scores.data() + std::size_t(i) * n, p.data() + std::size_t(i) * n, length);
    for (int j = length; j < n; ++j) p(i, j) = T(0);
  }
  const ScoreProducts<T> products{n, shape.causal};
  if (!shape.gated) {
    products.mix(ConstMatrixMap<T>(p.data(), n, n), values, out);
    return;
  }
  if (shape.causal)
    for (int i = 0; i < n; ++i) {
      scores.row(i).head(i + 1) *= T(1) / T(i + 1);
      scores.row(i).tail(n - 1 - i).setZero();
    }
  mixer = (T(1) - gamma) * scores + gamma * p;
  products.mix(ConstMatrixMap<T>(mixer.data(), n, n), values, out);
}

// What the core's backward reads and writes for one sample.
template <class T>
struct ScoreCoreBackward {
  ConstMatrixMap<T> scores, p;  // A and P as the forward kept them
  T gamma;
  ConstStridedMap<T> values, d_out;  // V and ∂loss/∂out
  MatrixMap<T> values_transposed;    // scratch, V's columns × n
  MatrixMap<T> mixer;                // scratch n×n for M (gated); may be d_m's memory
  MatrixMap<T> d_m;                  // dM
  MatrixMap<T> d_scores;             // dS, written row by row; may be d_m's memory or the scores'
  T* d_values;                       // dV (n × V's columns, contiguous); nullptr: not needed
  bool accumulate;                   // dV added to rather than written (only when not causal)
  T* d_gamma;                        // added to; nullptr: not needed
};

// Backward of one sample: dV, then dM, dγ and dS.
template <class T>
void score_core_backward(const ScoreCoreShape& shape, const GateBackwardOrder& order,
                         const ScoreCoreBackward<T>& v) {
  const int n = shape.n;
  const ScoreProducts<T> products{n, shape.causal};
  if (v.d_values != nullptr) {
    StridedMap<T> d_values(v.d_values, n, v.values.cols(), Eigen::OuterStride<>(v.values.cols()));
    if (shape.gated) {
      MatrixMap<T> mixer(v.mixer);
      mixer = (T(1) - v.gamma) * v.scores + v.gamma * v.p;
      products.mix_transposed(ConstMatrixMap<T>(mixer.data(), n, n), v.d_out, d_values,
                              v.accumulate);
    } else {
      products.mix_transposed(v.p, v.d_out, d_values, v.accumulate);
    }
  }
  MatrixMap<T> values_transposed(v.values_transposed), d_m(v.d_m), d_scores(v.d_scores);
  values_transposed = v.values.transpose();
  products.scores(v.d_out, ConstMatrixMap<T>(values_transposed.data(), v.values.cols(), n), d_m);
  // dγ, and dS, row by row over j ≤ i (causal) or every j.
  const T gate = shape.gated ? v.gamma : T(1);
  if (order.whole_matrix_gate && shape.gated && v.d_gamma != nullptr)
    *v.d_gamma += (d_m.array() * (v.p.array() - v.scores.array())).sum();
  T d_gamma = 0;
  for (int i = 0; i < n; ++i) {
    const int length = shape.causal ? i + 1 : n;
    const auto d_row = d_m.row(i).head(length).array();
    const auto p_row = v.p.row(i).head(length).array();
    if (shape.gated && !order.whole_matrix_gate)
      d_gamma += (d_row * (p_row - v.scores.row(i).head(length).array())).sum();
    const T inner = (d_row * p_row).sum();
    const T linear = shape.causal ? (T(1) - gate) / T(i + 1) : T(1) - gate;
    auto d_s_row = d_scores.row(i).head(length).array();
    if (order.linear_term_first)
      d_s_row = linear * d_row + gate * p_row * (d_row - inner);
    else
      d_s_row = gate * p_row * (d_row - inner) + linear * d_row;
    d_scores.row(i).tail(n - length).setZero();
  }
  if (!order.whole_matrix_gate && v.d_gamma != nullptr) *v.d_gamma += d_gamma;
}

}  // namespace ufl::model
