// The config loader: defaults of spec §2-3, --set overrides, and one clear error per bad input.
#include "config/load.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

using namespace ufl::config;

namespace {
std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    parse_config(text, "test.json", overrides);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}
}  // namespace

TEST_CASE("an empty config gets every default of the spec") {
  const Config config = parse_config("{}", "test.json");
  CHECK(config.dataset.kind == "local");
  CHECK(config.dataset.n == 32);
  CHECK(config.dataset.d == 16);
  CHECK(config.dataset.noise == 0.5);
  CHECK(config.layer.rank == 32);
  CHECK(config.train.steps == 6000);
  CHECK(config.train.lr == 0.01);
  CHECK(config.train.lr_final == 1e-4);
  CHECK(config.train.ortho_weight == 0.01);
  CHECK(config.analysis.tau_min == 0.9);
}

TEST_CASE("layer.rank follows dataset.n unless it is given") {
  CHECK(parse_config(R"({"dataset": {"n": 48}})", "t").layer.rank == 48);
  CHECK(parse_config(R"({"dataset": {"n": 48}, "layer": {"rank": 8}})", "t").layer.rank == 8);
}

TEST_CASE("--set overrides any value, reading JSON where it parses and a string otherwise") {
  const Config config = parse_config(
      R"({"dataset": {"kind": "periodic"}})", "t",
      {"dataset.freqs=[3,7,11]", "dataset.noise=0.25", "name=sweep a", "seed=5", "train.steps=10"});
  CHECK(config.dataset.freqs == std::vector<int>{3, 7, 11});
  CHECK(config.dataset.noise == 0.25);
  CHECK(config.name == "sweep a");
  CHECK(config.seed == 5);
  CHECK(config.train.steps == 10);
}

TEST_CASE("the resolved config round-trips and holds only its kind's dataset keys") {
  const Config config = parse_config(R"({"dataset": {"kind": "lowrank", "rank": 3}})", "t");
  const auto json = to_json(config);
  CHECK(json["dataset"].contains("rank"));
  CHECK_FALSE(json["dataset"].contains("kernel_width"));
  CHECK_FALSE(json["dataset"].contains("freqs"));
  const Config again = parse_config(json.dump(), "t");
  CHECK(to_json(again) == json);
}

TEST_CASE("the segment lengths default to each copying kind's own; copy_text's keys are its own") {
  const std::string tokens = R"("task": {"kind": "next_token"}, "model": {"block": "transformer"})";
  const Config copy =
      parse_config(R"({"dataset": {"kind": "copy", "n": 64}, )" + tokens + "}", "t");
  CHECK(copy.dataset.segment_min == 6);
  CHECK(copy.dataset.segment_max == 20);
  const Config text =
      parse_config(R"({"dataset": {"kind": "copy_text", "n": 128}, )" + tokens + "}", "t");
  CHECK(text.dataset.segment_min == 8);
  CHECK(text.dataset.segment_max == 24);
  CHECK(text.dataset.segments == 3);
  CHECK(text.dataset.copy_source == "window");
  CHECK(to_json(text)["dataset"].contains("gap_min"));
  CHECK(to_json(text)["dataset"].contains("path"));  // the text kind's corpus keys
  CHECK_FALSE(to_json(copy)["dataset"].contains("gap_min"));
  const Config given = parse_config(
      R"({"dataset": {"kind": "copy_text", "n": 128, "segment_min": 5}, )" + tokens + "}", "t");
  CHECK(given.dataset.segment_min == 5);
  CHECK(given.dataset.segment_max == 24);
  CHECK(error_of(R"({"dataset": {"kind": "text", "segments": 2}, )" + tokens + "}")
            .find("dataset.segments belongs to dataset kind 'copy_text', not 'text'") !=
        std::string::npos);
}

TEST_CASE("malformed JSON names the line and column") {
  const std::string message = error_of("{\n  \"seed\": 1,\n  oops\n}");
  CHECK(message.find("test.json: invalid JSON at line 3, column") != std::string::npos);
}

TEST_CASE("unknown keys are errors with the closest valid key suggested") {
  CHECK(error_of(R"({"dataset": {"nosie": 0.1}})") ==
        "test.json: unknown key 'dataset.nosie' (did you mean 'dataset.noise'?)");
  CHECK(error_of(R"({"trian": {}})").find("did you mean 'train'") != std::string::npos);
  CHECK(error_of("{}", {"train.step=5"}).find("did you mean 'train.steps'") != std::string::npos);
}

