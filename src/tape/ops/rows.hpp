#pragma once
// Ops on rows:
//   add_rows:  x + 1·bᵀ, a bias row [1, 1, D] added to every row of x [B, n, D] (the MLP's b₁,
//              b₂). A shared [1, n, D] tensor (the position embedding) is added with `add`
//              (elementwise.hpp).
//   row_block: rows [first, first + count) of a, e.g. the content, position and bias rows of the
//              universal mixer's A (docs/transformer.md §8); its backward adds dOut to them.
#include "tape/ops/broadcast.hpp"

namespace ufl {

template <class T>
struct AddRowsOp : Op<T> {
  enum Operand : int { kX, kBias };
  void forward_sample(Tape<T>& tape, int b) override {
    const Shape& shape = this->shape_of(tape, kX);
    const T* x = this->value_of(tape, kX).sample(b);
    const T* bias = this->value_of(tape, kBias).data;
    T* y = tape.value(this->output).sample(b);
    for (int i = 0; i < shape.rows; ++i)
      for (int c = 0; c < shape.cols; ++c)
        y[std::size_t(i) * shape.cols + c] = x[std::size_t(i) * shape.cols + c] + bias[c];
  }
  // dx += dy; dbias += the column sums of dy.
  void backward_sample(Tape<T>& tape, int b) override {
    const Shape& shape = this->shape_of(tape, kX);
    const T* dy = tape.grad(this->output).sample(b);
    T* dx = this->sink(kX).begin_sample(b);
    T* dbias = this->sink(kBias).begin_sample(b);
    for (int i = 0; i < shape.rows; ++i)
      for (int c = 0; c < shape.cols; ++c) {
        const T g = dy[std::size_t(i) * shape.cols + c];
        if (dx != nullptr) dx[std::size_t(i) * shape.cols + c] += g;
        if (dbias != nullptr) dbias[c] += g;
      }
  }
};

template <class T>
Var add_rows(Tape<T>& tape, Var x, Var bias, std::string name = "add_rows") {
  const Shape& sx = tape.shape(x);
  if (tape.shape(bias) != Shape{1, 1, sx.cols})
    throw std::logic_error(name + ": the bias must be [1, 1, " + std::to_string(sx.cols) +
                           "], got " + tape.shape(bias).str());
  auto op = std::make_unique<AddRowsOp<T>>();
  op->inputs = {x, bias};  // kX, kBias
  return tape.record(std::move(op), sx, std::move(name));
}

template <class T>
struct RowBlockOp : Op<T> {
  enum Operand : int { kA };
  int first = 0;
  void forward_sample(Tape<T>& tape, int b) override {
    MatrixMap<T> out = tape.value(this->output).matrix(b);
    out = this->value_of(tape, kA).view(b).middleRows(first, out.rows());
  }
  void backward_sample(Tape<T>& tape, int b) override {
    T* da = this->sink(kA).begin_sample(b);
    if (da == nullptr) return;
    const Shape& in = this->shape_of(tape, kA);
    const ConstMatrixMap<T> dout = tape.grad(this->output).view(b);
    MatrixMap<T>(da, in.rows, in.cols).middleRows(first, dout.rows()) += dout;
  }
};

template <class T>
Var row_block(Tape<T>& tape, Var a, int first, int count, std::string name = "row_block") {
  const Shape& sa = tape.shape(a);
  if (first < 0 || count < 1 || first + count > sa.rows)
    throw std::logic_error(name + ": rows [" + std::to_string(first) + ", " +
                           std::to_string(first + count) + ") of " + sa.str());
  auto op = std::make_unique<RowBlockOp<T>>();
  op->inputs = {a};
  op->first = first;
  return tape.record(std::move(op), Shape{sa.batch, count, sa.cols}, std::move(name));
}

}  // namespace ufl
