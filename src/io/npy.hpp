#pragma once
// Arrays in NumPy's .npy format (little-endian, C order), so that numpy.load reads ufl's outputs
// directly. Writes go through write_file_atomic: a .npy file is either complete or absent.
#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace ufl::io {

// `data` holds the product of `shape` elements in C (row-major) order; shape {} is a scalar and
// holds one element. Element types map to dtypes '<f4', '<f8', '<i4' and '<i8'.
void write_npy(const std::filesystem::path& path, const float* data,
               const std::vector<std::size_t>& shape);
void write_npy(const std::filesystem::path& path, const double* data,
               const std::vector<std::size_t>& shape);
void write_npy(const std::filesystem::path& path, const std::int32_t* data,
               const std::vector<std::size_t>& shape);
void write_npy(const std::filesystem::path& path, const std::int64_t* data,
               const std::vector<std::size_t>& shape);

// The same, checking that `data` holds exactly as many elements as `shape` calls for.
void write_npy(const std::filesystem::path& path, std::span<const float> data,
               const std::vector<std::size_t>& shape);
void write_npy(const std::filesystem::path& path, std::span<const double> data,
               const std::vector<std::size_t>& shape);
void write_npy(const std::filesystem::path& path, std::span<const std::int32_t> data,
               const std::vector<std::size_t>& shape);
void write_npy(const std::filesystem::path& path, std::span<const std::int64_t> data,
               const std::vector<std::size_t>& shape);

// float64 of shape (rows, cols). Eigen stores columns contiguously; the file is in row order, so
// numpy.load(path)[i, j] == matrix(i, j).
void write_npy(const std::filesystem::path& path, const Eigen::MatrixXd& matrix);
// float64 of shape (n,).
void write_npy(const std::filesystem::path& path, const Eigen::VectorXd& vector);

struct NpyArray {
  std::string descr;  // "<f4", "<f8", "<i4" or "<i8"
  std::vector<std::size_t> shape;
  std::vector<double> values;  // C order; '<i8' values beyond 2^53 lose precision
};

// Reads a C-order .npy file of dtype '<f4', '<f8', '<i4' or '<i8'. Throws IoError naming the file
// if it is missing, not a .npy file, of another version, dtype or order, or if its size does not
// match its header (truncated or with trailing bytes).
NpyArray read_npy(const std::filesystem::path& path);

// read_npy, also requiring the given shape ("U.npy has shape (3, 4), expected (4, 4)") and, when
// `dtypes` is not empty, one of those dtypes ("x.npy has dtype '<i4' (int32); expected float32
// or float64").
std::vector<double> read_npy_values(const std::filesystem::path& path,
                                    const std::vector<std::size_t>& expected_shape,
                                    const std::vector<std::string>& dtypes = {});
// read_npy of any 2-D array, as a matrix with matrix(i, j) == array[i, j].
Eigen::MatrixXd read_npy_matrix(const std::filesystem::path& path);
// read_npy of any 1-D array.
Eigen::VectorXd read_npy_vector(const std::filesystem::path& path);

}  // namespace ufl::io
