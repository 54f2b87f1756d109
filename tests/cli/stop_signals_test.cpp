// The signal handling of one command: the first signal sets the stop request; a command that
// does not reach a stop point is ended by the watchdog after running its emergency action; a
// command that acknowledges the request is left to finish in order. Each case runs in a forked
// child, since the watchdog ends its process.
#include "cli/stop_signals.hpp"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "cli/exit_codes.hpp"
#include "io/stop_request.hpp"

using namespace ufl;

namespace {

// Runs `body` in a child process; its exit code (-1 when it did not exit normally).
template <class Body>
int in_child(Body body) {
  const pid_t child = ::fork();
  if (child == 0) {
    body();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Named after the test process (computed once, so that its children name the same file).
const std::filesystem::path& marker() {
  static const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                            ("ufl-stop-signals-test-" + std::to_string(::getpid()));
  return path;
}

}  // namespace

TEST_CASE("a command stuck where it cannot check is ended by the watchdog, after its action") {
  std::filesystem::remove(marker());
  const int code = in_child([] {
    cli::StopSignals signals(std::chrono::milliseconds(50));
    signals.on_emergency([] { std::ofstream(marker()) << "cleaned"; });
    std::raise(SIGTERM);
    if (!interrupt::stop_requested()) ::_exit(10);
    for (;;) ::pause();  // never reaches a stop point
  });
  CHECK(code == int(cli::kInterrupted));
  CHECK(std::filesystem::exists(marker()));
  std::filesystem::remove(marker());
}

TEST_CASE("a command that acknowledges the stop finishes in order, however long it takes") {
  std::filesystem::remove(marker());
  const int code = in_child([] {
    cli::StopSignals signals(std::chrono::milliseconds(50));
    signals.on_emergency([] { std::ofstream(marker()) << "cleaned"; });
    std::raise(SIGINT);
    interrupt::acknowledge_stop();
    ::usleep(300000);  // writing the run folder, well past the grace
    ::_exit(7);
  });
  CHECK(code == 7);
  CHECK_FALSE(std::filesystem::exists(marker()));
}

TEST_CASE("without a signal nothing happens, and the flags start cleared") {
  interrupt::request_stop();
  {
    cli::StopSignals signals(std::chrono::milliseconds(10));
    CHECK_FALSE(interrupt::stop_requested());
  }
  CHECK_FALSE(interrupt::stop_requested());
}
