// ufl's command line: CLI11 subcommands that parse flags and call the commands; nothing else. Each
// subcommand's flags are declared by a function of its own below.
// In ufl_core rather than in main.cpp, the ufl target's one file, so that its CLI11 code compiles
// alongside the other files instead of alone after them (about 15 s of a 2-core build's wall time).
#include <spdlog/sinks/stdout_color_sinks.h>

#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/thread_request.hpp"
#include "config/load.hpp"
#include "io/log.hpp"
#include "ufl/version.hpp"

namespace {

using namespace ufl::cli;

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

// A file or folder argument given as "" (an unset shell variable) is refused, rather than read as
// "not given": `--out ""` would otherwise write, or with --force replace, the default folder.
// `instead`: what to give (CLI11 prefixes the flag).
CLI::Validator path_check(const std::string& instead) {
  return CLI::Validator(
      [instead](std::string& text) {
        return text.empty() ? "empty; give " + instead : std::string();
      },
      "", "PATH");
}

// The seed rule (docs/seeds.md), the same words in every command's --help.
const char* const kSeedHelp =
    "Seed of the initialisation and the minibatch order (config key 'seed', an integer from 0 "
    "to 2^64-1); the data follow it too unless dataset.seed is given, or --data gives a folder "
    "(its dataset.json's seed). See docs/seeds.md";

// The flags whose value is a file or folder; the other flags' values are text.
bool names_a_path(const std::string& flag) {
  return flag == "--out" || flag == "-o" || flag == "--data" || flag == "--resume";
}

// ufl records its command line, and the folders it names, in JSON (manifest.json), which holds
// only UTF-8 text: an argument that is not (a folder named in Latin-1, a prompt typed in a Latin-1
// terminal) is refused before anything is read or written, rather than failing halfway through a
// run or an analysis. The error names the flag the argument belongs to, and what to do: rename a
// file or folder, retype text. Empty when every argument is UTF-8.
std::string non_utf8_argument(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    try {
      (void)nlohmann::json(argument).dump();
      continue;
    } catch (const nlohmann::json::type_error&) {
    }
    const std::string shown =
        nlohmann::json(argument).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    // The flag it is the value of: "--prompt=…", or the argument before ("--prompt …").
    std::string flag;
    if (argument.rfind("--", 0) == 0)
      flag = argument.substr(0, argument.find('='));
    else if (i > 1 && argv[i - 1][0] == '-')
      flag = argv[i - 1];
    const std::string what = flag.empty() ? "the argument " + shown : flag + " " + shown;
    const std::string fix =
        flag.empty() || names_a_path(flag)
            ? "ufl records its command line and folders in JSON, so rename the folder or file"
            : "give it as UTF-8 text (the terminal or script may be writing Latin-1)";
    return what + " is not valid UTF-8 text (shown with \uFFFD for the bytes that are not); " + fix;
  }
  return "";
}

void setup_logging(bool quiet) {
  auto logger = spdlog::stderr_color_st("ufl");
  logger->set_pattern("[%T] %v");
  logger->set_level(quiet ? spdlog::level::warn : spdlog::level::info);
  spdlog::set_default_logger(logger);
}

// One subcommand: its CLI11 app, and what runs it once its flags are parsed (the flags' values
// live in what `run` holds).
struct Subcommand {
  CLI::App* app;
  std::function<int()> run;
};

