// The double models of the finite-difference gradient tests: their blocks, modules and model,
// compiled with the tests so that `ufl`, which trains in float, does not compile them
// (model/block.hpp, build_blocks).
#include <stdexcept>

#include "model/blocks/mixer_block.hpp"
#include "model/blocks/transformer_build.hpp"
#include "model/model_build.hpp"

namespace ufl::model {

template struct TransformerBlock<double>;
template class Model<double>;

void build_blocks(const BlockKind& kind, Model<double>& model, const HeadMixers<double>& mixers,
                  bool causal) {
  if (&kind == &mixer_block_kind()) return build_mixer_blocks(model, *mixers.front());
  if (&kind == &transformer_block_kind()) return build_transformer_blocks(model, mixers, causal);
  throw std::logic_error("build_blocks: no double build for model.block = " + kind.name());
}

}  // namespace ufl::model
