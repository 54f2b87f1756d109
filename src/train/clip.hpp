#pragma once
// Clipping of the global gradient norm (docs/transformer.md §3), as torch's clip_grad_norm_: when
// ‖g‖₂ > max_norm every gradient is scaled by max_norm/(‖g‖₂ + 1e-6).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace ufl::train {

// ‖g‖₂, its squares summed in double over fixed chunks of kClipChunk elements, then the chunks
// in order, so the norm is the same at any thread count. Inside a chunk, element e goes to
// partial sum e mod kClipLanes and the partial sums are added in order at the end: independent
// sums the compiler keeps in vector registers (one running sum would wait on each addition).
inline constexpr std::ptrdiff_t kClipChunk = 1 << 14;
inline constexpr int kClipLanes = 32;
inline double gradient_norm(const float* grads, std::size_t count) {
  const std::ptrdiff_t size = static_cast<std::ptrdiff_t>(count);
  const std::ptrdiff_t chunks = (size + kClipChunk - 1) / kClipChunk;
  std::vector<double> partial(std::max<std::ptrdiff_t>(chunks, 1), 0.0);
#pragma omp parallel for schedule(static) if (chunks > 4)
  for (std::ptrdiff_t chunk = 0; chunk < chunks; ++chunk) {
    double lanes[kClipLanes] = {};
    const std::ptrdiff_t begin = chunk * kClipChunk, end = std::min(size, begin + kClipChunk);
    std::ptrdiff_t e = begin;
    for (; e + kClipLanes <= end; e += kClipLanes)
      for (int lane = 0; lane < kClipLanes; ++lane)
        lanes[lane] += double(grads[e + lane]) * grads[e + lane];
    for (int lane = 0; e < end; ++e, ++lane) lanes[lane] += double(grads[e]) * grads[e];
    double squares = 0;
    for (double lane : lanes) squares += lane;
    partial[chunk] = squares;
  }
  double squares = 0;
  for (double part : partial) squares += part;
  return std::sqrt(squares);
}

// The factor every gradient is multiplied by: max_norm/(‖g‖₂ + 1e-6) when ‖g‖₂ > max_norm, else
// 1 (and 1 when max_norm ≤ 0: no clipping). The optimiser applies it (train/adam.hpp).
inline float clip_factor(double norm, double max_norm) {
  return max_norm > 0 && norm > max_norm ? float(max_norm / (norm + 1e-6)) : 1.0f;
}

}  // namespace ufl::train
