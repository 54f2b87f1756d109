#include "cli/thread_request.hpp"

#include <omp.h>

#include <cctype>
#include <cstdlib>
#include <string>

#include "io/log.hpp"

namespace ufl::cli {
namespace {

// OMP_NUM_THREADS as OpenMP reads it: a positive integer, or a list of them ("4,2": the first is
// this level's count), with spaces around. Anything else ("", "abc", "0") OpenMP ignores after a
// warning of its own, and uses every core.
bool usable_count(const std::string& text) {
  std::size_t at = text.find_first_not_of(" \t");
  if (at == std::string::npos || !std::isdigit(static_cast<unsigned char>(text[at]))) return false;
  const std::size_t end = text.find_first_not_of("0123456789", at);
  const std::string digits = text.substr(at, end - at);
  if (digits.find_first_not_of('0') == std::string::npos) return false;  // 0 threads
  const std::string rest = end == std::string::npos ? "" : text.substr(end);
  const std::size_t next = rest.find_first_not_of(" \t");
  return next == std::string::npos || rest[next] == ',';
}

// OMP_NUM_THREADS, when it is set to something OpenMP cannot use.
const char* unusable_variable() {
  const char* value = std::getenv("OMP_NUM_THREADS");
  return value != nullptr && !usable_count(value) ? value : nullptr;
}

}  // namespace

void set_threads(int requested) {
  const bool given = requested > 0;
  if (const char* value = unusable_variable(); value != nullptr && !given)
    spdlog::warn(
        "OMP_NUM_THREADS=\"{}\" is not a number of threads (a positive integer), so it is "
        "ignored, as OpenMP does; set it to a count such as 2, unset it, or pass --threads N",
        value);
  const int cores = omp_get_num_procs();
  const int wanted = given ? requested : omp_get_max_threads();
  if (wanted > cores) {
    spdlog::warn("{} {}: this machine has {} core{} for this process; using {}",
                 given ? "--threads" : "OMP_NUM_THREADS", wanted, cores, cores == 1 ? "" : "s",
                 cores);
    omp_set_num_threads(cores);
  } else if (given) {
    omp_set_num_threads(requested);
  }
}

bool threads_fixed(int requested) {
  return requested > 0 ||
         (std::getenv("OMP_NUM_THREADS") != nullptr && unusable_variable() == nullptr);
}

}  // namespace ufl::cli
