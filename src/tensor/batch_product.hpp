#pragma once
// Weight gradients over a whole batch (docs/transformer.md §8): dW += Xᵀ·dY and db += Σ_rows dY,
// where X and dY stack every sample's rows (B·n of them). One product over all rows replaces B
// per-sample products into per-group slots that are then zeroed and summed: fewer passes over
// memory, and a product large enough to run near the machine's GEMM rate.
//
// The rows are taken in fixed chunks (so a chunk of dY stays in cache while a tile of dW is
// built) and dW is cut into fixed tiles, each computed by one thread: every element is summed in
// the same order whatever the thread count.
#include <algorithm>
#include <cstddef>

#include "tensor/small_gemm.hpp"
#include "tensor/tensor.hpp"

namespace ufl {

// Rows of X and dY per step of the sum, and dW's tile; fixed, so results never depend on threads.
inline constexpr std::ptrdiff_t kProductRowChunk = 128;
inline constexpr std::ptrdiff_t kProductTile = 64;

// Row-major operands with their row strides (in elements).
template <class T>
struct RowsView {
  const T* data;
  std::ptrdiff_t rows, cols, stride;
};

// dw (x.cols × dy.cols, row stride ldw) += xᵀ·dy over their common rows.
template <class T>
void add_transposed_product(RowsView<T> x, RowsView<T> dy, T* dw, std::ptrdiff_t ldw) {
  const std::ptrdiff_t row_tiles = (x.cols + kProductTile - 1) / kProductTile;
  const std::ptrdiff_t col_tiles = (dy.cols + kProductTile - 1) / kProductTile;
  const std::ptrdiff_t tiles = row_tiles * col_tiles;
#pragma omp parallel for schedule(static) if (tiles > 1 && x.rows * x.cols * dy.cols > 65536)
  for (std::ptrdiff_t tile = 0; tile < tiles; ++tile) {
    const std::ptrdiff_t i0 = (tile / col_tiles) * kProductTile;
    const std::ptrdiff_t j0 = (tile % col_tiles) * kProductTile;
    const std::ptrdiff_t tile_rows = std::min(kProductTile, x.cols - i0);
    const std::ptrdiff_t tile_cols = std::min(kProductTile, dy.cols - j0);
    for (std::ptrdiff_t r0 = 0; r0 < x.rows; r0 += kProductRowChunk) {
      const std::ptrdiff_t chunk = std::min(kProductRowChunk, x.rows - r0);
      small_gemm<T>(true, true, {tile_rows, tile_cols, chunk},
                    {x.data + r0 * x.stride + i0, x.stride},
                    {dy.data + r0 * dy.stride + j0, dy.stride}, {dw + i0 * ldw + j0, ldw});
    }
  }
}

// db (dy.cols) += the column sums of dy, each summed over the rows in order.
template <class T>
void add_column_sums(RowsView<T> dy, T* db) {
  const std::ptrdiff_t tiles = (dy.cols + kProductTile - 1) / kProductTile;
#pragma omp parallel for schedule(static) if (tiles > 1 && dy.rows * dy.cols > 65536)
  for (std::ptrdiff_t tile = 0; tile < tiles; ++tile) {
    const std::ptrdiff_t j0 = tile * kProductTile;
    const std::ptrdiff_t j1 = std::min(j0 + kProductTile, dy.cols);
    for (std::ptrdiff_t r = 0; r < dy.rows; ++r) {
      const T* row = dy.data + r * dy.stride;
      for (std::ptrdiff_t j = j0; j < j1; ++j) db[j] += row[j];
    }
  }
}

// into (cols × rows, row-major) = aᵀ, in parallel over blocks of a's columns and, inside one,
// 16 rows at a time (the block of a being read stays in cache while its columns are written out
// as rows): a weight transposed once per step for the backward's products.
template <class T>
void transpose_into(const ConstMatrixMap<T>& a, T* into) {
  constexpr std::ptrdiff_t kRowBlock = 16;
  const std::ptrdiff_t rows = a.rows(), cols = a.cols();
  const std::ptrdiff_t tiles = (cols + kProductTile - 1) / kProductTile;
#pragma omp parallel for schedule(static) if (tiles > 1 && rows * cols > 16384)
  for (std::ptrdiff_t tile = 0; tile < tiles; ++tile) {
    const std::ptrdiff_t j0 = tile * kProductTile, j1 = std::min(j0 + kProductTile, cols);
    for (std::ptrdiff_t i0 = 0; i0 < rows; i0 += kRowBlock) {
      const std::ptrdiff_t i1 = std::min(i0 + kRowBlock, rows);
      for (std::ptrdiff_t j = j0; j < j1; ++j)
        for (std::ptrdiff_t i = i0; i < i1; ++i) into[j * rows + i] = a(i, j);
    }
  }
}

}  // namespace ufl
