// libFuzzer target for ufl's .npy reader. The input is the whole file:
//   1. parse_npy_header on the bytes in memory;
//   2. read_npy (and read_npy_matrix / read_npy_vector for 2-D / 1-D arrays) on the same bytes
//      written to one scratch file per process, in $UFL_FUZZ_TMPDIR, else /dev/shm, else the
//      system temp folder.
// Only ufl::io::IoError may escape; any other exception (it terminates the process) or a sanitizer
// report is a bug. On success the results must agree with each other and with the file size.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "io/io_error.hpp"
#include "io/npy.hpp"
#include "io/npy_header.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path& scratch_file() {
  static const fs::path path = [] {
    fs::path folder;
    if (const char* chosen = std::getenv("UFL_FUZZ_TMPDIR"); chosen && *chosen) {
      folder = chosen;
    } else if (std::error_code error; fs::is_directory("/dev/shm", error)) {
      folder = "/dev/shm";
    } else {
      folder = fs::temp_directory_path();
    }
    // libFuzzer ends with _Exit, so the file stays behind; scripts/fuzz.sh removes its folder.
    return folder / ("ufl-fuzz-npy-" + std::to_string(::getpid()) + ".npy");
  }();
  return path;
}

void write_scratch(std::string_view bytes) {
  std::ofstream out(scratch_file(), std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  UFL_FUZZ_CHECK(out.good(), "could not write the scratch file (not a bug in ufl)");
}

bool is_known_descr(const std::string& descr) {
  return descr == "<f4" || descr == "<f8" || descr == "<i4" || descr == "<i8";
}

std::size_t item_size(const std::string& descr) { return descr[2] == '4' ? 4 : 8; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);

  // 1. The header, in memory.
  std::optional<ufl::io::NpyHeader> header;
  try {
    header = ufl::io::parse_npy_header(bytes, "fuzz.npy");
  } catch (const ufl::io::IoError&) {
  }
  if (header) {
    UFL_FUZZ_CHECK(header->data_offset >= 10 && header->data_offset <= size,
                   "the data starts inside the file, after the prefix");
    // A header ufl itself would write for this dtype and shape parses back to the same.
    if (is_known_descr(header->descr)) {
      const std::string rewritten = ufl::io::format_npy_header(header->descr, header->shape);
      const ufl::io::NpyHeader again = ufl::io::parse_npy_header(rewritten, "rewritten.npy");
      UFL_FUZZ_CHECK(again.descr == header->descr && again.shape == header->shape &&
                         !again.fortran_order && again.data_offset == rewritten.size() &&
                         again.data_offset % 64 == 0,
                     "format_npy_header round trip");
    }
  }

  // 2. The whole reader, through a file.
  write_scratch(bytes);
  std::optional<ufl::io::NpyArray> array;
  try {
    array = ufl::io::read_npy(scratch_file());
  } catch (const ufl::io::IoError&) {
  }
  if (!array) return 0;
  UFL_FUZZ_CHECK(header.has_value(), "read_npy accepts only files whose header parses");
  UFL_FUZZ_CHECK(array->descr == header->descr && array->shape == header->shape &&
                     !header->fortran_order && is_known_descr(array->descr),
                 "read_npy agrees with parse_npy_header");
  std::size_t count = 1;
  for (const std::size_t dimension : array->shape) count *= dimension;  // checked by read_npy
  UFL_FUZZ_CHECK(array->values.size() == count, "values.size() is the product of the shape");
  UFL_FUZZ_CHECK(header->data_offset + count * item_size(array->descr) == size,
                 "header plus data is exactly the file");

  try {
    if (array->shape.size() == 2) {
      const Eigen::MatrixXd matrix = ufl::io::read_npy_matrix(scratch_file());
      UFL_FUZZ_CHECK(static_cast<std::size_t>(matrix.rows()) == array->shape[0] &&
                         static_cast<std::size_t>(matrix.cols()) == array->shape[1],
                     "read_npy_matrix has the file's shape");
    }
    if (array->shape.size() == 1) {
      const Eigen::VectorXd vector = ufl::io::read_npy_vector(scratch_file());
      UFL_FUZZ_CHECK(static_cast<std::size_t>(vector.size()) == array->shape[0],
                     "read_npy_vector has the file's length");
    }
  } catch (const ufl::io::IoError&) {
  }
  return 0;
}
