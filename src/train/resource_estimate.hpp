#pragma once
// What a run will need, known before it starts (model/resource_estimate.hpp says what and how
// it is used): its kind of block counts it.
#include "data/dataset_config.hpp"
#include "model/model_config.hpp"
#include "model/resource_estimate.hpp"
#include "train/train_config.hpp"

namespace ufl::train {

using model::format_seconds;
using model::MemoryPart;
using model::ResourceEstimate;

// The kind of block counts it (model/blocks/). `threads` as the run will use them;
// `data_from_files` for `--data` (its reading holds one array in double precision for a moment);
// `kernel_gflops` the product kernel's rate on this machine (tensor/kernel_rate.hpp), of which a
// step reaches model::cost_model::kStepShareOfKernel; 0 for the default rate (tests).
ResourceEstimate estimate_resources(const data::DatasetConfig& dataset,
                                    const model::LayerConfig& layer,
                                    const model::ModelConfig& model, const TrainConfig& train,
                                    int threads, bool data_from_files = false,
                                    double kernel_gflops = 0);

}  // namespace ufl::train
