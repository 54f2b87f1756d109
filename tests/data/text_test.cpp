// The `text` kind (docs/transformer.md §2): a file or a folder read in name order, links and files
// that are not UTF-8 text skipped, characters as tokens, the 90/10 split, fixed validation windows,
// and one line naming the path for every corpus that cannot be used.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "data/registry.hpp"

using namespace ufl;
namespace fs = std::filesystem;

namespace {

struct Folder {
  fs::path path = fs::temp_directory_path() / ("ufl-text-test-" + std::to_string(::getpid()));
  Folder() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Folder() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path / name, std::ios::binary) << bytes;
    return (path / name).string();
  }
};

data::DatasetConfig text_spec(const std::string& path, int n = 4) {
  data::DatasetConfig spec;
  spec.kind = "text";
  spec.path = path;
  spec.n = n;
  spec.val_windows = 7;
  return spec;
}

std::string repeat(const std::string& text, int times) {
  std::string all;
  for (int k = 0; k < times; ++k) all += text;
  return all;
}

std::string error_of(const data::DatasetConfig& spec) {
  try {
    data::generate_tokens(spec, 1);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a file's characters become tokens: sorted vocabulary, 90/10 split, every window") {
  Folder folder;
  // 600 characters of "abcé" (é is two bytes in UTF-8, one character).
  const std::string path = folder.write("corpus.txt", repeat("abcé", 150));
  const data::TokenDataset data = data::generate_tokens(text_spec(path), 1);
  CHECK(data.vocab == std::vector<std::string>{"a", "b", "c", "é"});
  CHECK(data.train.stream.size() == 540);
  CHECK(data.validation.stream.size() == 60);
  CHECK(data.train.stream[3] == 3);      // é
  CHECK(data.train.count() == 540 - 4);  // windows of n + 1 = 5 starting at 0 … 535
  CHECK(data.validation.count() == 7);
  for (int s = 0; s < data.validation.count(); ++s)
    CHECK(data.validation.starts[s] + 4 < std::int64_t(data.validation.stream.size()));
  CHECK(data.train.position_labels.empty());  // every position scored once
  // The same seed draws the same validation windows.
  CHECK(data::generate_tokens(text_spec(path), 1).validation.starts == data.validation.starts);
}

TEST_CASE("a folder is read in name order; links and files that are not text are skipped") {
  Folder folder;
  folder.write("b.txt", repeat("bb", 150));
  folder.write("a.txt", repeat("aa", 150));
  folder.write("c.dat", std::string("\x00\x01\x02", 3));
  folder.write("d.bin", "\xff\xfe not utf-8");
  fs::create_symlink(folder.path / "a.txt", folder.path / "e.link");
  const data::TokenDataset data = data::generate_tokens(text_spec(folder.path.string()), 1);
  CHECK(data.files.size() == 2);
  CHECK(data.files[0].path.ends_with("a.txt"));
  CHECK(data.skipped_files.size() == 3);
  CHECK(data.train.stream.front() == 0);      // 'a' first
  CHECK(data.validation.stream.back() == 1);  // 'b' last
}

TEST_CASE("corpora that cannot be used: one line naming the path and what to do") {
  Folder folder;
  const std::string empty = folder.write("empty.txt", "");
  const std::string binary = folder.write("binary.txt", std::string("ab\0cd", 5));
  const std::string short_text = folder.write("short.txt", repeat("abc", 10));
  fs::create_directories(folder.path / "nothing");
  folder.write("nothing/x.dat", std::string("\x00", 1));
  CHECK(error_of(text_spec((folder.path / "missing.txt").string())).find("does not exist") !=
        std::string::npos);
  CHECK(error_of(text_spec(empty)).find("is empty") != std::string::npos);
  CHECK(error_of(text_spec(binary)).find("is not UTF-8 text") != std::string::npos);
  CHECK(error_of(text_spec((folder.path / "nothing").string())).find("holds no UTF-8 text file") !=
        std::string::npos);
  const std::string too_short = error_of(text_spec(short_text));
  CHECK(too_short.find("has 30 characters") != std::string::npos);
  CHECK(too_short.find("fewer than 10 windows") != std::string::npos);
  for (const std::string& message : {too_short, error_of(text_spec(empty))})
    CHECK(message.find('\n') == std::string::npos);
}

TEST_CASE("float kinds give no tokens, and token kinds no float samples") {
  data::DatasetConfig local;
  CHECK_THROWS_AS(data::generate_tokens(local, 1), std::logic_error);
  data::DatasetConfig text = text_spec("/nonexistent");
  CHECK_THROWS_AS(data::generate(text, 1), std::invalid_argument);
}
