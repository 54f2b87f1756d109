#include "data/dataset_files.hpp"

#include <cmath>
#include <stdexcept>

#include "data/registry.hpp"
#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/npy.hpp"
#include "io/stop_request.hpp"
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

// One line for a value that training cannot use: NaN, ±inf, or a float64 beyond float32's range.
std::string non_finite_text(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+inf" : "-inf";
  return nlohmann::json(value).dump() + " (beyond float32's range)";
}

// The values of `file` as float32, refusing the first that is not finite with its sample, row
// (position) and channel: a NaN in the data would otherwise surface as "training diverged".
// The dtypes a data folder's values may have (docs/data_folders.md): float32 (what `ufl generate`
// writes) or float64 (NumPy's default, rounded to float32 as it is read; beyond float32's range
// refused below). Integers as values are a mistake in the file, not a format, and are refused.
// Partners are positions: any dtype ufl reads, as long as each is a whole number in range
// (paired_partners checks that).
const std::vector<std::string> kValueDtypes = {"<f4", "<f8"};

std::vector<float> finite_samples(const std::filesystem::path& file, int count, int n, int d) {
  const auto values =
      io::read_npy_values(file, {std::size_t(count), std::size_t(n), std::size_t(d)}, kValueDtypes);
  std::vector<float> samples(values.begin(), values.end());
  for (std::size_t e = 0; e < samples.size(); ++e) {
    if (std::isfinite(samples[e])) continue;
    const std::size_t sample_size = std::size_t(n) * d;
    throw std::invalid_argument(
        file.string() + ": sample " + std::to_string(e / sample_size) + ", row " +
        std::to_string(e % sample_size / d) + ", channel " + std::to_string(e % d) + " is " +
        non_finite_text(values[e]) +
        " (the first value that is not finite); the data must be finite numbers: fix the file "
        "or regenerate the folder with 'ufl generate'");
  }
  return samples;
}

// 40 rather than 40.0 for a whole number; NaN and inf by name.
std::string number_text(double value) {
  if (std::isfinite(value) && value == std::floor(value) && std::abs(value) < 1e15)
    return std::to_string(static_cast<long long>(value));
  return std::isfinite(value) ? nlohmann::json(value).dump() : non_finite_text(value);
}

// Partners as a kind with partners draws them: each position's partner is another position of
// the same sample, and partners come in pairs (the optimum averages each token with its partner,
// reading its row: a partner outside 0..n−1 would read outside the sample).
std::vector<std::int32_t> paired_partners(const std::filesystem::path& file, int count, int n) {
  const auto values = io::read_npy_values(file, {std::size_t(count), std::size_t(n)});
  std::vector<std::int32_t> partners(values.size());
  auto refuse = [&](std::size_t e, const std::string& problem) {
    throw std::invalid_argument(file.string() + ": sample " + std::to_string(e / n) +
                                ", position " + std::to_string(e % n) + " " + problem +
                                "; fix the file or regenerate the folder with 'ufl generate'");
  };
  for (std::size_t e = 0; e < values.size(); ++e) {
    const double partner = values[e];
    if (!(partner >= 0 && partner < n && partner == std::floor(partner)))
      refuse(e, "has partner " + number_text(partner) + ", not a position 0.." +
                    std::to_string(n - 1));
    partners[e] = static_cast<std::int32_t>(partner);
  }
  for (std::size_t e = 0; e < partners.size(); ++e) {
    const std::size_t first = e - e % n;  // the sample's first position
    const std::int32_t partner = partners[e];
    if (std::size_t(partner) == e % n) refuse(e, "is its own partner");
    if (std::size_t(partners[first + partner]) != e % n)
      refuse(e, "has partner " + std::to_string(partner) + ", whose partner is " +
                    std::to_string(partners[first + partner]) + ": partners must come in pairs");
  }
  return partners;
}

SampleSet load_set(const std::filesystem::path& folder, const std::string& prefix, int count, int n,
                   int d, bool has_partners) {
  SampleSet set;
  set.count = count, set.n = n, set.d = d;
  set.inputs = finite_samples(folder / (prefix + "_inputs.npy"), count, n, d);
  set.targets = finite_samples(folder / (prefix + "_targets.npy"), count, n, d);
  if (has_partners) set.partners = paired_partners(folder / (prefix + "_partners.npy"), count, n);
  return set;
}

// The sidecar, checked to be one: an object with the "dataset" settings and a "seed".
nlohmann::json read_sidecar(const std::filesystem::path& folder) {
  const auto path = folder / "dataset.json";
  std::error_code error;
  const bool is_folder = std::filesystem::is_directory(folder, error);
  if (error && error != std::errc::no_such_file_or_directory)  // a symlink loop, no permission
    throw std::invalid_argument(folder.string() + ": " + error.message() +
                                "; --data takes a folder written by 'ufl generate'");
  if (!is_folder)
    throw std::invalid_argument(folder.string() +
                                " is not a folder; --data takes a folder written by 'ufl "
                                "generate'");
  if (!std::filesystem::exists(path, error))
    throw std::invalid_argument(folder.string() +
                                " has no dataset.json; --data takes a folder written by 'ufl "
                                "generate'");
  nlohmann::json sidecar;
  try {
    sidecar = nlohmann::json::parse(io::read_file(path), nullptr, false);
  } catch (const io::IoError& error) {
    throw std::invalid_argument(error.what());
  }
  if (!sidecar.is_object() || !sidecar.contains("dataset") || !sidecar["dataset"].is_object() ||
      !sidecar.contains("seed"))
    throw std::invalid_argument(path.string() +
                                " is not a dataset sidecar written by 'ufl generate' (it needs "
                                "the \"dataset\" settings and the \"seed\")");
  return sidecar;
}

}  // namespace

nlohmann::json dataset_sidecar(const Dataset& dataset, const nlohmann::json& settings) {
  nlohmann::json shape = settings;
  shape.erase("seed");  // the data's seed is the sidecar's own "seed"
  return {{"dataset", shape}, {"seed", dataset.seed}, {"ufl_version", kVersion}};
}

void save_dataset(const std::filesystem::path& folder, const Dataset& dataset,
                  const nlohmann::json& settings) {
  save_set(folder, "train", dataset.train);
  save_set(folder, "test", dataset.test);
  io::write_npy(folder / "covariance.npy", dataset.covariance);
  io::write_npy(folder / "fixed_operator.npy", dataset.fixed_operator);
  io::write_file_atomic(folder / "dataset.json", dataset_sidecar(dataset, settings).dump(2) + "\n");
}

nlohmann::json dataset_folder_seed(const std::filesystem::path& folder) {
  return read_sidecar(folder)["seed"];
}

Dataset load_dataset(const std::filesystem::path& folder, const DatasetConfig& spec,
                     std::uint64_t seed, const nlohmann::json& settings) {
  const nlohmann::json sidecar = read_sidecar(folder);
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
                                sidecar["seed"].dump() + " but the run's dataset.seed is " +
                                expected["seed"].dump());
  const bool partners = dataset.kind->has_partners;
  try {
    dataset.train = load_set(folder, "train", spec.train_size, spec.n, spec.d, partners);
    dataset.test = load_set(folder, "test", spec.test_size, spec.n, spec.d, partners);
  } catch (const io::IoError& error) {
    throw std::invalid_argument(error.what());  // a damaged dataset is the user's to replace
  }
  return dataset;
}

}  // namespace ufl::data
