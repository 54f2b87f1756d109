#pragma once
// The one exception type of ufl::io. Its message is a single line that names the file and says
// what went wrong (and, where there is one, what to do), so the CLI can print it as it is.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace ufl::io {

struct IoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "cannot <action> <path>: <system error text>", e.g.
// "cannot write results/local/U.npy: No space left on device".
inline IoError errno_error(std::string_view action, const std::filesystem::path& path,
                           int error_number) {
  // generic_category().message is the strerror text without strerror's shared buffer.
  return IoError("cannot " + std::string(action) + " " + path.string() + ": " +
                 std::generic_category().message(error_number));
}

// Text taken from a (possibly corrupt) file, fit to quote in a one-line message: at most 32
// characters, anything unprintable shown as '?'.
inline std::string printable_excerpt(std::string_view text) {
  std::string excerpt;
  for (const char c : text.substr(0, 32)) excerpt.push_back(c >= ' ' && c <= '~' ? c : '?');
  if (text.size() > 32) excerpt += "...";
  return excerpt;
}

}  // namespace ufl::io
