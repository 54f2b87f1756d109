#pragma once
// C (+)= α·op(A)·B for the small row-major matrices of one sample (n, r ≤ a few hundred), where
// a general GEMM spends more time packing its operands than multiplying them. B is read in
// place, row by row: C's rows are built as sums of B's rows scaled by entries of A, a block of
// kRows rows × kWidth columns of C at a time in registers (the loops have constant trip counts
// so the compiler unrolls and vectorizes them). op(A) = A or Aᵀ; a product with Bᵀ is done by
// transposing B first (small_gemm_nt).
//
// The summation order over the inner dimension is fixed (k = 0, 1, …), so results do not
// depend on threads, only on the sizes. Each term is one fused multiply-add where the instruction
// set has one (AVX2/FMA, AVX-512, NEON) and a rounded product then an add where it has not
// (SSE2), written out rather than left to the compiler's contraction, which differed between the
// kernel's blocks and between optimisation levels: a result depends on the instruction set alone
// (docs/building.md, "Instruction sets").
//
// A stop request (io/stop_request.hpp) ends a product between column blocks, leaving C
// partly computed: at n = 4096 one product takes seconds, a column block milliseconds.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "io/stop_request.hpp"

#if defined(__FMA__) || defined(__AVX512F__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace ufl {

// An operand of the product, row-major: its first element and its row stride, in elements.
template <class T>
struct GemmOperand {
  T* data;
  std::ptrdiff_t stride;
};

// C is rows×cols; `inner` is the dimension the product sums over.
struct GemmShape {
  std::ptrdiff_t rows, cols, inner;
};

// The register block of the instruction set this file is compiled for (docs/building.md,
// "Instruction sets"): a block of C of kBlockRows rows × kBlockVectors vectors of kVectorBytes is
// summed in registers, so it must fit the register file with B's vectors beside it (A's value is
// broadcast from memory into each multiply-add). A vector the machine does not have is split by the
// compiler through the stack: 64-byte vectors on an AVX2 machine ran at 2 GFLOP/s (issue 38), hence
// one block per instruction set, each the fastest of the shapes measured (bench/README.md, "The
// product kernel per instruction set").
#if defined(__AVX512F__)
inline constexpr int kVectorBytes = 64, kBlockRows = 8, kBlockVectors = 2;  // 16 of 32 zmm
#elif defined(__AVX__)
inline constexpr int kVectorBytes = 32, kBlockRows = 6, kBlockVectors = 2;  // 12 of 16 ymm
#elif defined(__aarch64__)
inline constexpr int kVectorBytes = 16, kBlockRows = 8, kBlockVectors = 3;  // 24 of 32 NEON
#else
inline constexpr int kVectorBytes = 16, kBlockRows = 3, kBlockVectors = 3;  // 9 of 16 xmm (SSE2)
#endif
// The instruction set's name, for benchmarks and run manifests.
inline constexpr const char* kKernelTarget =
#if defined(__AVX512F__)
    "avx512";
#elif defined(__AVX2__)
    "avx2";
#elif defined(__AVX__)
    "avx";
#elif defined(__aarch64__)
    "neon";
#else
    "sse2";
#endif

// Whether the kernel's terms are fused multiply-adds (one rounding) or products then adds.
#if defined(__FMA__) || defined(__AVX512F__) || defined(__aarch64__)
inline constexpr bool kFusedMultiplyAdd = true;
#else
inline constexpr bool kFusedMultiplyAdd = false;
#endif

