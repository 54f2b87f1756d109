// Specification of io/npy.hpp: .npy files that numpy.load reads as the researcher expects, and a
// reader that takes NumPy's files and refuses corrupt ones with an IoError naming the file.
#include "io/npy.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/npy_header.hpp"
#include "io_test_support.hpp"

namespace ufl::io {
namespace {

using testing::contains;
using testing::folder_entries;
using testing::io_error_message;
using testing::read_raw_file;
using testing::run_python;
using testing::TempFolder;
using testing::write_raw_file;
using Shape = std::vector<std::size_t>;

std::size_t element_count(const Shape& shape) {
  std::size_t count = 1;
  for (const std::size_t dimension : shape) count *= dimension;
  return count;
}

// Distinct values, with fractions for floating types and signs for all.
template <class T>
std::vector<T> sample_values(std::size_t count) {
  std::vector<T> values(count);
  for (std::size_t i = 0; i < count; ++i) {
    const auto n = static_cast<long long>(i);
    if constexpr (std::is_floating_point_v<T>) {
      values[i] = static_cast<T>(n * 37 % 23 - 11) / static_cast<T>(8) + static_cast<T>(1e-3);
    } else {
      values[i] = static_cast<T>((n * 37 % 23 - 11) * 1000003);
    }
  }
  return values;
}

template <class T>
const char* descr_of() {
  if constexpr (std::is_same_v<T, float>) return "<f4";
  if constexpr (std::is_same_v<T, double>) return "<f8";
  if constexpr (std::is_same_v<T, std::int32_t>) return "<i4";
  return "<i8";
}

TEST_CASE_TEMPLATE("write_npy then read_npy gives back every value exactly", T, float, double,
                   std::int32_t, std::int64_t) {
  TempFolder folder;
  for (const Shape& shape : {Shape{}, Shape{5}, Shape{2, 3}, Shape{2, 3, 4}, Shape{0, 3}}) {
    CAPTURE(format_shape(shape));
    const std::vector<T> data = sample_values<T>(element_count(shape));
    const auto path = folder / "array.npy";
    write_npy(path, data.data(), shape);
    const NpyArray array = read_npy(path);
    CHECK(array.descr == descr_of<T>());
    CHECK(array.shape == shape);
    REQUIRE(array.values.size() == data.size());
    for (std::size_t i = 0; i < data.size(); ++i) CHECK(array.values[i] == double(data[i]));
  }
}

TEST_CASE("extreme values survive the round trip") {
  TempFolder folder;
  const std::vector<double> doubles = {0.1,
                                       1.0 / 3.0,
                                       -0.0,
                                       std::numeric_limits<double>::max(),
                                       std::numeric_limits<double>::denorm_min(),
                                       -std::numeric_limits<double>::infinity(),
                                       std::numeric_limits<double>::quiet_NaN()};
  write_npy(folder / "d.npy", doubles, {doubles.size()});
  const NpyArray read_doubles = read_npy(folder / "d.npy");
  for (std::size_t i = 0; i + 1 < doubles.size(); ++i) CHECK(read_doubles.values[i] == doubles[i]);
  CHECK(std::signbit(read_doubles.values[2]));
  CHECK(std::isnan(read_doubles.values.back()));

  const std::vector<float> floats = {std::numeric_limits<float>::max(),
                                     std::numeric_limits<float>::denorm_min(), 0.1f};
  write_npy(folder / "f.npy", floats, {3});
  CHECK(read_npy(folder / "f.npy").values == std::vector<double>{floats.begin(), floats.end()});

  const std::vector<std::int32_t> int32s = {std::numeric_limits<std::int32_t>::min(), -1,
                                            std::numeric_limits<std::int32_t>::max()};
  write_npy(folder / "i4.npy", int32s, {3});
  CHECK(read_npy(folder / "i4.npy").values == std::vector<double>{-2147483648.0, -1, 2147483647.0});

  const std::vector<std::int64_t> int64s = {-(std::int64_t{1} << 53), std::int64_t{1} << 53};
  write_npy(folder / "i8.npy", int64s, {2});
  CHECK(read_npy(folder / "i8.npy").values == std::vector<double>{-0x1p53, 0x1p53});
}

TEST_CASE("the file starts with the NumPy magic and its data starts at a multiple of 64") {
  TempFolder folder;
  const std::vector<float> data = sample_values<float>(12);
  write_npy(folder / "a.npy", data.data(), {3, 4});
  const std::string bytes = read_raw_file(folder / "a.npy");
  CHECK(bytes.substr(0, 6) == "\x93NUMPY");
  CHECK(bytes[6] == 1);
  CHECK(bytes[7] == 0);
  const std::size_t header_length =
      static_cast<unsigned char>(bytes[8]) + 256 * static_cast<unsigned char>(bytes[9]);
  CHECK((10 + header_length) % 64 == 0);
  CHECK(bytes[10 + header_length - 1] == '\n');
  CHECK(contains(bytes.substr(10, header_length),
                 "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }"));
  CHECK(bytes.size() == 10 + header_length + 12 * sizeof(float));
  CHECK(std::memcmp(bytes.data() + 10 + header_length, data.data(), 12 * sizeof(float)) == 0);
}

TEST_CASE("an Eigen matrix is written in row order with shape (rows, cols)") {
  TempFolder folder;
  Eigen::MatrixXd matrix(2, 3);
  matrix << 1, 2, 3,  //
      4, 5, 6;
  const auto path = folder / "m.npy";
  write_npy(path, matrix);
  const NpyArray array = read_npy(path);
  CHECK(array.descr == "<f8");
  CHECK(array.shape == Shape{2, 3});
  CHECK(array.values == std::vector<double>{1, 2, 3, 4, 5, 6});  // (0, 1) is second
  CHECK(read_npy_matrix(path) == matrix);
}

TEST_CASE("an Eigen vector is written with shape (n,)") {
  TempFolder folder;
  Eigen::VectorXd vector(4);
  vector << 0.5, -1, 2, 1e-300;
  write_npy(folder / "v.npy", vector);
  const NpyArray array = read_npy(folder / "v.npy");
  CHECK(array.shape == Shape{4});
  CHECK(read_npy_vector(folder / "v.npy") == vector);
}

TEST_CASE("empty Eigen matrices keep their shape") {
  TempFolder folder;
  write_npy(folder / "m.npy", Eigen::MatrixXd(0, 3));
  CHECK(read_npy(folder / "m.npy").shape == Shape{0, 3});
  CHECK(read_npy_matrix(folder / "m.npy").cols() == 3);
}

TEST_CASE("an empty matrix keeps a huge other dimension") {
  // fuzz_npy found this shape: unoptimised builds spent hours copying its 4e12 empty columns.
  TempFolder folder;
  const auto path = folder / "m.npy";
  write_raw_file(path, format_npy_header("<f8", {0, 4294906721964}));
  const Eigen::MatrixXd matrix = read_npy_matrix(path);
  CHECK(matrix.rows() == 0);
  CHECK(matrix.cols() == 4294906721964);
}

TEST_CASE("read helpers check the shape") {
  TempFolder folder;
  const auto path = folder / "U.npy";
  write_npy(path, Eigen::MatrixXd::Identity(3, 4).eval());
  CHECK(read_npy_values(path, {3, 4}).size() == 12);
  CHECK(io_error_message([&] {
          read_npy_values(path, {4, 4});
        }) == path.string() + " has shape (3, 4), expected (4, 4)");
  CHECK(contains(io_error_message([&] { read_npy_vector(path); }), "expected a 1-D array"));
  write_npy(path, Eigen::VectorXd::Zero(3).eval());
  CHECK(contains(io_error_message([&] { read_npy_matrix(path); }), "expected a 2-D array"));
}

TEST_CASE("the span overloads refuse data that does not match the shape") {
  TempFolder folder;
  const std::vector<double> five(5, 1.0);
  const auto path = folder / "a.npy";
  CHECK(io_error_message([&] {
          write_npy(path, five, {2, 3});
        }) == "cannot write " + path.string() + ": got 5 values for shape (2, 3), which holds 6");
  CHECK(folder_entries(folder.path()).empty());
}

TEST_CASE("write_npy fails with IoError and leaves no file when the folder is missing") {
  TempFolder folder;
  const double value = 1;
  const auto path = folder / "missing" / "a.npy";
  CHECK(contains(io_error_message([&] { write_npy(path, &value, {}); }),
                 "cannot write " + path.string()));
  CHECK(folder_entries(folder.path()).empty());
}

TEST_CASE("write_npy replaces an existing file") {
  TempFolder folder;
  const auto path = folder / "a.npy";
  write_npy(path, sample_values<double>(1000), {1000});
  write_npy(path, std::vector<double>{7.0}, {1});
  CHECK(read_npy(path).values == std::vector<double>{7.0});
}

// ---- NumPy interoperability ------------------------------------------------------------------

TEST_CASE("numpy.load reads our files with the right dtype, shape and values") {
  if (!testing::python_has_numpy()) {
    MESSAGE("skipped: /usr/bin/python3 cannot import numpy");
    return;
  }
  TempFolder folder;

  const std::vector<float> floats = {0.5f, -1.25f, 3.0f, 1e-3f, 7.0f, -0.0f};
  write_npy(folder / "f4.npy", floats.data(), {2, 3});
  CHECK(run_python(folder.path(),
                   "import sys, numpy\n"
                   "a = numpy.load(sys.argv[1])\n"
                   "assert a.dtype == numpy.float32, a.dtype\n"
                   "assert a.shape == (2, 3), a.shape\n"
                   "expected = numpy.array([[0.5, -1.25, 3.0], [1e-3, 7.0, -0.0]], numpy.float32)\n"
                   "assert (a == expected).all(), a\n",
                   folder / "f4.npy") == 0);

  Eigen::MatrixXd matrix(3, 2);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) matrix(i, j) = 10 * i + j + 0.1;
  }
  write_npy(folder / "m.npy", matrix);
  CHECK(run_python(folder.path(),
                   "import sys, numpy\n"
                   "a = numpy.load(sys.argv[1])\n"
                   "assert a.dtype == numpy.float64 and a.shape == (3, 2), (a.dtype, a.shape)\n"
                   "assert a.flags.c_contiguous\n"
                   "for i in range(3):\n"
                   "    for j in range(2):\n"
                   "        assert a[i, j] == 10 * i + j + 0.1, (i, j, a[i, j])\n",
                   folder / "m.npy") == 0);

