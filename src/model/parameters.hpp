#pragma once
// A model's learned parameters in one flat buffer, so that Adam, checkpoints and gradient checks
// see a single vector, cut into named slices: each layer's mixer parameters in the order its mixer
// lists them (model/mixer.hpp), then the layer's W_v. A one-layer universal model is
//   A, B  (d+n+1)×r   rows: content (d), position (n), bias (1)
//   s     1×r         Σ = diag(softplus(s))
//   g     1×1         γ = sigmoid(g)
//   W_v   d×d
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tensor/tensor.hpp"

namespace ufl::model {

struct ParameterSlice {
  std::string name;    // the file name under params/: "A", or "layer2/A" in a deeper stack
  std::string tensor;  // the name its mixer (or the layer, for W_v) gives it: "A"
  int layer = 0;       // 0-based
  std::size_t offset = 0;
  int rows = 0, cols = 0;
  std::size_t size() const { return static_cast<std::size_t>(rows) * cols; }
};

template <class T>
struct Parameters {
  // Appends a zero slice; returns its index. Call before any pointer into values is kept.
  int add(int layer, std::string tensor, std::string name, int rows, int cols) {
    const std::size_t offset = values.size();
    slices.push_back(ParameterSlice{std::move(name), std::move(tensor), layer, offset, rows, cols});
    values.resize(offset + slices.back().size(), T(0));
    grads.resize(values.size(), T(0));
    return static_cast<int>(slices.size()) - 1;
  }

  const ParameterSlice& slice(int index) const { return slices[index]; }
  T* value(int index) { return values.data() + slices[index].offset; }
  T* grad(int index) { return grads.data() + slices[index].offset; }
  const T* value(int index) const { return values.data() + slices[index].offset; }
  MatrixMap<T> matrix(int index) {
    return MatrixMap<T>(value(index), slices[index].rows, slices[index].cols);
  }
  ConstMatrixMap<T> matrix(int index) const {
    return ConstMatrixMap<T>(value(index), slices[index].rows, slices[index].cols);
  }

  std::vector<ParameterSlice> slices;
  std::vector<T> values, grads;
};

}  // namespace ufl::model
