#pragma once
// U = X̃A with homogeneous token coordinates x̃ᵢ = [xᵢ; eᵢ; 1] (docs/experiment.md §2):
// X̃A = X·A_content + A_position + 1·a_biasᵀ, where A = [A_content (d rows); A_position (n rows);
// a_bias (1 row)]. The one-hot part is a row lookup, never a product with the identity.
#include "tape/ops/broadcast.hpp"
#include "tensor/small_gemm.hpp"

namespace ufl {

template <class T>
void homogeneous_project_forward(ConstMatrixMap<T> x, ConstMatrixMap<T> a, MatrixMap<T> out) {
  const Eigen::Index n = x.rows(), d = x.cols();
  multiply(out, x, a.topRows(d));
  out += a.middleRows(d, n);
  out.rowwise() += a.row(d + n);
}

// dX += dU·A_contentᵀ; dA_content += Xᵀ dU; dA_position += dU; da_bias += column sums of dU.
template <class T>
void homogeneous_project_backward(ConstMatrixMap<T> x, ConstMatrixMap<T> a, ConstMatrixMap<T> du,
                                  T* dx, T* da) {
  const Eigen::Index n = x.rows(), d = x.cols(), r = a.cols();
  if (dx != nullptr) MatrixMap<T>(dx, n, d).noalias() += du * a.topRows(d).transpose();
  if (da == nullptr) return;
  MatrixMap<T> grad_a(da, a.rows(), r);
  multiply_at(grad_a.topRows(d), x, du, true);
  grad_a.middleRows(d, n) += du;
  // Row by row: .colwise().sum() of a row-major matrix walks it column by column.
  T* bias = da + (d + n) * r;
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index k = 0; k < r; ++k) bias[k] += du(i, k);
}

template <class T>
struct HomogeneousProjectOp : Op<T> {
  enum Operand : int { kX, kA };
  void forward_sample(Tape<T>& tape, int s) override {
    homogeneous_project_forward<T>(this->value_of(tape, kX).view(s),
                                   this->value_of(tape, kA).view(s),
                                   tape.value(this->output).matrix(s));
  }
  void backward_sample(Tape<T>& tape, int s) override {
    homogeneous_project_backward<T>(this->value_of(tape, kX).view(s),
                                    this->value_of(tape, kA).view(s),
                                    tape.grad(this->output).view(s), this->sink(kX).begin_sample(s),
                                    this->sink(kA).begin_sample(s));
  }
};

// x: [B, n, d]; a: [1 or B, d+n+1, r] → [B, n, r].
template <class T>
Var homogeneous_project(Tape<T>& tape, Var x, Var a, std::string name = "homogeneous_project") {
  const Shape& sx = tape.shape(x);
  const Shape& sa = tape.shape(a);
  if (sa.rows != sx.cols + sx.rows + 1)
    throw std::logic_error(name + ": A " + sa.str() + " needs d+n+1 = " +
                           std::to_string(sx.cols + sx.rows + 1) + " rows for X " + sx.str());
  auto op = std::make_unique<HomogeneousProjectOp<T>>();
  op->inputs = {x, a};  // kX, kA
  const int batch = broadcast_batch(tape, x, a, name.c_str());
  return tape.record(std::move(op), Shape{batch, sx.rows, sa.cols}, std::move(name));
}

}  // namespace ufl
