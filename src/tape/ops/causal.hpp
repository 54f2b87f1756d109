#pragma once
// Causal masks (docs/transformer.md §2): under next_token, position i reads positions j ≤ i only.
//   causal_softmax_rows: softmax of row i over j ≤ i, exactly 0 for j > i (masked before
//                        normalising); entries above the diagonal get no gradient.
//   lower_triangular:    S with the entries above the diagonal set to 0 (fixed operators).
//   causal_row_mean:     the lower triangle of S with row i divided by i + 1, the number of
//                        positions it sums (a universal head's linear branch; docs/universal_head.md
//                        §1), so that the branch does not grow with the position.
#include <algorithm>
#include <cmath>

#include "tape/ops/broadcast.hpp"
#include "tape/ops/softmax.hpp"

namespace ufl {

// The weight of row i: 1, or 1/(i + 1) for the row mean.
template <class T>
T causal_row_weight(int i, bool row_mean) {
  return row_mean ? T(1) / T(i + 1) : T(1);
}

template <class T>
struct LowerTriangularOp : Op<T> {
  enum Operand : int { kS };
  bool row_mean = false;  // row i times 1/(i + 1)

  void forward_sample(Tape<T>& tape, int b) override {
    const int n = tape.shape(this->output).rows;
    const T* s = this->value_of(tape, kS).sample(b);
    T* out = tape.value(this->output).sample(b);
    for (int i = 0; i < n; ++i) {
      const T weight = causal_row_weight<T>(i, row_mean);
      for (int j = 0; j < n; ++j)
        out[std::size_t(i) * n + j] = j <= i ? weight * s[std::size_t(i) * n + j] : T(0);
    }
  }
  void backward_sample(Tape<T>& tape, int b) override {
    T* ds = this->sink(kS).begin_sample(b);
    if (ds == nullptr) return;
    const int n = tape.shape(this->output).rows;
    const T* dout = tape.grad(this->output).sample(b);
    for (int i = 0; i < n; ++i) {
      const T weight = causal_row_weight<T>(i, row_mean);
      for (int j = 0; j <= i; ++j)
        ds[std::size_t(i) * n + j] += weight * dout[std::size_t(i) * n + j];
    }
  }
};

template <class T>
Var record_square(Tape<T>& tape, std::unique_ptr<Op<T>> op, Var s, std::string name) {
  const Shape& shape = tape.shape(s);
  if (shape.rows != shape.cols)
    throw std::logic_error(name + ": a causal mask needs a square matrix, got " + shape.str());
  op->inputs = {s};
  return tape.record(std::move(op), shape, std::move(name));
}

template <class T>
Var causal_softmax_rows(Tape<T>& tape, Var s, std::string name = "causal_softmax") {
  auto op = std::make_unique<SoftmaxRowsOp<T>>();
  op->causal = true;
  return record_square<T>(tape, std::move(op), s, std::move(name));
}
template <class T>
Var lower_triangular(Tape<T>& tape, Var s, std::string name = "lower_triangular") {
  return record_square<T>(tape, std::make_unique<LowerTriangularOp<T>>(), s, std::move(name));
}
template <class T>
Var causal_row_mean(Tape<T>& tape, Var s, std::string name = "causal_row_mean") {
  auto op = std::make_unique<LowerTriangularOp<T>>();
  op->row_mean = true;
  return record_square<T>(tape, std::move(op), s, std::move(name));
}

}  // namespace ufl
