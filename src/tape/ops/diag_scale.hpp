#pragma once
// Column scaling by a diagonal, out = A·diag(σ): the U·Σ of spec §2. σ is a row [1, 1, cols],
// shared by the batch or one per sample.
#include "tape/ops/grad_sink.hpp"

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
  std::size_t scratch_elements(const Tape<T>& tape) const override {
    return shared_gradient_scratch(tape, *this);
  }
  void forward(Tape<T>& tape) override {
    const auto a = tape.value(this->inputs[0]), diagonal = tape.value(this->inputs[1]);
    const auto out = tape.value(this->output);
    for_each_sample(out.shape, [&](int s) {
      diag_scale_forward(a.sample(s), diagonal.sample(s), out.sample(s), out.shape.rows,
                         out.shape.cols);
    });
  }
  void backward(Tape<T>& tape) override {
    const auto a = tape.value(this->inputs[0]), diagonal = tape.value(this->inputs[1]);
    const auto dout = tape.grad(this->output);
    const GradSink<T> sink_a = grad_sink(tape, *this, 0), sink_d = grad_sink(tape, *this, 1);
    for_each_sample(dout.shape, [&](int s) {
      diag_scale_backward(a.sample(s), diagonal.sample(s), dout.sample(s),
                          sink_a.active() ? sink_a.begin_sample(s) : nullptr,
                          sink_d.active() ? sink_d.begin_sample(s) : nullptr, dout.shape.rows,
                          dout.shape.cols);
    });
    sink_a.finish();
    sink_d.finish();
  }
};

template <class T>
Var diag_scale(Tape<T>& tape, Var a, Var diagonal, std::string name = "diag_scale") {
  if (tape.shape(diagonal).rows != 1 || tape.shape(diagonal).cols != tape.shape(a).cols)
    throw std::logic_error(name + ": diagonal " + tape.shape(diagonal).str() + " does not fit " +
                           tape.shape(a).str());
  auto op = std::make_unique<DiagScaleOp<T>>();
  op->inputs = {a, diagonal};
  const int batch = broadcast_batch(tape, a, diagonal, name.c_str());
  return tape.record(std::move(op), Shape{batch, tape.shape(a).rows, tape.shape(a).cols},
                     std::move(name));
}

}  // namespace ufl