namespace detail {

// a·b + c, fused where kFusedMultiplyAdd: on scalars, or on GCC/Clang vectors of float or double
// of the instruction set's widths (16, 32 or 64 bytes).
template <class Vector>
inline Vector multiply_add(Vector a, Vector b, Vector c) {
  if constexpr (std::is_floating_point_v<Vector>) {
    if constexpr (kFusedMultiplyAdd)
      return std::fma(a, b, c);
    else
      return a * b + c;
  } else {
#if defined(__aarch64__)
    static_assert(sizeof(Vector) == 16, "NEON vectors are 16 bytes");
    if constexpr (sizeof(a[0]) == sizeof(float))
      return Vector(vfmaq_f32(float32x4_t(c), float32x4_t(a), float32x4_t(b)));
    else
      return Vector(vfmaq_f64(float64x2_t(c), float64x2_t(a), float64x2_t(b)));
#elif defined(__FMA__) || defined(__AVX512F__)
    constexpr bool single = sizeof(a[0]) == sizeof(float);
    if constexpr (sizeof(Vector) == 16) {
      if constexpr (single)
        return Vector(_mm_fmadd_ps(__m128(a), __m128(b), __m128(c)));
      else
        return Vector(_mm_fmadd_pd(__m128d(a), __m128d(b), __m128d(c)));
    } else if constexpr (sizeof(Vector) == 32) {
      if constexpr (single)
        return Vector(_mm256_fmadd_ps(__m256(a), __m256(b), __m256(c)));
      else
        return Vector(_mm256_fmadd_pd(__m256d(a), __m256d(b), __m256d(c)));
    } else {
#if defined(__AVX512F__)
      static_assert(sizeof(Vector) == 64, "vectors are 16, 32 or 64 bytes");
      if constexpr (single)
        return Vector(_mm512_fmadd_ps(__m512(a), __m512(b), __m512(c)));
      else
        return Vector(_mm512_fmadd_pd(__m512d(a), __m512d(b), __m512d(c)));
#else
      static_assert(sizeof(Vector) <= 32, "64-byte vectors need AVX-512");
#endif
    }
#else
    return a * b + c;  // no fused multiply-add on this instruction set
#endif
  }
}

// Rows [i0, i0+kRows) × columns [j0, j0 + kVectors·(kBytes/sizeof(T))) of C, with the sums in
// kRows·kVectors SIMD registers (GCC/Clang vector extensions).
// b and c start at the block's first column (b may be a packed panel: b.stride its width).
template <class T, int kRows, int kVectors, int kBytes, bool kTransposeA, bool kAccumulate>
inline void small_gemm_block(std::ptrdiff_t i0, std::ptrdiff_t inner, GemmOperand<const T> a,
                             GemmOperand<const T> b, GemmOperand<T> c, T alpha) {
  typedef T Vector __attribute__((vector_size(kBytes)));
  // The same vector at any element-aligned address (unaligned loads and stores, may alias T).
  typedef T Unaligned __attribute__((vector_size(kBytes), aligned(sizeof(T)), __may_alias__));
  constexpr int kLanes = kBytes / sizeof(T);
  Vector sum[kRows][kVectors];
  for (int r = 0; r < kRows; ++r)
    for (int v = 0; v < kVectors; ++v) sum[r][v] = Vector{} * T(0);
  for (std::ptrdiff_t k = 0; k < inner; ++k) {
    const T* b_row = b.data + k * b.stride;
    Vector b_vectors[kVectors];
    for (int v = 0; v < kVectors; ++v)
      b_vectors[v] = *reinterpret_cast<const Unaligned*>(b_row + v * kLanes);
    for (int r = 0; r < kRows; ++r) {
      // x − 0 is x for every x, so GCC folds the subtraction away and broadcasts a's element
      // straight from memory into the fused multiply-adds; 0 + x is not x (for x = −0), and that
      // add cost 7 % of the kernel's rate with AVX-512 and 30 % with AVX2 (bench/README.md).
      const Vector a_value =
          (kTransposeA ? a.data[k * a.stride + i0 + r] : a.data[(i0 + r) * a.stride + k]) -
          Vector{};
      for (int v = 0; v < kVectors; ++v) sum[r][v] = multiply_add(a_value, b_vectors[v], sum[r][v]);
    }
  }
  for (int r = 0; r < kRows; ++r) {
    T* c_row = c.data + (i0 + r) * c.stride;
    for (int v = 0; v < kVectors; ++v) {
      Unaligned* target = reinterpret_cast<Unaligned*>(c_row + v * kLanes);
      if constexpr (kAccumulate)
        *target = multiply_add(alpha - Vector{}, sum[r][v], Vector(*target));
      else
        *target = alpha * sum[r][v];
    }
  }
}

// All rows of C for one column block; b and c start at its first column.
template <class T, int kVectors, int kBytes, bool kTransposeA, bool kAccumulate>
inline void small_gemm_columns(std::ptrdiff_t rows, std::ptrdiff_t inner, GemmOperand<const T> a,
                               GemmOperand<const T> b, GemmOperand<T> c, T alpha) {
  std::ptrdiff_t i = 0;
  for (; i + kBlockRows <= rows; i += kBlockRows)
    small_gemm_block<T, kBlockRows, kVectors, kBytes, kTransposeA, kAccumulate>(i, inner, a, b, c,
                                                                                alpha);
  for (; i < rows; ++i)
    small_gemm_block<T, 1, kVectors, kBytes, kTransposeA, kAccumulate>(i, inner, a, b, c, alpha);
}

// The columns from j on that are narrower than a block: whole vectors, then half vectors down to
// 16 bytes; returns the first column left (those are summed one by one).
template <class T, int kBytes, bool kTransposeA, bool kAccumulate>
std::ptrdiff_t small_gemm_narrow(std::ptrdiff_t j, std::ptrdiff_t rows, std::ptrdiff_t cols,
                                 std::ptrdiff_t inner, GemmOperand<const T> a,
                                 GemmOperand<const T> b, GemmOperand<T> c, T alpha) {
  constexpr std::ptrdiff_t kLanes = kBytes / std::ptrdiff_t(sizeof(T));
  if constexpr (kLanes >= 2) {
    for (; j + kLanes <= cols; j += kLanes)
      small_gemm_columns<T, 1, kBytes, kTransposeA, kAccumulate>(
          rows, inner, a, {b.data + j, b.stride}, {c.data + j, c.stride}, alpha);
    if constexpr (kBytes > 16)
      return small_gemm_narrow<T, kBytes / 2, kTransposeA, kAccumulate>(j, rows, cols, inner, a, b,
                                                                        c, alpha);
  }
  return j;
}

// B's first `cols` columns (a multiple of kWidth) copied into `packed` as panels of kWidth
// columns, each inner × kWidth contiguous: panel p starts p·inner·kWidth elements after the
// first. B is read row after row, so its rows stream in from memory in order, and the row blocks
// of C then read each panel from consecutive cache lines rather than from rows a power-of-two
// stride apart, which share a few cache sets. Only a copy: the products and their order are the
// same.
template <class T, int kWidth>
void copy_panels(GemmOperand<const T> b, std::ptrdiff_t inner, std::ptrdiff_t cols, T* packed) {
  const std::ptrdiff_t panels = cols / kWidth, panel_size = inner * kWidth;
  for (std::ptrdiff_t k = 0; k < inner; ++k) {
    const T* row = b.data + k * b.stride;
    for (std::ptrdiff_t p = 0; p < panels; ++p)
      std::memcpy(packed + p * panel_size + k * kWidth, row + p * kWidth, kWidth * sizeof(T));
  }
}

// The same into a per-thread buffer, 64-byte aligned; returns the first panel.
template <class T, int kWidth>
const T* pack_panels(GemmOperand<const T> b, std::ptrdiff_t inner, std::ptrdiff_t cols) {
  thread_local std::vector<T> storage;
  constexpr std::size_t kAlign = 64 / sizeof(T);
  const std::size_t need = std::size_t(inner) * cols + kAlign;
  if (storage.size() < need) storage.resize(need);
  T* packed = storage.data();
  packed += (kAlign - (reinterpret_cast<std::uintptr_t>(packed) / sizeof(T)) % kAlign) % kAlign;
  copy_panels<T, kWidth>(b, inner, cols, packed);
  return packed;
}

// B is packed when C has at least kPackRows rows (fewer reuse a panel too little to pay for the
// copy), the product sums over at least kPackInner terms (a shorter panel stays in cache
// unpacked: the denoising layer at n = 32 was measured 6 % slower packing its products) and the
// packed columns are at most kPackElements elements (the buffer stays in cache).
inline constexpr std::ptrdiff_t kPackRows = 32, kPackInner = 64,
                                kPackElements = std::ptrdiff_t(1) << 18;

// `prepacked`: B's wide columns already in panel layout (pack_operand), or null.
template <class T, bool kTransposeA, bool kAccumulate>
void small_gemm_impl(GemmShape shape, GemmOperand<const T> a, GemmOperand<const T> b,
                     const T* prepacked, GemmOperand<T> c, T alpha) {
  const std::ptrdiff_t rows = shape.rows, cols = shape.cols, inner = shape.inner;
  // Column blocks of kBlockVectors vectors (a panel), then narrower ones, then single columns.
  constexpr std::ptrdiff_t kPanel = kBlockVectors * (kVectorBytes / std::ptrdiff_t(sizeof(T)));
  const std::ptrdiff_t wide_cols = cols / kPanel * kPanel;
  std::ptrdiff_t j = 0;
  if (prepacked != nullptr || (rows >= kPackRows && inner >= kPackInner && wide_cols > 0 &&
                               inner * wide_cols <= kPackElements)) {
    const T* packed =
        prepacked != nullptr ? prepacked : pack_panels<T, kPanel>(b, inner, wide_cols);
    for (; j < wide_cols; j += kPanel) {
      if (interrupt::stop_requested()) return;
      small_gemm_columns<T, kBlockVectors, kVectorBytes, kTransposeA, kAccumulate>(
          rows, inner, a, {packed + j * inner, kPanel}, {c.data + j, c.stride}, alpha);
    }
  }
  for (; j + kPanel <= cols; j += kPanel) {
    if (interrupt::stop_requested()) return;
    small_gemm_columns<T, kBlockVectors, kVectorBytes, kTransposeA, kAccumulate>(
        rows, inner, a, {b.data + j, b.stride}, {c.data + j, c.stride}, alpha);
  }
  j = small_gemm_narrow<T, kVectorBytes, kTransposeA, kAccumulate>(j, rows, cols, inner, a, b, c,
                                                                   alpha);
  for (; j < cols; ++j)
    for (std::ptrdiff_t i = 0; i < rows; ++i) {
      T sum = T(0);
      for (std::ptrdiff_t k = 0; k < inner; ++k)
        sum = multiply_add(kTransposeA ? a.data[k * a.stride + i] : a.data[i * a.stride + k],
                           b.data[k * b.stride + j], sum);
      T& out = c.data[i * c.stride + j];
      if constexpr (kAccumulate)
        out = multiply_add(alpha, sum, out);
      else
        out = alpha * sum;
    }
}

template <class T>
void small_gemm_dispatch(bool transpose_a, bool accumulate, GemmShape shape, GemmOperand<const T> a,
                         GemmOperand<const T> b, const T* prepacked, GemmOperand<T> c, T alpha) {
  if (transpose_a) {
    if (accumulate)
      small_gemm_impl<T, true, true>(shape, a, b, prepacked, c, alpha);
    else
      small_gemm_impl<T, true, false>(shape, a, b, prepacked, c, alpha);
  } else {
    if (accumulate)
      small_gemm_impl<T, false, true>(shape, a, b, prepacked, c, alpha);
    else
      small_gemm_impl<T, false, false>(shape, a, b, prepacked, c, alpha);
  }
}

}  // namespace detail