TEST_CASE("wrong types and out-of-range values each name the key") {
  CHECK(error_of(R"({"dataset": {"n": "big"}})") ==
        "test.json: dataset.n must be an integer, got \"big\"");
  CHECK(error_of(R"({"dataset": {"n": 1}})") ==
        "test.json: dataset.n must be an integer ≥ 2, got 1");
  CHECK(error_of(R"({"dataset": {"d": 0}})").find("dataset.d must be an integer ≥ 1") !=
        std::string::npos);
  CHECK(error_of(R"({"dataset": {"noise": -0.1}})").find("dataset.noise must be a number ≥ 0") !=
        std::string::npos);
  CHECK(error_of(R"({"dataset": {"kind": "global", "n": 31}})").find("even") != std::string::npos);
  CHECK(error_of(R"({"dataset": {"kind": "lowrank", "rank": 40}})")
            .find("dataset.rank must be at most") != std::string::npos);
  CHECK(error_of(R"({"dataset": {"kind": "periodic", "freqs": [2, 16]}})").find("1 ≤ f < n/2") !=
        std::string::npos);
  CHECK(error_of(R"({"dataset": {"kind": "periodic", "freqs": [2, 2]}})").find("distinct") !=
        std::string::npos);
  CHECK(error_of(R"({"layer": {"rank": 33}})").find("layer.rank must be at most") !=
        std::string::npos);
  CHECK(error_of(R"({"train": {"lr": 0}})").find("train.lr must be a number > 0") !=
        std::string::npos);
  CHECK(error_of(R"({"train": {"steps": 0}})").find("train.steps must be an integer ≥ 1") !=
        std::string::npos);
  CHECK(error_of(R"({"dataset": {"kind": "fourier"}})").find("dataset.kind must be one of") !=
        std::string::npos);
  CHECK(error_of(R"({"name": "a/b"})").find("name must be") != std::string::npos);
}

TEST_CASE("a key of another dataset kind is an error, not ignored") {
  CHECK(
      error_of(R"({"dataset": {"kind": "periodic", "kernel_width": 5}})") ==
      "test.json: dataset.kernel_width belongs to dataset kind 'local', not 'periodic'; remove it");
}

TEST_CASE("bad --set assignments say what to write") {
  CHECK(error_of("{}", {"dataset.noise"}).find("expected key.path=value") != std::string::npos);
  CHECK(error_of("{}", {"dataset.n=abc"}) == "--set: dataset.n must be an integer, got \"abc\"");
}

TEST_CASE("numbers too large for a double and bytes that are not UTF-8 are config errors too") {
  CHECK(error_of(R"({"dataset": {"noise": 1e999}})")
            .find("test.json: invalid JSON: number overflow") == 0);
  CHECK(error_of("{}", {"dataset.n=\xff"}).find("--set dataset.n: the value is not valid UTF-8") ==
        0);
  CHECK(error_of("{}", {"name=\xff"}).find("not valid UTF-8") != std::string::npos);
}

TEST_CASE("an error blames where the value came from: the file or --set") {
  CHECK(error_of(R"({"dataset": {"noise": -1}})") ==
        "test.json: dataset.noise must be a number ≥ 0, got -1.0");
  CHECK(error_of(R"({"dataset": {"noise": 0.1}})", {"dataset.noise=-1"}) ==
        "--set: dataset.noise must be a number ≥ 0, got -1.0");
  // A default broken by another key's new value says it is the default.
  CHECK(error_of("{}", {"train.lr=1e-5"}) ==
        "test.json: train.lr_final (default 0.0001) must be at most train.lr = 1e-05, got 0.0001");
}

TEST_CASE("integers beyond what the field holds are refused with the valid range") {
  CHECK(error_of("{}", {"seed=-1"}) ==
        "--set: seed must be an integer from 0 to 18446744073709551615, got -1");
  CHECK(parse_config("{}", "t", {"seed=9999999999"}).seed == 9999999999ULL);
  CHECK(error_of(R"({"train": {"steps": 3000000000}})") ==
        "test.json: train.steps must be an integer ≥ 1, at most 2147483647, got 3000000000");
}

