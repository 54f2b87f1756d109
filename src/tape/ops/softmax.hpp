#pragma once
// Row softmax, P_ij = exp(S_ij − max_k S_ik) / Σ_k exp(S_ik − max_k S_ik): the attention branch
// of M(X) (docs/experiment.md §2), on the tape op by op (the composite graph), with or without a
// causal mask (tape/ops/causal.hpp records it masked). Subtracting the row maximum keeps large
// logits finite. The fused kernels' row softmax is softmax_row (model/mixers/score_core.hpp).
#include <algorithm>
#include <cmath>

#include "tape/ops/broadcast.hpp"

namespace ufl {

// Row i over its first `length` entries: every column, or j ≤ i under a causal mask
// (docs/transformer.md §2), where P is exactly 0 above the diagonal (masked before normalising).
inline int softmax_row_length(int i, int cols, bool causal) { return causal ? i + 1 : cols; }

template <class T>
void softmax_rows_forward(const T* s, T* p, int rows, int cols, bool causal = false) {
  for (int i = 0; i < rows; ++i) {
    const T* in = s + static_cast<std::size_t>(i) * cols;
    T* out = p + static_cast<std::size_t>(i) * cols;
    const int length = softmax_row_length(i, cols, causal);
    const T row_max = *std::max_element(in, in + length);
    T total = T(0);
    for (int j = 0; j < length; ++j) total += (out[j] = std::exp(in[j] - row_max));
    const T inverse = T(1) / total;
    for (int j = 0; j < length; ++j) out[j] *= inverse;
    for (int j = length; j < cols; ++j) out[j] = T(0);
  }
}

// dS_ij += P_ij (dP_ij − Σ_k dP_ik P_ik) over the row's entries; none above a causal diagonal.
template <class T>
void softmax_rows_backward(const T* p, const T* dp, T* ds, int rows, int cols,
                           bool causal = false) {
  for (int i = 0; i < rows; ++i) {
    const std::size_t row = static_cast<std::size_t>(i) * cols;
    const int length = softmax_row_length(i, cols, causal);
    T inner = T(0);
    for (int j = 0; j < length; ++j) inner += dp[row + j] * p[row + j];
    for (int j = 0; j < length; ++j) ds[row + j] += p[row + j] * (dp[row + j] - inner);
  }
}

template <class T>
struct SoftmaxRowsOp : Op<T> {
  enum Operand : int { kS };
  bool causal = false;

  void forward_sample(Tape<T>& tape, int b) override {
    const auto p = tape.value(this->output);
    softmax_rows_forward(this->value_of(tape, kS).sample(b), p.sample(b), p.shape.rows,
                         p.shape.cols, causal);
  }
  void backward_sample(Tape<T>& tape, int b) override {
    T* ds = this->sink(kS).begin_sample(b);
    if (ds == nullptr) return;
    const auto p = tape.value(this->output);
    softmax_rows_backward(p.sample(b), tape.grad(this->output).sample(b), ds, p.shape.rows,
                          p.shape.cols, causal);
  }
};

template <class T>
Var softmax_rows(Tape<T>& tape, Var s, std::string name = "softmax_rows") {
  auto op = std::make_unique<SoftmaxRowsOp<T>>();
  op->inputs = {s};
  return tape.record(std::move(op), tape.shape(s), std::move(name));
}

}  // namespace ufl
