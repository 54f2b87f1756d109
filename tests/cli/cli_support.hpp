#pragma once
// Runs the built `ufl` binary as a user would, in a fresh temporary folder.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace ufl::testing {

struct CommandResult {
  int exit_code;
  std::string output;  // stdout and stderr
};

inline CommandResult run_command(const std::string& command) {
  CommandResult result{-1, ""};
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer;
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) result.output += buffer.data();
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// The ufl binary the tests run: the one built beside them, or $UFL_TEST_BINARY (another build,
// e.g. an older one, to see which of the tests that use run_ufl it fails).
inline std::string ufl_binary() {
  const char* chosen = std::getenv("UFL_TEST_BINARY");
  return chosen != nullptr && *chosen != '\0' ? chosen : UFL_BINARY;
}

// The source folder whose configs/ and scripts/ those tests use: this one, or $UFL_TEST_SOURCE.
inline std::string source_dir() {
  const char* chosen = std::getenv("UFL_TEST_SOURCE");
  return chosen != nullptr && *chosen != '\0' ? chosen : UFL_SOURCE_DIR;
}

// `ufl ARGS`, run from the source folder so that configs/ resolves.
inline CommandResult run_ufl(const std::string& arguments, const std::string& environment = "") {
  return run_command("cd " + source_dir() + " && " + environment + " " + ufl_binary() + " " +
                     arguments);
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

struct TemporaryFolder {
  std::filesystem::path path;
  TemporaryFolder() {
    path = std::filesystem::temp_directory_path() /
           ("ufl-cli-test-" + std::to_string(getpid()) + "-" + std::to_string(counter()++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TemporaryFolder() { std::filesystem::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
  static int& counter() {
    static int value = 0;
    return value;
  }
};

// Waits (up to five minutes: a deadline against hangs, not a measurement) until a run training
// into `folder` has written its first checkpoint in its staging folder: it is then in the
// training loop, so a signal lands mid-training whatever the machine's speed (a signal during
// data generation would, rightly, leave nothing to resume).
inline bool wait_for_first_checkpoint(const std::filesystem::path& folder) {
  auto training = [&] {
    for (const auto& entry : std::filesystem::directory_iterator(folder))
      if (entry.path().filename().string().rfind(".run.partial", 0) == 0 &&
          std::filesystem::exists(entry.path() / "checkpoint.bin"))
        return true;
    return false;
  };
  for (int wait = 0; wait < 30000; ++wait) {
    if (training()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Waits (up to five minutes: a deadline against hangs) until process `pid` has ended, a zombie
// not yet reaped included; false if it is still running.
inline bool wait_until_ended(const std::string& pid) {
  auto ended = [&] {
    std::ifstream stat("/proc/" + pid + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    const auto name_end = line.rfind(')');
    return name_end != std::string::npos && name_end + 2 < line.size() && line[name_end + 2] == 'Z';
  };
  for (int wait = 0; wait < 30000; ++wait) {
    if (ended()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// `ufl train ARGUMENTS` (whose --out is a folder in `folder` named "run") started in the
// background, its output in folder/log; returns its PID once its first checkpoint is on disk, so
// that a signal lands mid-training; "" if none appeared.
inline std::string train_until_first_checkpoint(const std::filesystem::path& folder,
                                                const std::string& arguments) {
  const std::string start = "cd " + source_dir() + " && (" + ufl_binary() + " train " + arguments +
                            " > " + (folder / "log").string() + " 2>&1 & echo $! > " +
                            (folder / "pid").string() + ")";
  if (std::system(start.c_str()) != 0 || !wait_for_first_checkpoint(folder)) return "";
  std::string pid = read_text(folder / "pid");
  pid.erase(pid.find_last_not_of(" \n") + 1);
  return pid;
}

// The same, then SIGINT, and back once the process has ended (its run folder written).
inline bool interrupt_after_first_checkpoint(const std::filesystem::path& folder,
                                             const std::string& arguments) {
  const std::string pid = train_until_first_checkpoint(folder, arguments);
  return !pid.empty() && run_command("kill -INT " + pid).exit_code == 0 && wait_until_ended(pid);
}

// Small and fast settings for end-to-end runs.
inline const std::string kSmallRun =
    " --set dataset.n=16 --set dataset.d=4 --set dataset.train_size=256 --set dataset.test_size=64"
    " --set train.steps=60 --set train.batch_size=16 --set train.eval_every=20 -q";

}  // namespace ufl::testing
