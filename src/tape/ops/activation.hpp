#pragma once
// softplus (Σ = diag(softplus(s)) ≥ 0, docs/experiment.md §2) and sigmoid (the gate γ =
// sigmoid(g)).
#include <cmath>

#include "tape/ops/broadcast.hpp"

namespace ufl {

template <class T>
T stable_sigmoid(T x) {
  if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
  const T e = std::exp(x);
  return e / (T(1) + e);
}

// log(1 + eˣ) without overflow for large x.
template <class T>
T stable_softplus(T x) {
  return x > T(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

enum class Activation { kSoftplus, kSigmoid };

template <class T>
void activation_forward(Activation kind, const T* x, T* y, std::size_t size) {
  for (std::size_t e = 0; e < size; ++e)
    y[e] = kind == Activation::kSoftplus ? stable_softplus(x[e]) : stable_sigmoid(x[e]);
}

// softplus' = sigmoid(x); sigmoid' = y(1 − y).
template <class T>
void activation_backward(Activation kind, const T* x, const T* y, const T* dy, T* dx,
                         std::size_t size) {
  for (std::size_t e = 0; e < size; ++e) {
    const T slope = kind == Activation::kSoftplus ? stable_sigmoid(x[e]) : y[e] * (T(1) - y[e]);
    dx[e] += slope * dy[e];
  }
}

template <class T>
struct ActivationOp : Op<T> {
  enum Operand : int { kX };
  Activation kind = Activation::kSoftplus;

  void forward_sample(Tape<T>& tape, int s) override {
    const auto y = tape.value(this->output);
    activation_forward(kind, this->value_of(tape, kX).sample(s), y.sample(s),
                       y.shape.sample_size());
  }
  void backward_sample(Tape<T>& tape, int s) override {
    T* dx = this->sink(kX).begin_sample(s);
    if (dx == nullptr) return;
    const auto y = tape.value(this->output);
    activation_backward(kind, this->value_of(tape, kX).sample(s), y.sample(s),
                        tape.grad(this->output).sample(s), dx, y.shape.sample_size());
  }
};

template <class T>
Var activation(Tape<T>& tape, Activation kind, Var x, std::string name) {
  auto op = std::make_unique<ActivationOp<T>>();
  op->inputs = {x};
  op->kind = kind;
  return tape.record(std::move(op), tape.shape(x), std::move(name));
}
template <class T>
Var softplus(Tape<T>& tape, Var x, std::string name = "softplus") {
  return activation(tape, Activation::kSoftplus, x, std::move(name));
}
template <class T>
Var sigmoid(Tape<T>& tape, Var x, std::string name = "sigmoid") {
  return activation(tape, Activation::kSigmoid, x, std::move(name));
}

}  // namespace ufl
