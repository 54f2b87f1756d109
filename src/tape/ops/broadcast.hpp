#pragma once
// The batch an op over per-sample and shared operands produces (used by the op builders).
#include <algorithm>
#include <memory>
#include <string>

#include "tape/tape.hpp"

namespace ufl {

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
