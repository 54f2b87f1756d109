// The small-matrix product against Eigen's product and a hand-computed case, for every path
// of the kernel: column blocks of two vectors, one, half a vector and single columns; row
// blocks of 8 and single rows; Aᵀ or A; overwrite or accumulate; float and double.
#include "tensor/small_gemm.hpp"

#include <doctest/doctest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <vector>

#include "data/rng.hpp"
#include "tensor/tensor.hpp"

using namespace ufl;

namespace {

template <class T>
RowMatrix<T> random_matrix(int rows, int cols, data::Rng& rng) {
  RowMatrix<T> m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = static_cast<T>(rng.normal());
  return m;
}

// Largest |kernel − Eigen| over the entries, relative to the largest |entry| of the result.
template <class T>
double product_error(int rows, int cols, int inner, bool transpose_a, bool accumulate,
                     std::uint64_t seed) {
  data::Rng rng(seed, data::Stream::kMonteCarlo);
  const RowMatrix<T> a =
      transpose_a ? random_matrix<T>(inner, rows, rng) : random_matrix<T>(rows, inner, rng);
  const RowMatrix<T> b = random_matrix<T>(inner, cols, rng);
  const RowMatrix<T> before = random_matrix<T>(rows, cols, rng);
  const T alpha = T(0.75);
  RowMatrix<T> expected =
      alpha * (transpose_a ? RowMatrix<T>(a.transpose() * b) : RowMatrix<T>(a * b));
  if (accumulate) expected += before;
  RowMatrix<T> got = before;
  if (transpose_a)
    multiply_at(got, a, b, accumulate, alpha);
  else
    multiply(got, a, b, accumulate, alpha);
  return (got - expected).cwiseAbs().maxCoeff() / expected.cwiseAbs().maxCoeff();
}

}  // namespace

TEST_CASE("a 2×3 by 3×2 product, by hand") {
  RowMatrix<double> a(2, 3), b(3, 2), c(2, 2);
  a << 1, 2, 3, 4, 5, 6;
  b << 7, 8, 9, 10, 11, 12;
  multiply(c, a, b);
  CHECK(c(0, 0) == 58);
  CHECK(c(0, 1) == 64);
  CHECK(c(1, 0) == 139);
  CHECK(c(1, 1) == 154);
  multiply_at(c, b.topRows(2), a.leftCols(2), true, 2.0);  // c += 2·(b's top 2×2)ᵀ·(a's left 2×2)
  CHECK(c(0, 0) == 58 + 2 * (7 * 1 + 9 * 4));
  CHECK(c(1, 1) == 154 + 2 * (8 * 2 + 10 * 5));
}

TEST_CASE("every block path matches Eigen in double and float") {
  // cols: 2 vectors (32 floats), 1 vector (16), half (8), single columns (3), and mixes.
  const int shapes[][3] = {{32, 32, 32}, {32, 16, 32}, {9, 8, 5},   {7, 3, 11},   {33, 59, 17},
                           {1, 1, 1},    {64, 8, 64},  {17, 41, 2}, {128, 8, 128}};
  std::uint64_t seed = 1;
  for (const auto& shape : shapes)
    for (bool transpose_a : {false, true})
      for (bool accumulate : {false, true}) {
        CAPTURE(shape[0]);
        CAPTURE(shape[1]);
        CAPTURE(shape[2]);
        CAPTURE(transpose_a);
        CAPTURE(accumulate);
        CHECK(product_error<double>(shape[0], shape[1], shape[2], transpose_a, accumulate, seed) <=
              1e-14);
        CHECK(product_error<float>(shape[0], shape[1], shape[2], transpose_a, accumulate, seed) <=
              1e-5);
        ++seed;
      }
}

TEST_CASE("strided operands: blocks of larger matrices") {
  data::Rng rng(5, data::Stream::kMonteCarlo);
  const RowMatrix<double> big_a = random_matrix<double>(20, 30, rng);
  const RowMatrix<double> big_b = random_matrix<double>(25, 40, rng);
  RowMatrix<double> big_c = RowMatrix<double>::Zero(30, 50);
  multiply(big_c.block(3, 4, 10, 17), big_a.block(2, 5, 10, 12), big_b.block(1, 6, 12, 17));
  const RowMatrix<double> expected = big_a.block(2, 5, 10, 12) * big_b.block(1, 6, 12, 17);
  CHECK((big_c.block(3, 4, 10, 17) - expected).cwiseAbs().maxCoeff() <= 1e-13);
  // Nothing outside the target block was written.
  CHECK(big_c.block(0, 0, 3, 50).cwiseAbs().maxCoeff() == 0);
  CHECK(big_c.block(13, 0, 17, 50).cwiseAbs().maxCoeff() == 0);
  CHECK(big_c.block(3, 21, 10, 29).cwiseAbs().maxCoeff() == 0);
}