// C = α·op(A)·B (accumulate = false) or C += α·op(A)·B. B is inner×cols; A is rows×inner, or
// inner×rows when transpose_a.
template <class T>
void small_gemm(bool transpose_a, bool accumulate, GemmShape shape, GemmOperand<const T> a,
                GemmOperand<const T> b, GemmOperand<T> c, T alpha = T(1)) {
  detail::small_gemm_dispatch<T>(transpose_a, accumulate, shape, a, b, nullptr, c, alpha);
}

// A B that many products read (a weight, read by every sample of a step), with its columns up to
// the last multiple of the kernel's panel width also copied once into the kernel's panel layout,
// so that those products skip their own copy of B; the same sums in the same order as
// small_gemm's. `panels` holds packed_size(rows, cols) elements, best 64-byte aligned.
template <class T>
struct PackedOperand {
  const T* data;  // B itself, row-major: the columns after the panels are read from here
  std::ptrdiff_t rows, cols, stride;
  const T* panels;
};

template <class T>
constexpr std::ptrdiff_t panel_width() {
  return kBlockVectors * (kVectorBytes / std::ptrdiff_t(sizeof(T)));
}
template <class T>
constexpr std::size_t packed_size(std::ptrdiff_t rows, std::ptrdiff_t cols) {
  return std::size_t(rows) * std::size_t(cols / panel_width<T>() * panel_width<T>());
}

