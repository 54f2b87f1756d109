#pragma once
// GELU with GPT-2's tanh approximation (docs/transformer.md §1, as llm.c's gelu_forward):
//   y = ½x(1 + tanh(u)),  u = √(2/π)(x + 0.044715x³).
#include <algorithm>
#include <cmath>
#include <numbers>

#include "tape/ops/broadcast.hpp"

namespace ufl {

// Over arrays, so that tanh is Eigen's vectorised one (llm.c's loop calls tanhf per element,
// which cost a fifth of a training step here).
template <class T>
void gelu_forward(const T* x, T* y, std::size_t size) {
  const T scale = T(std::sqrt(2.0 / std::numbers::pi));
  const Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> in(x, Eigen::Index(size));
  Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> out(y, Eigen::Index(size));
  out = T(0.5) * in * (T(1) + (scale * (in + T(0.044715) * in.cube())).tanh());
}

// dy/dx = ½(1 + tanh u) + ½x(1 − tanh² u)·√(2/π)(1 + 3·0.044715x²); dx = dy·dy/dx (written, not
// added: dx may be x itself, each element is read before it is written).
template <class T>
void gelu_gradient(const T* x, const T* dy, T* dx, std::size_t size) {
  const T scale = T(std::sqrt(2.0 / std::numbers::pi));
  constexpr std::size_t kBlock = 256;  // tanh u of a block, kept in cache for its two uses
  T tanh_block[kBlock];
  for (std::size_t first = 0; first < size; first += kBlock) {
    const Eigen::Index count = Eigen::Index(std::min(kBlock, size - first));
    const Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> in(x + first, count);
    const Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> d_out(dy + first, count);
    Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> t(tanh_block, count);
    t = (scale * (in + T(0.044715) * in.cube())).tanh();
    Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>(dx + first, count) =
        d_out * (T(0.5) * (T(1) + t) + T(0.5) * in * (T(1) - t.square()) * scale *
                                           (T(1) + T(3 * 0.044715) * in.square()));
  }
}

// dx += dy·dy/dx.
template <class T>
void gelu_backward(const T* x, const T* dy, T* dx, std::size_t size) {
  constexpr std::size_t kBlock = 256;
  T slope_block[kBlock];
  for (std::size_t first = 0; first < size; first += kBlock) {
    const std::size_t count = std::min(kBlock, size - first);
    gelu_gradient(x + first, dy + first, slope_block, count);
    for (std::size_t e = 0; e < count; ++e) dx[first + e] += slope_block[e];
  }
}

template <class T>
struct GeluOp : Op<T> {
  enum Operand : int { kX };
  void forward_sample(Tape<T>& tape, int b) override {
    const auto y = tape.value(this->output);
    gelu_forward(this->value_of(tape, kX).sample(b), y.sample(b), y.shape.sample_size());
  }
  void backward_sample(Tape<T>& tape, int b) override {
    T* dx = this->sink(kX).begin_sample(b);
    if (dx == nullptr) return;
    gelu_backward(this->value_of(tape, kX).sample(b), tape.grad(this->output).sample(b), dx,
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
