#pragma once
// sum and mean of a whole batched tensor to one scalar (the MSE and the orthogonality
// penalty of spec §2). Per-sample partial sums, then a sum over samples in fixed order.
#include "tape/ops/grad_sink.hpp"

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
  T factor = T(1);  // 1 for sum, 1/size for mean

  std::size_t scratch_elements(const Tape<T>& tape) const override {
    return tape.shape(this->inputs[0]).batch;
  }
  void forward(Tape<T>& tape) override {
    const auto a = tape.value(this->inputs[0]);
    const std::size_t size = a.shape.sample_size();
    T* partial = this->scratch;
    for_each_sample(a.shape, [&](int s) { partial[s] = sum_forward(a.sample(s), size); });
    T total = T(0);
    for (int s = 0; s < a.shape.batch; ++s) total += partial[s];
    tape.value(this->output).data[0] = factor * total;
  }
  void backward(Tape<T>& tape) override {
    if (!tape.needs_grad(this->inputs[0])) return;
    const auto da = tape.grad(this->inputs[0]);
    const T scaled = factor * tape.grad(this->output).data[0];
    const std::size_t size = da.shape.sample_size();
    for_each_sample(da.shape, [&](int s) { sum_backward(scaled, da.sample(s), size); });
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

}  // namespace ufl
