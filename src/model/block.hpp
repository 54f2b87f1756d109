#pragma once
// What one layer of a stack is (model.block) and which norm a transformer block uses
// (model.norm): one record each, so no other file compares their names (docs/transformer.md §1).
#include <string>
#include <vector>

namespace ufl::model {

struct BlockKind {
  std::string name;     // the value of model.block
  std::string summary;  // one line for the docs
  bool has_heads;       // layer.heads may exceed 1; the block is a list of modules (modules/)
};

struct NormKind {
  std::string name;  // the value of model.norm
  bool has_bias;     // layernorm: gain and bias; rmsnorm: gain only
};

const std::vector<BlockKind>& block_kinds();
const BlockKind* find_block_kind(const std::string& name);
const BlockKind& block_kind(const std::string& name);  // throws std::invalid_argument
std::string block_kind_names();

const std::vector<NormKind>& norm_kinds();
const NormKind* find_norm_kind(const std::string& name);
const NormKind& norm_kind(const std::string& name);  // throws std::invalid_argument
std::string norm_kind_names();

}  // namespace ufl::model
