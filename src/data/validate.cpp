// Rejects dataset specs that cannot be generated, with one line that names the config key. The
// config loader checks the same before a run; this guards callers that build a spec themselves.
#include <cmath>
#include <stdexcept>
#include <string>

#include "data/registry.hpp"

namespace ufl::data {
namespace {

void require(bool holds, const std::string& key, const std::string& what) {
  if (!holds) throw std::invalid_argument("dataset." + key + ": " + what);
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
  const DatasetKind& kind = dataset_kind(spec.kind);
  if (const BrokenRule broken = kind.check(spec))
    throw std::invalid_argument(broken.key + ": must be " + broken.rule);
}

}  // namespace ufl::data