TEST_CASE("mismatched shapes are a logic error") {
  RowMatrix<double> a(2, 3), b(4, 2), c(2, 2);
  CHECK_THROWS_AS(multiply(c, a, b), std::logic_error);
  CHECK_THROWS_AS(multiply_at(c, a, b), std::logic_error);
}

namespace {

// c (+)= α·op(a)·b element by element in the kernel's order: the sum over k from 0 upwards, each
// term a fused multiply-add (`contracted`) or a rounded product then an add, then α·sum or
// α·sum + c (fused likewise). Which one is the instruction set's (kFusedMultiplyAdd: fused with
// AVX2/FMA, AVX-512 and NEON, not with SSE2), at every optimisation level; any other order of the
// sum matches neither. Runs must not change by one bit when the kernel's blocking or packing does
// (same seed, same run folders).
template <class T>
T multiply_add(bool contracted, T a, T b, T c) {
  if (contracted) return std::fma(a, b, c);
  volatile T product = a * b;  // rounded: the compiler may not fuse it into the add
  return product + c;
}

template <class T>
void ordered_product(bool contracted, bool transpose_a, bool accumulate, GemmShape shape,
                     GemmOperand<const T> a, GemmOperand<const T> b, GemmOperand<T> c, T alpha) {
  for (std::ptrdiff_t i = 0; i < shape.rows; ++i)
    for (std::ptrdiff_t j = 0; j < shape.cols; ++j) {
      T sum = T(0);
      for (std::ptrdiff_t k = 0; k < shape.inner; ++k) {
        // Stored between terms, so the reference's own compiler cannot contract or reorder.
        volatile T term = multiply_add(
            contracted, transpose_a ? a.data[k * a.stride + i] : a.data[i * a.stride + k],
            b.data[k * b.stride + j], sum);
        sum = term;
      }
      T& out = c.data[i * c.stride + j];
      volatile T result = accumulate ? multiply_add(contracted, alpha, sum, out) : alpha * sum;
      out = result;
    }
}

}  // namespace

TEST_CASE(
    "bit for bit the kernel's summation order, at the strides of the transformer's products") {
  // {rows, cols, inner, lda, ldb, ldc}: row blocks and single rows, every vector column path and
  // the single columns after the last vector block, and the power-of-two strides of the fused ops
  // (B's panel packed from 32 rows on).
  const int shapes[][6] = {
      {64, 384, 128, 128, 384, 384}, {64, 128, 512, 512, 128, 128}, {64, 64, 128, 512, 384, 384},
      {16, 64, 32, 384, 64, 64},     {37, 88, 45, 64, 128, 96},     {40, 56, 7, 40, 56, 60},
      {33, 8, 300, 300, 8, 8},       {19, 91, 33, 40, 96, 93},      {7, 3, 17, 20, 5, 4}};
  data::Rng rng(11, data::Stream::kMonteCarlo);
  for (const auto& s : shapes)
    for (bool transpose_a : {false, true})
      for (bool accumulate : {false, true}) {
        const int rows = s[0], cols = s[1], inner = s[2];
        const int lda = std::max(s[3], transpose_a ? rows : inner);
        const RowMatrix<float> a = random_matrix<float>(transpose_a ? inner : rows, lda, rng);
        const RowMatrix<float> b = random_matrix<float>(inner, s[4], rng);
        const RowMatrix<float> before = random_matrix<float>(rows, s[5], rng);
        RowMatrix<float> got = before, fused = before, rounded = before;
        const float alpha = accumulate ? 0.75f : 1.0f;
        small_gemm<float>(transpose_a, accumulate, {rows, cols, inner}, {a.data(), lda},
                          {b.data(), s[4]}, {got.data(), s[5]}, alpha);
        ordered_product<float>(true, transpose_a, accumulate, {rows, cols, inner}, {a.data(), lda},
                               {b.data(), s[4]}, {fused.data(), s[5]}, alpha);
        ordered_product<float>(false, transpose_a, accumulate, {rows, cols, inner}, {a.data(), lda},
                               {b.data(), s[4]}, {rounded.data(), s[5]}, alpha);
        const bool matches_fused = (got.array() == fused.array()).all();
        const bool matches_rounded = (got.array() == rounded.array()).all();
        CAPTURE(rows);
        CAPTURE(cols);
        CAPTURE(inner);
        CAPTURE(transpose_a);
        CAPTURE(accumulate);
        // The instruction set's terms, in the kernel's order (the two references differ: a
        // product that matched both would not tell them apart).
        CHECK(matches_fused != matches_rounded);
        CHECK((kFusedMultiplyAdd ? matches_fused : matches_rounded));
      }
}

