#include "train/resource_estimate.hpp"

#include "model/block.hpp"
#include "model/blocks/cost_model.hpp"
#include "model/mixers/registry.hpp"

namespace ufl::train {

ResourceEstimate estimate_resources(const data::DatasetConfig& dataset,
                                    const model::LayerConfig& layer,
                                    const model::ModelConfig& model, const TrainConfig& train,
                                    int threads, bool data_from_files, double kernel_gflops) {
  model::TrainingShape shape{train.batch_size, train.steps, train.eval_every};
  if (kernel_gflops > 0)
    shape.gflops_per_thread = model::cost_model::kStepShareOfKernel * kernel_gflops;
  // Each kind of block counts its own (model/blocks/); an unknown one as the first kind.
  const model::BlockKind* kind = model::find_block_kind(model.block);
  ResourceEstimate estimate = (kind != nullptr ? *kind : *model::block_kinds().front())
                                  .estimate(dataset, layer, model::find_head_mixers<float>(layer),
                                            model, shape, threads, data_from_files);
  estimate.kernel_gflops = kernel_gflops;
  return estimate;
}

}  // namespace ufl::train