  const std::vector<std::int32_t> int32s = {-2147483647 - 1, -1, 0, 1, 2147483647};
  write_npy(folder / "i4.npy", int32s, {5});
  CHECK(run_python(folder.path(),
                   "import sys, numpy\n"
                   "a = numpy.load(sys.argv[1])\n"
                   "assert a.dtype == numpy.int32 and a.shape == (5,), (a.dtype, a.shape)\n"
                   "assert a.tolist() == [-2**31, -1, 0, 1, 2**31 - 1], a\n",
                   folder / "i4.npy") == 0);

  const std::int64_t scalar = 1234567890123456789;
  write_npy(folder / "i8.npy", &scalar, {});
  CHECK(run_python(folder.path(),
                   "import sys, numpy\n"
                   "a = numpy.load(sys.argv[1])\n"
                   "assert a.dtype == numpy.int64 and a.shape == (), (a.dtype, a.shape)\n"
                   "assert a.item() == 1234567890123456789, a\n",
                   folder / "i8.npy") == 0);

  write_npy(folder / "empty.npy", std::vector<float>{}, {4, 0, 2});
  CHECK(run_python(folder.path(),
                   "import sys, numpy\n"
                   "a = numpy.load(sys.argv[1])\n"
                   "assert a.dtype == numpy.float32 and a.shape == (4, 0, 2), (a.dtype, a.shape)\n",
                   folder / "empty.npy") == 0);
}

