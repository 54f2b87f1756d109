#pragma once
// An array the analysis hands to the run writer, saved as `<name>.npy`.
#include <Eigen/Dense>
#include <cstddef>
#include <string>
#include <vector>

namespace ufl::analysis {

struct NamedArray {
  std::string name;
  std::vector<std::size_t> shape;
  std::vector<double> values;  // C order
  bool integer = false;        // saved as int32 (positions such as partners), else float64
};

inline NamedArray named_matrix(std::string name, const Eigen::MatrixXd& matrix) {
  NamedArray array{std::move(name), {std::size_t(matrix.rows()), std::size_t(matrix.cols())}, {}};
  array.values.reserve(matrix.size());
  for (Eigen::Index i = 0; i < matrix.rows(); ++i)
    for (Eigen::Index j = 0; j < matrix.cols(); ++j) array.values.push_back(matrix(i, j));
  return array;
}

inline NamedArray named_vector(std::string name, const Eigen::VectorXd& vector) {
  return NamedArray{std::move(name),
                    {std::size_t(vector.size())},
                    std::vector<double>(vector.data(), vector.data() + vector.size())};
}

}  // namespace ufl::analysis
