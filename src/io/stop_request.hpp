#pragma once
// The process's stop request (Ctrl-C, SIGTERM): one flag that long computations check, so that a
// run stops within a second at any size. Training checks it at step boundaries and between the
// samples of a step, the products inside a sample check it between column blocks, evaluation,
// analysis and data generation between samples. A computation that sees it returns early with
// partial results; whoever started it must discard them (the trainer keeps the state of the last
// step boundary). docs/running.md describes what each command leaves behind. It lives with the
// program's other dealings with the operating system (io/: files, locks, memory, child processes),
// the one room below every step of the data flow, since every step checks it; its functions keep
// the namespace `interrupt`, which says what they are about.
#include <atomic>
#include <stdexcept>

namespace ufl::interrupt {

namespace detail {
inline std::atomic<bool> stop_flag{false};
inline std::atomic<bool> stopping_flag{false};
}  // namespace detail

// Set by the signal handler (async-signal-safe: a lock-free atomic store).
inline void request_stop() { detail::stop_flag.store(true, std::memory_order_relaxed); }
inline bool stop_requested() { return detail::stop_flag.load(std::memory_order_relaxed); }
// Clears both flags (tests; a command that starts over).
inline void reset() {
  detail::stop_flag.store(false);
  detail::stopping_flag.store(false);
}
inline const std::atomic<bool>* stop_flag() { return &detail::stop_flag; }

// The command has seen the request and is now stopping in order (writing what it keeps). The
// signal watchdog (cli/stop_signals.hpp) leaves such a command alone.
inline void acknowledge_stop() { detail::stopping_flag.store(true); }
inline bool stop_acknowledged() { return detail::stopping_flag.load(); }

// Thrown where a stop request ends a computation that has nothing to keep (data generation,
// analysis); the command exits with 130.
struct Interrupted : std::runtime_error {
  explicit Interrupted(const std::string& what) : std::runtime_error(what) { acknowledge_stop(); }
};

// Throws Interrupted("<what> interrupted") when a stop was requested.
inline void throw_if_stop_requested(const char* what) {
  if (stop_requested()) throw Interrupted(std::string(what) + " interrupted");
}

}  // namespace ufl::interrupt
