// ufl config: the resolved config and what the run would need, without training; or the key
// reference (--describe).
#include <omp.h>

#include <iostream>

#include "cli/commands.hpp"
#include "cli/data_folder.hpp"
#include "cli/errors.hpp"
#include "cli/exit_codes.hpp"
#include "config/describe.hpp"
#include "config/load.hpp"
#include "data/registry.hpp"
#include "io/available_memory.hpp"
#include "tensor/kernel_rate.hpp"
#include "train/resource_estimate.hpp"

namespace ufl::cli {

int run_config(const ConfigArguments& arguments) {
  return report_errors([&] {
    if (arguments.describe) {
      std::cout << (arguments.markdown ? config::describe_keys_markdown()
                                       : config::describe_keys_text());
      return int(kSuccess);
    }
    if (arguments.config_path.empty())
      throw BadInput("ufl config needs a CONFIG file, or --describe for the list of keys");
    const config::Config config = config::load_config(arguments.config_path, arguments.overrides);
    check_data_folder(config, arguments.data_dir);
    // Files that cannot be data (a corpus that is not text) are refused before their sizes make
    // an estimate.
    if (const data::DatasetKind* kind = data::find_dataset_kind(config.dataset.kind);
        kind != nullptr && kind->check_files)
      kind->check_files(config.dataset);
    // The config on standard output (so that `ufl config X > resolved.json` keeps it), the
    // estimate on standard error.
    std::cout << config::to_json(config).dump(2) << "\n";
    const train::ResourceEstimate estimate = train::estimate_resources(
        config.dataset, config.layer, config.model, config.train, omp_get_max_threads(),
        !arguments.data_dir.empty(), measured_kernel_gflops());
    const io::AvailableMemory memory = io::available_memory();
    std::cerr << "memory: about " << estimate.memory_text() << "\n";
    std::cerr << "available: " << memory.describe() << "\n";
    std::cerr << "time: " << estimate.time_text(config.train.steps) << "\n";
    if (memory.usable() >= 0 && estimate.peak_bytes > memory.usable())
      std::cerr << "ufl train would refuse this run: it needs more memory than is available; "
                   "lower "
                << estimate.keys_to_lower() << "\n";
    return int(kSuccess);
  });
}

}  // namespace ufl::cli
