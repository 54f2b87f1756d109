#include "cli/stop_signals.hpp"

#include <semaphore.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>

#include "cli/exit_codes.hpp"
#include "io/stop_request.hpp"

namespace ufl::cli {
namespace {

// sem_post is async-signal-safe: the handler wakes the watchdog through it.
sem_t wakeup;

extern "C" void on_stop_signal(int signal_number) {
  if (interrupt::stop_requested()) {  // the second signal: end now, as the user asks
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
    return;
  }
  interrupt::request_stop();
  sem_post(&wakeup);
}

}  // namespace

StopSignals::StopSignals(std::chrono::milliseconds grace) : grace_(grace) {
  interrupt::reset();
  sem_init(&wakeup, 0, 0);
  watchdog_ = std::thread([this] { watch(); });
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

StopSignals::~StopSignals() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quitting_ = true;
  }
  sem_post(&wakeup);
  watchdog_.join();
  sem_destroy(&wakeup);
}

void StopSignals::on_emergency(std::function<void()> action) {
  std::lock_guard<std::mutex> lock(mutex_);
  emergency_ = std::move(action);
}

void StopSignals::watch() {
  while (sem_wait(&wakeup) != 0 && errno == EINTR) {
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (quitting_) return;
  }
  const auto deadline = std::chrono::steady_clock::now() + grace_;
  while (std::chrono::steady_clock::now() < deadline) {
    if (interrupt::stop_acknowledged()) return;  // the command stops in order
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (quitting_) return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (quitting_ || interrupt::stop_acknowledged()) return;
  if (emergency_) emergency_();
  std::fflush(stderr);
  ::_exit(kInterrupted);
}

}  // namespace ufl::cli
