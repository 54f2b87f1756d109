// Rejects dataset specs that cannot be generated, with one line that names the config key.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "data/kinds.hpp"

namespace ufl::data {
namespace {

void require(bool holds, const std::string& key, const std::string& what) {
  if (!holds) throw std::invalid_argument("dataset." + key + ": " + what);
}

void validate_local(const DatasetConfig& spec) {
  require(spec.kernel_width >= 1, "kernel_width",
          "must be at least 1, got " + std::to_string(spec.kernel_width));
}

void validate_global(const DatasetConfig& spec) {
  require(
      spec.n % 2 == 0, "n",
      "must be even for kind \"global\" (positions come in pairs), got " + std::to_string(spec.n));
}

void validate_periodic(const DatasetConfig& spec) {
  require(!spec.freqs.empty(), "freqs", "must list at least one frequency");
  for (const int frequency : spec.freqs) {
    // f ≥ n/2 would alias onto n − f or, at f = n/2, lose its sine: Γ would not have rank 2K.
    require(frequency >= 1 && 2LL * frequency < spec.n, "freqs",
            "each frequency f must satisfy 1 <= f < n/2 (n = " + std::to_string(spec.n) +
                "), got " + std::to_string(frequency));
  }
  std::vector<int> sorted = spec.freqs;
  std::sort(sorted.begin(), sorted.end());
  const auto duplicate = std::adjacent_find(sorted.begin(), sorted.end());
  require(duplicate == sorted.end(), "freqs",
          "frequencies must be distinct, " +
              (duplicate == sorted.end() ? std::string() : std::to_string(*duplicate)) +
              " appears twice");
  require(std::isfinite(spec.amplitude_decay) && spec.amplitude_decay > 0.0, "amplitude_decay",
          "must be a finite number > 0, got " + std::to_string(spec.amplitude_decay));
}

void validate_lowrank(const DatasetConfig& spec) {
  require(spec.rank >= 1 && spec.rank <= spec.n, "rank",
          "must satisfy 1 <= rank <= n (n = " + std::to_string(spec.n) + "), got " +
              std::to_string(spec.rank));
  require(std::isfinite(spec.singular_value_decay) && spec.singular_value_decay > 0.0,
          "singular_value_decay",
          "must be a finite number > 0, got " + std::to_string(spec.singular_value_decay));
}

}  // namespace

void validate(const DatasetConfig& spec) {
  require(spec.n >= 2, "n", "must be at least 2, got " + std::to_string(spec.n));
  require(spec.d >= 1, "d", "must be at least 1, got " + std::to_string(spec.d));
  require(std::isfinite(spec.noise) && spec.noise >= 0.0, "noise",
          "must be a finite number >= 0, got " + std::to_string(spec.noise));
  require(spec.train_size >= 1, "train_size",
          "must be at least 1, got " + std::to_string(spec.train_size));
  require(spec.test_size >= 1, "test_size",
          "must be at least 1, got " + std::to_string(spec.test_size));

  if (spec.kind == "local") {
    validate_local(spec);
  } else if (spec.kind == "global") {
    validate_global(spec);
  } else if (spec.kind == "periodic") {
    validate_periodic(spec);
  } else if (spec.kind == "lowrank") {
    validate_lowrank(spec);
  } else {
    require(false, "kind",
            "unknown kind \"" + spec.kind + "\" (expected local, global, periodic or lowrank)");
  }
}

}  // namespace ufl::data
