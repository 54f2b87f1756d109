#pragma once
// A tiny character-level run for the token-path tests (docs/transformer.md): a corpus file and
// the flags that train on it in well under a second, without drawing figures.
#include <fstream>
#include <string>

#include "cli_support.hpp"

namespace ufl::testing {

// A small English text, repeated so that both splits hold more than ten windows of n + 1 = 17.
inline std::string write_tiny_corpus(const TemporaryFolder& folder,
                                     const std::string& name = "corpus.txt") {
  const std::string path = folder / name;
  std::ofstream file(path);
  for (int k = 0; k < 40; ++k)
    file << "The quick brown fox jumps over the lazy dog. A stitch in time saves nine.\n";
  return path;
}

inline const std::string kTinyTextRun =
    " --set dataset.n=16 --set model.width=16 --set model.depth=2 --set layer.heads=2"
    " --set train.batch_size=4 --set train.eval_every=10 --set train.warmup_steps=5"
    " --set dataset.val_windows=20 -q";

// No Python for the figures: the tests that do not look at figures skip them.
inline const std::string kNoFigures = "UFL_PYTHON=/nonexistent/python3";

// `ufl ARGUMENTS` started in the background from the source folder, its standard output in
// folder/out, its standard error in folder/err and its exit code in folder/rc once it ends;
// returns its PID ("" if it did not start).
inline std::string start_ufl(const TemporaryFolder& folder, const std::string& arguments,
                             const std::string& environment = "") {
  {
    std::ofstream script(folder / "command.sh");
    script << "cd " << source_dir() << "\necho $$ > " << folder / "pid.tmp"
           << "\nmv " << folder / "pid.tmp"
           << " " << folder / "pid"
           << "\nexec env " << environment << " " << ufl_binary() << " " << arguments << "\n";
  }
  const std::string start = "(sh " + folder / "command.sh" + " > " + folder / "out" + " 2> " +
                            folder / "err" + "; echo $? > " + folder / "rc.tmp" + "; mv " +
                            folder / "rc.tmp" + " " + folder / "rc" + ") &";
  if (std::system(start.c_str()) != 0) return "";
  for (int wait = 0; wait < 30000 && !std::filesystem::exists(folder / "pid"); ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::string pid = read_text(folder / "pid");
  pid.erase(pid.find_last_not_of(" \n") + 1);
  return pid;
}

// The exit code written by start_ufl's process, waiting up to five minutes (a deadline against
// hangs, not a measurement); -1 if none.
inline int wait_for_exit_code(const TemporaryFolder& folder) {
  for (int wait = 0; wait < 30000; ++wait) {
    if (std::filesystem::exists(folder / "rc")) return std::stoi(read_text(folder / "rc"));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

}  // namespace ufl::testing
