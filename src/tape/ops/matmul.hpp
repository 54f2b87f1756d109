#pragma once
// Batched matrix product C = op(A)·op(B), op = identity or transpose, each operand per-sample
// or shared by the batch (a parameter).
#include "tape/ops/broadcast.hpp"

namespace ufl {

// One sample: C = op(A)·op(B).
template <class T>
void matmul_forward(ConstMatrixMap<T> a, bool transpose_a, ConstMatrixMap<T> b, bool transpose_b,
                    MatrixMap<T> c) {
  if (!transpose_a && !transpose_b) c.noalias() = a * b;
  if (!transpose_a && transpose_b) c.noalias() = a * b.transpose();
  if (transpose_a && !transpose_b) c.noalias() = a.transpose() * b;
  if (transpose_a && transpose_b) c.noalias() = a.transpose() * b.transpose();
}

// One sample: dA += dC·op(B)ᵀ (transposed back if A was), dB += op(A)ᵀ·dC (likewise).
template <class T>
void matmul_backward(ConstMatrixMap<T> a, bool transpose_a, ConstMatrixMap<T> b, bool transpose_b,
                     ConstMatrixMap<T> dc, T* da, T* db) {
  if (da != nullptr) {
    MatrixMap<T> grad_a(da, a.rows(), a.cols());
    if (!transpose_a && !transpose_b) grad_a.noalias() += dc * b.transpose();
    if (!transpose_a && transpose_b) grad_a.noalias() += dc * b;
    if (transpose_a && !transpose_b) grad_a.noalias() += b * dc.transpose();
    if (transpose_a && transpose_b) grad_a.noalias() += b.transpose() * dc.transpose();
  }
  if (db != nullptr) {
    MatrixMap<T> grad_b(db, b.rows(), b.cols());
    if (!transpose_a && !transpose_b) grad_b.noalias() += a.transpose() * dc;
    if (transpose_a && !transpose_b) grad_b.noalias() += a * dc;
    if (!transpose_a && transpose_b) grad_b.noalias() += dc.transpose() * a;
    if (transpose_a && transpose_b) grad_b.noalias() += dc.transpose() * a.transpose();
  }
}

template <class T>
struct MatmulOp : Op<T> {
  enum Operand : int { kA, kB };
  bool transpose_a = false, transpose_b = false;

  void forward_sample(Tape<T>& tape, int s) override {
    matmul_forward<T>(this->value_of(tape, kA).view(s), transpose_a,
                      this->value_of(tape, kB).view(s), transpose_b,
                      tape.value(this->output).matrix(s));
  }
  void backward_sample(Tape<T>& tape, int s) override {
    matmul_backward<T>(this->value_of(tape, kA).view(s), transpose_a,
                       this->value_of(tape, kB).view(s), transpose_b,
                       tape.grad(this->output).view(s), this->sink(kA).begin_sample(s),
                       this->sink(kB).begin_sample(s));
  }
};

template <class T>
Var matmul(Tape<T>& tape, Var a, Var b, bool transpose_a = false, bool transpose_b = false,
           std::string name = "matmul") {
  const Shape& sa = tape.shape(a);
  const Shape& sb = tape.shape(b);
  const int rows = transpose_a ? sa.cols : sa.rows, inner_a = transpose_a ? sa.rows : sa.cols;
  const int inner_b = transpose_b ? sb.cols : sb.rows, cols = transpose_b ? sb.rows : sb.cols;
  if (inner_a != inner_b)
    throw std::logic_error(name + ": inner dimensions " + sa.str() + " and " + sb.str());
  auto op = std::make_unique<MatmulOp<T>>();
  op->inputs = {a, b};  // kA, kB
  op->transpose_a = transpose_a;
  op->transpose_b = transpose_b;
  const int batch = broadcast_batch(tape, a, b, "matmul");
  return tape.record(std::move(op), Shape{batch, rows, cols}, std::move(name));
}

}  // namespace ufl
