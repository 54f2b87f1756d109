#include "io/npy.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>

#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/npy_header.hpp"

namespace ufl::io {
namespace {

namespace fs = std::filesystem;

// Data is written and read as the machine's own bytes; .npy files here are little-endian.
static_assert(std::endian::native == std::endian::little,
              "ufl's .npy reader and writer assume a little-endian machine");

template <class T>
struct Dtype;
template <>
struct Dtype<float> {
  static constexpr const char* kDescr = "<f4";
};
template <>
struct Dtype<double> {
  static constexpr const char* kDescr = "<f8";
};
template <>
struct Dtype<std::int32_t> {
  static constexpr const char* kDescr = "<i4";
};
template <>
struct Dtype<std::int64_t> {
  static constexpr const char* kDescr = "<i8";
};

// The number of elements of `shape`, or nothing if it overflows std::size_t. Any zero dimension
// makes it 0, whatever the other dimensions are (as in NumPy).
std::optional<std::size_t> element_count(const std::vector<std::size_t>& shape) {
  std::size_t count = 1;
  bool overflow = false;
  for (const std::size_t dimension : shape) {
    if (dimension == 0) return 0;
    if (count > std::numeric_limits<std::size_t>::max() / dimension) overflow = true;
    count *= dimension;
  }
  if (overflow) return std::nullopt;
  return count;
}

// element_count times `item_size`, or nothing on overflow.
std::optional<std::size_t> byte_count(const std::vector<std::size_t>& shape,
                                      std::size_t item_size) {
  const std::optional<std::size_t> count = element_count(shape);
  if (!count || *count > std::numeric_limits<std::size_t>::max() / item_size) return std::nullopt;
  return *count * item_size;
}

template <class T>
void write_array(const fs::path& path, const T* data, const std::vector<std::size_t>& shape) {
  const std::optional<std::size_t> data_bytes = byte_count(shape, sizeof(T));
  if (!data_bytes) {
    throw IoError("cannot write " + path.string() + ": shape " + format_shape(shape) +
                  " has more elements than memory can hold");
  }
  if (*data_bytes > 0 && data == nullptr) {
    throw IoError("cannot write " + path.string() + ": no data given for shape " +
                  format_shape(shape));
  }
  const std::string header = format_npy_header(Dtype<T>::kDescr, shape);
  const std::string_view pieces[] = {
      header, std::string_view(reinterpret_cast<const char*>(data), *data_bytes)};
  write_file_atomic(path, pieces);
}

template <class T>
void write_checked_array(const fs::path& path, std::span<const T> data,
                         const std::vector<std::size_t>& shape) {
  const std::optional<std::size_t> count = element_count(shape);
  if (count && *count != data.size()) {
    throw IoError("cannot write " + path.string() + ": got " + std::to_string(data.size()) +
                  " values for shape " + format_shape(shape) + ", which holds " +
                  std::to_string(*count));
  }
  write_array(path, data.data(), shape);
}

// Converts `values.size()` little-endian elements of type T at `data` to double.
template <class T>
void convert_to_double(const char* data, std::vector<double>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    T value;
    std::memcpy(&value, data + i * sizeof(T), sizeof(T));  // the data need not be aligned
    values[i] = static_cast<double>(value);
  }
}

}  // namespace

void write_npy(const fs::path& path, const float* data, const std::vector<std::size_t>& shape) {
  write_array(path, data, shape);
}
void write_npy(const fs::path& path, const double* data, const std::vector<std::size_t>& shape) {
  write_array(path, data, shape);
}
void write_npy(const fs::path& path, const std::int32_t* data,
               const std::vector<std::size_t>& shape) {
  write_array(path, data, shape);
}
void write_npy(const fs::path& path, const std::int64_t* data,
               const std::vector<std::size_t>& shape) {
  write_array(path, data, shape);
}

void write_npy(const fs::path& path, std::span<const float> data,
               const std::vector<std::size_t>& shape) {
  write_checked_array(path, data, shape);
}
void write_npy(const fs::path& path, std::span<const double> data,
               const std::vector<std::size_t>& shape) {
  write_checked_array(path, data, shape);
}
void write_npy(const fs::path& path, std::span<const std::int32_t> data,
               const std::vector<std::size_t>& shape) {
  write_checked_array(path, data, shape);
}
void write_npy(const fs::path& path, std::span<const std::int64_t> data,
               const std::vector<std::size_t>& shape) {
  write_checked_array(path, data, shape);
}

void write_npy(const fs::path& path, const Eigen::MatrixXd& matrix) {
  // Copy into row order: NumPy's C order is what users index with a[i, j].
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> row_major = matrix;
  write_array(path, row_major.data(),
              {static_cast<std::size_t>(matrix.rows()), static_cast<std::size_t>(matrix.cols())});
}

void write_npy(const fs::path& path, const Eigen::VectorXd& vector) {
  write_array(path, vector.data(), {static_cast<std::size_t>(vector.size())});
}