TEST_CASE("a key given twice is an error naming the key and where it appears again") {
  CHECK(error_of(R"({"dataset": {"n": 8, "n": 16}})") ==
        "test.json: key \"dataset.n\" is given twice (again at line 1, column 22); keep one");
  CHECK(error_of("{\"seed\": 1,\n \"seed\": 2}") ==
        "test.json: key \"seed\" is given twice (again at line 2, column 2); keep one");
  // The same name in different objects is fine.
  CHECK(error_of(R"({"dataset": {"kind": "lowrank", "rank": 2}, "layer": {"rank": 2}})").empty());
}

TEST_CASE("dataset.seed follows seed unless given; a fallback fills it only when absent") {
  CHECK(parse_config("{}", "t", {"seed=3"}).dataset_seed == 3);
  CHECK(parse_config(R"({"seed": 3, "dataset": {"seed": 1}})", "t").dataset_seed == 1);
  CHECK(parse_config(R"({"seed": 3, "dataset": {"seed": 1}})", "t").seed == 3);
  const std::vector<Fallback> from_folder = {{"dataset.seed", 7, "data/dataset.json"}};
  const Config folder = parse_config("{}", "t", {"seed=2"}, from_folder);
  CHECK(folder.seed == 2);
  CHECK(folder.dataset_seed == 7);
  CHECK(parse_config("{}", "t", {"dataset.seed=5"}, from_folder).dataset_seed == 5);
  CHECK(to_json(folder)["dataset"]["seed"] == 7);
  // A bad fallback value blames its source.
  try {
    parse_config("{}", "t", {}, {{"dataset.seed", -4, "data/dataset.json"}});
    FAIL("a negative dataset.seed was accepted");
  } catch (const ConfigError& error) {
    CHECK(std::string(error.what()) ==
          "data/dataset.json: dataset.seed must be an integer from 0 to 18446744073709551615, "
          "got -4");
  }
}

TEST_CASE("a flag that sets one key is checked by the key table") {
  CHECK(flag_problem("seed", "3") == "");
  CHECK(flag_problem("seed", "18446744073709551615") == "");
  CHECK(flag_problem("seed", "-1") == "must be an integer from 0 to 18446744073709551615, got -1");
  CHECK(flag_problem("seed", "18446744073709551616") ==
        "must be an integer from 0 to 18446744073709551615, got 18446744073709551616");
  CHECK(flag_problem("seed", "2.5") == "must be an integer, got 2.5");
  CHECK(flag_problem("seed", "three") == "must be an integer, got \"three\"");
}

TEST_CASE("layer.mixer is universal by default and one of the registered mixers") {
  CHECK(parse_config("{}", "t").layer.mixer == "universal");
  CHECK(parse_config("{}", "t", {"layer.mixer=fourier"}).layer.mixer == "fourier");
  CHECK(error_of("{}", {"layer.mixer=wavelet"}) ==
        "--set: layer.mixer must be one of universal, attention, distance, convolution, fourier, "
        "lowrank, linear, got \"wavelet\"");
}

TEST_CASE("a layer key of another mixer is an error naming the mixers that read it") {
  CHECK(error_of(R"({"layer": {"mixer": "fourier", "kernel_width": 5}})") ==
        "test.json: layer.kernel_width belongs to mixer 'convolution', not 'fourier'; remove it");
  CHECK(error_of("{}", {"layer.mixer=linear", "layer.rank=4"}) ==
        "--set: layer.rank belongs to mixers 'universal', 'attention', 'distance', 'lowrank', not "
        "'linear'; remove it");
  CHECK(error_of("{}", {"layer.mixer=lowrank", "layer.content_init_scale=2"}) ==
        "--set: layer.content_init_scale belongs to mixers 'universal', 'attention', 'distance', "
        "not 'lowrank'; remove it");
  CHECK(parse_config("{}", "t", {"layer.mixer=lowrank", "layer.rank=4"}).layer.rank == 4);
}

TEST_CASE("layer.kernel_width is odd and at most 2n − 1") {
  const Config config = parse_config("{}", "t", {"layer.mixer=convolution"});
  CHECK(config.layer.kernel_width == 5);
  CHECK(error_of("{}", {"layer.mixer=convolution", "layer.kernel_width=4"}) ==
        "--set: layer.kernel_width must be an odd integer ≥ 1, got 4");
  CHECK(
      error_of(R"({"dataset": {"n": 8}, "layer": {"mixer": "convolution", "kernel_width": 17}})") ==
      "test.json: layer.kernel_width must be at most 2·dataset.n − 1 = 15 (the widest band of an "
      "n×n matrix), got 17");
}

