#pragma once
// Datasets on disk (`ufl generate`): a folder with train_inputs.npy, train_targets.npy,
// test_inputs.npy, test_targets.npy (float32, count×n×d), train_partners.npy and
// test_partners.npy for kinds with partners (int32, count×n), covariance.npy and
// fixed_operator.npy (n×n), and dataset.json, the sidecar with the dataset parameters and the
// data's seed.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "data/dataset.hpp"

namespace ufl::data {

// The sidecar: `settings` (the dataset section of the resolved config, without its "seed"), the
// data's seed and ufl's version.
nlohmann::json dataset_sidecar(const Dataset& dataset, const nlohmann::json& settings);

// Writes the files into `folder` (which must exist).
void save_dataset(const std::filesystem::path& folder, const Dataset& dataset,
                  const nlohmann::json& settings);

// The seed a dataset folder was generated with, from its sidecar. Throws std::invalid_argument
// naming the folder when it has no readable sidecar.
nlohmann::json dataset_folder_seed(const std::filesystem::path& folder);

// Reads a folder written by save_dataset. Everything wrong with it is the user's to fix and
// throws std::invalid_argument with one line naming the file: a sidecar that does not match
// `settings` (the dataset section of the run's resolved config) and `seed` (the data's seed), a
// missing, corrupt or misshapen file, a value that is not finite (the sample, row and channel of
// the first), partners that are not a pairing of the sample's positions.
Dataset load_dataset(const std::filesystem::path& folder, const DatasetConfig& spec,
                     std::uint64_t seed, const nlohmann::json& settings);

}  // namespace ufl::data
