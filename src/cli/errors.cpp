#include "cli/errors.hpp"

#include <spdlog/spdlog.h>

#include <iostream>
#include <new>
#include <stdexcept>

#include "cli/exit_codes.hpp"
#include "config/load.hpp"
#include "interrupt/stop_request.hpp"
#include "io/io_error.hpp"
#include "train/trainer.hpp"

namespace ufl::cli {

int report_errors(const std::function<int()>& command) {
  auto fail = [](const std::exception& error, int code) {
    std::cerr << "ufl: error: " << error.what() << "\n";
    return code;
  };
  try {
    return command();
  } catch (const config::ConfigError& error) {
    return fail(error, kBadInput);
  } catch (const BadInput& error) {
    return fail(error, kBadInput);
  } catch (const std::invalid_argument& error) {
    return fail(error, kBadInput);
  } catch (const train::Diverged& error) {
    return fail(error, kDiverged);
  } catch (const interrupt::Interrupted& error) {
    // Unwinding has removed whatever was half-written (staging folders).
    std::cerr << "ufl: " << error.what() << " (Ctrl-C or SIGTERM); nothing was written\n";
    return int(kInterrupted);
  } catch (const io::IoError& error) {
    return fail(error, kFailure);
  } catch (const std::bad_alloc&) {
    // The memory estimate lets ufl train refuse most runs that cannot fit before they start;
    // this is what slips through (other processes taking memory meanwhile).
    std::cerr << "ufl: error: out of memory; 'ufl config CONFIG' shows what the run needs\n";
    return int(kFailure);
  } catch (const std::exception& error) {
    return fail(error, kFailure);
  }
}

}  // namespace ufl::cli
