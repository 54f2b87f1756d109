#include "analysis/gate_trajectory.hpp"

#include <limits>

namespace ufl::analysis {
namespace {

// The heads (parts measured as heads, model/block.hpp) whose mixer learns a gate, block by block.
template <class Visit>
void for_each_gated_head(const model::Model<float>& model, Visit visit) {
  for (int l = 0; l < model.depth(); ++l) {
    const std::vector<int> heads = model::part_indices(model, l, model::Measured::kAsHead);
    for (std::size_t k = 0; k < heads.size(); ++k) {
      const model::MixerPart<float>& part = model.blocks[l]->parts[heads[k]];
      if (part.mixer->learned_gate()) visit(l, int(k), part);
    }
  }
}

}  // namespace

bool GateTrajectory::applies(const model::Model<float>& model) {
  bool any = false;
  for_each_gated_head(model, [&](int, int, const model::MixerPart<float>&) { any = true; });
  return any;
}

GateTrajectory::GateTrajectory(const model::Model<float>& model) {
  for_each_gated_head(model, [&](int l, int k, const model::MixerPart<float>&) {
    columns_.push_back("block" + std::to_string(l + 1) + "/head" + std::to_string(k + 1));
  });
}

std::vector<double> GateTrajectory::finish(const model::Model<float>& model) {
  std::vector<double> gammas;
  for_each_gated_head(model, [&](int, int, const model::MixerPart<float>& part) {
    gammas.push_back(part.mixer->gate(model.views(part.mixer_slices))
                         .value_or(std::numeric_limits<double>::quiet_NaN()));
  });
  return gammas;
}

}  // namespace ufl::analysis
