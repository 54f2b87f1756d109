// ufl collect: finished runs' metrics → one CSV for plotting.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/errors.hpp"
#include "cli/exit_codes.hpp"
#include "io/atomic_file.hpp"
#include "io/log.hpp"
#include "results/collect.hpp"

namespace ufl::cli {

int run_collect(const CollectArguments& arguments) {
  return report_errors([&] {
    std::vector<std::filesystem::path> paths(arguments.paths.begin(), arguments.paths.end());
    const results::CollectedTable table = results::collect_runs(paths);
    for (const std::string& reason : table.skipped) spdlog::warn("skipped {}", reason);
    const std::string skipped = results::skipped_summary(table);
    if (table.rows.empty())
      throw BadInput("no complete runs under the given paths" +
                     (skipped.empty() ? std::string() : " (" + skipped + ")"));
    const std::string runs =
        std::to_string(table.rows.size()) + " complete run" + (table.rows.size() == 1 ? "" : "s");
    const std::string left_out = skipped.empty() ? "" : "; " + skipped + " (listed above)";
    // The table for the reader: on standard output when the CSV goes to a file, else on
    // standard error, so that `ufl collect results > runs.csv` still writes only the CSV.
    if (arguments.out.empty()) {
      std::cerr << results::to_text_table(table);
      std::cout << results::to_csv(table);
      spdlog::info("collected {}{}", runs, left_out);
    } else {
      io::write_file_atomic(arguments.out, results::to_csv(table));
      std::cout << results::to_text_table(table) << std::flush;
      spdlog::info("wrote {} to {}{}", runs, arguments.out, left_out);
    }
    return int(kSuccess);
  });
}

}  // namespace ufl::cli
