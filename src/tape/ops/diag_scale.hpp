#pragma once
// Column scaling by a diagonal, out = A·diag(σ): the U·Σ of docs/experiment.md §2. σ is a row [1,
// 1, cols], shared by the batch or one per sample.
#include "tape/ops/broadcast.hpp"

namespace ufl {

template <class T>
void diag_scale_forward(const T* a, const T* diagonal, T* out, int rows, int cols) {
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      out[static_cast<std::size_t>(i) * cols + j] =
          a[static_cast<std::size_t>(i) * cols + j] * diagonal[j];
}

// dA += dOut·diag(σ); dσ_j += Σ_i dOut_ij A_ij.
template <class T>
void diag_scale_backward(const T* a, const T* diagonal, const T* dout, T* da, T* ddiagonal,
                         int rows, int cols) {
  for (int i = 0; i < rows; ++i) {
    const std::size_t row = static_cast<std::size_t>(i) * cols;
    for (int j = 0; j < cols; ++j) {
      if (da != nullptr) da[row + j] += dout[row + j] * diagonal[j];
      if (ddiagonal != nullptr) ddiagonal[j] += dout[row + j] * a[row + j];
    }
  }
}

template <class T>
struct DiagScaleOp : Op<T> {
  enum Operand : int { kA, kDiagonal };
  void forward_sample(Tape<T>& tape, int s) override {
    const auto out = tape.value(this->output);
    diag_scale_forward(this->value_of(tape, kA).sample(s),
                       this->value_of(tape, kDiagonal).sample(s), out.sample(s), out.shape.rows,
                       out.shape.cols);
  }
  void backward_sample(Tape<T>& tape, int s) override {
    const auto dout = tape.grad(this->output);
    diag_scale_backward(this->value_of(tape, kA).sample(s),
                        this->value_of(tape, kDiagonal).sample(s), dout.sample(s),
                        this->sink(kA).begin_sample(s), this->sink(kDiagonal).begin_sample(s),
                        dout.shape.rows, dout.shape.cols);
  }
};

template <class T>
Var diag_scale(Tape<T>& tape, Var a, Var diagonal, std::string name = "diag_scale") {
  if (tape.shape(diagonal).rows != 1 || tape.shape(diagonal).cols != tape.shape(a).cols)
    throw std::logic_error(name + ": diagonal " + tape.shape(diagonal).str() + " does not fit " +
                           tape.shape(a).str());
  auto op = std::make_unique<DiagScaleOp<T>>();
  op->inputs = {a, diagonal};  // kA, kDiagonal
  const int batch = broadcast_batch(tape, a, diagonal, name.c_str());
  return tape.record(std::move(op), Shape{batch, tape.shape(a).rows, tape.shape(a).cols},
                     std::move(name));
}

}  // namespace ufl
