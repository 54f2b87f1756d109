// ufl generate: config → dataset folder of .npy files with a JSON sidecar.
#include "cli/commands.hpp"
#include "cli/errors.hpp"
#include "cli/exit_codes.hpp"
#include "cli/run_guard.hpp"
#include "cli/stop_signals.hpp"
#include "config/load.hpp"
#include "data/dataset_files.hpp"
#include "io/available_memory.hpp"
#include "io/io_error.hpp"
#include "io/log.hpp"
#include "io/run_folder.hpp"

namespace ufl::cli {
namespace {

// The samples in memory as float (inputs and targets, partners), with a margin for Γ and M_fix.
void check_memory(const data::DatasetConfig& spec) {
  const double samples = double(spec.train_size) + spec.test_size;
  const double bytes = samples * spec.n * spec.d * 2 * sizeof(float) + samples * spec.n * 4 +
                       4.0 * spec.n * spec.n * sizeof(double) + 40e6;
  const io::AvailableMemory memory = io::available_memory();
  if (memory.usable() >= 0 && bytes > memory.usable())
    throw BadInput("this dataset needs about " + io::format_bytes(bytes) +
                   " of memory ((dataset.train_size = " + std::to_string(spec.train_size) +
                   " + dataset.test_size = " + std::to_string(spec.test_size) + ") × dataset.n = " +
                   std::to_string(spec.n) + " × dataset.d = " + std::to_string(spec.d) +
                   " × 2 arrays); more than the " + memory.describe() +
                   " available; lower dataset.train_size, dataset.test_size, dataset.n or "
                   "dataset.d");
}

}  // namespace

int run_generate(const GenerateArguments& arguments) {
  return report_errors([&] {
    StopSignals signals;
    const config::Config config = config::load_config(arguments.config_path, arguments.overrides);
    const std::filesystem::path out =
        arguments.out.empty() ? std::filesystem::path("datasets") /
                                    (config.name + "-seed" + std::to_string(config.dataset_seed))
                              : std::filesystem::path(arguments.out);
    check_memory(config.dataset);
    const RunGuard guard(out);
    guard.remove_stale();
    std::unique_ptr<io::RunFolder> folder;
    try {
      folder = std::make_unique<io::RunFolder>(out, arguments.force);
    } catch (const io::IoError& error) {
      throw BadInput(error.what());
    }
    // Stopped where no check can be made: the half-written folder goes.
    const std::filesystem::path staging = folder->staging();
    signals.on_emergency([staging] {
      std::error_code ignored;
      std::filesystem::remove_all(staging, ignored);
      std::fprintf(stderr, "ufl: data generation interrupted; nothing was written\n");
    });
    const data::Dataset dataset = data::generate(config.dataset, config.dataset_seed);
    data::save_dataset(folder->staging(), dataset, config::to_json(config)["dataset"]);
    folder->commit();
    spdlog::info("wrote {} ({} train and {} test samples of {}×{}, kind {})", out.string(),
                 dataset.train.count, dataset.test.count, config.dataset.n, config.dataset.d,
                 config.dataset.kind);
    return int(kSuccess);
  });
}

}  // namespace ufl::cli
