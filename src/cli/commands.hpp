#pragma once
// One function per subcommand; command_line.cpp parses the flags with CLI11 and calls them.
#include <cstdint>
#include <string>
#include <vector>

namespace ufl::cli {

// The whole command line, main's one call (command_line.cpp): the exit code.
int run_command_line(int argc, char** argv);

struct TrainArguments {
  std::string config_path, out, data_dir, resume;
  std::vector<std::string> overrides;  // --set key.path=value, then --seed
  bool force = false, quiet = false;
  bool continue_run = false;  // --continue: skip a complete run, resume an interrupted one
  int threads = 0;
  std::string command_line;
};

struct GenerateArguments {
  std::string config_path, out;
  std::vector<std::string> overrides;
  bool force = false;
  bool quiet = false;
};

struct AnalyzeArguments {
  std::string run_dir, data_dir;
  std::vector<std::string> overrides;
  bool quiet = false;
  std::string command_line;  // recorded in the run's manifest
};

struct ConfigArguments {
  std::string config_path, data_dir;
  std::vector<std::string> overrides;  // --set, then --seed
  bool describe = false, markdown = false;
};

struct SampleArguments {
  std::string run_dir, prompt;
  std::int64_t length = 200;
  bool force = false;  // --force: more than ufl sample's limit of characters
  double temperature = 1.0;
  std::uint64_t seed = 1;
};

struct ShowArguments {
  std::string run_dir;
  bool no_figure = false;  // --no-figure: the terminal summary only
};

struct CollectArguments {
  std::vector<std::string> paths;
  std::string out;
};

int run_train(const TrainArguments& arguments);
int run_generate(const GenerateArguments& arguments);
int run_analyze(const AnalyzeArguments& arguments);
int run_collect(const CollectArguments& arguments);
int run_config(const ConfigArguments& arguments);
int run_sample(const SampleArguments& arguments);
int run_show(const ShowArguments& arguments);

}  // namespace ufl::cli
