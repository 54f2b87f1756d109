// ufl's command line: CLI11 subcommands that parse flags and call the commands; nothing else.
// In ufl_core rather than in main.cpp, the ufl target's one file, so that its CLI11 code compiles
// alongside the other files instead of alone after them (about 15 s of a 2-core build's wall time).
#include <omp.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "config/load.hpp"
#include "io/log.hpp"
#include "ufl/version.hpp"

namespace {

std::string known_keys_text() {
  std::string text = "Config keys for --set (defaults, rules and meanings: ufl config --describe):";
  for (const std::string& key : ufl::config::known_keys()) text += " " + key;
  return text;
}

// --seed N is the config key `seed` given as text and checked by the key table, so that a value
// out of range is one line naming the range (CLI11 prefixes the flag).
CLI::Validator seed_check() {
  return CLI::Validator([](std::string& text) { return ufl::config::flag_problem("seed", text); },
                        "", "SEED");
}

// The seed rule (docs/seeds.md), the same words in every command's --help.
const char* const kSeedHelp =
    "Seed of the initialisation and the minibatch order (config key 'seed', an integer from 0 "
    "to 2^64-1); the data follow it too unless dataset.seed is given, or --data gives a folder "
    "(its dataset.json's seed). See docs/seeds.md";

// OpenMP threads for the command: --threads, else OMP_NUM_THREADS or all cores, never more than
// the cores this process may run on (more only makes threads wait for each other).
void set_threads(int requested) {
  const int cores = omp_get_num_procs();
  const bool given = requested > 0;
  const int wanted = given ? requested : omp_get_max_threads();
  if (wanted > cores) {
    spdlog::warn("{} {}: this machine has {} core{} for this process; using {}",
                 given ? "--threads" : "OMP_NUM_THREADS", wanted, cores, cores == 1 ? "" : "s",
                 cores);
    omp_set_num_threads(cores);
  } else if (given) {
    omp_set_num_threads(requested);
  }
}

// ufl records its command line, and the folders it names, in JSON (manifest.json), which holds
// only UTF-8 text: an argument that is not (a folder named in Latin-1) is refused before anything
// is read or written, rather than failing halfway through a run or an analysis.
std::string non_utf8_argument(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    try {
      (void)nlohmann::json(std::string(argv[i])).dump();
    } catch (const nlohmann::json::type_error&) {
      return nlohmann::json(std::string(argv[i]))
          .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
  }
  return "";
}

void setup_logging(bool quiet) {
  auto logger = spdlog::stderr_color_st("ufl");
  logger->set_pattern("[%T] %v");
  logger->set_level(quiet ? spdlog::level::warn : spdlog::level::info);
  spdlog::set_default_logger(logger);
}

}  // namespace

