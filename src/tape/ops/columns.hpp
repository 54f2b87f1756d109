#pragma once
// The residual stream's two ends (section 7 of the seed, spec section7.md §1): the input X
// (n×d) zero-padded to the stream's width D, H_0 = [X, 0], and the output read back as the
// stream's first d channels, Y = H_L[:, :d]. Each is a copy, so its backward is the copy of
// the gradient the other way.
#include "tape/ops/broadcast.hpp"

namespace ufl {

// out = [a, 0]: a (rows×cols) into the first cols columns of out (rows×width).
template <class T>
void pad_columns_forward(ConstMatrixMap<T> a, MatrixMap<T> out) {
  out.leftCols(a.cols()) = a;
  out.rightCols(out.cols() - a.cols()).setZero();
}

// dA += dOut[:, :cols]; the padding's gradient goes nowhere.
template <class T>
void pad_columns_backward(ConstMatrixMap<T> dout, MatrixMap<T> da) {
  da += dout.leftCols(da.cols());
}

// out = a[:, :cols].
template <class T>
void leading_columns_forward(ConstMatrixMap<T> a, MatrixMap<T> out) {
  out = a.leftCols(out.cols());
}

// dA[:, :cols] += dOut; the other columns get no gradient from this op.
template <class T>
void leading_columns_backward(ConstMatrixMap<T> dout, MatrixMap<T> da) {
  da.leftCols(dout.cols()) += dout;
}

template <class T>
struct PadColumnsOp : Op<T> {
  void forward_sample(Tape<T>& tape, int s) override {
    pad_columns_forward<T>(tape.value(this->inputs[0]).view(s), tape.value(this->output).matrix(s));
  }
  void backward_sample(Tape<T>& tape, int s) override {
    T* da = this->sinks[0].begin_sample(s);
    if (da == nullptr) return;
    const Shape& in = tape.shape(this->inputs[0]);
    pad_columns_backward<T>(tape.grad(this->output).view(s), MatrixMap<T>(da, in.rows, in.cols));
  }
};

template <class T>
struct LeadingColumnsOp : Op<T> {
  void forward_sample(Tape<T>& tape, int s) override {
    leading_columns_forward<T>(tape.value(this->inputs[0]).view(s),
                               tape.value(this->output).matrix(s));
  }
  void backward_sample(Tape<T>& tape, int s) override {
    T* da = this->sinks[0].begin_sample(s);
    if (da == nullptr) return;
    const Shape& in = tape.shape(this->inputs[0]);
    leading_columns_backward<T>(tape.grad(this->output).view(s),
                                MatrixMap<T>(da, in.rows, in.cols));
  }
};

// a: [B, n, cols] → [B, n, width], width ≥ cols.
template <class T>
Var pad_columns(Tape<T>& tape, Var a, int width, std::string name = "pad_columns") {
  const Shape& s = tape.shape(a);
  if (width < s.cols)
    throw std::logic_error(name + ": width " + std::to_string(width) + " < columns of " + s.str());
  auto op = std::make_unique<PadColumnsOp<T>>();
  op->inputs = {a};
  return tape.record(std::move(op), Shape{s.batch, s.rows, width}, std::move(name));
}

// a: [B, n, width] → [B, n, cols], cols ≤ width.
template <class T>
Var leading_columns(Tape<T>& tape, Var a, int cols, std::string name = "leading_columns") {
  const Shape& s = tape.shape(a);
  if (cols < 1 || cols > s.cols)
    throw std::logic_error(name + ": cannot take " + std::to_string(cols) + " columns of " +
                           s.str());
  auto op = std::make_unique<LeadingColumnsOp<T>>();
  op->inputs = {a};
  return tape.record(std::move(op), Shape{s.batch, s.rows, cols}, std::move(name));
}

}  // namespace ufl
