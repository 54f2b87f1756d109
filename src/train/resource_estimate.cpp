#include "train/resource_estimate.hpp"

#include "model/block.hpp"
#include "model/mixers/registry.hpp"

namespace ufl::train {

ResourceEstimate estimate_resources(const data::DatasetConfig& dataset,
                                    const model::LayerConfig& layer,
                                    const model::ModelConfig& model, const TrainConfig& train,
                                    int threads, bool data_from_files) {
  // Each kind of block counts its own (model/blocks/); an unknown one as the first kind.
  const model::BlockKind* kind = model::find_block_kind(model.block);
  return (kind != nullptr ? *kind : *model::block_kinds().front())
      .estimate(dataset, layer, model::find_head_mixers<float>(layer), model,
                {train.batch_size, train.steps, train.eval_every}, threads, data_from_files);
}

}  // namespace ufl::train
