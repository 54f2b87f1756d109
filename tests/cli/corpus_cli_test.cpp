// A text corpus at the edges (docs/transformer.md §4): the manifest records each file's size and
// content hash and a resume refuses a corpus that changed, naming the file and how, leaving no
// staging folder; a file that is not text is refused from a bounded prefix (a 2 GB sparse file of
// NUL bytes at once), invalid UTF-8 with its byte offset; a folder says what it read and skipped.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "token_support.hpp"

using namespace ufl::testing;
namespace fs = std::filesystem;

namespace {

// Staging folders (.NAME.partial-PID) in `folder`.
int staging_folders(const fs::path& folder) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.path().filename().string().find(".partial-") != std::string::npos) ++count;
  return count;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace

TEST_CASE("--resume refuses a corpus edited in place or grown, naming the file, leaving nothing") {
  TemporaryFolder folder;
  const std::string corpus = write_tiny_corpus(folder), run = folder / "run";
  REQUIRE(interrupt_after_first_checkpoint(
      folder.path, "configs/transformer/text.json --set dataset.path=" + corpus + " --out " + run +
                       " --set train.steps=100000 --set train.checkpoint_every=20 -j1" +
                       kTinyTextRun));
  const auto manifest = nlohmann::json::parse(read_text(fs::path(run) / "manifest.json"));
  REQUIRE(manifest["status"] == "interrupted");
  const auto& recorded = manifest["data"]["files"][0];
  CHECK(recorded["path"] == corpus);
  CHECK(recorded["bytes"] == fs::file_size(corpus));
  CHECK(recorded["fnv1a64"].get<std::string>().size() == 16);

  const std::string original = read_text(corpus);
  // The same length and characters, in another order.
  std::string edited = original;
  std::swap(edited[0], edited[4]);
  write_file(corpus, edited);
  const CommandResult same_size = run_ufl("train --resume " + run + " -q");
  INFO(same_size.output);
  CHECK(same_size.exit_code == 2);
  CHECK(same_size.output.find(corpus + " changed content at the same size") != std::string::npos);
  CHECK(same_size.output.find("ufl train " + run + "/config.json --out") != std::string::npos);
  CHECK(std::count(same_size.output.begin(), same_size.output.end(), '\n') == 1);
  CHECK(staging_folders(folder.path) == 0);

  write_file(corpus, original + "More text.\n");
  const CommandResult grown = run_ufl("train --resume " + run + " -q");
  INFO(grown.output);
  CHECK(grown.exit_code == 2);
  CHECK(grown.output.find(corpus + " changed size") != std::string::npos);
  CHECK(staging_folders(folder.path) == 0);
  CHECK(nlohmann::json::parse(read_text(fs::path(run) / "manifest.json"))["status"] ==
        "interrupted");

  // The advice works: the config trains the new text into another folder.
  const CommandResult advice =
      run_ufl("train " + run + "/config.json --out " + folder / "anew" + " --set train.steps=10 -q",
              kNoFigures);
  INFO(advice.output);
  CHECK(advice.exit_code == 0);
}

TEST_CASE("a 2 GB sparse file of NUL bytes is refused as not text at once, by train and config") {
  TemporaryFolder folder;
  const std::string nul = folder / "zeros.txt";
  REQUIRE(run_command("truncate -s 2G " + nul).exit_code == 0);
  for (const char* command : {"train", "config"}) {
    CAPTURE(command);
    const auto start = std::chrono::steady_clock::now();
    const CommandResult refused =
        run_ufl(std::string(command) + " configs/transformer/text.json --set dataset.path=" + nul +
                (std::string(command) == "train" ? " --out " + folder / "run" : std::string()));
    INFO(refused.output);
    CHECK(refused.exit_code == 2);
    CHECK(refused.output.find(nul + " is not UTF-8 text (a NUL byte at byte offset 0, found in "
                                    "its first 64 kB)") != std::string::npos);
    CHECK(refused.output.find("memory") == std::string::npos);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    CHECK(!fs::exists(folder / "run"));
  }
}

TEST_CASE("invalid UTF-8 is refused with its byte offset; a one-character text in the singular") {
  TemporaryFolder folder;
  const std::string bad = folder / "bad.txt", one = folder / "one.txt";
  write_file(bad, std::string(70000, 'a') + "\xff" + std::string(100, 'b'));
  write_file(one, "a");
  const CommandResult invalid =
      run_ufl("train configs/transformer/text.json --set dataset.path=" + bad + " --out " +
              folder / "run" + kTinyTextRun);
  INFO(invalid.output);
  CHECK(invalid.exit_code == 2);
  CHECK(invalid.output.find("a byte 0xFF that is not UTF-8 at byte offset 70000") !=
        std::string::npos);
  const CommandResult single =
      run_ufl("train configs/transformer/text.json --set dataset.path=" + one + " --out " +
              folder / "run" + kTinyTextRun);
  INFO(single.output);
  CHECK(single.exit_code == 2);
  CHECK(single.output.find("has 1 character:") != std::string::npos);
}

