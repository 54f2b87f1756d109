// ufl generate: config → dataset folder of .npy files with a JSON sidecar.
#include <spdlog/spdlog.h>

#include "cli/commands.hpp"
#include "cli/errors.hpp"
#include "cli/exit_codes.hpp"
#include "config/load.hpp"
#include "data/dataset_files.hpp"
#include "io/io_error.hpp"
#include "io/run_folder.hpp"

namespace ufl::cli {

int run_generate(const GenerateArguments& arguments) {
  return report_errors([&] {
    const config::Config config = config::load_config(arguments.config_path, arguments.overrides);
    const std::filesystem::path out =
        arguments.out.empty() ? std::filesystem::path("datasets") /
                                    (config.name + "-seed" + std::to_string(config.dataset_seed))
                              : std::filesystem::path(arguments.out);
    std::unique_ptr<io::RunFolder> folder;
    try {
      folder = std::make_unique<io::RunFolder>(out, arguments.force);
    } catch (const io::IoError& error) {
      throw BadInput(error.what());
    }
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
