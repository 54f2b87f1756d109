#pragma once
// out = S + factor·(a·1ᵀ + 1·bᵀ): a column a [B, n, 1] added to every column of S [B, n, m] and a
// row b [B, 1, m] to every row, each scaled by `factor` (the distance mixer's
// −½‖U_i‖²_Σ − ½‖V_j‖²_Σ, model/mixers/distance.hpp). Any operand may be shared by the batch.
// Backward: dS += dOut, da_i += factor·Σ_j dOut_ij, db_j += factor·Σ_i dOut_ij.
#include "tape/ops/broadcast.hpp"

namespace ufl {

template <class T>
struct AddOuterOp : Op<T> {
  enum Operand : int { kS, kA, kB };
  T factor = T(1);

  void forward_sample(Tape<T>& tape, int s) override {
    const auto out = tape.value(this->output);
    const int rows = out.shape.rows, cols = out.shape.cols;
    const T* in = this->value_of(tape, kS).sample(s);
    const T* a = this->value_of(tape, kA).sample(s);
    const T* b = this->value_of(tape, kB).sample(s);
    T* y = out.sample(s);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        const std::size_t e = std::size_t(i) * cols + j;
        y[e] = in[e] + factor * (a[i] + b[j]);
      }
  }
  void backward_sample(Tape<T>& tape, int s) override {
    const auto dout = tape.grad(this->output);
    const int rows = dout.shape.rows, cols = dout.shape.cols;
    const T* dy = dout.sample(s);
    T* din = this->sink(kS).begin_sample(s);
    T* da = this->sink(kA).begin_sample(s);
    T* db = this->sink(kB).begin_sample(s);
    for (int i = 0; i < rows; ++i) {
      T row_sum = T(0);
      for (int j = 0; j < cols; ++j) {
        const T g = dy[std::size_t(i) * cols + j];
        if (din != nullptr) din[std::size_t(i) * cols + j] += g;
        if (db != nullptr) db[j] += factor * g;
        row_sum += g;
      }
      if (da != nullptr) da[i] += factor * row_sum;
    }
  }
};

template <class T>
Var add_outer(Tape<T>& tape, Var s, Var a, Var b, double factor = 1.0,
              std::string name = "add_outer") {
  const Shape& ss = tape.shape(s);
  if (tape.shape(a).rows != ss.rows || tape.shape(a).cols != 1 || tape.shape(b).rows != 1 ||
      tape.shape(b).cols != ss.cols)
    throw std::logic_error(name + ": a " + tape.shape(a).str() + " and b " + tape.shape(b).str() +
                           " do not fit S " + ss.str());
  auto op = std::make_unique<AddOuterOp<T>>();
  op->inputs = {s, a, b};  // kS, kA, kB
  op->factor = static_cast<T>(factor);
  const int batch = std::max(broadcast_batch(tape, s, a, name.c_str()),
                             broadcast_batch(tape, s, b, name.c_str()));
  broadcast_batch(tape, a, b, name.c_str());
  return tape.record(std::move(op), Shape{batch, ss.rows, ss.cols}, std::move(name));
}

}  // namespace ufl
