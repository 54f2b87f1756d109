#include "data/dataset_files.hpp"

#include "data/registry.hpp"
#include "interrupt/stop_request.hpp"
#include "io/atomic_file.hpp"
#include "io/npy.hpp"
#include "ufl/version.hpp"

namespace ufl::data {
namespace {

void save_set(const std::filesystem::path& folder, const std::string& prefix,
              const SampleSet& set) {
  const std::vector<std::size_t> shape = {std::size_t(set.count), std::size_t(set.n),
                                          std::size_t(set.d)};
  // A stop request (Ctrl-C) is honoured between files; the caller removes the folder.
  interrupt::throw_if_stop_requested("saving the dataset");
  io::write_npy(folder / (prefix + "_inputs.npy"), set.inputs.data(), shape);
  interrupt::throw_if_stop_requested("saving the dataset");
  io::write_npy(folder / (prefix + "_targets.npy"), set.targets.data(), shape);
  if (!set.partners.empty())
    io::write_npy(folder / (prefix + "_partners.npy"), set.partners.data(),
                  {std::size_t(set.count), std::size_t(set.n)});
}

SampleSet load_set(const std::filesystem::path& folder, const std::string& prefix, int count, int n,
                   int d, bool has_partners) {
  SampleSet set;
  set.count = count, set.n = n, set.d = d;
  const std::vector<std::size_t> shape = {std::size_t(count), std::size_t(n), std::size_t(d)};
  for (auto [name, target] :
       {std::pair{"_inputs.npy", &set.inputs}, {"_targets.npy", &set.targets}}) {
    const auto values = io::read_npy_values(folder / (prefix + name), shape);
    target->assign(values.begin(), values.end());
  }
  if (has_partners) {
    const auto values = io::read_npy_values(folder / (prefix + "_partners.npy"),
                                            {std::size_t(count), std::size_t(n)});
    set.partners.assign(values.begin(), values.end());
  }
  return set;
}

}  // namespace

nlohmann::json dataset_sidecar(const Dataset& dataset, const nlohmann::json& settings) {
  return {{"dataset", settings}, {"seed", dataset.seed}, {"ufl_version", kVersion}};
}

void save_dataset(const std::filesystem::path& folder, const Dataset& dataset,
                  const nlohmann::json& settings) {
  save_set(folder, "train", dataset.train);
  save_set(folder, "test", dataset.test);
  io::write_npy(folder / "covariance.npy", dataset.covariance);
  io::write_npy(folder / "fixed_operator.npy", dataset.fixed_operator);
  io::write_file_atomic(folder / "dataset.json", dataset_sidecar(dataset, settings).dump(2) + "\n");
}

Dataset load_dataset(const std::filesystem::path& folder, const DatasetConfig& spec,
                     std::uint64_t seed, const nlohmann::json& settings) {
  const auto sidecar_path = folder / "dataset.json";
  const nlohmann::json sidecar = nlohmann::json::parse(io::read_file(sidecar_path), nullptr, false);
  if (sidecar.is_discarded() || !sidecar.contains("dataset") || !sidecar.contains("seed"))
    throw std::invalid_argument(sidecar_path.string() +
                                " is not a dataset sidecar written by 'ufl generate'");
  // Γ, M_fix and the lowrank basis come from the seed's structure stream, not from the samples,
  // so a one-sample generation gives them exactly.
  DatasetConfig structure_only = spec;
  structure_only.train_size = structure_only.test_size = 1;
  Dataset dataset = generate(structure_only, seed);
  dataset.spec = spec;
  const nlohmann::json expected = dataset_sidecar(dataset, settings);
  for (auto& [key, value] : expected["dataset"].items())
    if (sidecar["dataset"].value(key, nlohmann::json()) != value)
      throw std::invalid_argument(folder.string() + " was generated with dataset." + key + " = " +
                                  sidecar["dataset"].value(key, nlohmann::json()).dump() +
                                  " but the config says " + value.dump() +
                                  "; use the same config or regenerate it");
  if (sidecar["seed"] != expected["seed"])
    throw std::invalid_argument(folder.string() + " was generated with seed " +
                                sidecar["seed"].dump() + " but the run uses seed " +
                                expected["seed"].dump());
  const bool partners = dataset.kind->has_partners;
  dataset.train = load_set(folder, "train", spec.train_size, spec.n, spec.d, partners);
  dataset.test = load_set(folder, "test", spec.test_size, spec.n, spec.d, partners);
  return dataset;
}

}  // namespace ufl::data
