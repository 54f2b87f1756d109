#pragma once
// Per-sample transpose, out_b = A_bᵀ.
#include "tape/ops/grad_sink.hpp"

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
  void forward(Tape<T>& tape) override {
    const auto a = tape.value(this->inputs[0]), out = tape.value(this->output);
    for_each_sample(out.shape, [&](int s) { transpose_forward<T>(a.view(s), out.matrix(s)); });
  }
  void backward(Tape<T>& tape) override {
    if (!tape.needs_grad(this->inputs[0])) return;
    const auto da = tape.grad(this->inputs[0]), dout = tape.grad(this->output);
    for_each_sample(dout.shape, [&](int s) { transpose_backward<T>(dout.view(s), da.matrix(s)); });
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
