// Specification of io/atomic_file.hpp: whole-file writes that are all-or-nothing, and reads that
// fail with one clear line.
#include "io/atomic_file.hpp"

#include <doctest/doctest.h>

#include "io/io_error.hpp"
#include "io_test_support.hpp"

namespace ufl::io {
namespace {

using testing::contains;
using testing::folder_entries;
using testing::io_error_message;
using testing::TempFolder;

TEST_CASE("write_file_atomic writes the contents and leaves no temporary file") {
  TempFolder folder;
  const auto path = folder / "notes.txt";
  write_file_atomic(path, "hello\n");
  CHECK(read_file(path) == "hello\n");
  CHECK(folder_entries(folder.path()) == std::vector<std::string>{"notes.txt"});
}

TEST_CASE("write_file_atomic replaces an existing file whole") {
  TempFolder folder;
  const auto path = folder / "data.bin";
  write_file_atomic(path, std::string(10000, 'a'));
  write_file_atomic(path, "short");
  CHECK(read_file(path) == "short");  // nothing of the longer old file remains
  CHECK(folder_entries(folder.path()) == std::vector<std::string>{"data.bin"});
}

TEST_CASE("write_file_atomic keeps binary bytes and writes pieces in order") {
  TempFolder folder;
  const auto path = folder / "pieces.bin";
  const std::string binary("\0\x01\xff\n\r\0", 6);
  const std::string_view pieces[] = {"head", binary, "", "tail"};
  write_file_atomic(path, pieces);
  CHECK(read_file(path) == "head" + binary + "tail");
}

TEST_CASE("write_file_atomic writes an empty file") {
  TempFolder folder;
  const auto path = folder / "empty";
  write_file_atomic(path, "");
  CHECK(std::filesystem::exists(path));
  CHECK(read_file(path).empty());
}

TEST_CASE("write_file_atomic into a missing folder throws IoError naming the file and folder") {
  TempFolder folder;
  const auto path = folder / "missing" / "out.txt";
  const std::string message = io_error_message([&] { write_file_atomic(path, "x"); });
  CHECK(contains(message, "cannot write " + path.string()));
  CHECK(contains(message, "folder " + (folder / "missing").string() + " does not exist"));
  CHECK(folder_entries(folder.path()).empty());
}

TEST_CASE("write_file_atomic under a regular file throws IoError and leaves no temporary") {
  // Tests may run as root, for whom a read-only folder is still writable; a parent that is a file
  // fails for everyone.
  TempFolder folder;
  write_file_atomic(folder / "plain", "I am a file");
  const auto path = folder / "plain" / "out.txt";
  const std::string message = io_error_message([&] { write_file_atomic(path, "x"); });
  CHECK(contains(message, "cannot write " + path.string() + ": Not a directory"));
  CHECK(folder_entries(folder.path()) == std::vector<std::string>{"plain"});
  CHECK(read_file(folder / "plain") == "I am a file");
}

TEST_CASE("a write that fails after the temporary exists removes the temporary") {
  // The rename over a non-empty folder fails only after the data has been written and synced.
  TempFolder folder;
  const auto target = folder / "occupied";
  std::filesystem::create_directory(target);
  write_file_atomic(target / "inside.txt", "kept");
  const std::string message = io_error_message([&] { write_file_atomic(target, "x"); });
  CHECK(contains(message, "cannot write " + target.string() + ": "));
  CHECK(folder_entries(folder.path()) == std::vector<std::string>{"occupied"});
  CHECK(read_file(target / "inside.txt") == "kept");
}

TEST_CASE("write_file_atomic rejects a path that names a folder") {
  TempFolder folder;
  const std::string message = io_error_message([&] { write_file_atomic(folder.path() / "", "x"); });
  CHECK(contains(message, "names a folder, not a file"));
}

TEST_CASE("read_file of a missing file throws IoError naming the file") {
  TempFolder folder;
  const auto path = folder / "absent.npy";
  CHECK(io_error_message([&] { read_file(path); }) ==
        "cannot read " + path.string() + ": file does not exist");
}

TEST_CASE("read_file of a folder throws IoError") {
  TempFolder folder;
  CHECK(contains(io_error_message([&] { read_file(folder.path()); }), "is a folder, not a file"));
}

TEST_CASE("read_file reads a file larger than its read buffer") {
  TempFolder folder;
  std::string large(300000, '\0');
  for (std::size_t i = 0; i < large.size(); ++i) large[i] = static_cast<char>(i * 7);
  write_file_atomic(folder / "large", large);
  CHECK(read_file(folder / "large") == large);
}

}  // namespace
}  // namespace ufl::io
