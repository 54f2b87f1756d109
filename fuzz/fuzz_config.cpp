// libFuzzer target for ufl::config::parse_config: the JSON text of a config plus `--set`
// assignments, as `ufl train CONFIG --set ...` passes them.
//
// Input layout: lines up to the first empty line are `--set` assignments, one per line (without
// the "--set "); everything after that empty line is the config text. An input without an empty
// line is all config text, with no assignments. So
//
//     dataset.noise=0.3
//     train.steps=10
//
//     {"dataset": {"kind": "local"}}
//
// is the config {"dataset": {"kind": "local"}} with two overrides, and an input that starts with
// "\n" is a config without overrides.
//
// Only ufl::config::ConfigError may escape parse_config; any other exception (escaping this
// function, it terminates the process) or a sanitizer report is a bug. On success the Config must
// obey its own rules (check_rules below, written from the spec independently of load.cpp), and
// to_json(config) must parse back to the same JSON.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "config/load.hpp"
#include "fuzz_check.hpp"

namespace {

using ufl::config::Config;

bool finite(double x) { return std::isfinite(x); }

void check_rules(const Config& config) {
  const auto& name = config.name;
  UFL_FUZZ_CHECK(
      !name.empty() && name.find('/') == std::string::npos && name != "." && name != "..",
      "name is a folder name");
  const auto& data = config.dataset;
  UFL_FUZZ_CHECK(data.kind == "local" || data.kind == "global" || data.kind == "periodic" ||
                     data.kind == "lowrank",
                 "dataset.kind is known");
  UFL_FUZZ_CHECK(data.n >= 2, "dataset.n >= 2");
  UFL_FUZZ_CHECK(data.d >= 1, "dataset.d >= 1");
  UFL_FUZZ_CHECK(finite(data.noise) && data.noise >= 0, "dataset.noise >= 0");
  UFL_FUZZ_CHECK(data.train_size >= 1 && data.test_size >= 1, "dataset sizes >= 1");
  if (data.kind == "global") UFL_FUZZ_CHECK(data.n % 2 == 0, "global: n even");
  if (data.kind == "local")
    UFL_FUZZ_CHECK(data.kernel_width >= 1 && data.kernel_width <= data.n,
                   "local: 1 <= kernel_width <= n");
  if (data.kind == "periodic") {
    UFL_FUZZ_CHECK(!data.freqs.empty(), "periodic: freqs non-empty");
    std::set<int> seen;
    for (const int f : data.freqs) {
      UFL_FUZZ_CHECK(f >= 1 && 2LL * f < data.n, "periodic: 1 <= f < n/2");
      UFL_FUZZ_CHECK(seen.insert(f).second, "periodic: freqs distinct");
    }
    UFL_FUZZ_CHECK(finite(data.amplitude_decay) && data.amplitude_decay > 0,
                   "periodic: amplitude_decay > 0");
  }
  if (data.kind == "lowrank") {
    UFL_FUZZ_CHECK(data.rank >= 1 && data.rank <= data.n, "lowrank: 1 <= rank <= n");
    UFL_FUZZ_CHECK(finite(data.singular_value_decay) && data.singular_value_decay > 0,
                   "lowrank: singular_value_decay > 0");
  }
  UFL_FUZZ_CHECK(config.layer.rank >= 1 && config.layer.rank <= data.n,
                 "1 <= layer.rank <= dataset.n");
  UFL_FUZZ_CHECK(finite(config.layer.content_init_scale) && config.layer.content_init_scale >= 0,
                 "layer.content_init_scale >= 0");
  const auto& train = config.train;
  UFL_FUZZ_CHECK(train.steps >= 1 && train.batch_size >= 1 && train.eval_every >= 1,
                 "train counts >= 1");
  UFL_FUZZ_CHECK(finite(train.lr) && train.lr > 0, "train.lr > 0");
  UFL_FUZZ_CHECK(finite(train.lr_final) && train.lr_final >= 0 && train.lr_final <= train.lr,
                 "0 <= train.lr_final <= train.lr");
  UFL_FUZZ_CHECK(finite(train.ortho_weight) && train.ortho_weight >= 0, "train.ortho_weight >= 0");
  const auto& analysis = config.analysis;
  for (const double threshold : {analysis.iota_min, analysis.tau_min, analysis.ell_min,
                                 analysis.phi_min, analysis.alpha_min})
    UFL_FUZZ_CHECK(finite(threshold) && threshold >= 0 && threshold <= 1,
                   "analysis thresholds in [0, 1]");
  UFL_FUZZ_CHECK(finite(analysis.eta_min) && analysis.eta_min > 0, "analysis.eta_min > 0");
}

// Splits the input as described at the top of this file.
void split_input(std::string_view input, std::vector<std::string>& overrides, std::string& text) {
  const std::size_t blank = input.find("\n\n");
  const bool starts_blank = input.starts_with('\n');
  if (!starts_blank && blank == std::string_view::npos) {
    text = std::string(input);
    return;
  }
  const std::size_t header_end = starts_blank ? 0 : blank + 1;  // keeps the last line's '\n'
  std::string_view header = input.substr(0, header_end);
  while (!header.empty()) {
    const std::size_t end = header.find('\n');
    overrides.emplace_back(header.substr(0, end));
    header.remove_prefix(end == std::string_view::npos ? header.size() : end + 1);
  }
  text = std::string(input.substr(header_end + 1));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> overrides;
  std::string text;
  split_input(input, overrides, text);

  Config config;
  try {
    config = ufl::config::parse_config(text, "fuzz", overrides);
  } catch (const ufl::config::ConfigError&) {
    return 0;  // refused with a one-line message: the expected outcome for bad input
  }
  check_rules(config);

  // The resolved config (what a run writes to config.json) must load back to itself.
  const nlohmann::json resolved = ufl::config::to_json(config);
  const std::string written = resolved.dump(2);
  Config reloaded;
  try {
    reloaded = ufl::config::parse_config(written, "fuzz config.json");
  } catch (const ufl::config::ConfigError& error) {
    std::fprintf(stderr, "resolved config:\n%s\nrefused: %s\n", written.c_str(), error.what());
    UFL_FUZZ_CHECK(false, "to_json(config) is refused by parse_config");
  }
  if (ufl::config::to_json(reloaded) != resolved) {
    std::fprintf(stderr, "resolved config:\n%s\nreloaded:\n%s\n", written.c_str(),
                 ufl::config::to_json(reloaded).dump(2).c_str());
    UFL_FUZZ_CHECK(false, "to_json(parse_config(to_json(config))) == to_json(config)");
  }
  return 0;
}