Subcommand train_subcommand(CLI::App& ufl, const std::string& command_line) {
  struct Flags {
    TrainArguments arguments;
    std::string seed;
  };
  auto flags = std::make_shared<Flags>();
  TrainArguments& train = flags->arguments;
  CLI::App* command = ufl.add_subcommand(
      "train",
      "Train a model (one layer, or a stack: model.depth) from a JSON config and write a run "
      "folder (parameters, operators, metrics, loss curve). Keys: ufl config --describe.");
  command
      ->add_option("CONFIG", train.config_path,
                   "JSON config, e.g. configs/section8/local.json (not needed with --resume)")
      ->check(path_check("a JSON config file"));
  command
      ->add_option("--out,-o", train.out,
                   "Run folder to write (default results/<name>); it appears only when complete")
      ->check(path_check("a folder, or leave --out out for results/<name>"));
  command
      ->add_option("--set", train.overrides,
                   "Override a config value: key.path=value (JSON value, else string); "
                   "repeatable, e.g. --set dataset.noise=0.3 --set dataset.freqs=[3,7]")
      ->type_name("KEY=VALUE");
  command->add_option("--seed", flags->seed, kSeedHelp)->check(seed_check())->type_name("N");
  command
      ->add_option("--threads,-j", train.threads,
                   "OpenMP threads (default: OMP_NUM_THREADS, else the cores other work leaves "
                   "free, measured every 2 s; see docs/running.md, Threads); results are "
                   "bit-identical at any count")
      ->check(CLI::Range(1, 4096));
  command
      ->add_option("--data", train.data_dir,
                   "Train on a dataset folder written by 'ufl generate' instead of generating in "
                   "memory; its values are checked (finite, partners in range) before training, "
                   "and the data's seed is the folder's")
      ->check(path_check("a folder written by 'ufl generate'"));
  command
      ->add_option("--resume", train.resume,
                   "Continue an interrupted run (Ctrl-C/SIGTERM saved a checkpoint) in its folder; "
                   "the result is bit-identical to an uninterrupted run")
      ->check(path_check("the folder of an interrupted run"));
  command->add_flag("--continue", train.continue_run,
                    "For sweeps: do nothing if the run folder is complete, resume it if it was "
                    "interrupted, train it if it does not exist");
  command->add_flag("--force,-f", train.force, "Replace an existing run folder");
  command->add_flag("--quiet,-q", train.quiet, "Only warnings and errors, no progress");
  command->footer(known_keys_text());
  return {command, [flags, command_line] {
            TrainArguments& train = flags->arguments;
            setup_logging(train.quiet);
            if (!flags->seed.empty()) train.overrides.push_back("seed=" + flags->seed);
            set_threads(train.threads);
            train.command_line = command_line;
            return run_train(train);
          }};
}

Subcommand generate_subcommand(CLI::App& ufl) {
  struct Flags {
    GenerateArguments arguments;
    std::string seed;
    int threads = 0;
  };
  auto flags = std::make_shared<Flags>();
  GenerateArguments& generate = flags->arguments;
  CLI::App* command = ufl.add_subcommand(
      "generate",
      "Write a config's train and test sets as .npy (with a dataset.json sidecar) to "
      "datasets/<name>-seed<seed>/.");
  command->add_option("CONFIG", generate.config_path, "JSON config")
      ->required()
      ->check(path_check("a JSON config file"));
  command
      ->add_option("--out,-o", generate.out, "Dataset folder (default datasets/<name>-seed<seed>)")
      ->check(path_check("a folder, or leave --out out for datasets/<name>-seed<seed>"));
  command->add_option("--set", generate.overrides, "Override a config value: key.path=value")
      ->type_name("KEY=VALUE");
  command
      ->add_option("--seed", flags->seed,
                   "Seed of the data (config key 'seed', an integer from 0 to 2^64-1; "
                   "dataset.seed, when given, wins). See docs/seeds.md")
      ->check(seed_check())
      ->type_name("N");
  command->add_flag("--force,-f", generate.force, "Replace an existing dataset folder");
  command->add_flag("--quiet,-q", generate.quiet, "Only warnings and errors");
  command
      ->add_option("--threads,-j", flags->threads,
                   "Threads, as for the other commands, so that a script can pass the same "
                   "flags to each; generating the data uses one today, and the data are the "
                   "same at any count")
      ->check(CLI::Range(1, 4096));
  return {command, [flags] {
            GenerateArguments& generate = flags->arguments;
            setup_logging(generate.quiet);
            if (!flags->seed.empty()) generate.overrides.push_back("seed=" + flags->seed);
            set_threads(flags->threads);
            return run_generate(generate);
          }};
}