TEST_CASE(
    "a folder corpus reads its own files and says what it skipped, links and FIFOs unopened") {
  TemporaryFolder folder;
  const fs::path corpus = folder.path / "corpus";
  fs::create_directories(corpus / "sub");
  fs::create_directories(corpus / ".hidden");
  TemporaryFolder texts;
  fs::copy_file(write_tiny_corpus(texts), corpus / "a.txt");
  fs::copy_file(write_tiny_corpus(texts, "b.txt"), corpus / "sub" / "b.txt");
  fs::create_symlink(corpus / "loop", corpus / "loop");  // a link to itself
  fs::create_symlink("/dev/zero", corpus / "zero");
  REQUIRE(mkfifo((corpus / "fifo").c_str(), 0600) == 0);
  write_file((corpus / "index.dat").string(), std::string("\0\1\2", 3));
  const std::string out = folder / "run";
  const CommandResult trained = run_ufl(
      "train configs/transformer/text.json --set dataset.path=" + corpus.string() + " --out " +
          out + " --set train.steps=10" + kTinyTextRun.substr(0, kTinyTextRun.size() - 3),
      kNoFigures);
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  for (const char* piece : {"read 1 file", "skipped 6: ", "2 subfolders", "2 links",
                            "1 FIFO, socket or device", "1 file that is not text"})
    CHECK_MESSAGE(trained.output.find(piece) != std::string::npos, piece);
  const auto manifest = nlohmann::json::parse(read_text(fs::path(out) / "manifest.json"));
  CHECK(manifest["data"]["files"].size() == 1);
  CHECK(manifest["data"]["skipped_files"].size() == 6);
}

TEST_CASE("ufl config checks dataset.path as ufl train does: a missing path, a FIFO") {
  TemporaryFolder folder;
  const std::string fifo = folder / "fifo";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  for (const std::string command : {"config", "train"}) {
    CAPTURE(command);
    const std::string out = command == "train" ? " --out " + (folder / "run") : std::string();
    const CommandResult missing = run_ufl(
        command + " configs/transformer/text.json --set dataset.path=/nonexistent/corpus" + out);
    CHECK(missing.exit_code == 2);
    CHECK(missing.output.find("ufl: error: dataset.path: /nonexistent/corpus does not exist") !=
          std::string::npos);
    const CommandResult pipe =
        run_ufl(command + " configs/transformer/text.json --set dataset.path=" + fifo + out);
    CHECK(pipe.exit_code == 2);
    CHECK(pipe.output.find(fifo + " is neither a regular file nor a folder") != std::string::npos);
    // Refused before the estimate, as a file that is not text is.
    for (const CommandResult* result : {&missing, &pipe})
      CHECK(result->output.find("memory") == std::string::npos);
    CHECK_FALSE(fs::exists(folder / "run"));
  }
}

TEST_CASE("a validation split emptied by dataset.val_fraction says to raise the fraction") {
  TemporaryFolder folder;
  const std::string corpus = write_tiny_corpus(folder);
  const CommandResult tiny =
      run_ufl("train configs/transformer/text.json --set dataset.path=" + corpus + " --out " +
                  (folder / "run") + " --set dataset.val_fraction=1e-9" + kTinyTextRun,
              kNoFigures);
  INFO(tiny.output);
  CHECK(tiny.exit_code == 2);
  CHECK(tiny.output.find("fewer than 10 windows") != std::string::npos);
  CHECK(tiny.output.find("; raise dataset.val_fraction = 1e-09 to at least 0.") !=
        std::string::npos);
  const CommandResult large =
      run_ufl("train configs/transformer/text.json --set dataset.path=" + corpus + " --out " +
                  (folder / "run") + " --set dataset.val_fraction=0.999999" + kTinyTextRun,
              kNoFigures);
  CHECK(large.exit_code == 2);
  CHECK(large.output.find("; lower dataset.val_fraction = 0.999999 to at most 0.") !=
        std::string::npos);
}

TEST_CASE("a kernel file that reports no size (/proc) is read, not called empty") {
  TemporaryFolder folder;
  // ufl reads its own /proc/self/status; the size 0 that stat reports is no sign of an empty file.
  const CommandResult trained =
      run_ufl("train configs/transformer/text.json --set dataset.path=/proc/self/status --out " +
                  (folder / "run") +
                  " --set dataset.n=8 --set model.width=16 --set model.depth=1 --set layer.heads=2"
                  " --set train.steps=2 --set train.batch_size=2 --set train.eval_every=1"
                  " --set train.warmup_steps=1 --set dataset.val_windows=5 -q",
              kNoFigures);
  INFO(trained.output);
  CHECK(trained.output.find("is empty") == std::string::npos);
  CHECK(trained.exit_code == 0);
}

TEST_CASE("--resume after a file was added to the corpus folder says to move it out") {
  TemporaryFolder folder;
  const fs::path corpus = folder.path / "corpus";
  fs::create_directories(corpus);
  TemporaryFolder texts;
  fs::copy_file(write_tiny_corpus(texts), corpus / "a.txt");
  const std::string run = folder / "run";
  REQUIRE(interrupt_after_first_checkpoint(
      folder.path,
      "configs/transformer/text.json --set dataset.path=" + corpus.string() + " --out " + run +
          " --set train.steps=100000 --set train.checkpoint_every=20 -j1" + kTinyTextRun));
  REQUIRE(nlohmann::json::parse(read_text(fs::path(run) / "manifest.json"))["status"] ==
          "interrupted");
  fs::copy_file(write_tiny_corpus(texts, "b.txt"), corpus / "b.txt");
  const CommandResult added = run_ufl("train --resume " + run + " -q");
  INFO(added.output);
  CHECK(added.exit_code == 2);
  CHECK(added.output.find((corpus / "b.txt").string() +
                          " was added to the corpus folder; move it out of the folder, or train "
                          "the new data from the start") != std::string::npos);
  CHECK(added.output.find("restore it") == std::string::npos);
}
