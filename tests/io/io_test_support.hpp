#pragma once
// Helpers shared by the tests of src/io: a scratch folder, raw file writes for crafting corrupt
// inputs, a way to capture an IoError's message, and a way to run NumPy on our files.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "io/io_error.hpp"

namespace ufl::io::testing {

// A fresh, uniquely named folder under the system temporary folder, removed with its contents
// when the test ends.
class TempFolder {
 public:
  TempFolder() {
    static std::atomic<int> counter{0};
    const std::string name = "ufl-io-test-" + std::to_string(::getpid()) + "-" +
                             std::to_string(counter.fetch_add(1)) + "-" +
                             std::to_string(std::random_device{}());
    path_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::create_directory(path_);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  ~TempFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// The names in `folder`, sorted, hidden ones included (temporaries and staging folders are).
inline std::vector<std::string> folder_entries(const std::filesystem::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Writes `bytes` exactly, without any of ufl::io's checks.
inline void write_raw_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string read_raw_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The message of the IoError that `action` throws, or a marker text if it throws none.
template <class Action>
std::string io_error_message(Action&& action) {
  try {
    action();
  } catch (const IoError& error) {
    return error.what();
  }
  return "(no IoError was thrown)";
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

inline bool python_has_numpy() {
  return std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0;
}

// Runs `script` with /usr/bin/python3, the script saved in `folder` and `argument` as sys.argv[1].
// Returns the exit status (0 when every assert in the script held).
inline int run_python(const std::filesystem::path& folder, const std::string& script,
                      const std::filesystem::path& argument) {
  const std::filesystem::path script_path = folder / "check.py";
  write_raw_file(script_path, script);
  const std::string command =
      "/usr/bin/python3 '" + script_path.string() + "' '" + argument.string() + "'";
  return std::system(command.c_str());
}

}  // namespace ufl::io::testing
