#pragma once
// The products of one transformer training step at the reference configuration (n = 64, D = 128,
// 4 heads of width 32, MLP 4D, batch 12, 4 blocks; bench/README.md), each with the row strides the
// fused ops give it (heads_kernel.hpp, mlp_kernel.hpp, score_core.hpp, causal_product.hpp,
// batch_product.hpp) and its calls per step: 48 sample-blocks (batch 12 × 4 blocks).
#include <cstddef>
#include <vector>

#include "tensor/small_gemm.hpp"

namespace ufl::bench {

struct ProductShape {
  const char* what;
  std::ptrdiff_t rows, cols, inner;
  bool transpose_a, accumulate;
  std::ptrdiff_t lda, ldb, ldc;
  double calls_per_step;
};

inline std::vector<ProductShape> reference_shapes() {
  const double samples = 48, blocks = 4;
  // The weight gradients' tiles: kProductTile² each, over chunks of kProductRowChunk rows.
  std::vector<ProductShape> s = {
      {"x̂·W_in", 64, 384, 128, false, false, 128, 384, 384, samples},
      {"Z·W_o (+)", 64, 128, 128, false, true, 128, 128, 128, samples},
      {"x̂·W_1", 64, 512, 128, false, false, 128, 512, 512, samples},
      {"g·W_2 (+)", 64, 128, 512, false, true, 512, 128, 128, samples},
      {"dOut·W_oᵀ", 64, 128, 128, false, false, 128, 128, 128, samples},
      {"dP·W_inᵀ", 64, 128, 384, false, false, 384, 128, 128, samples},
      {"dOut·W_2ᵀ", 64, 512, 128, false, false, 128, 512, 512, samples},
      {"dA·W_1ᵀ", 64, 128, 512, false, false, 512, 128, 128, samples},
      {"dW_in tile", 64, 64, 128, true, true, 128, 384, 384, blocks * 2 * 6 * 6},
      {"dW_o tile", 64, 64, 128, true, true, 128, 128, 128, blocks * 2 * 2 * 6},
      {"dW_1 tile", 64, 64, 128, true, true, 128, 512, 512, blocks * 2 * 8 * 6},
      {"dW_2 tile", 64, 64, 128, true, true, 512, 128, 128, blocks * 8 * 2 * 6},
  };
  // Per head (4 per sample-block), per causal block row of 16: the scores Q·Kᵀ and dOut·Vᵀ,
  // the mixing M·V and dS·K, the transposed mixing Mᵀ·dOut and dSᵀ·Q.
  const double heads = samples * 4;
  for (int i1 = 16; i1 <= 64; i1 += 16) {
    s.push_back({"causal scores", 16, i1, 32, false, false, 384, 64, 64, 2 * heads});
    s.push_back({"causal mix", 16, 32, i1, false, false, 64, 384, 128, 2 * heads});
    s.push_back({"causal mixᵀ", 16, 32, 80 - i1, true, false, 64, 128, 32, 2 * heads});
  }
  return s;
}

// Operands of one shape with deterministic values in [-0.5, 0.5).
struct ProductOperands {
  std::vector<float> a, b, c;
  explicit ProductOperands(const ProductShape& s)
      : a((s.transpose_a ? s.inner : s.rows) * s.lda), b(s.inner * s.ldb), c(s.rows * s.ldc) {
    for (std::size_t e = 0; e < a.size(); ++e) a[e] = float((e * 7919) % 1000) * 1e-3f - 0.5f;
    for (std::size_t e = 0; e < b.size(); ++e) b[e] = float((e * 104729) % 1000) * 1e-3f - 0.5f;
  }
  void multiply(const ProductShape& s) {
    small_gemm<float>(s.transpose_a, s.accumulate, {s.rows, s.cols, s.inner}, {a.data(), s.lda},
                      {b.data(), s.ldb}, {c.data(), s.ldc});
    if (s.accumulate) c[0] *= 0.5f;  // keep the accumulated values bounded
  }
};

}  // namespace ufl::bench
