#pragma once
// Where a backward kernel writes sample b's gradient for one input. A per-sample input gets
// it in its own gradient tensor; an input shared by the batch (a parameter) gets it in a
// per-sample slice of the op's scratch, summed in fixed order by finish(), which keeps the
// result independent of the thread count.
#include <algorithm>
#include <memory>

#include "tape/parallel.hpp"
#include "tape/tape.hpp"

namespace ufl {

template <class T>
bool summed_over_batch(const Tape<T>& tape, Var input, Var output) {
  return tape.needs_grad(input) && tape.shape(input).batch == 1 && tape.shape(output).batch > 1;
}

// Scratch the op needs for the per-sample gradients of its shared inputs.
template <class T>
std::size_t shared_gradient_scratch(const Tape<T>& tape, const Op<T>& op) {
  std::size_t total = 0;
  for (Var in : op.inputs)
    if (summed_over_batch(tape, in, op.output))
      total += tape.shape(op.output).batch * tape.shape(in).sample_size();
  return total;
}

template <class T>
struct GradSink {
  T* grad = nullptr;     // the input's gradient; nullptr when it needs none
  T* scratch = nullptr;  // per-sample slices when the input is shared
  std::size_t sample_size = 0;
  int batch = 1;

  bool active() const { return grad != nullptr; }
  // The buffer sample b adds its contribution to (zeroed first when it is a scratch slice).
  T* begin_sample(int b) const {
    if (scratch == nullptr) return grad + static_cast<std::size_t>(b) * sample_size;
    T* slot = scratch + static_cast<std::size_t>(b) * sample_size;
    std::fill(slot, slot + sample_size, T(0));
    return slot;
  }
  void finish() const {
    if (scratch != nullptr) sum_over_batch(scratch, batch, sample_size, grad);
  }
};

// The sink for op.inputs[index]; scratch slices are laid out in input order.
template <class T>
GradSink<T> grad_sink(const Tape<T>& tape, const Op<T>& op, std::size_t index) {
  GradSink<T> sink;
  const Var in = op.inputs.at(index);
  if (!tape.needs_grad(in)) return sink;
  sink.grad = tape.grad(in).data;
  sink.sample_size = tape.shape(in).sample_size();
  sink.batch = tape.shape(op.output).batch;
  if (summed_over_batch(tape, in, op.output)) {
    std::size_t offset = 0;
    for (std::size_t k = 0; k < index; ++k)
      if (summed_over_batch(tape, op.inputs[k], op.output))
        offset += tape.shape(op.output).batch * tape.shape(op.inputs[k]).sample_size();
    sink.scratch = op.scratch + offset;
  }
  return sink;
}

// Output batch of an op over operands that are per-sample or shared; checks they agree.
template <class T>
int broadcast_batch(const Tape<T>& tape, Var a, Var b, const char* op_name) {
  const int batch_a = tape.shape(a).batch, batch_b = tape.shape(b).batch;
  if (batch_a != batch_b && batch_a != 1 && batch_b != 1)
    throw std::logic_error(std::string(op_name) + ": batch sizes " + std::to_string(batch_a) +
                           " and " + std::to_string(batch_b) + " do not broadcast");
  return std::max(batch_a, batch_b);
}

}  // namespace ufl
