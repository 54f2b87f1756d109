#include "analysis/gate_trajectory.hpp"

#include "model/blocks/transformer_block.hpp"

namespace ufl::analysis {
namespace {

const model::HeadsModule<float>& heads_of(const model::Model<float>& model, std::size_t block) {
  return model::transformer_block(model, block).heads();
}

}  // namespace

bool GateTrajectory::applies(const model::Model<float>& model) {
  const auto* first =
      dynamic_cast<const model::TransformerBlock<float>*>(model.blocks.front().get());
  return first != nullptr && first->heads().mixer().learned_gate();
}

GateTrajectory::GateTrajectory(const model::Model<float>& model) {
  for (std::size_t l = 0; l < model.blocks.size(); ++l)
    for (int k = 0; k < heads_of(model, l).heads(); ++k)
      columns_.push_back("block" + std::to_string(l + 1) + "/head" + std::to_string(k + 1));
}

std::vector<double> GateTrajectory::finish(const model::Model<float>& model) {
  std::vector<double> gammas;
  for (std::size_t l = 0; l < model.blocks.size(); ++l) {
    const model::HeadsModule<float>& heads = heads_of(model, l);
    const auto all = model.views(model::transformer_block(model, l).heads_slices());
    for (int k = 0; k < heads.heads(); ++k)
      gammas.push_back(heads.mixer().gate(heads.head_parameters(all, k)).value_or(1.0));
  }
  return gammas;
}

}  // namespace ufl::analysis
