// The registry of dataset kinds: one line per kind.
#include "data/registry.hpp"

#include <stdexcept>

namespace ufl::data {

const std::vector<DatasetKind>& dataset_kinds() {
  static const std::vector<DatasetKind> kinds = {
      local_kind(), global_kind(), periodic_kind(), lowrank_kind(),   induction_kind(),
      text_kind(),  mqar_kind(),   copy_kind(),     copy_text_kind(), hadamard_kind(),
      haar_kind(),  dct_kind(),    butterfly_kind()};
  return kinds;
}

const DatasetKind* find_dataset_kind(const std::string& name) {
  for (const DatasetKind& kind : dataset_kinds())
    if (kind.name == name) return &kind;
  return nullptr;
}

std::string dataset_kind_names() {
  std::string names;
  for (const DatasetKind& kind : dataset_kinds()) names += (names.empty() ? "" : ", ") + kind.name;
  return names;
}

const DatasetKind& dataset_kind(const std::string& name) {
  if (const DatasetKind* kind = find_dataset_kind(name)) return *kind;
  throw std::invalid_argument("dataset.kind: unknown kind \"" + name + "\" (expected one of " +
                              dataset_kind_names() + ")");
}

TokenDataset generate_tokens(const DatasetConfig& spec, std::uint64_t seed) {
  const DatasetKind& kind = dataset_kind(spec.kind);
  if (!kind.tokens)
    throw std::logic_error("dataset.kind \"" + spec.kind + "\" holds float samples, not tokens");
  if (const BrokenRule broken = kind.check(spec))
    throw std::invalid_argument(broken.key + ": must be " + broken.rule);
  return kind.tokens(spec, seed);
}

}  // namespace ufl::data
