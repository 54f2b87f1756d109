#pragma once
// --data: a dataset folder written by `ufl generate` (float samples), for the runs that read one.
#include <string>

#include "config/config.hpp"

namespace ufl::cli {

// Whether the run's dataset kind can read a --data folder: the kinds of float samples can; the
// token kinds (text, mqar, copy) read or draw their own data when the run starts, as
// `ufl generate` refusing them says.
bool takes_data_folder(const config::Config& config);

// Throws BadInput when `data_dir` is given for a run that cannot read it, rather than recording a
// folder the run never read (a later `ufl analyze` would then look for it).
void check_data_folder(const config::Config& config, const std::string& data_dir);

}  // namespace ufl::cli
