#include "cli/data_folder.hpp"

#include "cli/errors.hpp"
#include "data/registry.hpp"

namespace ufl::cli {

bool takes_data_folder(const config::Config& config) {
  const data::DatasetKind* kind = data::find_dataset_kind(config.dataset.kind);
  return kind == nullptr || !kind->tokens;
}

void check_data_folder(const config::Config& config, const std::string& data_dir) {
  if (data_dir.empty() || takes_data_folder(config)) return;
  throw BadInput("--data " + data_dir + ": dataset.kind \"" + config.dataset.kind +
                 "\" is token data, read or drawn when the run starts (ufl generate refuses it "
                 "too), so it reads no dataset folder; remove --data");
}

}  // namespace ufl::cli
