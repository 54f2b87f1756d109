#pragma once
// sum and mean of a whole batched tensor to one scalar, per-sample sums to one scalar per sample,
// and the mean over samples of such per-sample terms (the loss of docs/experiment.md §2). Sums over
// samples run in fixed order.
#include "tape/ops/broadcast.hpp"

namespace ufl {

template <class T>
T sum_forward(const T* a, std::size_t size) {
  T total = T(0);
  for (std::size_t e = 0; e < size; ++e) total += a[e];
  return total;
}

// da += factor · dout for every element.
template <class T>
void sum_backward(T dout_times_factor, T* da, std::size_t size) {
  for (std::size_t e = 0; e < size; ++e) da[e] += dout_times_factor;
}

template <class T>
struct SumOp : Op<T> {
  enum Operand : int { kA };
  T factor = T(1);  // 1 for sum, 1/size for mean

  // One partial sum per sample, added up in sample order by finish_forward().
  std::size_t extra_scratch_elements(const Tape<T>& tape) const override {
    return this->shape_of(tape, kA).batch;
  }
  void forward_sample(Tape<T>& tape, int s) override {
    const auto a = this->value_of(tape, kA);
    this->scratch[s] = sum_forward(a.sample(s), a.shape.sample_size());
    if (a.shape.batch == 1) tape.value(this->output).data[0] = factor * this->scratch[0];
  }
  void finish_forward(Tape<T>& tape) override {
    T total = T(0);
    for (int s = 0; s < this->shape_of(tape, kA).batch; ++s) total += this->scratch[s];
    tape.value(this->output).data[0] = factor * total;
  }
  void backward_sample(Tape<T>& tape, int s) override {
    T* da = this->sink(kA).begin_sample(s);
    if (da == nullptr) return;
    sum_backward(factor * tape.grad(this->output).data[0], da,
                 this->shape_of(tape, kA).sample_size());
  }
};

template <class T>
Var sum(Tape<T>& tape, Var a, std::string name = "sum") {
  auto op = std::make_unique<SumOp<T>>();
  op->inputs = {a};
  return tape.record(std::move(op), Shape{1, 1, 1}, std::move(name));
}

template <class T>
Var mean(Tape<T>& tape, Var a, std::string name = "mean") {
  auto op = std::make_unique<SumOp<T>>();
  op->inputs = {a};
  op->factor = T(1) / static_cast<T>(tape.shape(a).size());
  return tape.record(std::move(op), Shape{1, 1, 1}, std::move(name));
}

// One scalar per sample: factor · Σ of the sample's elements, [B, rows, cols] → [B, 1, 1].
template <class T>
struct SampleSumOp : Op<T> {
  enum Operand : int { kA };
  T factor = T(1);

  void forward_sample(Tape<T>& tape, int s) override {
    const auto a = this->value_of(tape, kA);
    tape.value(this->output).sample(s)[0] =
        factor * sum_forward(a.sample(s), a.shape.sample_size());
  }
  void backward_sample(Tape<T>& tape, int s) override {
    T* da = this->sink(kA).begin_sample(s);
    if (da == nullptr) return;
    sum_backward(factor * tape.grad(this->output).sample(s)[0], da,
                 this->shape_of(tape, kA).sample_size());
  }
};

template <class T>
Var sample_sum(Tape<T>& tape, Var a, double factor, std::string name = "sample_sum") {
  auto op = std::make_unique<SampleSumOp<T>>();
  op->inputs = {a};
  op->factor = static_cast<T>(factor);
  return tape.record(std::move(op), Shape{tape.shape(a).batch, 1, 1}, std::move(name));
}

// mean over samples of column `column` of a [B, 1, k] tensor: one scalar per sample (a fused
// op's per-sample loss terms) averaged in sample order.
template <class T>
struct ColumnMeanOp : Op<T> {
  enum Operand : int { kA };
  int column = 0;

  std::size_t extra_scratch_elements(const Tape<T>& tape) const override {
    return this->shape_of(tape, kA).batch;
  }
  void forward_sample(Tape<T>& tape, int s) override {
    const auto a = this->value_of(tape, kA);
    this->scratch[s] = a.sample(s)[column];
    if (a.shape.batch == 1) tape.value(this->output).data[0] = this->scratch[0];
  }
  void finish_forward(Tape<T>& tape) override {
    const int batch = this->shape_of(tape, kA).batch;
    T total = T(0);
    for (int s = 0; s < batch; ++s) total += this->scratch[s];
    tape.value(this->output).data[0] = total / static_cast<T>(batch);
  }
  void backward_sample(Tape<T>& tape, int s) override {
    T* da = this->sink(kA).begin_sample(s);
    if (da == nullptr) return;
    da[column] += tape.grad(this->output).data[0] / static_cast<T>(this->shape_of(tape, kA).batch);
  }
};

template <class T>
Var column_mean(Tape<T>& tape, Var a, int column, std::string name = "column_mean") {
  const Shape& sa = tape.shape(a);
  if (sa.rows != 1 || column < 0 || column >= sa.cols)
    throw std::logic_error(name + ": needs a [B, 1, k] tensor and 0 ≤ column < k, got " + sa.str());
  auto op = std::make_unique<ColumnMeanOp<T>>();
  op->inputs = {a};
  op->column = column;
  return tape.record(std::move(op), Shape{1, 1, 1}, std::move(name));
}

}  // namespace ufl
