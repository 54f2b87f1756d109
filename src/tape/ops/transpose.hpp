#pragma once
// Per-sample transpose, out_b = A_bᵀ.
#include "tape/ops/broadcast.hpp"

namespace ufl {

template <class T>
void transpose_forward(ConstMatrixMap<T> a, MatrixMap<T> out) {
  out = a.transpose();
}

template <class T>
void transpose_backward(ConstMatrixMap<T> dout, MatrixMap<T> da) {
  da += dout.transpose();
}

template <class T>
struct TransposeOp : Op<T> {
  enum Operand : int { kA };
  void forward_sample(Tape<T>& tape, int s) override {
    transpose_forward<T>(this->value_of(tape, kA).view(s), tape.value(this->output).matrix(s));
  }
  void backward_sample(Tape<T>& tape, int s) override {
    T* da = this->sink(kA).begin_sample(s);
    if (da == nullptr) return;
    const Shape& in = this->shape_of(tape, kA);
    transpose_backward<T>(tape.grad(this->output).view(s), MatrixMap<T>(da, in.rows, in.cols));
  }
};

template <class T>
Var transpose(Tape<T>& tape, Var a, std::string name = "transpose") {
  auto op = std::make_unique<TransposeOp<T>>();
  op->inputs = {a};
  const Shape& s = tape.shape(a);
  return tape.record(std::move(op), Shape{s.batch, s.cols, s.rows}, std::move(name));
}

}  // namespace ufl
