#pragma once
// Elementwise ops: a ± b, a ⊙ b (b per-sample or shared), c·a, a², √a, a + c·I, and lerp(a, b, t)
// = a + t(b − a) with a shared scalar t (the gate of docs/experiment.md §2: M = (1−γ)S +
// γ·softmax(S)).
#include <cmath>

#include "tape/ops/broadcast.hpp"

namespace ufl {

enum class Binary { kAdd, kSub, kMul };

template <class T>
void binary_forward(Binary kind, const T* a, const T* b, T* out, std::size_t size) {
  for (std::size_t e = 0; e < size; ++e) {
    if (kind == Binary::kAdd) out[e] = a[e] + b[e];
    if (kind == Binary::kSub) out[e] = a[e] - b[e];
    if (kind == Binary::kMul) out[e] = a[e] * b[e];
  }
}

template <class T>
void binary_backward(Binary kind, const T* a, const T* b, const T* dout, T* da, T* db,
                     std::size_t size) {
  for (std::size_t e = 0; e < size; ++e) {
    if (da != nullptr) da[e] += kind == Binary::kMul ? dout[e] * b[e] : dout[e];
    if (db != nullptr)
      db[e] += kind == Binary::kMul ? dout[e] * a[e] : (kind == Binary::kSub ? -dout[e] : dout[e]);
  }
}

template <class T>
struct BinaryOp : Op<T> {
  enum Operand : int { kA, kB };
  Binary kind = Binary::kAdd;

  void forward_sample(Tape<T>& tape, int s) override {
    const auto out = tape.value(this->output);
    binary_forward(kind, this->value_of(tape, kA).sample(s), this->value_of(tape, kB).sample(s),
                   out.sample(s), out.shape.sample_size());
  }
  void backward_sample(Tape<T>& tape, int s) override {
    const auto dout = tape.grad(this->output);
    binary_backward(kind, this->value_of(tape, kA).sample(s), this->value_of(tape, kB).sample(s),
                    dout.sample(s), this->sink(kA).begin_sample(s), this->sink(kB).begin_sample(s),
                    dout.shape.sample_size());
  }
};

template <class T>
Var binary(Tape<T>& tape, Binary kind, Var a, Var b, std::string name) {
  const Shape& sa = tape.shape(a);
  const Shape& sb = tape.shape(b);
  if (sa.rows != sb.rows || sa.cols != sb.cols)
    throw std::logic_error(name + ": shapes " + sa.str() + " and " + sb.str() + " differ");
  auto op = std::make_unique<BinaryOp<T>>();
  op->inputs = {a, b};  // kA, kB
  op->kind = kind;
  const int batch = broadcast_batch(tape, a, b, name.c_str());
  return tape.record(std::move(op), Shape{batch, sa.rows, sa.cols}, std::move(name));
}

template <class T>
Var add(Tape<T>& tape, Var a, Var b, std::string name = "add") {
  return binary(tape, Binary::kAdd, a, b, std::move(name));
}
template <class T>
Var sub(Tape<T>& tape, Var a, Var b, std::string name = "sub") {
  return binary(tape, Binary::kSub, a, b, std::move(name));
}
template <class T>
Var mul(Tape<T>& tape, Var a, Var b, std::string name = "mul") {
  return binary(tape, Binary::kMul, a, b, std::move(name));
}

// out = factor·a, or out = a² (square).
template <class T>
struct PointwiseOp : Op<T> {
  enum Operand : int { kA };
  bool square = false;
  T factor = T(1);

  void forward_sample(Tape<T>& tape, int s) override {
    const auto out = tape.value(this->output);
    const T* x = this->value_of(tape, kA).sample(s);
    T* y = out.sample(s);
    const std::size_t size = out.shape.sample_size();
    for (std::size_t e = 0; e < size; ++e) y[e] = square ? x[e] * x[e] : factor * x[e];
  }
  void backward_sample(Tape<T>& tape, int s) override {
    T* dx = this->sink(kA).begin_sample(s);
    if (dx == nullptr) return;
    const auto dout = tape.grad(this->output);
    const T* x = this->value_of(tape, kA).sample(s);
    const T* dy = dout.sample(s);
    const std::size_t size = dout.shape.sample_size();
    for (std::size_t e = 0; e < size; ++e) dx[e] += square ? T(2) * x[e] * dy[e] : factor * dy[e];
  }
};

template <class T>
Var scale(Tape<T>& tape, Var a, double factor, std::string name = "scale") {
  auto op = std::make_unique<PointwiseOp<T>>();
  op->inputs = {a};
  op->factor = static_cast<T>(factor);
  return tape.record(std::move(op), tape.shape(a), std::move(name));
}

template <class T>
Var square(Tape<T>& tape, Var a, std::string name = "square") {
  auto op = std::make_unique<PointwiseOp<T>>();
  op->inputs = {a};
  op->square = true;
  return tape.record(std::move(op), tape.shape(a), std::move(name));
}

// out = √a, elementwise (a ≥ 0); da += dout/(2√a). The distance mixer's head folds √(σ/√r) into
// both its query and its key weights (model/mixers/distance.hpp).
template <class T>
struct SquareRootOp : Op<T> {
  enum Operand : int { kA };
  void forward_sample(Tape<T>& tape, int s) override {
    const auto out = tape.value(this->output);
    const T* x = this->value_of(tape, kA).sample(s);
    T* y = out.sample(s);
    for (std::size_t e = 0; e < out.shape.sample_size(); ++e) y[e] = std::sqrt(x[e]);
  }
  void backward_sample(Tape<T>& tape, int s) override {
    T* dx = this->sink(kA).begin_sample(s);
    if (dx == nullptr) return;
    const auto dout = tape.grad(this->output);
    const T* y = tape.value(this->output).sample(s);
    const T* dy = dout.sample(s);
    for (std::size_t e = 0; e < dout.shape.sample_size(); ++e) dx[e] += dy[e] / (T(2) * y[e]);
  }
};

template <class T>
Var square_root(Tape<T>& tape, Var a, std::string name = "square_root") {
  auto op = std::make_unique<SquareRootOp<T>>();
  op->inputs = {a};
  return tape.record(std::move(op), tape.shape(a), std::move(name));
}

// out = a + value·I for square samples (UᵀU − I of the orthogonality penalty); da += dout.
template <class T>
struct AddDiagonalOp : Op<T> {
  enum Operand : int { kA };
  T value = T(0);

