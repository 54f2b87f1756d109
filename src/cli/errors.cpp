#include "cli/errors.hpp"

#include <filesystem>
#include <iostream>
#include <new>
#include <stdexcept>

#include "cli/exit_codes.hpp"
#include "config/load.hpp"
#include "io/io_error.hpp"
#include "io/log.hpp"
#include "io/stop_request.hpp"
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
  } catch (const std::filesystem::filesystem_error& error) {
    // A path the user gave that cannot be a file or folder (a symlink loop, a file where a folder
    // is needed, a name too long) is bad input; anything else (permissions, a failing disk) is not.
    const std::error_code code = error.code();
    const bool path_problem = code == std::errc::too_many_symbolic_link_levels ||
                              code == std::errc::not_a_directory ||
                              code == std::errc::filename_too_long;
    std::cerr << "ufl: error: " << error.path1().string() << ": " << code.message()
              << (path_problem ? "; give another path" : "") << "\n";
    return path_problem ? int(kBadInput) : int(kFailure);
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
