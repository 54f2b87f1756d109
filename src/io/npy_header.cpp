#include "io/npy_header.hpp"

#include <cstdint>
#include <limits>
#include <stdexcept>

#include "io/io_error.hpp"

namespace ufl::io {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kMagic{"\x93NUMPY", 6};
constexpr std::size_t kAlignment = 64;  // NumPy aligns the data start so it can be memory-mapped

void append_little_endian(std::string& out, std::uint32_t value, std::size_t byte_count) {
  for (std::size_t i = 0; i < byte_count; ++i) out.push_back(static_cast<char>(value >> (8 * i)));
}

std::uint32_t read_little_endian(std::string_view bytes) {
  std::uint32_t value = 0;
  for (std::size_t i = bytes.size(); i-- > 0;) {
    value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  }
  return value;
}

// A parser for the one dict literal NumPy writes, not for Python in general: string keys, and
// values that are strings, True/False or tuples of non-negative integers.
class HeaderDictParser {
 public:
  HeaderDictParser(std::string_view text, const fs::path& path) : text_(text), path_(path) {}

  NpyHeader parse() {
    NpyHeader header;
    bool has_descr = false, has_fortran_order = false, has_shape = false;
    expect('{', "the header must start with '{'");
    if (!consume('}')) {
      for (;;) {
        const std::string key = parse_string("a quoted key");
        expect(':', "expected ':' after key '" + printable_excerpt(key) + "'");
        if (key == "descr") {
          mark_seen(has_descr, key);
          if (peek() == '[') {
            throw IoError(path_.string() +
                          " holds a structured array; ufl reads only plain arrays of dtype "
                          "'<f4', '<f8', '<i4' or '<i8'");
          }
          header.descr = parse_string("'descr' to be a quoted dtype such as '<f8'");
        } else if (key == "fortran_order") {
          mark_seen(has_fortran_order, key);
          header.fortran_order = parse_bool();
        } else if (key == "shape") {
          mark_seen(has_shape, key);
          header.shape = parse_shape();
        } else {
          fail("unexpected key '" + printable_excerpt(key) + "'");
        }
        if (consume(',')) {
          if (consume('}')) break;
          continue;
        }
        expect('}', "expected ',' or '}' after the value of '" + printable_excerpt(key) + "'");
        break;
      }
    }
    skip_space();
    if (position_ != text_.size()) fail("unexpected text after the closing '}'");
    if (!has_descr) fail("missing key 'descr'");
    if (!has_fortran_order) fail("missing key 'fortran_order'");
    if (!has_shape) fail("missing key 'shape'");
    return header;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw IoError(path_.string() + " has a malformed .npy header: " + problem);
  }

  void mark_seen(bool& seen, const std::string& key) const {
    if (seen) fail("key '" + printable_excerpt(key) + "' appears twice");
    seen = true;
  }

  void skip_space() {
    while (position_ < text_.size() && (text_[position_] == ' ' || text_[position_] == '\t' ||
                                        text_[position_] == '\n' || text_[position_] == '\r')) {
      ++position_;
    }
  }

  // The next non-space character, or '\0' at the end.
  char peek() {
    skip_space();
    return position_ < text_.size() ? text_[position_] : '\0';
  }

  bool consume(char expected) {
    if (peek() != expected) return false;  // never called with '\0', peek()'s end marker
    ++position_;
    return true;
  }

  void expect(char expected, const std::string& problem) {
    if (!consume(expected)) fail(problem);
  }

  std::string parse_string(const std::string& what) {
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected " + what);
    const std::size_t start = position_ + 1;
    const std::size_t end = text_.find(quote, start);
    if (end == std::string_view::npos) fail("unterminated string");
    const std::string_view content = text_.substr(start, end - start);
    // No dtype or key we accept contains an escape; refusing them keeps the parser simple.
    if (content.find('\\') != std::string_view::npos) fail("unsupported escape in a string");
    position_ = end + 1;
    return std::string(content);
  }

  bool parse_bool() {
    skip_space();
    const std::string_view rest = text_.substr(position_);
    if (rest.starts_with("True")) {
      position_ += 4;
      return true;
    }
    if (rest.starts_with("False")) {
      position_ += 5;
      return false;
    }
    fail("'fortran_order' must be True or False");
  }

  std::vector<std::size_t> parse_shape() {
    expect('(', "'shape' must be a tuple such as (3, 4)");
    std::vector<std::size_t> shape;
    if (consume(')')) return shape;
    for (;;) {
      shape.push_back(parse_dimension());
      if (consume(',')) {
        if (consume(')')) break;
        continue;
      }
      expect(')', "expected ',' or ')' in 'shape'");
      // In Python (5) is the integer 5, not a tuple; NumPy never writes it.
      if (shape.size() == 1) fail("'shape' (n) lacks the trailing comma of a tuple, as in (n,)");
      break;
    }
    return shape;
  }