TEST_CASE("a B packed once: panels as wide as the kernel's block, each inner × width, contiguous") {
  // The block of the instruction set this is compiled for: 2 × 64 bytes (AVX-512), 2 × 32 (AVX2),
  // 3 × 16 (SSE2).
  constexpr int width = int(panel_width<float>());
  CHECK(width == kBlockVectors * kVectorBytes / 4);
  // B = 3 × (2·width + 6) with B(k, j) = 1000k + j: two panels, the last 6 columns not packed.
  const int cols = 2 * width + 6;
  RowMatrix<float> b(3, cols);
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < cols; ++j) b(k, j) = float(1000 * k + j);
  CHECK(packed_size<float>(3, cols) == std::size_t(3 * 2 * width));
  std::vector<float> panels(packed_size<float>(3, cols));
  const PackedOperand<float> packed = pack_operand<float>(b.data(), 3, cols, cols, panels.data());
  CHECK(packed.data == b.data());
  CHECK(panels[0] == 0.0f);                      // panel 0, row 0, column 0
  CHECK(panels[width - 1] == float(width - 1));  // panel 0, row 0, its last column
  CHECK(panels[width] == 1000.0f);               // panel 0, row 1, column 0
  CHECK(panels[3 * width] == float(width));      // panel 1, row 0: B's column width
  CHECK(panels[3 * width + 2 * width + 5] == float(2000 + width + 5));  // panel 1, row 2, col 5
}

TEST_CASE("a product with B packed once has the same bits as with B read in place") {
  // {rows, cols, inner, ldb}: C from 64 rows (where small_gemm packs B itself) down to 16 and 3
  // (where it reads B in place); columns past the last panel (88 = 64 + 24); a B narrower than
  // one panel (its columns all read in place).
  const int shapes[][4] = {{64, 384, 128, 384}, {64, 128, 512, 128}, {16, 64, 32, 64},
                           {37, 88, 45, 128},   {3, 96, 70, 96},     {40, 24, 90, 24}};
  data::Rng rng(12, data::Stream::kMonteCarlo);
  for (const auto& s : shapes)
    for (bool transpose_a : {false, true})
      for (bool accumulate : {false, true}) {
        const int rows = s[0], cols = s[1], inner = s[2], ldb = s[3];
        const RowMatrix<float> a = transpose_a ? random_matrix<float>(inner, rows, rng)
                                               : random_matrix<float>(rows, inner, rng);
        const RowMatrix<float> b = random_matrix<float>(inner, ldb, rng);
        const RowMatrix<float> before = random_matrix<float>(rows, cols, rng);
        std::vector<float> panels(packed_size<float>(inner, cols));
        const PackedOperand<float> packed =
            pack_operand<float>(b.data(), inner, cols, ldb, panels.data());
        RowMatrix<float> in_place = before, once = before;
        const long lda = transpose_a ? rows : inner;
        small_gemm<float>(transpose_a, accumulate, {rows, cols, inner}, {a.data(), lda},
                          {b.data(), ldb}, {in_place.data(), cols}, 0.75f);
        small_gemm_packed<float>(transpose_a, accumulate, {rows, cols, inner}, {a.data(), lda},
                                 packed, {once.data(), cols}, 0.75f);
        CAPTURE(rows);
        CAPTURE(cols);
        CAPTURE(transpose_a);
        CHECK(once == in_place);
      }
}

TEST_CASE("a packed B of another shape is a logic error") {
  RowMatrix<float> a(4, 8), b(8, 32), c(4, 32);
  std::vector<float> panels(packed_size<float>(8, 32));
  const PackedOperand<float> packed = pack_operand<float>(b.data(), 8, 32, 32, panels.data());
  CHECK_THROWS_AS(
      small_gemm_packed<float>(false, false, {4, 32, 7}, {a.data(), 8}, packed, {c.data(), 32}),
      std::logic_error);
}