TEST_CASE("read_npy reads files that numpy.save wrote") {
  if (!testing::python_has_numpy()) {
    MESSAGE("skipped: /usr/bin/python3 cannot import numpy");
    return;
  }
  TempFolder folder;
  REQUIRE(run_python(folder.path(),
                     "import os, sys, numpy\n"
                     "def save(name, array):\n"
                     "    numpy.save(os.path.join(sys.argv[1], name), array)\n"
                     "save('f4.npy', numpy.arange(6, dtype=numpy.float32).reshape(2, 3) / 4)\n"
                     "save('f8.npy', numpy.float64(0.1))\n"
                     "save('i4.npy', numpy.array([-2**31, 0, 2**31 - 1], dtype=numpy.int32))\n"
                     "save('i8.npy', numpy.arange(-3, 3, dtype=numpy.int64).reshape(3, 2, 1))\n"
                     "save('empty.npy', numpy.zeros((2, 0)))\n"
                     "save('transposed.npy', numpy.arange(6.0).reshape(2, 3).T)\n"
                     "save('big_endian.npy', numpy.ones(3, dtype='>f8'))\n"
                     "save('bool.npy', numpy.ones(3, dtype=bool))\n"
                     "save('structured.npy', numpy.zeros(2, dtype=[('x', '<f8'), ('y', '<i4')]))\n",
                     folder.path()) == 0);

  const NpyArray f4 = read_npy(folder / "f4.npy");
  CHECK(f4.descr == "<f4");
  CHECK(f4.shape == Shape{2, 3});
  CHECK(f4.values == std::vector<double>{0, 0.25, 0.5, 0.75, 1, 1.25});

  const NpyArray f8 = read_npy(folder / "f8.npy");
  CHECK(f8.shape == Shape{});
  CHECK(f8.values == std::vector<double>{0.1});

  CHECK(read_npy(folder / "i4.npy").values == std::vector<double>{-2147483648.0, 0, 2147483647.0});

  const NpyArray i8 = read_npy(folder / "i8.npy");
  CHECK(i8.descr == "<i8");
  CHECK(i8.shape == Shape{3, 2, 1});
  CHECK(i8.values == std::vector<double>{-3, -2, -1, 0, 1, 2});

  const NpyArray empty = read_npy(folder / "empty.npy");
  CHECK(empty.shape == Shape{2, 0});
  CHECK(empty.values.empty());

  // NumPy saves a transposed array in Fortran order rather than copying it.
  CHECK(contains(io_error_message([&] { read_npy(folder / "transposed.npy"); }),
                 "is stored in Fortran order; save it in C order (numpy.ascontiguousarray)"));
  CHECK(contains(io_error_message([&] { read_npy(folder / "big_endian.npy"); }),
                 "has dtype '>f8'; ufl reads only '<f4', '<f8', '<i4' and '<i8'"));
  CHECK(contains(io_error_message([&] { read_npy(folder / "bool.npy"); }), "has dtype '|b1'"));
  CHECK(contains(io_error_message([&] { read_npy(folder / "structured.npy"); }),
                 "holds a structured array"));
}

