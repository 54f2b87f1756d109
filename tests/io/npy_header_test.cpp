// Specification of io/npy_header.hpp: the .npy header NumPy expects, and a parser that accepts what
// NumPy writes and rejects anything else with an IoError naming the file.
#include "io/npy_header.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "io/io_error.hpp"
#include "io_test_support.hpp"

namespace ufl::io {
namespace {

using testing::contains;
using testing::io_error_message;

const std::filesystem::path kName = "results/local/U.npy";

// Magic, version and length field around a raw dict text, with no padding.
std::string raw_header(const std::string& dict, unsigned char major = 1) {
  std::string bytes("\x93NUMPY", 6);
  bytes.push_back(static_cast<char>(major));
  bytes.push_back(0);
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  for (std::size_t i = 0; i < length_bytes; ++i) {
    bytes.push_back(static_cast<char>((dict.size() >> (8 * i)) & 0xff));
  }
  return bytes + dict;
}

std::string parse_error(const std::string& bytes) {
  return io_error_message([&] { parse_npy_header(bytes, kName); });
}

TEST_CASE("format_shape writes Python tuples") {
  CHECK(format_shape({}) == "()");
  CHECK(format_shape({5}) == "(5,)");
  CHECK(format_shape({2, 3}) == "(2, 3)");
  CHECK(format_shape({2, 3, 4}) == "(2, 3, 4)");
}

TEST_CASE("format_npy_header writes NumPy's version 1.0 header, padded to 64 bytes") {
  const std::string header = format_npy_header("<f4", {3, 4});
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }";
  REQUIRE(header.size() == 128);  // 10 + 60 + '\n' rounded up
  CHECK(header.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
  CHECK(static_cast<unsigned char>(header[8]) + 256 * static_cast<unsigned char>(header[9]) ==
        128 - 10);
  CHECK(header.substr(10, dict.size()) == dict);
  CHECK(header.substr(10 + dict.size()) == std::string(128 - 10 - dict.size() - 1, ' ') + "\n");
}

TEST_CASE("format_npy_header writes a 1-tuple with its trailing comma and () for a scalar") {
  CHECK(contains(format_npy_header("<f8", {7}), "'shape': (7,), }"));
  CHECK(contains(format_npy_header("<i8", {}), "'shape': (), }"));
}

TEST_CASE("every header length is a multiple of 64 and ends in a newline") {
  for (std::size_t ndim = 0; ndim < 40; ++ndim) {
    const std::string header = format_npy_header("<f8", std::vector<std::size_t>(ndim, 123456));
    CHECK(header.size() % 64 == 0);
    CHECK(header.back() == '\n');
  }
}

TEST_CASE("format_npy_header falls back to version 2.0 only for a header over 65535 bytes") {
  const std::string header = format_npy_header("<f8", std::vector<std::size_t>(25000, 1));
  REQUIRE(header.size() > 65535);
  CHECK(header[6] == 2);
  CHECK(header.size() % 64 == 0);
  const NpyHeader parsed = parse_npy_header(header, kName);
  CHECK(parsed.shape == std::vector<std::size_t>(25000, 1));
  CHECK(parsed.data_offset == header.size());
}

TEST_CASE("parse_npy_header reads back what format_npy_header writes") {
  for (const auto& shape : {std::vector<std::size_t>{}, {5}, {2, 3}, {2, 3, 4}, {0, 7}}) {
    const std::string header = format_npy_header("<i4", shape);
    const NpyHeader parsed = parse_npy_header(header + "data after the header", kName);
    CHECK(parsed.descr == "<i4");
    CHECK_FALSE(parsed.fortran_order);
    CHECK(parsed.shape == shape);
    CHECK(parsed.data_offset == header.size());
  }
}

TEST_CASE("parse_npy_header accepts the variations NumPy and Python 2 NumPy wrote") {
  const NpyHeader python2 = parse_npy_header(
      raw_header("{'descr': '<f8', 'fortran_order': True, 'shape': (3L, 4L), }       \n"), kName);
  CHECK(python2.fortran_order);
  CHECK(python2.shape == std::vector<std::size_t>{3, 4});
  // Any key order, double quotes, no trailing comma, spaces anywhere; version 3.0.
  const NpyHeader reordered = parse_npy_header(
      raw_header("{ \"shape\" : ( 2 , 3 ) , 'descr':'<i8','fortran_order':False}\n", 3), kName);
  CHECK(reordered.descr == "<i8");
  CHECK(reordered.shape == std::vector<std::size_t>{2, 3});
}

TEST_CASE("parse_npy_header rejects a missing or wrong magic") {
  CHECK(parse_error("") == kName.string() + " is empty, not a .npy file");
  CHECK(contains(parse_error("PK\x03\x04 a zip file"), "is not a .npy file"));
  CHECK(contains(parse_error("\x93NUM"), "is not a .npy file"));
}

TEST_CASE("parse_npy_header rejects unsupported versions") {
  std::string header = format_npy_header("<f8", {2});
  header[6] = 4;
  CHECK(parse_error(header) ==
        kName.string() + " has .npy format version 4.0; ufl reads versions 1.0, 2.0 and 3.0");
  header[6] = 1;
  header[7] = 1;
  CHECK(contains(parse_error(header), "version 1.1"));
}

TEST_CASE("parse_npy_header rejects a truncated header") {
  const std::string header = format_npy_header("<f8", {2, 3});
  for (const std::size_t length : {7, 8, 9, 10, 30, 63}) {
    CAPTURE(length);
    const std::string message = parse_error(header.substr(0, length));
    CHECK(contains(message, kName.string() + " is truncated inside its .npy header"));
  }
  // A version 2.0 length field claiming 4 GB must not be trusted.
  CHECK(contains(parse_error(std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff{}", 14)),
                 "declares 4294967295 bytes but only 2 follow"));
}

TEST_CASE("parse_npy_header rejects malformed dicts") {
  const auto malformed = [](const std::string& dict) {
    return contains(parse_error(raw_header(dict)),
                    kName.string() + " has a malformed .npy header: ");
  };
  CHECK(malformed(""));
  CHECK(malformed("not a dict"));
  CHECK(malformed("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), "));
  CHECK(malformed("{'descr': '<f8', 'fortran_order': False}"));                // no shape
  CHECK(malformed("{'descr': '<f8', 'shape': (2,)}"));                         // no order
  CHECK(malformed("{'fortran_order': False, 'shape': (2,)}"));                 // no descr
  CHECK(malformed("{'descr': '<f8', 'fortran_order': False, 'shape': (5)}"));  // not a tuple
  CHECK(malformed("{'descr': '<f8', 'fortran_order': False, 'shape': (-5,)}"));
  CHECK(malformed("{'descr': '<f8', 'fortran_order': False, 'shape': (2.5,)}"));
  CHECK(malformed("{'descr': '<f8', 'fortran_order': maybe, 'shape': (2,)}"));
  CHECK(malformed("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'extra': 1}"));
  CHECK(malformed("{'descr': '<f8', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}"));
  CHECK(malformed("{'descr': '<f8, 'fortran_order': False, 'shape': (2,)}"));
  CHECK(malformed("{'descr': '<f8', 'fortran_order': False, 'shape': (2,)} trailing"));
  CHECK(malformed("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,)}"));
  constexpr char kWithNul[] = "{'descr': '<f8'\0, 'fortran_order': False, 'shape': (2,)}";
  CHECK(malformed(std::string(kWithNul, sizeof kWithNul - 1)));
}

TEST_CASE("parse_npy_header quotes text from a corrupt header on one printable line") {
  const std::string message =
      parse_error(raw_header("{'descr': '<f8', 'fortran_order': False, 'sh\n\x01"
                             "ape': (2,), }"));
  CHECK(contains(message, "unexpected key 'sh??ape'"));
}

TEST_CASE("parse_npy_header reports a structured dtype as unsupported, not as malformed") {
  const std::string message = parse_error(raw_header(
      "{'descr': [('x', '<f8'), ('y', '<i4')], 'fortran_order': False, 'shape': (2,), }"));
  CHECK(contains(message, "holds a structured array"));
}

}  // namespace
}  // namespace ufl::io
