// Specification of io/run_folder.hpp: a run's folder appears only when complete, an unfinished
// run leaves no trace, and an existing run is replaced only with force.
#include "io/run_folder.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io_test_support.hpp"

namespace ufl::io {
namespace {

using testing::contains;
using testing::folder_entries;
using testing::io_error_message;
using testing::TempFolder;
using Names = std::vector<std::string>;

TEST_CASE("files are written to a hidden staging folder until commit") {
  TempFolder folder;
  const auto final_path = folder / "local";
  RunFolder run(final_path, false);
  CHECK(run.staging().parent_path() == folder.path());
  CHECK(run.staging().filename().string().starts_with(".local.partial-"));
  CHECK(run.file("U.npy") == run.staging() / "U.npy");
  write_file_atomic(run.file("manifest.json"), "{}");
  CHECK_FALSE(std::filesystem::exists(final_path));
}

TEST_CASE("commit makes the folder appear with its files and removes the staging folder") {
  TempFolder folder;
  const auto final_path = folder / "local";
  {
    RunFolder run(final_path, false);
    write_file_atomic(run.file("manifest.json"), "{}");
    write_file_atomic(run.file("loss.csv"), "step,loss\n");
    run.commit();
    CHECK(run.committed());
  }
  CHECK(folder_entries(folder.path()) == Names{"local"});
  CHECK(folder_entries(final_path) == Names{"loss.csv", "manifest.json"});
  CHECK(read_file(final_path / "manifest.json") == "{}");
}

TEST_CASE("a run folder dropped without commit leaves no trace") {
  TempFolder folder;
  {
    RunFolder run(folder / "local", false);
    write_file_atomic(run.file("U.npy"), "partial");
    std::filesystem::create_directory(run.file("nested"));
    write_file_atomic(run.file("nested") / "more", "data");
  }
  CHECK(folder_entries(folder.path()).empty());
}

TEST_CASE("an exception during the run leaves no trace") {
  TempFolder folder;
  const auto run_that_fails = [&] {
    RunFolder run(folder / "local", false);
    write_file_atomic(run.file("U.npy"), "partial");
    throw std::runtime_error("training diverged");
  };
  CHECK_THROWS_AS(run_that_fails(), std::runtime_error);
  CHECK(folder_entries(folder.path()).empty());
}

TEST_CASE("an existing folder without force is refused and left untouched") {
  TempFolder folder;
  const auto final_path = folder / "local";
  std::filesystem::create_directory(final_path);
  write_file_atomic(final_path / "old.txt", "old run");
  CHECK(io_error_message([&] { RunFolder run(final_path, false); }) ==
        final_path.string() +
            " already exists; pass --force to overwrite it or --out to choose another folder");
  CHECK(folder_entries(folder.path()) == Names{"local"});
  CHECK(folder_entries(final_path) == Names{"old.txt"});
}

TEST_CASE("a folder that appears during the run is not overwritten without force") {
  TempFolder folder;
  const auto final_path = folder / "local";
  RunFolder run(final_path, false);
  write_file_atomic(run.file("new.txt"), "new run");
  std::filesystem::create_directory(final_path);  // e.g. another run with the same --out
  write_file_atomic(final_path / "other.txt", "other run");
  CHECK(contains(io_error_message([&] { run.commit(); }), "already exists"));
  CHECK(folder_entries(final_path) == Names{"other.txt"});
}

TEST_CASE("with force an existing folder is replaced whole") {
  TempFolder folder;
  const auto final_path = folder / "local";
  std::filesystem::create_directory(final_path);
  write_file_atomic(final_path / "old.txt", "old run");
  {
    RunFolder run(final_path, true);
    CHECK(folder_entries(final_path) == Names{"old.txt"});  // the old run stays until commit
    write_file_atomic(run.file("new.txt"), "new run");
    run.commit();
  }
  CHECK(folder_entries(folder.path()) == Names{"local"});  // no staging or old folder left
  CHECK(folder_entries(final_path) == Names{"new.txt"});
}

TEST_CASE("with force but without commit the old folder survives") {
  TempFolder folder;
  const auto final_path = folder / "local";
  std::filesystem::create_directory(final_path);
  write_file_atomic(final_path / "old.txt", "old run");
  {
    RunFolder run(final_path, true);
    write_file_atomic(run.file("new.txt"), "new run");
  }
  CHECK(folder_entries(folder.path()) == Names{"local"});
  CHECK(folder_entries(final_path) == Names{"old.txt"});
}

TEST_CASE("force does not replace a file that is not a folder") {
  TempFolder folder;
  const auto final_path = folder / "local";
  write_file_atomic(final_path, "not a run");
  CHECK(contains(io_error_message([&] { RunFolder run(final_path, true); }),
                 final_path.string() + " exists and is not a folder"));
  CHECK(read_file(final_path) == "not a run");
}

TEST_CASE("missing parent folders are created") {
  TempFolder folder;
  const auto final_path = folder / "results" / "sweep" / "local";
  RunFolder run(final_path, false);
  run.commit();
  CHECK(std::filesystem::is_directory(final_path));
}

TEST_CASE("a trailing slash names the same folder") {
  TempFolder folder;
  RunFolder run(folder.path() / "local" / "", false);
  CHECK(run.final_path() == folder / "local");
  run.commit();
  CHECK(folder_entries(folder.path()) == Names{"local"});
}

TEST_CASE("an unwritable location fails at once with the folder it could not create") {
  // As root a read-only folder is still writable; a parent that is a regular file fails for all.
  TempFolder folder;
  write_file_atomic(folder / "results", "a file where a folder should be");
  const auto final_path = folder / "results" / "local";
  const std::string message = io_error_message([&] { RunFolder run(final_path, false); });
  CHECK(contains(message, "cannot create " + (folder / "results").string() + ": "));
  CHECK(folder_entries(folder.path()) == Names{"results"});
}

TEST_CASE("'.' and '..' are not run folders") {
  CHECK(contains(io_error_message([] { RunFolder run(".", true); }), "as a run folder"));
  CHECK(contains(io_error_message([] { RunFolder run("results/..", true); }), "as a run folder"));
}

TEST_CASE("two run folders for the same path stage separately") {
  TempFolder folder;
  RunFolder first(folder / "local", false);
  RunFolder second(folder / "local", false);
  CHECK(first.staging() != second.staging());
  first.commit();
  CHECK(contains(io_error_message([&] { second.commit(); }), "already exists"));
}

TEST_CASE("commit twice is a programming error") {
  TempFolder folder;
  RunFolder run(folder / "local", false);
  run.commit();
  CHECK_THROWS_AS(run.commit(), std::logic_error);
}

}  // namespace
}  // namespace ufl::io