// ---- Corrupt inputs --------------------------------------------------------------------------

// A well-formed (2, 3) float64 file's bytes: header then 48 bytes of data.
std::string valid_file_bytes() {
  const std::vector<double> data = sample_values<double>(6);
  return format_npy_header("<f8", {2, 3}) +
         std::string(reinterpret_cast<const char*>(data.data()), 6 * sizeof(double));
}

std::string read_error(const TempFolder& folder, const std::string& bytes) {
  const auto path = folder / "corrupt.npy";
  write_raw_file(path, bytes);
  const std::string message = io_error_message([&] { read_npy(path); });
  CHECK(contains(message, path.string()));  // every message names the file
  return message;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

TEST_CASE("read_npy rejects a missing file") {
  TempFolder folder;
  const auto path = folder / "absent.npy";
  CHECK(io_error_message([&] { read_npy(path); }) ==
        "cannot read " + path.string() + ": file does not exist");
}

TEST_CASE("read_npy rejects an empty file") {
  TempFolder folder;
  CHECK(contains(read_error(folder, ""), "is empty, not a .npy file"));
}

TEST_CASE("read_npy rejects a file without the NumPy magic") {
  TempFolder folder;
  std::string bytes = valid_file_bytes();
  bytes[0] = 'X';
  CHECK(contains(read_error(folder, bytes), "is not a .npy file"));
  CHECK(contains(read_error(folder, "a,b,c\n1,2,3\n"), "is not a .npy file"));
}

TEST_CASE("read_npy rejects a truncated header") {
  TempFolder folder;
  CHECK(contains(read_error(folder, valid_file_bytes().substr(0, 30)),
                 "is truncated inside its .npy header"));
  CHECK(contains(read_error(folder, valid_file_bytes().substr(0, 9)),
                 "is truncated inside its .npy header"));
}

TEST_CASE("read_npy rejects truncated data") {
  TempFolder folder;
  const std::string bytes = valid_file_bytes();
  const std::string message = read_error(folder, bytes.substr(0, bytes.size() - 1));
  CHECK(contains(message,
                 "is truncated: shape (2, 3) of dtype '<f8' needs 48 bytes of data but the file "
                 "holds 47"));
}

TEST_CASE("read_npy rejects trailing bytes after the data") {
  TempFolder folder;
  CHECK(contains(read_error(folder, valid_file_bytes() + "xyz"),
                 "is corrupt: it is 3 byte(s) longer than shape (2, 3) of dtype '<f8' needs"));
}

TEST_CASE("read_npy rejects Fortran order") {
  TempFolder folder;
  // "True " has the length of "False", so the header length stays right.
  CHECK(contains(read_error(folder, replaced(valid_file_bytes(), "False", "True ")),
                 "is stored in Fortran order"));
}

TEST_CASE("read_npy rejects an unsupported dtype") {
  TempFolder folder;
  CHECK(contains(read_error(folder, replaced(valid_file_bytes(), "<f8", "<c8")),
                 "has dtype '<c8'; ufl reads only '<f4', '<f8', '<i4' and '<i8'"));
}

TEST_CASE("read_npy rejects an unsupported version") {
  TempFolder folder;
  std::string bytes = valid_file_bytes();
  bytes[6] = 9;
  CHECK(contains(read_error(folder, bytes), "has .npy format version 9.0"));
}

TEST_CASE("read_npy rejects a malformed header") {
  TempFolder folder;
  CHECK(contains(
      read_error(folder, replaced(valid_file_bytes(), "'shape': (2, 3)", "'shape': [2, 3]")),
      "has a malformed .npy header"));
}

TEST_CASE("read_npy rejects a shape too large for the file without allocating it") {
  TempFolder folder;
  const std::string data(48, '\0');
  // 2^40 float64 values would be 8 TiB: the size check must come before any allocation.
  const std::string huge = format_npy_header("<f8", {std::size_t{1} << 40}) + data;
  CHECK(contains(read_error(folder, huge),
                 "needs 8796093022208 bytes of data but the file holds 48"));
  const std::string overflowing = format_npy_header("<f8", {4294967296, 4294967296, 16}) + data;
  CHECK(contains(read_error(folder, overflowing),
                 "has a corrupt .npy header: shape (4294967296, 4294967296, 16) has more elements "
                 "than memory can hold"));
}

TEST_CASE("a zero dimension makes an empty array, however large the others") {
  TempFolder folder;
  const auto path = folder / "zero.npy";
  write_raw_file(path, format_npy_header("<f4", {0, std::size_t{1} << 62, std::size_t{1} << 62}));
  const NpyArray array = read_npy(path);
  CHECK(array.values.empty());
  CHECK(array.shape.size() == 3);
}

}  // namespace
}  // namespace ufl::io
