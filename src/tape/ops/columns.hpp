#pragma once
// The residual stream's two ends (docs/section7.md §1): the input X
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
  enum Operand : int { kA };
  void forward_sample(Tape<T>& tape, int s) override {
    pad_columns_forward<T>(this->value_of(tape, kA).view(s), tape.value(this->output).matrix(s));
  }
  void backward_sample(Tape<T>& tape, int s) override {
    T* da = this->sink(kA).begin_sample(s);
    if (da == nullptr) return;
    const Shape& in = this->shape_of(tape, kA);
    pad_columns_backward<T>(tape.grad(this->output).view(s), MatrixMap<T>(da, in.rows, in.cols));
  }
};

template <class T>
struct LeadingColumnsOp : Op<T> {
  enum Operand : int { kA };
  void forward_sample(Tape<T>& tape, int s) override {
    leading_columns_forward<T>(this->value_of(tape, kA).view(s),
                               tape.value(this->output).matrix(s));
  }
  void backward_sample(Tape<T>& tape, int s) override {
    T* da = this->sink(kA).begin_sample(s);
    if (da == nullptr) return;
    const Shape& in = this->shape_of(tape, kA);
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

// out = [a_1, a_2, …]: the heads' outputs side by side (docs/transformer.md §2); each part's
// gradient is its block of columns of dOut. Its operands are the parts, in order.
template <class T>
struct ConcatColumnsOp : Op<T> {
  void forward_sample(Tape<T>& tape, int b) override {
    MatrixMap<T> out = tape.value(this->output).matrix(b);
    Eigen::Index first = 0;
    for (Var part : this->inputs) {
      const ConstMatrixMap<T> block = tape.value(part).view(b);
      out.middleCols(first, block.cols()) = block;
      first += block.cols();
    }
  }
  void backward_sample(Tape<T>& tape, int b) override {
    const ConstMatrixMap<T> dout = tape.grad(this->output).view(b);
    Eigen::Index first = 0;
    for (int k = 0; k < int(this->inputs.size()); ++k) {
      const Shape& shape = this->shape_of(tape, k);
      if (T* d = this->sink(k).begin_sample(b))
        MatrixMap<T>(d, shape.rows, shape.cols) += dout.middleCols(first, shape.cols);
      first += shape.cols;
    }
  }
};

template <class T>
Var concat_columns(Tape<T>& tape, const std::vector<Var>& parts,
                   std::string name = "concat_columns") {
  if (parts.empty()) throw std::logic_error(name + ": nothing to concatenate");
  int batch = 1, cols = 0;
  const int rows = tape.shape(parts.front()).rows;
  for (Var part : parts) {
    const Shape& shape = tape.shape(part);
    if (shape.rows != rows || (shape.batch != 1 && batch != 1 && shape.batch != batch))
      throw std::logic_error(name + ": parts of different rows or batches");
    batch = std::max(batch, shape.batch);
    cols += shape.cols;
  }
  auto op = std::make_unique<ConcatColumnsOp<T>>();
  op->inputs = parts;
  return tape.record(std::move(op), Shape{batch, rows, cols}, std::move(name));
}

}  // namespace ufl
