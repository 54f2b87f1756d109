#pragma once
// The benchmarks' command lines, "--key value" pairs: each pair goes to set(key, value), which
// returns false for a key it does not know. A key without a value, an unknown key and a value
// that std::stoi/stod refuse go to usage(problem), which prints and exits with code 2; with
// `with_help`, so do -h and --help.
#include <stdexcept>
#include <string>

namespace ufl::bench {

template <class Set, class Usage>
void read_options(int argc, char** argv, bool with_help, Set set, Usage usage) {
  for (int k = 1; k < argc; ++k) {
    const std::string key = argv[k];
    if (with_help && (key == "-h" || key == "--help")) usage("help");
    if (k + 1 >= argc) usage("missing value after " + key);
    const std::string value = argv[++k];
    try {
      if (!set(key, value)) usage("unknown option " + key);
    } catch (const std::logic_error&) {
      usage("bad value '" + value + "' for " + key);
    }
  }
}

}  // namespace ufl::bench
