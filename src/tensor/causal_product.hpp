#pragma once
// Products with a causal n×n operand (docs/transformer.md §8): a mixing matrix L whose entries
// above the diagonal are zero (j > i), or scores of which only j ≤ i are used. They run block row
// by block row, kCausalBlock rows at a time, and skip the blocks above the diagonal: at n = 256
// about half the FLOPs of the full products. The blocks on the diagonal are computed whole, so a
// result's entries above the diagonal within them are computed but meaningless.
#include <algorithm>
#include <cstddef>

#include "tensor/small_gemm.hpp"

namespace ufl {

inline constexpr int kCausalBlock = 16;

// C (n×n, row stride n) = A·Bᵀ for the columns j below each block row's end: A is n×inner, Bᵀ is
// given as `bt` (inner×n). The scores Q·Kᵀ and dOut·Vᵀ.
template <class T>
void causal_scores(const T* a, std::ptrdiff_t lda, const T* bt, std::ptrdiff_t ldbt, T* c, int n,
                   int inner) {
  for (int i0 = 0; i0 < n; i0 += kCausalBlock) {
    const int i1 = std::min(n, i0 + kCausalBlock);
    small_gemm<T>(false, false, {i1 - i0, i1, inner}, {a + std::ptrdiff_t(i0) * lda, lda},
                  {bt, ldbt}, {c + std::ptrdiff_t(i0) * n, n});
  }
}

// C (n×cols) = L·B, L n×n (row stride n) zero above its diagonal: M·V, dS·K.
template <class T>
void causal_mix(const T* l, const T* b, std::ptrdiff_t ldb, T* c, std::ptrdiff_t ldc, int n,
                int cols) {
  for (int i0 = 0; i0 < n; i0 += kCausalBlock) {
    const int i1 = std::min(n, i0 + kCausalBlock);
    small_gemm<T>(false, false, {i1 - i0, cols, i1}, {l + std::ptrdiff_t(i0) * n, n}, {b, ldb},
                  {c + std::ptrdiff_t(i0) * ldc, ldc});
  }
}

// C (n×cols) = Lᵀ·B, L as above: row j of C sums over i ≥ j. Mᵀ·dOut, dSᵀ·Q.
template <class T>
void causal_mix_transposed(const T* l, const T* b, std::ptrdiff_t ldb, T* c, std::ptrdiff_t ldc,
                           int n, int cols) {
  for (int j0 = 0; j0 < n; j0 += kCausalBlock) {
    const int j1 = std::min(n, j0 + kCausalBlock);
    small_gemm<T>(true, false, {j1 - j0, cols, n - j0}, {l + std::ptrdiff_t(j0) * n + j0, n},
                  {b + std::ptrdiff_t(j0) * ldb, ldb}, {c + std::ptrdiff_t(j0) * ldc, ldc});
  }
}

}  // namespace ufl
