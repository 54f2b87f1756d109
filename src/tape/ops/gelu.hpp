#pragma once
// GELU with GPT-2's tanh approximation (docs/transformer.md §1, as llm.c's gelu_forward):
//   y = ½x(1 + tanh(u)),  u = √(2/π)(x + 0.044715x³).
#include <cmath>
#include <numbers>

#include "tape/ops/broadcast.hpp"

namespace ufl {

template <class T>
void gelu_forward(const T* x, T* y, std::size_t size) {
  const T scale = T(std::sqrt(2.0 / std::numbers::pi));
  for (std::size_t e = 0; e < size; ++e) {
    const T u = scale * (x[e] + T(0.044715) * x[e] * x[e] * x[e]);
    y[e] = T(0.5) * x[e] * (T(1) + std::tanh(u));
  }
}

// dy/dx = ½(1 + tanh u) + ½x(1 − tanh² u)·√(2/π)(1 + 3·0.044715x²).
template <class T>
void gelu_backward(const T* x, const T* dy, T* dx, std::size_t size) {
  const T scale = T(std::sqrt(2.0 / std::numbers::pi));
  for (std::size_t e = 0; e < size; ++e) {
    const T cube = T(0.044715) * x[e] * x[e] * x[e];
    const T t = std::tanh(scale * (x[e] + cube));
    const T slope = T(0.5) * (T(1) + t) + T(0.5) * x[e] * (T(1) - t * t) * scale *
                                              (T(1) + T(3) * T(0.044715) * x[e] * x[e]);
    dx[e] += slope * dy[e];
  }
}

template <class T>
struct GeluOp : Op<T> {
  void forward_sample(Tape<T>& tape, int b) override {
    const auto y = tape.value(this->output);
    gelu_forward(tape.value(this->inputs[0]).sample(b), y.sample(b), y.shape.sample_size());
  }
  void backward_sample(Tape<T>& tape, int b) override {
    T* dx = this->sinks[0].begin_sample(b);
    if (dx == nullptr) return;
    gelu_backward(tape.value(this->inputs[0]).sample(b), tape.grad(this->output).sample(b), dx,
                  tape.shape(this->output).sample_size());
  }
};

template <class T>
Var gelu(Tape<T>& tape, Var x, std::string name = "gelu") {
  auto op = std::make_unique<GeluOp<T>>();
  op->inputs = {x};
  return tape.record(std::move(op), tape.shape(x), std::move(name));
}

}  // namespace ufl