  std::size_t parse_dimension() {
    skip_space();
    const std::size_t start = position_;
    std::size_t value = 0;
    constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
    while (position_ < text_.size() && text_[position_] >= '0' && text_[position_] <= '9') {
      const auto digit = static_cast<std::size_t>(text_[position_] - '0');
      if (value > (kMax - digit) / 10) fail("a 'shape' entry is too large");
      value = value * 10 + digit;
      ++position_;
    }
    if (position_ == start) fail("'shape' entries must be non-negative integers");
    // Python 2 NumPy wrote long integers as 3L.
    if (position_ < text_.size() && (text_[position_] == 'L' || text_[position_] == 'l')) {
      ++position_;
    }
    return value;
  }

  std::string_view text_;
  const fs::path& path_;
  std::size_t position_ = 0;
};

}  // namespace

std::string format_shape(const std::vector<std::size_t>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1) text += ",";
  return text + ")";
}

std::string format_npy_header(std::string_view descr, const std::vector<std::size_t>& shape) {
  const std::string dict = "{'descr': '" + std::string(descr) +
                           "', 'fortran_order': False, 'shape': " + format_shape(shape) + ", }";
  // Version 1.0 stores the header length in 16 bits; 2.0 in 32 bits.
  const auto padded_header_length = [&](std::size_t prefix_length) {
    const std::size_t unpadded = prefix_length + dict.size() + 1;  // + the final '\n'
    const std::size_t total = (unpadded + kAlignment - 1) / kAlignment * kAlignment;
    return total - prefix_length;
  };
  unsigned char major_version = 1;
  std::size_t length_field_size = 2;
  std::size_t header_length = padded_header_length(kMagic.size() + 2 + length_field_size);
  if (header_length > std::numeric_limits<std::uint16_t>::max()) {
    major_version = 2;
    length_field_size = 4;
    header_length = padded_header_length(kMagic.size() + 2 + length_field_size);
    if (header_length > std::numeric_limits<std::uint32_t>::max()) {
      throw std::length_error("a .npy header cannot describe a shape with this many dimensions");
    }
  }

  std::string header(kMagic);
  header.push_back(static_cast<char>(major_version));
  header.push_back(0);  // minor version
  append_little_endian(header, static_cast<std::uint32_t>(header_length), length_field_size);
  header += dict;
  header.append(header_length - dict.size() - 1, ' ');
  header.push_back('\n');
  return header;
}

NpyHeader parse_npy_header(std::string_view file_bytes, const fs::path& path) {
  const std::string name = path.string();
  if (file_bytes.empty()) throw IoError(name + " is empty, not a .npy file");
  if (!file_bytes.starts_with(kMagic)) {
    throw IoError(name + " is not a .npy file: it does not start with the bytes \\x93NUMPY");
  }
  const auto truncated = [&] { return IoError(name + " is truncated inside its .npy header"); };
  if (file_bytes.size() < kMagic.size() + 2) throw truncated();

  const auto major_version = static_cast<unsigned char>(file_bytes[kMagic.size()]);
  const auto minor_version = static_cast<unsigned char>(file_bytes[kMagic.size() + 1]);
  // 3.0 differs from 2.0 only in allowing UTF-8 in the header, which our keys never need.
  if (major_version < 1 || major_version > 3 || minor_version != 0) {
    throw IoError(name + " has .npy format version " + std::to_string(major_version) + "." +
                  std::to_string(minor_version) + "; ufl reads versions 1.0, 2.0 and 3.0");
  }
  const std::size_t length_field_size = major_version == 1 ? 2 : 4;
  const std::size_t prefix_length = kMagic.size() + 2 + length_field_size;
  if (file_bytes.size() < prefix_length) throw truncated();
  const std::size_t header_length =
      read_little_endian(file_bytes.substr(kMagic.size() + 2, length_field_size));
  if (header_length > file_bytes.size() - prefix_length) {
    throw IoError(name + " is truncated inside its .npy header: the header declares " +
                  std::to_string(header_length) + " bytes but only " +
                  std::to_string(file_bytes.size() - prefix_length) + " follow");
  }

  NpyHeader header =
      HeaderDictParser(file_bytes.substr(prefix_length, header_length), path).parse();
  header.data_offset = prefix_length + header_length;
  return header;
}

}  // namespace ufl::io
