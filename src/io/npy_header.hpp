#pragma once
// The header of a NumPy .npy file: magic "\x93NUMPY", version, header length, then a Python dict
// literal such as {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded with spaces
// and a final '\n'. Format reference: numpy.lib.format.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ufl::io {

// A shape as Python writes a tuple: "()", "(5,)", "(2, 3)".
std::string format_shape(const std::vector<std::size_t>& shape);

// The complete header (magic through the final '\n') for a C-order array. Version 1.0, or 2.0 when
// the header does not fit 1.0's 16-bit length; padded so the data starts at a multiple of 64.
std::string format_npy_header(std::string_view descr, const std::vector<std::size_t>& shape);

struct NpyHeader {
  std::string descr;  // e.g. "<f8"
  bool fortran_order = false;
  std::vector<std::size_t> shape;
  std::size_t data_offset = 0;  // where the array data starts in the file
};

// Parses the header at the start of `file_bytes` (versions 1.0, 2.0 and 3.0). Checks only the
// syntax: dtype, order and data size are for the caller to judge. Throws IoError naming `path`
// on a missing or wrong magic, an unsupported version, or a truncated or malformed header.
NpyHeader parse_npy_header(std::string_view file_bytes, const std::filesystem::path& path);

}  // namespace ufl::io
