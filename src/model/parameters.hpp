#pragma once
// The learned parameters of the factorization layer (spec §2), in one flat buffer so that
// Adam, checkpoints and gradient checks see a single vector:
//   A, B  (d+n+1)×r   rows: content (d), position (n), bias (1)
//   s     1×r         Σ = diag(softplus(s))
//   g     1×1         γ = sigmoid(g)
//   W_v   d×d
#include <cstddef>
#include <string>
#include <vector>

namespace ufl::model {

struct LayerShape {
  int n = 32, d = 16, r = 32;
  int homogeneous_dim() const { return d + n + 1; }
};

struct ParameterSlice {
  std::string name;
  std::size_t offset;
  int rows, cols;
  std::size_t size() const { return static_cast<std::size_t>(rows) * cols; }
};

template <class T>
struct Parameters {
  explicit Parameters(LayerShape layer_shape) : shape(layer_shape) {
    const int h = shape.homogeneous_dim();
    std::size_t offset = 0;
    for (auto [name, rows, cols] : {std::tuple<const char*, int, int>{"A", h, shape.r},
                                    {"B", h, shape.r},
                                    {"s", 1, shape.r},
                                    {"g", 1, 1},
                                    {"W_v", shape.d, shape.d}}) {
      slices.push_back(ParameterSlice{name, offset, rows, cols});
      offset += static_cast<std::size_t>(rows) * cols;
    }
    values.assign(offset, T(0));
    grads.assign(offset, T(0));
  }

  const ParameterSlice& slice(int index) const { return slices[index]; }
  T* value(int index) { return values.data() + slices[index].offset; }
  T* grad(int index) { return grads.data() + slices[index].offset; }
  const T* value(int index) const { return values.data() + slices[index].offset; }

  static constexpr int kA = 0, kB = 1, kS = 2, kG = 3, kWv = 4;

  LayerShape shape;
  std::vector<ParameterSlice> slices;
  std::vector<T> values, grads;
};

}  // namespace ufl::model
