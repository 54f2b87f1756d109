#pragma once
// Ctrl-C and SIGTERM for one command. The first signal sets the stop request
// (io/stop_request.hpp), which training, evaluation, analysis and data generation check
// often enough to stop within a fraction of a second; a second signal ends the process at once.
// A watchdog thread keeps the promise of stopping within a second where no check can be made
// (inside a long Eigen decomposition at large n, reading a large file): if the command has not
// reached a stop point (interrupt::acknowledge_stop) by `grace` after the first signal, the
// watchdog runs the command's emergency action (remove what must not stay, say what was kept)
// and ends the process with exit code 130.
#include <chrono>
#include <functional>
#include <mutex>
#include <thread>

namespace ufl::cli {

class StopSignals {
 public:
  explicit StopSignals(std::chrono::milliseconds grace = std::chrono::milliseconds(800));
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  // Restores the default handlers and stops the watchdog.
  ~StopSignals();

  // What the watchdog does before ending the process (replaces the previous action). It runs on
  // the watchdog's thread while the command's thread is still running: keep it short and safe.
  void on_emergency(std::function<void()> action);

 private:
  void watch();

  std::chrono::milliseconds grace_;
  std::mutex mutex_;
  std::function<void()> emergency_;
  bool quitting_ = false;
  std::thread watchdog_;
};

}  // namespace ufl::cli