  void forward_sample(Tape<T>& tape, int s) override {
    const auto out = tape.value(this->output);
    MatrixMap<T> y = out.matrix(s);
    y = this->value_of(tape, kA).view(s);
    y.diagonal().array() += value;
  }
  void backward_sample(Tape<T>& tape, int s) override {
    T* da = this->sink(kA).begin_sample(s);
    if (da == nullptr) return;
    const auto dout = tape.grad(this->output);
    const T* dy = dout.sample(s);
    for (std::size_t e = 0; e < dout.shape.sample_size(); ++e) da[e] += dy[e];
  }
};

template <class T>
Var add_diagonal(Tape<T>& tape, Var a, double value, std::string name = "add_diagonal") {
  if (tape.shape(a).rows != tape.shape(a).cols)
    throw std::logic_error(name + ": needs square samples, got " + tape.shape(a).str());
  auto op = std::make_unique<AddDiagonalOp<T>>();
  op->inputs = {a};
  op->value = static_cast<T>(value);
  return tape.record(std::move(op), tape.shape(a), std::move(name));
}

// One sample: out = a + t(b − a).
template <class T>
void lerp_forward(const T* a, const T* b, T t, T* out, std::size_t size) {
  for (std::size_t e = 0; e < size; ++e) out[e] = a[e] + t * (b[e] - a[e]);
}

// One sample: da += (1−t)·dout, db += t·dout, dt += Σ dout ⊙ (b − a).
template <class T>
void lerp_backward(const T* a, const T* b, T t, const T* dout, T* da, T* db, T* dt,
                   std::size_t size) {
  T weight_sum = T(0);
  for (std::size_t e = 0; e < size; ++e) {
    if (da != nullptr) da[e] += (T(1) - t) * dout[e];
    if (db != nullptr) db[e] += t * dout[e];
    weight_sum += dout[e] * (b[e] - a[e]);
  }
  if (dt != nullptr) dt[0] += weight_sum;
}

template <class T>
struct LerpOp : Op<T> {
  enum Operand : int { kA, kB, kT };
  void forward_sample(Tape<T>& tape, int s) override {
    const auto out = tape.value(this->output);
    lerp_forward(this->value_of(tape, kA).sample(s), this->value_of(tape, kB).sample(s),
                 this->value_of(tape, kT).sample(s)[0], out.sample(s), out.shape.sample_size());
  }
  void backward_sample(Tape<T>& tape, int s) override {
    const auto dout = tape.grad(this->output);
    lerp_backward(this->value_of(tape, kA).sample(s), this->value_of(tape, kB).sample(s),
                  this->value_of(tape, kT).sample(s)[0], dout.sample(s),
                  this->sink(kA).begin_sample(s), this->sink(kB).begin_sample(s),
                  this->sink(kT).begin_sample(s), dout.shape.sample_size());
  }
};

// a + t(b − a) with t a scalar (shape [1,1,1] or one per sample).
template <class T>
Var lerp(Tape<T>& tape, Var a, Var b, Var t, std::string name = "lerp") {
  if (!(tape.shape(a) == tape.shape(b)))
    throw std::logic_error(name + ": shapes " + tape.shape(a).str() + " and " +
                           tape.shape(b).str() + " differ");
  if (tape.shape(t).sample_size() != 1) throw std::logic_error(name + ": t must be a scalar");
  auto op = std::make_unique<LerpOp<T>>();
  op->inputs = {a, b, t};  // kA, kB, kT
  const int batch = broadcast_batch(tape, a, t, name.c_str());
  return tape.record(std::move(op), Shape{batch, tape.shape(a).rows, tape.shape(a).cols},
                     std::move(name));
}

}  // namespace ufl
