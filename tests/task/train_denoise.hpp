#pragma once
// The denoise task trained on `dataset` (train on dataset.train, evaluate on dataset.test)
// through a DenoiseSession: what `ufl train` does for it, without the run folder.
#include "task/denoise_session.hpp"
#include "train/trainer.hpp"

namespace ufl::testing {

inline train::TrainResult train_denoise(const train::TrainConfig& settings, std::uint64_t seed,
                                        const data::Dataset& dataset, model::Model<float>& model,
                                        const train::TrainOptions& options) {
  task::DenoiseSession session(dataset, model, settings.batch_size, settings.ortho_weight);
  return train::train_session(settings, seed, session, model, options);
}

}  // namespace ufl::testing
