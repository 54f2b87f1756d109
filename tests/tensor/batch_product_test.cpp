// Weight gradients over a whole batch (src/tensor/batch_product.hpp): Xᵀ·dY and column sums over
// several row chunks and partial tiles, equal to the plain product, and bit-identical at any
// thread count.
#include "tensor/batch_product.hpp"

#include <doctest/doctest.h>
#include <omp.h>

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
