#pragma once
// The two loops every kernel is built from. The batch is the unit of parallel work: each
// sample's forward and backward run on one thread. Gradients of a shared operand are written
// per sample into scratch and then summed over samples in the fixed order 0..B-1, so the result
// does not depend on how many threads ran.
#include <algorithm>
#include <cstddef>
#include <utility>

namespace ufl {

// Below this many elements a loop runs on one thread: waking threads would cost more than the
// work. Which thread runs a sample never changes its result, so this is only about speed.
inline constexpr std::size_t kParallelElements = 8192;

template <class Body>
void for_each_sample(int batch, Body&& body, std::size_t elements = kParallelElements) {
#pragma omp parallel for schedule(static) if (batch > 1 && elements >= kParallelElements)
  for (int b = 0; b < batch; ++b) body(b);
}

// into[e] += Σ_b per_sample[b·size + e], summed in the order b = 0, 1, …, batch−1.
template <class T>
void sum_over_batch(const T* per_sample, int batch, std::size_t size, T* into) {
  constexpr std::ptrdiff_t kChunk = 512;  // fixed, so the split never depends on the threads
  const std::ptrdiff_t chunks = (static_cast<std::ptrdiff_t>(size) + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (chunks > 1 && size * batch > (std::size_t(1) << 20))
  for (std::ptrdiff_t chunk = 0; chunk < chunks; ++chunk) {
    const std::ptrdiff_t begin = chunk * kChunk;
    const std::ptrdiff_t end = std::min<std::ptrdiff_t>(begin + kChunk, size);
    for (int b = 0; b < batch; ++b) {
      const T* row = per_sample + static_cast<std::size_t>(b) * size;
      for (std::ptrdiff_t e = begin; e < end; ++e) into[e] += row[e];
    }
  }
}

}  // namespace ufl
