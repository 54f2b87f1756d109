#include "model/block.hpp"

#include <algorithm>
#include <stdexcept>

namespace ufl::model {
namespace {

template <class Record>
const Record* find_in(const std::vector<Record>& table, const std::string& name) {
  for (const Record& record : table)
    if (record.name == name) return &record;
  return nullptr;
}

template <class Record>
std::string names_of(const std::vector<Record>& table) {
  std::string names;
  for (const Record& record : table) names += (names.empty() ? "" : ", ") + record.name;
  return names;
}

// The registry of block kinds: one line per kind, each defined in its file of model/blocks/;
// kinds registered while the program runs (BlockKindRegistration) follow.
std::vector<const BlockKind*>& registered_kinds() {
  static std::vector<const BlockKind*> table = {
      &mixer_block_kind(),        // ρ·H + M(H)·H·W_v: Section 8's layer, section 7's stack
      &transformer_block_kind(),  // pre-norm heads and MLP (docs/transformer.md §1)
  };
  return table;
}

}  // namespace

const std::vector<const BlockKind*>& block_kinds() { return registered_kinds(); }

BlockKindRegistration::BlockKindRegistration(const BlockKind& kind) : kind_(kind) {
  if (find_block_kind(kind.name()) != nullptr)
    throw std::logic_error("BlockKindRegistration: model.block '" + kind.name() +
                           "' is registered already");
  registered_kinds().push_back(&kind);
}
BlockKindRegistration::~BlockKindRegistration() {
  std::vector<const BlockKind*>& kinds = registered_kinds();
  kinds.erase(std::remove(kinds.begin(), kinds.end(), &kind_), kinds.end());
}
const BlockKind* find_block_kind(const std::string& name) {
  for (const BlockKind* kind : block_kinds())
    if (kind->name() == name) return kind;
  return nullptr;
}
const BlockKind& block_kind(const std::string& name) {
  if (const BlockKind* kind = find_block_kind(name)) return *kind;
  throw std::invalid_argument("unknown model.block '" + name + "'; one of " + block_kind_names());
}
std::string block_kind_names() {
  std::string names;
  for (const BlockKind* kind : block_kinds()) names += (names.empty() ? "" : ", ") + kind->name();
  return names;
}

const std::vector<NormKind>& norm_kinds() {
  static const std::vector<NormKind> table = {{"layernorm", true}, {"rmsnorm", false}};
  return table;
}
const NormKind* find_norm_kind(const std::string& name) { return find_in(norm_kinds(), name); }
const NormKind& norm_kind(const std::string& name) {
  if (const NormKind* kind = find_norm_kind(name)) return *kind;
  throw std::invalid_argument("unknown model.norm '" + name + "'; one of " + norm_kind_names());
}
std::string norm_kind_names() { return names_of(norm_kinds()); }

}  // namespace ufl::model
