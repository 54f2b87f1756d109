// Weight gradients over a whole batch (src/tensor/batch_product.hpp): Xᵀ·dY and column sums over
// several row chunks and partial tiles, equal to the plain product, and bit-identical at any
// thread count.
#include "tensor/batch_product.hpp"

#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "data/rng.hpp"
#include "tensor/tensor.hpp"

using namespace ufl;

namespace {

RowMatrix<float> random(int rows, int cols, std::uint64_t seed) {
  data::Rng rng(seed, data::Stream::kMonteCarlo);
  RowMatrix<float> m(rows, cols);
  for (Eigen::Index e = 0; e < m.size(); ++e) m.data()[e] = float(rng.normal());
  return m;
}

}  // namespace

TEST_CASE("dW += Xᵀ·dY over 300 rows into a 70 × 130 matrix is the product, at any thread count") {
  const RowMatrix<float> x = random(300, 70, 1), dy = random(300, 130, 2);
  const RowMatrix<float> start = random(70, 130, 3);
  std::vector<RowMatrix<float>> results;
  for (int threads : {1, 2}) {
    omp_set_num_threads(threads);
    RowMatrix<float> dw = start;
    add_transposed_product<float>({x.data(), 300, 70, 70}, {dy.data(), 300, 130, 130}, dw.data(),
                                  130);
    results.push_back(dw);
  }
  omp_set_num_threads(omp_get_num_procs());
  const Eigen::MatrixXd exact =
      start.cast<double>() + x.cast<double>().transpose() * dy.cast<double>();
  CHECK((results[0].cast<double>() - exact).cwiseAbs().maxCoeff() <=
        1e-4 * exact.cwiseAbs().maxCoeff());
  CHECK(results[0] == results[1]);
}

TEST_CASE("dW += Xᵀ·dY has the bits of one product per 64 × 64 tile and 128-row chunk, in order") {
  // 300 rows (chunks of 128, 128, 44), X with 300 columns (five row tiles, the last of 44: two
  // units sharing a copy of dY's chunk), dY with 136 (tiles of 64, 64 and 8 columns: a packed
  // tile and one read in place). Not single columns after the last vector block, whose sums the
  // compiler vectorizes as it decides (tests/tensor/small_gemm_test.cpp).
  const RowMatrix<float> x = random(300, 300, 4), dy = random(300, 136, 5);
  const RowMatrix<float> start = random(300, 136, 6);
  RowMatrix<float> got = start, expected = start;
  add_transposed_product<float>({x.data(), 300, 300, 300}, {dy.data(), 300, 136, 136}, got.data(),
                                136);
  for (long i0 = 0; i0 < 300; i0 += 64)
    for (long j0 = 0; j0 < 136; j0 += 64)
      for (long r0 = 0; r0 < 300; r0 += 128)
        small_gemm<float>(
            true, true,
            {std::min(64L, 300 - i0), std::min(64L, 136 - j0), std::min(128L, 300 - r0)},
            {x.data() + r0 * 300 + i0, 300}, {dy.data() + r0 * 136 + j0, 136},
            {expected.data() + i0 * 136 + j0, 136});
  CHECK(got == expected);
}

TEST_CASE("db += the column sums of dY, row by row") {
  RowMatrix<float> dy(3, 2);
  dy << 1, 2, 3, 4, 5, 6;
  float db[2] = {10, 20};
  add_column_sums<float>({dy.data(), 3, 2, 2}, db);
  CHECK(db[0] == 19);
  CHECK(db[1] == 32);
}

TEST_CASE("a weight transposed once per step: 150 × 200 and 7 × 3, every entry in its place") {
  for (auto [rows, cols] : {std::pair{150, 200}, std::pair{7, 3}}) {
    const RowMatrix<float> a = random(rows, cols, 4);
    for (int threads : {1, 2}) {
      omp_set_num_threads(threads);
      std::vector<float> into(std::size_t(rows) * cols, -1.0f);
      transpose_into<float>(ConstMatrixMap<float>(a.data(), rows, cols), into.data());
      CHECK(ConstMatrixMap<float>(into.data(), cols, rows) == a.transpose());
    }
  }
  omp_set_num_threads(omp_get_num_procs());
}

TEST_CASE("a weight's panels made in parallel are pack_operand's, at any thread count") {
  // Panels as wide as the kernel's block (32 columns with AVX-512, 16 with AVX2), some left over.
  const RowMatrix<float> w = random(200, 100, 7);
  std::vector<float> serial(packed_size<float>(200, 100)), parallel(serial.size());
  pack_operand<float>(w.data(), 200, 100, 100, serial.data());
  for (int threads : {1, 2}) {
    omp_set_num_threads(threads);
    std::fill(parallel.begin(), parallel.end(), 0.0f);
    const PackedOperand<float> packed =
        pack_weight<float>(w.data(), 200, 100, 100, parallel.data());
    CHECK(packed.panels == parallel.data());
    CHECK(parallel == serial);
  }
  omp_set_num_threads(omp_get_num_procs());
  constexpr int width = int(panel_width<float>());
  CHECK(serial[2 * 200 * width + 5 * width + 7] == w(5, 2 * width + 7));  // panel 2, row 5, col 7
}