// Copies B's panels into `panels` (packed_size(rows, cols) elements) and returns B with them.
template <class T>
PackedOperand<T> pack_operand(const T* data, std::ptrdiff_t rows, std::ptrdiff_t cols,
                              std::ptrdiff_t stride, T* panels) {
  constexpr int kWidth = int(panel_width<T>());
  detail::copy_panels<T, kWidth>({data, stride}, rows, cols / kWidth * kWidth, panels);
  return {data, rows, cols, stride, panels};
}

// C (+)= α·op(A)·B with B packed once (pack_operand).
template <class T>
void small_gemm_packed(bool transpose_a, bool accumulate, GemmShape shape, GemmOperand<const T> a,
                       const PackedOperand<T>& b, GemmOperand<T> c, T alpha = T(1)) {
  if (b.rows != shape.inner || b.cols != shape.cols)
    throw std::logic_error("small_gemm: the packed operand does not fit the product");
  detail::small_gemm_dispatch<T>(transpose_a, accumulate, shape, a, {b.data, b.stride},
                                 shape.cols >= panel_width<T>() ? b.panels : nullptr, c, alpha);
}

template <class... Matrices>
constexpr bool all_row_major = (std::decay_t<Matrices>::IsRowMajor && ...);

// The same on row-major Eigen matrices, maps or blocks of them:
//   multiply(c, a, b)         c = α·a·b        multiply(c, a, b, true)        c += α·a·b
//   multiply_at(c, a, b)      c = α·aᵀ·b       multiply_at(c, a, b, true)     c += α·aᵀ·b
template <class C, class A, class B, class T = typename std::decay_t<C>::Scalar>
void multiply(C&& c, const A& a, const B& b, bool accumulate = false, T alpha = T(1)) {
  static_assert(all_row_major<C, A, B>, "multiply: operands must be row-major");
  if (a.rows() != c.rows() || b.cols() != c.cols() || a.cols() != b.rows())
    throw std::logic_error("multiply: shapes do not fit");
  small_gemm<T>(false, accumulate, {c.rows(), c.cols(), a.cols()}, {a.data(), a.outerStride()},
                {b.data(), b.outerStride()}, {c.data(), c.outerStride()}, alpha);
}
// c (+)= α·a·b with b packed once per step (pack_operand).
template <class C, class A, class T = typename std::decay_t<C>::Scalar>
void multiply(C&& c, const A& a, const PackedOperand<T>& b, bool accumulate = false,
              T alpha = T(1)) {
  static_assert(all_row_major<C, A>, "multiply: operands must be row-major");
  if (a.rows() != c.rows() || b.cols != c.cols() || a.cols() != b.rows)
    throw std::logic_error("multiply: shapes do not fit");
  small_gemm_packed<T>(false, accumulate, {c.rows(), c.cols(), a.cols()},
                       {a.data(), a.outerStride()}, b, {c.data(), c.outerStride()}, alpha);
}
template <class C, class A, class B, class T = typename std::decay_t<C>::Scalar>
void multiply_at(C&& c, const A& a, const B& b, bool accumulate = false, T alpha = T(1)) {
  static_assert(all_row_major<C, A, B>, "multiply_at: operands must be row-major");
  if (a.cols() != c.rows() || b.cols() != c.cols() || a.rows() != b.rows())
    throw std::logic_error("multiply_at: shapes do not fit");
  small_gemm<T>(true, accumulate, {c.rows(), c.cols(), a.rows()}, {a.data(), a.outerStride()},
                {b.data(), b.outerStride()}, {c.data(), c.outerStride()}, alpha);
}

}  // namespace ufl
