#include "model/block.hpp"

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

}  // namespace

const std::vector<BlockKind>& block_kinds() {
  static const std::vector<BlockKind> table = {
      {"mixer",
       "H_l = ρ·H_{l−1} + M(H_{l−1})·H_{l−1}·W_v: one mixer, no norm, no MLP (Section 8, "
       "section 7)",
       false},
      {"transformer",
       "pre-norm: h = x + W_o·[heads of M(norm(x))·norm(x)·W_v,k], then h + MLP(norm(h))", true},
  };
  return table;
}
const BlockKind* find_block_kind(const std::string& name) { return find_in(block_kinds(), name); }
const BlockKind& block_kind(const std::string& name) {
  if (const BlockKind* kind = find_block_kind(name)) return *kind;
  throw std::invalid_argument("unknown model.block '" + name + "'; one of " + block_kind_names());
}
std::string block_kind_names() { return names_of(block_kinds()); }

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
