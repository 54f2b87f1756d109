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

// Row tiles of dW that share one copy of a chunk of dY's tile columns in the product kernel's
// panel layout (the copy is made once for them all, not by each product).
inline constexpr std::ptrdiff_t kTilesPerCopy = 4;

// dw (x.cols × dy.cols, row stride ldw) += xᵀ·dy over their common rows. A unit of parallel work
// is one tile column of dW and up to kTilesPerCopy of its tiles: for each chunk of rows it copies
// dY's chunk once and adds it into those tiles. Every tile still sums the chunks in order, each
// with the same product, so the split changes nothing.
template <class T>
void add_transposed_product(RowsView<T> x, RowsView<T> dy, T* dw, std::ptrdiff_t ldw) {
  const std::ptrdiff_t row_tiles = (x.cols + kProductTile - 1) / kProductTile;
  const std::ptrdiff_t col_tiles = (dy.cols + kProductTile - 1) / kProductTile;
  const std::ptrdiff_t row_blocks = (row_tiles + kTilesPerCopy - 1) / kTilesPerCopy;
  const std::ptrdiff_t units = col_tiles * row_blocks;
#pragma omp parallel for schedule(static) if (units > 1 && x.rows * x.cols * dy.cols > 65536)
  for (std::ptrdiff_t unit = 0; unit < units; ++unit) {
    alignas(64) T panels[kProductRowChunk * kProductTile];
    const std::ptrdiff_t j0 = (unit / row_blocks) * kProductTile;
    const std::ptrdiff_t tile_cols = std::min(kProductTile, dy.cols - j0);
    const std::ptrdiff_t first_tile = (unit % row_blocks) * kTilesPerCopy;
    const std::ptrdiff_t end_tile = std::min(first_tile + kTilesPerCopy, row_tiles);
    for (std::ptrdiff_t r0 = 0; r0 < x.rows; r0 += kProductRowChunk) {
      const std::ptrdiff_t chunk = std::min(kProductRowChunk, x.rows - r0);
      const PackedOperand<T> dy_chunk =
          pack_operand<T>(dy.data + r0 * dy.stride + j0, chunk, tile_cols, dy.stride, panels);
      for (std::ptrdiff_t tile = first_tile; tile < end_tile; ++tile) {
        const std::ptrdiff_t i0 = tile * kProductTile;
        const std::ptrdiff_t tile_rows = std::min(kProductTile, x.cols - i0);
        small_gemm_packed<T>(true, true, {tile_rows, tile_cols, chunk},
                             {x.data + r0 * x.stride + i0, x.stride}, dy_chunk,
                             {dw + i0 * ldw + j0, ldw});
      }
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

// A weight's panels (pack_operand, tensor/small_gemm.hpp) made once per step for every sample's
// products, the panels in parallel.
template <class T>
PackedOperand<T> pack_weight(const T* data, std::ptrdiff_t rows, std::ptrdiff_t cols,
                             std::ptrdiff_t stride, T* panels) {
  constexpr std::ptrdiff_t kWidth = panel_width<T>();
  const std::ptrdiff_t count = cols / kWidth;
#pragma omp parallel for schedule(static) if (count > 1 && rows * cols > 16384)
  for (std::ptrdiff_t p = 0; p < count; ++p)
    detail::copy_panels<T, int(kWidth)>({data + p * kWidth, stride}, rows, kWidth,
                                        panels + p * rows * kWidth);
  return {data, rows, cols, stride, panels};
}

}  // namespace ufl