NpyArray read_npy(const fs::path& path) {
  const std::string bytes = read_file(path);
  const NpyHeader header = parse_npy_header(bytes, path);
  const std::string name = path.string();
  if (header.fortran_order) {
    throw IoError(name +
                  " is stored in Fortran order; save it in C order "
                  "(numpy.ascontiguousarray) for ufl to read it");
  }
  std::size_t item_size = 0;
  if (header.descr == "<f4" || header.descr == "<i4") {
    item_size = 4;
  } else if (header.descr == "<f8" || header.descr == "<i8") {
    item_size = 8;
  } else {
    throw IoError(name + " has dtype '" + printable_excerpt(header.descr) +
                  "'; ufl reads only '<f4', '<f8', '<i4' and '<i8'");
  }

  const std::string shape_text = format_shape(header.shape);
  const std::optional<std::size_t> data_bytes = byte_count(header.shape, item_size);
  if (!data_bytes) {
    throw IoError(name + " has a corrupt .npy header: shape " + shape_text +
                  " has more elements than memory can hold");
  }
  // Checked against the file size before allocating, so a corrupt shape cannot ask for terabytes.
  const std::size_t available_bytes = bytes.size() - header.data_offset;
  if (*data_bytes > available_bytes) {
    throw IoError(name + " is truncated: shape " + shape_text + " of dtype '" + header.descr +
                  "' needs " + std::to_string(*data_bytes) + " bytes of data but the file holds " +
                  std::to_string(available_bytes));
  }
  if (*data_bytes < available_bytes) {
    throw IoError(name + " is corrupt: it is " + std::to_string(available_bytes - *data_bytes) +
                  " byte(s) longer than shape " + shape_text + " of dtype '" + header.descr +
                  "' needs");
  }

  NpyArray array{header.descr, header.shape, std::vector<double>(*data_bytes / item_size)};
  const char* data = bytes.data() + header.data_offset;
  if (header.descr == "<f4") {
    convert_to_double<float>(data, array.values);
  } else if (header.descr == "<f8") {
    convert_to_double<double>(data, array.values);
  } else if (header.descr == "<i4") {
    convert_to_double<std::int32_t>(data, array.values);
  } else {
    convert_to_double<std::int64_t>(data, array.values);
  }
  return array;
}

std::vector<double> read_npy_values(const fs::path& path,
                                    const std::vector<std::size_t>& expected_shape,
                                    const std::vector<std::string>& dtypes) {
  NpyArray array = read_npy(path);
  if (!dtypes.empty() && std::find(dtypes.begin(), dtypes.end(), array.descr) == dtypes.end()) {
    auto name = [](const std::string& descr) {
      return descr == "<f4"   ? std::string("float32")
             : descr == "<f8" ? std::string("float64")
             : descr == "<i4" ? std::string("int32")
                              : std::string("int64");
    };
    std::string expected;
    for (std::size_t k = 0; k < dtypes.size(); ++k)
      expected += (k == 0 ? "" : k + 1 == dtypes.size() ? " or " : ", ") + name(dtypes[k]);
    throw IoError(path.string() + " has dtype '" + array.descr + "' (" + name(array.descr) +
                  "); expected " + expected);
  }
  if (array.shape != expected_shape) {
    throw IoError(path.string() + " has shape " + format_shape(array.shape) + ", expected " +
                  format_shape(expected_shape));
  }
  return std::move(array.values);
}

Eigen::MatrixXd read_npy_matrix(const fs::path& path) {
  const NpyArray array = read_npy(path);
  constexpr auto kMaxIndex = static_cast<std::size_t>(std::numeric_limits<Eigen::Index>::max());
  // A dimension can exceed Eigen's index range only when the other one is 0.
  if (array.shape.size() != 2 || array.shape[0] > kMaxIndex || array.shape[1] > kMaxIndex) {
    throw IoError(path.string() + " has shape " + format_shape(array.shape) +
                  ", expected a 2-D array (rows, cols)");
  }
  const auto rows = static_cast<Eigen::Index>(array.shape[0]);
  const auto cols = static_cast<Eigen::Index>(array.shape[1]);
  // An empty array keeps its shape without a copy: Eigen's copy loops over the outer dimension
  // even when the inner one is 0, which for a shape like (0, 2^42) takes hours (found by fuzz_npy).
  if (array.values.empty()) return Eigen::MatrixXd(rows, cols);
  using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  return Eigen::Map<const RowMajorMatrix>(array.values.data(), rows, cols);
}

Eigen::VectorXd read_npy_vector(const fs::path& path) {
  const NpyArray array = read_npy(path);
  if (array.shape.size() != 1) {
    throw IoError(path.string() + " has shape " + format_shape(array.shape) +
                  ", expected a 1-D array (n,)");
  }
  return Eigen::Map<const Eigen::VectorXd>(array.values.data(),
                                           static_cast<Eigen::Index>(array.values.size()));
}

}  // namespace ufl::io