TEST_CASE("the resolved config holds the layer keys of its mixer only") {
  const auto universal = to_json(parse_config("{}", "t"));
  CHECK(universal["layer"] ==
        nlohmann::json::parse(
            R"({"mixer": "universal", "rank": 32, "content_init_scale": 1.0, "gate_init": 0.5})"));
  const auto convolution = to_json(parse_config("{}", "t", {"layer.mixer=convolution"}));
  CHECK(convolution["layer"] ==
        nlohmann::json::parse(R"({"mixer": "convolution", "kernel_width": 5})"));
  const auto linear = to_json(parse_config("{}", "t", {"layer.mixer=linear"}));
  CHECK(linear["layer"] == nlohmann::json::parse(R"({"mixer": "linear"})"));
  CHECK(to_json(parse_config(linear.dump(), "t")) == linear);
}

// A token model of transformer blocks with 4 heads (mqar: no corpus file), layer.mixer as JSON.
std::string hybrid_config(const std::string& mixer, const std::string& more = "") {
  return R"({"task": {"kind": "next_token"}, "dataset": {"kind": "mqar", "n": 32},
             "model": {"block": "transformer", "width": 32},
             "layer": {"heads": 4, "mixer": )" +
         mixer + more + "}}";
}
const std::string kHybrid = R"(["attention", "attention", "convolution", "convolution"])";

TEST_CASE("layer.mixer may be a list with one mixer per head of a transformer block") {
  const Config config = parse_config(hybrid_config(kHybrid), "t");
  CHECK(config.layer.head_mixers ==
        std::vector<std::string>{"attention", "attention", "convolution", "convolution"});
  CHECK(config.layer.mixer.empty());
  CHECK(config.layer.mixer_of_head(2) == "convolution");
  // config.json holds the list as given, with the keys of every head's mixer, and reads back.
  const nlohmann::json resolved = to_json(config);
  CHECK(resolved["layer"]["mixer"] == nlohmann::json::parse(kHybrid));
  CHECK(resolved["layer"]["kernel_width"] == 5);         // the convolution heads'
  CHECK(resolved["layer"]["rank"] == 8);                 // the attention heads': width / heads
  CHECK_FALSE(resolved["layer"].contains("gate_init"));  // no head has a gate
  CHECK(to_json(parse_config(resolved.dump(), "t")) == resolved);
  // --set takes the list as JSON, as for dataset.freqs; a string stays one mixer for every head.
  const Config set = parse_config(hybrid_config(R"("attention")"), "t",
                                  {R"(layer.mixer=["universal","attention","linear","lowrank"])"});
  CHECK(set.layer.head_mixers ==
        std::vector<std::string>{"universal", "attention", "linear", "lowrank"});
  const Config one = parse_config(hybrid_config(kHybrid), "t", {"layer.mixer=attention"});
  CHECK(one.layer.mixer == "attention");
  CHECK(one.layer.head_mixers.empty());
  CHECK(to_json(one)["layer"]["mixer"] == "attention");
  // The keys of each head's mixer apply; a gated head brings layer.gate_init and its default.
  CHECK(parse_config(hybrid_config(kHybrid, R"(, "kernel_width": 3, "rank": 4)"), "t")
            .layer.kernel_width == 3);
  const Config gated =
      parse_config(hybrid_config(R"(["universal", "universal", "convolution", "distance"])"), "t");
  CHECK(gated.layer.gate_init == 0.99);
  CHECK(to_json(gated)["layer"].contains("gate_init"));
  // Without a causal mask (a denoise run of transformer blocks) fourier may be a head.
  CHECK(parse_config(R"({"model": {"block": "transformer"},
                         "layer": {"heads": 2, "mixer": ["fourier", "attention"]}})",
                     "t")
            .layer.head_mixers.size() == 2);
}

