#pragma once
// Batched dense arrays: `batch` samples of rows×cols, row-major, contiguous. A tensor with
// batch 1 next to one with batch B is shared by every sample (a parameter, a constant).
// Tensors do not own memory: the tape plans one arena per run and hands out views.
#include <Eigen/Core>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace ufl {

struct Shape {
  int batch = 1, rows = 1, cols = 1;
  std::size_t sample_size() const { return static_cast<std::size_t>(rows) * cols; }
  std::size_t size() const { return static_cast<std::size_t>(batch) * sample_size(); }
  bool operator==(const Shape&) const = default;
  std::string str() const {
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "[" + std::to_string(...).
    std::string text = "[";
    text.append(std::to_string(batch)).append(",").append(std::to_string(rows));
    text.append(",").append(std::to_string(cols)).append("]");
    return text;
  }
};

template <class T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using MatrixMap = Eigen::Map<RowMatrix<T>>;
template <class T>
using ConstMatrixMap = Eigen::Map<const RowMatrix<T>>;

// A read-only view of a block (kernels take their inputs as ConstMatrixMap).
template <class T>
ConstMatrixMap<T> read_only(const MatrixMap<T>& block) {
  return ConstMatrixMap<T>(block.data(), block.rows(), block.cols());
}

template <class T>
struct Tensor {
  T* data = nullptr;
  Shape shape;

  std::size_t size() const { return shape.size(); }
  // Sample b of a per-sample tensor, or the one shared sample of a batch-1 tensor.
  T* sample(int b) const { return data + (shape.batch == 1 ? 0 : b * shape.sample_size()); }
  MatrixMap<T> matrix(int b) const { return MatrixMap<T>(sample(b), shape.rows, shape.cols); }
  ConstMatrixMap<T> view(int b) const {
    return ConstMatrixMap<T>(sample(b), shape.rows, shape.cols);
  }
};

}  // namespace ufl
