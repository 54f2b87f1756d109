// ufl collect: finished runs' metrics → one CSV for plotting.
#include <spdlog/spdlog.h>

#include <iostream>

#include "cli/commands.hpp"
#include "cli/errors.hpp"
#include "cli/exit_codes.hpp"
#include "io/atomic_file.hpp"
#include "results/collect.hpp"

namespace ufl::cli {

int run_collect(const CollectArguments& arguments) {
  return report_errors([&] {
    std::vector<std::filesystem::path> paths(arguments.paths.begin(), arguments.paths.end());
    const results::CollectedTable table = results::collect_runs(paths);
    for (const std::string& reason : table.skipped) spdlog::warn("skipped {}", reason);
    if (table.rows.empty())
      throw BadInput("no finished runs (folders with metrics.json) under the given paths");
    const std::string csv = results::to_csv(table);
    if (arguments.out.empty()) {
      std::cout << csv;
    } else {
      io::write_file_atomic(arguments.out, csv);
      spdlog::info("wrote {} runs to {}", table.rows.size(), arguments.out);
    }
    return int(kSuccess);
  });
}

}  // namespace ufl::cli