TEST_CASE("a bad list of mixers is refused with one line saying what to fix") {
  CHECK(error_of(hybrid_config(R"(["attention", "convolution"])")) ==
        "test.json: layer.mixer must be a list of layer.heads = 4 mixers, one per head (it names "
        "2: give one per head, or set layer.heads = 2), got [\"attention\",\"convolution\"]");
  CHECK(error_of(hybrid_config(R"(["attention", "attention", "conv", "convolution"])")) ==
        "test.json: layer.mixer must be a list of registered mixers, each one of universal, "
        "attention, distance, convolution, fourier, lowrank, linear (\"conv\" is none), got "
        "[\"attention\",\"attention\",\"conv\",\"convolution\"]");
  CHECK(error_of(hybrid_config(R"(["attention", "attention", "fourier", "convolution"])")) ==
        "test.json: layer.mixer must be mixers with a causal form under task.kind = "
        "\"next_token\" (fourier mixes every position with every other, so a position would see "
        "the tokens it predicts): each one of universal, attention, distance, convolution, "
        "lowrank, linear, got [\"attention\",\"attention\",\"fourier\",\"convolution\"]");
  // Section 8's mixer block has one mixer: a list there is refused, even of one.
  CHECK(error_of("{}", {R"(layer.mixer=["attention"])"}) ==
        "--set: layer.mixer must be one mixer's name with model.block = \"mixer\" (a list gives "
        "each head its mixer: a block with heads, model.block = one of transformer), got "
        "[\"attention\"]");
  CHECK(error_of(hybrid_config("[]")) ==
        "test.json: layer.mixer must be a string or a non-empty list of strings, got []");
  CHECK(error_of(hybrid_config(R"(["attention", 2, "convolution", "convolution"])")) ==
        "test.json: layer.mixer must be a string or a non-empty list of strings, got "
        "[\"attention\",2,\"convolution\",\"convolution\"]");
}

TEST_CASE("a key that no head's mixer reads is refused, naming the heads' mixers") {
  CHECK(error_of(hybrid_config(kHybrid, R"(, "gate_init": 0.5)")) ==
        "test.json: layer.gate_init belongs to mixers 'universal', 'distance', not the heads' "
        "mixers 'attention', 'convolution'; remove it");
  CHECK(error_of(hybrid_config(R"(["attention", "universal", "attention", "universal"])"),
                 {"layer.kernel_width=3"}) ==
        "--set: layer.kernel_width belongs to mixer 'convolution', not the heads' mixers "
        "'attention', 'universal'; remove it");
  CHECK(error_of(hybrid_config(R"(["linear", "convolution", "linear", "convolution"])",
                               R"(, "rank": 4)")) ==
        "test.json: layer.rank belongs to mixers 'universal', 'attention', 'distance', 'lowrank', "
        "not the heads' mixers 'linear', 'convolution'; remove it");
}

TEST_CASE("the stack: model.depth, model.width (following dataset.d) and model.residual") {
  const Config defaults = parse_config("{}", "t");
  CHECK(defaults.model.depth == 1);
  CHECK(defaults.model.width == 16);  // resolved, so config.json shows it
  CHECK(defaults.model.residual == false);
  CHECK(to_json(defaults)["model"]["width"] == 16);
  CHECK(to_json(defaults)["model"]["residual"] == false);
  CHECK(parse_config(R"({"dataset": {"d": 8}})", "t").model.width == 8);
  const Config stack =
      parse_config("{}", "t", {"model.depth=3", "model.width=32", "model.residual=true"});
  CHECK(stack.model.depth == 3);
  CHECK(stack.model.width == 32);
  CHECK(stack.model.residual == true);
  CHECK(to_json(parse_config(to_json(stack).dump(), "t")) == to_json(stack));
}

TEST_CASE("bad stack settings are refused with one line naming the key") {
  CHECK(error_of(R"({"model": {"depth": 0}})").find("model.depth must be an integer, 1 ≤ L ≤ 64") !=
        std::string::npos);
  CHECK(error_of(R"({"model": {"width": 8}})") ==
        "test.json: model.width must be at least dataset.d = 16, got 8");
  CHECK(error_of("{}", {"model.width=12"}) ==
        "--set: model.width must be at least dataset.d = 16, got 12");
  CHECK(error_of(R"({"model": {"residual": 1}})") ==
        "test.json: model.residual must be true or false, got 1");
  CHECK(error_of("{}", {"model.residual=yes"}) ==
        "--set: model.residual must be true or false, got \"yes\"");
  CHECK(error_of(R"({"model": {"depht": 2}})").find("did you mean 'model.depth'") !=
        std::string::npos);
}

TEST_CASE("induction needs n divisible by 4") {
  CHECK(error_of(R"({"dataset": {"kind": "induction", "n": 30}})") ==
        "test.json: dataset.n must be divisible by 4 for kind 'induction' (n/4 keys, each with a "
        "value and a blank), got 30");
  CHECK(error_of(R"({"dataset": {"kind": "induction"}})", {"dataset.n=18"}).rfind("--set: ", 0) ==
        0);
  CHECK(error_of(R"({"dataset": {"kind": "induction", "n": 28}})").empty());
}
