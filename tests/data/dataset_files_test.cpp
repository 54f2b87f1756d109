// Datasets on disk: save_dataset and load_dataset round-trip exactly, and load_dataset refuses
// values that training cannot use with the file, sample, row and channel of the first one.
#include "data/dataset_files.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "../io/io_test_support.hpp"
#include "data/registry.hpp"
#include "io/atomic_file.hpp"
#include "io/npy.hpp"
#include "statistics.hpp"

namespace ufl::data {
namespace {

using test_support::spec_of;

nlohmann::json settings_of(const DatasetConfig& spec) {
  return {{"kind", spec.kind},
          {"n", spec.n},
          {"d", spec.d},
          {"noise", spec.noise},
          {"train_size", spec.train_size},
          {"test_size", spec.test_size},
          {"seed", 5}};
}

// A small global dataset saved in `folder` with seed 5.
DatasetConfig save_global(const std::filesystem::path& folder) {
  DatasetConfig spec = spec_of("global", 6, 4);
  spec.n = 8;
  spec.d = 3;
  save_dataset(folder, generate(spec, 5), settings_of(spec));
  return spec;
}

std::string refusal(const std::filesystem::path& folder, const DatasetConfig& spec,
                    std::uint64_t seed = 5) {
  try {
    load_dataset(folder, spec, seed, settings_of(spec));
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

void write_floats(const std::filesystem::path& file, std::vector<double> values,
                  const std::vector<std::size_t>& shape) {
  io::write_npy(file, values.data(), shape);  // float64 on purpose: the loader reads it as float32
}

}  // namespace

TEST_CASE("load_dataset gives back exactly what save_dataset wrote") {
  io::testing::TempFolder folder;
  const DatasetConfig spec = save_global(folder.path());
  const Dataset saved = generate(spec, 5);
  const Dataset loaded = load_dataset(folder.path(), spec, 5, settings_of(spec));
  CHECK(loaded.train.inputs == saved.train.inputs);
  CHECK(loaded.test.targets == saved.test.targets);
  CHECK(loaded.test.partners == saved.test.partners);
  CHECK(dataset_folder_seed(folder.path()) == 5);
  // The sidecar keeps the data's seed once, at its top.
  const auto sidecar = nlohmann::json::parse(io::read_file(folder / "dataset.json"));
  CHECK(sidecar["seed"] == 5);
  CHECK_FALSE(sidecar["dataset"].contains("seed"));
  CHECK(io::read_npy(folder / "test_partners.npy").descr == "<i4");
}

TEST_CASE("the first value that is not finite is named by file, sample, row and channel") {
  io::testing::TempFolder folder;
  const DatasetConfig spec = save_global(folder.path());
  std::vector<double> values(6 * 8 * 3, 0.5);
  values[4 * 24 + 6 * 3 + 1] = std::numeric_limits<double>::quiet_NaN();
  values[5 * 24] = std::numeric_limits<double>::infinity();
  write_floats(folder / "train_targets.npy", values, {6, 8, 3});
  CHECK(refusal(folder.path(), spec) ==
        (folder / "train_targets.npy").string() +
            ": sample 4, row 6, channel 1 is NaN (the first value that is not finite); the data "
            "must be finite numbers: fix the file or regenerate the folder with 'ufl generate'");
  // A float64 value beyond float32's range would become inf in training.
  values.assign(values.size(), 0.5);
  values[7] = 1e39;
  write_floats(folder / "train_targets.npy", values, {6, 8, 3});
  CHECK(refusal(folder.path(), spec)
            .find("sample 0, row 2, channel 1 is 1e+39 (beyond float32's "
                  "range)") != std::string::npos);
}

TEST_CASE("partners must be positions of the sample that come in pairs") {
  io::testing::TempFolder folder;
  const DatasetConfig spec = save_global(folder.path());
  const std::vector<double> pairs = {1, 0, 3, 2, 5, 4, 7, 6};
  auto write_partners = [&](std::vector<double> sample) {
    std::vector<double> all;
    for (int s = 0; s < 4; ++s)
      all.insert(all.end(), s == 3 ? sample.begin() : pairs.begin(),
                 s == 3 ? sample.end() : pairs.end());
    io::write_npy(folder / "test_partners.npy", all.data(), {4, 8});
  };
  write_partners({1, 0, 3, 2, 5, 4, 7, 6});
  CHECK(refusal(folder.path(), spec).empty());
  write_partners({1, 0, 3, 2, 5, 4, 7, 8});
  CHECK(refusal(folder.path(), spec)
            .find("test_partners.npy: sample 3, position 7 has partner 8, "
                  "not a position 0..7") != std::string::npos);
  write_partners({1, 0, 3, 2, 5, 4, 7, 6.5});
  CHECK(refusal(folder.path(), spec).find("position 7 has partner 6.5") != std::string::npos);
  write_partners({1, 0, 2, 2, 5, 4, 7, 6});
  CHECK(refusal(folder.path(), spec).find("sample 3, position 2 is its own partner") !=
        std::string::npos);
  write_partners({1, 0, 3, 2, 5, 4, 7, 1});
  // Position 6 is the first whose partner (7) points elsewhere.
  CHECK(refusal(folder.path(), spec)
            .find("sample 3, position 6 has partner 7, whose partner is 1: "
                  "partners must come in pairs") != std::string::npos);
}

TEST_CASE("a folder of other settings or another seed is refused, naming the difference") {
  io::testing::TempFolder folder;
  DatasetConfig spec = save_global(folder.path());
  CHECK(refusal(folder.path(), spec, 6)
            .find("generated with seed 5 but the run's dataset.seed is "
                  "6") != std::string::npos);
  spec.noise = 0.1;
  CHECK(refusal(folder.path(), spec).find("generated with dataset.noise = 0.5") !=
        std::string::npos);
}

}  // namespace ufl::data