Subcommand analyze_subcommand(CLI::App& ufl, const std::string& command_line) {
  struct Flags {
    AnalyzeArguments arguments;
    int threads = 0;
  };
  auto flags = std::make_shared<Flags>();
  AnalyzeArguments& analyze = flags->arguments;
  CLI::App* command = ufl.add_subcommand(
      "analyze",
      "Recompute a saved run's measurements and verdict (metrics.json and the analysis "
      ".npy files) on the data it was trained on, e.g. after changing a threshold with --set "
      "analysis.tau_min=0.8; for a token run also heads.json, the per-head spectra, rank-k "
      "truncation, distance-form gap and Ω parts (docs/head_structure.md §2; ufl show draws "
      "them). The previous metrics.json is kept in metrics_history/ and manifest.json records "
      "what changed.");
  command->add_option("RUN_DIR", analyze.run_dir, "A run folder written by 'ufl train'")
      ->required()
      ->check(path_check("a run folder"));
  command
      ->add_option("--set", analyze.overrides, "Override an analysis threshold: analysis.KEY=value")
      ->type_name("KEY=VALUE");
  command
      ->add_option("--data", analyze.data_dir,
                   "Dataset folder holding the run's data (default: the folder its manifest "
                   "records, if it was trained with --data)")
      ->check(path_check("a folder written by 'ufl generate'"));
  command->add_flag("--quiet,-q", analyze.quiet, "Only warnings and errors");
  command->add_option("--threads,-j", flags->threads, "OpenMP threads")->check(CLI::Range(1, 4096));
  return {command, [flags, command_line] {
            AnalyzeArguments& analyze = flags->arguments;
            setup_logging(analyze.quiet);
            analyze.command_line = command_line;
            set_threads(flags->threads);
            return run_analyze(analyze);
          }};
}

Subcommand config_subcommand(CLI::App& ufl) {
  struct Flags {
    ConfigArguments arguments;
    std::string seed;
    int threads = 0;
  };
  auto flags = std::make_shared<Flags>();
  ConfigArguments& config = flags->arguments;
  CLI::App* command = ufl.add_subcommand(
      "config",
      "Print a config resolved (every default filled in, --set and --seed applied) and the "
      "memory and time the run would need, without training; or, with --describe, every "
      "config key with its default, rule and meaning.");
  command->add_option("CONFIG", config.config_path, "JSON config")
      ->check(path_check("a JSON config file"));
  command->add_option("--set", config.overrides, "Override a config value: key.path=value")
      ->type_name("KEY=VALUE");
  command->add_option("--seed", flags->seed, kSeedHelp)->check(seed_check())->type_name("N");
  command->add_option("--threads,-j", flags->threads,
                      "Threads the time estimate assumes (default: as ufl train)");
  command
      ->add_option("--data", config.data_dir,
                   "The dataset folder the run would read (for the memory estimate)")
      ->check(path_check("a folder written by 'ufl generate'"));
  command->add_flag("--describe", config.describe,
                    "List every config key with its default, rule and meaning");
  command->add_flag("--markdown", config.markdown,
                    "With --describe: as the Markdown page docs/config.md");
  return {command, [flags] {
            ConfigArguments& config = flags->arguments;
            setup_logging(false);
            if (!flags->seed.empty()) config.overrides.push_back("seed=" + flags->seed);
            set_threads(flags->threads);
            return run_config(config);
          }};
}

Subcommand collect_subcommand(CLI::App& ufl) {
  auto collect = std::make_shared<CollectArguments>();
  CLI::App* command = ufl.add_subcommand(
      "collect",
      "Gather finished runs (folders searched recursively) into one CSV: every scalar "
      "metric and config value, one row per run.");
  command->add_option("DIR", collect->paths, "Run folders, or folders holding run folders")
      ->required()
      ->check(path_check("a folder"));
  command->add_option("--out,-o", collect->out, "CSV file to write (default: standard output)")
      ->check(path_check("a file name, or leave --out out for standard output"));
  return {command, [collect] {
            setup_logging(false);
            return run_collect(*collect);
          }};
}

