#pragma once
// Datasets on disk (`ufl generate`): a folder with train_inputs.npy, train_targets.npy,
// test_inputs.npy, test_targets.npy (float32, count×n×d), train_partners.npy and
// test_partners.npy for global (int32, count×n), covariance.npy and fixed_operator.npy (n×n),
// and dataset.json, the sidecar with the dataset parameters and seed.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "data/dataset.hpp"

namespace ufl::data {

// The sidecar: `settings` (the dataset section of the resolved config), the seed and ufl's version.
nlohmann::json dataset_sidecar(const Dataset& dataset, const nlohmann::json& settings);

// Writes the files into `folder` (which must exist).
void save_dataset(const std::filesystem::path& folder, const Dataset& dataset,
                  const nlohmann::json& settings);

// Reads a folder written by save_dataset. Throws std::invalid_argument when its sidecar does not
// match `settings` (the dataset section of the run's resolved config) and `seed` (training on it
// would not be what the config says), io::IoError when a file is missing or corrupt.
Dataset load_dataset(const std::filesystem::path& folder, const DatasetConfig& spec,
                     std::uint64_t seed, const nlohmann::json& settings);

}  // namespace ufl::data