int ufl::cli::run_command_line(int argc, char** argv) {
  using namespace ufl::cli;
  CLI::App app{
      "ufl: train Universal Factorization Layers (or one of their special cases, alone or in a "
      "stack) on synthetic datasets and measure which classical operator emerges (convolution, "
      "attention, Fourier, SVD). What is measured: docs/experiment.md.",
      "ufl"};
  app.set_version_flag("--version",
                       std::string("ufl ") + ufl::kVersion + " (" + ufl::kGitCommit + ")");
  app.require_subcommand(1);
  app.footer(
      "Run 'ufl SUBCOMMAND --help' for its flags. Exit codes: 0 ok, 1 failure, 2 bad input, "
      "3 diverged, 130 interrupted.");

  TrainArguments train;
  auto* train_command = app.add_subcommand(
      "train",
      "Train a model (one layer, or a stack: model.depth) from a JSON config and write a run "
      "folder (parameters, operators, metrics, loss curve). Keys: ufl config --describe.");
  train_command->add_option(
      "CONFIG", train.config_path,
      "JSON config, e.g. configs/section8/local.json (not needed with --resume)");
  train_command->add_option(
      "--out,-o", train.out,
      "Run folder to write (default results/<name>); it appears only when complete");
  train_command
      ->add_option("--set", train.overrides,
                   "Override a config value: key.path=value (JSON value, else string); "
                   "repeatable, e.g. --set dataset.noise=0.3 --set dataset.freqs=[3,7]")
      ->type_name("KEY=VALUE");
  std::string seed;
  train_command->add_option("--seed", seed, kSeedHelp)->check(seed_check())->type_name("N");
  train_command
      ->add_option("--threads,-j", train.threads,
                   "OpenMP threads (default: OMP_NUM_THREADS, else the cores other work leaves "
                   "free, measured every 2 s; see docs/running.md, Threads); results are "
                   "bit-identical at any count")
      ->check(CLI::Range(1, 4096));
  train_command->add_option(
      "--data", train.data_dir,
      "Train on a dataset folder written by 'ufl generate' instead of generating in memory; "
      "its values are checked (finite, partners in range) before training, and the data's "
      "seed is the folder's");
  train_command->add_option(
      "--resume", train.resume,
      "Continue an interrupted run (Ctrl-C/SIGTERM saved a checkpoint) in its folder; "
      "the result is bit-identical to an uninterrupted run");
  train_command->add_flag(
      "--continue", train.continue_run,
      "For sweeps: do nothing if the run folder is complete, resume it if it was "
      "interrupted, train it if it does not exist");
  train_command->add_flag("--force,-f", train.force, "Replace an existing run folder");
  train_command->add_flag("--quiet,-q", train.quiet, "Only warnings and errors, no progress");
  train_command->footer(known_keys_text());

  GenerateArguments generate;
  auto* generate_command = app.add_subcommand(
      "generate",
      "Write a config's train and test sets as .npy (with a dataset.json sidecar) to "
      "datasets/<name>-seed<seed>/.");
  generate_command->add_option("CONFIG", generate.config_path, "JSON config")->required();
  generate_command->add_option("--out,-o", generate.out,
                               "Dataset folder (default datasets/<name>-seed<seed>)");
  generate_command
      ->add_option("--set", generate.overrides, "Override a config value: key.path=value")
      ->type_name("KEY=VALUE");
  std::string generate_seed;
  generate_command
      ->add_option("--seed", generate_seed,
                   "Seed of the data (config key 'seed', an integer from 0 to 2^64-1; "
                   "dataset.seed, when given, wins). See docs/seeds.md")
      ->check(seed_check())
      ->type_name("N");
  generate_command->add_flag("--force,-f", generate.force, "Replace an existing dataset folder");
  generate_command->add_flag("--quiet,-q", generate.quiet, "Only warnings and errors");
  int generate_threads = 0;
  generate_command
      ->add_option("--threads,-j", generate_threads,
                   "Threads, as for the other commands, so that a script can pass the same "
                   "flags to each; generating the data uses one today, and the data are the "
                   "same at any count")
      ->check(CLI::Range(1, 4096));

  AnalyzeArguments analyze;
  auto* analyze_command = app.add_subcommand(
      "analyze",
      "Recompute a saved run's measurements and verdict (metrics.json and the analysis "
      ".npy files) on the data it was trained on, e.g. after changing a threshold with --set "
      "analysis.tau_min=0.8; for a token run also heads.json, the per-head spectra, rank-k "
      "truncation, distance-form gap and Ω parts (docs/head_structure.md §2; ufl show draws "
      "them). The previous metrics.json is kept in metrics_history/ and manifest.json records "
      "what changed.");
  analyze_command->add_option("RUN_DIR", analyze.run_dir, "A run folder written by 'ufl train'")
      ->required();
  analyze_command
      ->add_option("--set", analyze.overrides, "Override an analysis threshold: analysis.KEY=value")
      ->type_name("KEY=VALUE");
  analyze_command->add_option(
      "--data", analyze.data_dir,
      "Dataset folder holding the run's data (default: the folder its manifest records, if "
      "it was trained with --data)");
  analyze_command->add_flag("--quiet,-q", analyze.quiet, "Only warnings and errors");
  int analyze_threads = 0;
  analyze_command->add_option("--threads,-j", analyze_threads, "OpenMP threads")
      ->check(CLI::Range(1, 4096));

  ConfigArguments config;
  auto* config_command = app.add_subcommand(
      "config",
      "Print a config resolved (every default filled in, --set and --seed applied) and the "
      "memory and time the run would need, without training; or, with --describe, every "
      "config key with its default, rule and meaning.");
  config_command->add_option("CONFIG", config.config_path, "JSON config");
  config_command->add_option("--set", config.overrides, "Override a config value: key.path=value")
      ->type_name("KEY=VALUE");
  std::string config_seed;
  config_command->add_option("--seed", config_seed, kSeedHelp)->check(seed_check())->type_name("N");
  int config_threads = 0;
  config_command->add_option("--threads,-j", config_threads,
                             "Threads the time estimate assumes (default: as ufl train)");
  config_command->add_option("--data", config.data_dir,
                             "The dataset folder the run would read (for the memory estimate)");
  config_command->add_flag("--describe", config.describe,
                           "List every config key with its default, rule and meaning");
  config_command->add_flag("--markdown", config.markdown,
                           "With --describe: as the Markdown page docs/config.md");

  CollectArguments collect;
  auto* collect_command = app.add_subcommand(
      "collect",
      "Gather finished runs (folders searched recursively) into one CSV: every scalar "
      "metric and config value, one row per run.");
  collect_command->add_option("DIR", collect.paths, "Run folders, or folders holding run folders")
      ->required();
  collect_command->add_option("--out,-o", collect.out,
                              "CSV file to write (default: standard output)");

  ShowArguments show;
  auto* show_command = app.add_subcommand(
      "show",
      "Summarise a run: its status, key metrics, the verdict with the condition that decided it "
      "and a loss sparkline in the terminal, and RUN_DIR/summary.png (what it learned: M̄ "
      "beside the optimum, spectra, loss and score trajectories; per layer for a stack; loss "
      "curves and heads for token runs), drawn with /usr/bin/python3 and Matplotlib");
  show_command->add_option("RUN_DIR", show.run_dir, "A run folder written by 'ufl train'")
      ->required();
  show_command->add_flag("--no-figure", show.no_figure,
                         "Only the terminal summary; do not draw summary.png");

  SampleArguments sample;
  auto* sample_command = app.add_subcommand(
      "sample",
      "Print text from a trained next_token 'text' run: the prompt, then --length characters "
      "drawn one at a time from the model (docs/transformer.md)");
  sample_command->add_option("RUN_DIR", sample.run_dir, "A text run folder written by 'ufl train'")
      ->required();
  sample_command
      ->add_option("--prompt,-p", sample.prompt,
                   "The text to continue (characters of the training text)")
      ->required();
  sample_command->add_option("--length,-n", sample.length,
                             "Characters to add (default 200; more than 10^7 only with --force)");
  sample_command->add_flag("--force", sample.force,
                           "Draw more than 10^7 characters (refused otherwise, with the time it "
                           "would take)");
  sample_command->add_option("--temperature,-t", sample.temperature,
                             "Divides the logits before sampling: < 1 safer, > 1 wilder, 0 the "
                             "most likely character (default 1)");
  std::string sample_seed;
  sample_command
      ->add_option("--seed", sample_seed,
                   "Seed of the draws, an integer from 0 to 2^64-1: the same seed prints the same "
                   "text (default 1)")
      ->check(seed_check())
      ->type_name("N");
  int sample_threads = 0;
  sample_command->add_option("--threads,-j", sample_threads, "OpenMP threads")
      ->check(CLI::PositiveNumber);

  if (const std::string bad = non_utf8_argument(argc, argv); !bad.empty()) {
    std::cerr << "ufl: error: the argument " << bad
              << " is not valid UTF-8 text (shown with \uFFFD for the bytes that are not); ufl "
                 "records its command line and folders in JSON, so rename the folder or file\n";
    return kBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string hint = "ufl --help";
    for (auto* command : app.get_subcommands()) hint = "ufl " + command->get_name() + " --help";
    std::cerr << "ufl: error: " << e.what() << " (see '" << hint << "')\n";
    return kBadInput;
  }

  if (config_command->parsed()) {
    setup_logging(false);
    if (!config_seed.empty()) config.overrides.push_back("seed=" + config_seed);
    set_threads(config_threads);
    return run_config(config);
  }
  if (train_command->parsed()) {
    setup_logging(train.quiet);
    if (!seed.empty()) train.overrides.push_back("seed=" + seed);
    set_threads(train.threads);
    for (int i = 0; i < argc; ++i) train.command_line += (i ? " " : "") + std::string(argv[i]);
    return run_train(train);
  }
  if (generate_command->parsed()) {
    setup_logging(generate.quiet);
    if (!generate_seed.empty()) generate.overrides.push_back("seed=" + generate_seed);
    set_threads(generate_threads);
    return run_generate(generate);
  }
  if (sample_command->parsed()) {
    setup_logging(false);
    set_threads(sample_threads);
    if (!sample_seed.empty()) sample.seed = std::stoull(sample_seed);
    return run_sample(sample);
  }
  if (show_command->parsed()) {
    setup_logging(false);
    return run_show(show);
  }
  if (collect_command->parsed()) {
    setup_logging(false);
    return run_collect(collect);
  }
  setup_logging(analyze.quiet);
  for (int i = 0; i < argc; ++i) analyze.command_line += (i ? " " : "") + std::string(argv[i]);
  set_threads(analyze_threads);
  return run_analyze(analyze);
}