Subcommand show_subcommand(CLI::App& ufl) {
  auto show = std::make_shared<ShowArguments>();
  CLI::App* command = ufl.add_subcommand(
      "show",
      "Summarise a run: its status, key metrics, the verdict with the condition that decided it "
      "and a loss sparkline in the terminal, and RUN_DIR/summary.png (what it learned: M̄ "
      "beside the optimum, spectra, loss and score trajectories; per layer for a stack; loss "
      "curves and heads for token runs), drawn with /usr/bin/python3 and Matplotlib");
  command->add_option("RUN_DIR", show->run_dir, "A run folder written by 'ufl train'")
      ->required()
      ->check(path_check("a run folder"));
  command->add_flag("--no-figure", show->no_figure,
                    "Only the terminal summary; do not draw summary.png");
  return {command, [show] {
            setup_logging(false);
            return run_show(*show);
          }};
}

Subcommand sample_subcommand(CLI::App& ufl) {
  struct Flags {
    SampleArguments arguments;
    std::string seed;
    int threads = 0;
  };
  auto flags = std::make_shared<Flags>();
  SampleArguments& sample = flags->arguments;
  CLI::App* command = ufl.add_subcommand(
      "sample",
      "Print text from a trained next_token 'text' run: the prompt, then --length characters "
      "drawn one at a time from the model (docs/transformer.md)");
  command->add_option("RUN_DIR", sample.run_dir, "A text run folder written by 'ufl train'")
      ->required()
      ->check(path_check("a run folder"));
  command
      ->add_option("--prompt,-p", sample.prompt,
                   "The text to continue (characters of the training text)")
      ->required();
  command->add_option("--length,-n", sample.length,
                      "Characters to add (default 200; more than 10^7 only with --force)");
  command->add_flag("--force", sample.force,
                    "Draw more than 10^7 characters (refused otherwise, with the time it "
                    "would take)");
  command->add_option("--temperature,-t", sample.temperature,
                      "Divides the logits before sampling: < 1 safer, > 1 wilder, 0 the "
                      "most likely character (default 1)");
  command
      ->add_option("--seed", flags->seed,
                   "Seed of the draws, an integer from 0 to 2^64-1: the same seed prints the same "
                   "text (default 1)")
      ->check(seed_check())
      ->type_name("N");
  command->add_option("--threads,-j", flags->threads, "OpenMP threads")->check(CLI::PositiveNumber);
  return {command, [flags] {
            SampleArguments& sample = flags->arguments;
            setup_logging(false);
            set_threads(flags->threads);
            if (!flags->seed.empty()) sample.seed = std::stoull(flags->seed);
            return run_sample(sample);
          }};
}

// Parses the command line; an exit code when there is nothing to run (--help, --version, a parse
// error: one line naming the subcommand's --help).
std::optional<int> parse(CLI::App& app, int argc, char** argv) {
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
    return int(kBadInput);
  }
  return std::nullopt;
}

}  // namespace

int ufl::cli::run_command_line(int argc, char** argv) {
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
  // Recorded in the run's manifest by train and analyze.
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  const std::vector<Subcommand> subcommands = {train_subcommand(app, command_line),
                                               generate_subcommand(app),
                                               analyze_subcommand(app, command_line),
                                               config_subcommand(app),
                                               collect_subcommand(app),
                                               show_subcommand(app),
                                               sample_subcommand(app)};

  if (const std::string bad = non_utf8_argument(argc, argv); !bad.empty()) {
    std::cerr << "ufl: error: " << bad << "\n";
    return kBadInput;
  }
  if (const std::optional<int> done = parse(app, argc, argv)) return *done;
  for (const Subcommand& subcommand : subcommands)
    if (subcommand.app->parsed()) return subcommand.run();
  return kBadInput;  // not reached: CLI11 requires one subcommand
}
