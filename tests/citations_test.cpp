// Every `§` a comment in src/ cites resolves (docs/design.md, first paragraph): it follows the name
// of a file in docs/ ("docs/experiment.md §3", "docs/transformer.md §3, §8", "docs/design.md
// §2.2-2.4", the name possibly at the end of the line before), that file exists, and it has a
// heading that carries the section's number ("## 3. The measurements", "### 2.2 Attention …").
// Read from the source folder, as the test of docs/config.md reads that file.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const std::string kSection = "§";
const std::string kEnDash = "–";

std::string read_file(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A section number at `at`: digits, optionally ".digits" more than once ("2", "2.1").
std::string section_number(const std::string& text, std::size_t at) {
  std::size_t end = at;
  while (end < text.size() && is_digit(text[end])) {
    while (end < text.size() && is_digit(text[end])) ++end;
    if (end + 1 < text.size() && text[end] == '.' && is_digit(text[end + 1])) ++end;
  }
  return text.substr(at, end - at);
}

// Whether `between` holds only what may separate a file's name from one of its sections: blanks,
// line breaks with their "//", other sections' numbers, commas, dashes and §.
bool only_separators(const std::string& between) {
  for (std::size_t i = 0; i < between.size();) {
    if (between.compare(i, kSection.size(), kSection) == 0) {
      i += kSection.size();
    } else if (between.compare(i, kEnDash.size(), kEnDash) == 0) {
      i += kEnDash.size();
    } else if (std::string(" \n/,.-").find(between[i]) != std::string::npos ||
               is_digit(between[i])) {
      ++i;
    } else {
      return false;
    }
  }
  return true;
}

// The docs file named last before `at` in `context` ("docs/NAME.md"), if nothing but separators
// stands between its name and `at`; "" otherwise.
std::string cited_file(const std::string& context, std::size_t at) {
  const std::size_t name = context.rfind("docs/", at);
  if (name == std::string::npos) return "";
  std::size_t end = name + 5;
  while (end < at && (std::isalnum(static_cast<unsigned char>(context[end])) ||
                      std::string("_-/").find(context[end]) != std::string::npos))
    ++end;
  if (context.compare(end, 3, ".md") != 0) return "";
  end += 3;
  if (!only_separators(context.substr(end, at - end))) return "";
  return context.substr(name, end - name);
}

// Whether a line of markdown is a heading that carries `number`: "## 3. …", "### 2.1 …", "## §3 …".
bool heading_has(const std::string& line, const std::string& number) {
  std::size_t at = 0;
  while (at < line.size() && line[at] == '#') ++at;
  if (at == 0 || at >= line.size() || line[at] != ' ') return false;
  ++at;
  if (line.compare(at, kSection.size(), kSection) == 0) at += kSection.size();
  if (line.compare(at, number.size(), number) != 0) return false;
  at += number.size();
  return at == line.size() || line[at] == ' ' || line.compare(at, 2, ". ") == 0 ||
         (line[at] == '.' && at + 1 == line.size());
}

struct Citations {
  int found = 0;
  std::vector<std::string> problems;  // "file:line: what is wrong"
};

// Checks every § in `text` (the file `label`) against the docs folder `docs_root` (the folder
// that holds docs/).
void check_text(const std::string& label, const std::string& text, const fs::path& docs_root,
                Citations& citations) {
  const std::vector<std::string> lines = split_lines(text);
  std::map<std::string, std::vector<std::string>> headings;  // docs file → its lines
  for (std::size_t l = 0; l < lines.size(); ++l) {
    // The line before is context too: a file's name may end one comment line and its section
    // start the next.
    const std::string before = l > 0 ? lines[l - 1] + "\n" : "";
    const std::string context = before + lines[l];
    for (std::size_t at = context.find(kSection, before.size()); at != std::string::npos;
         at = context.find(kSection, at + kSection.size())) {
      ++citations.found;
      const std::string where = label + ":" + std::to_string(l + 1) + ": ";
      const std::string number = section_number(context, at + kSection.size());
      if (number.empty()) {
        citations.problems.push_back(where + "a § without a section number");
        continue;
      }
      const std::string file = cited_file(context, at);
      if (file.empty()) {
        citations.problems.push_back(where + "§" + number + " names no docs/*.md file");
        continue;
      }
      if (!headings.count(file)) {
        const fs::path path = docs_root / file;
        headings[file] =
            fs::is_regular_file(path) ? split_lines(read_file(path)) : std::vector<std::string>{};
      }
      const std::vector<std::string>& doc = headings[file];
      if (doc.empty()) {
        citations.problems.push_back(where + file + " does not exist (cited as §" + number + ")");
        continue;
      }
      // A range "§2.2-2.4" or "§3–4": both ends must exist.
      std::vector<std::string> numbers{number};
      std::size_t after = at + kSection.size() + number.size();
      for (const std::string& dash : {std::string("-"), kEnDash}) {
        if (context.compare(after, dash.size(), dash) == 0) {
          std::size_t next = after + dash.size();
          if (context.compare(next, kSection.size(), kSection) == 0) break;  // "§1–§2": own §
          const std::string end = section_number(context, next);
          if (!end.empty()) numbers.push_back(end);
        }
      }
      for (const std::string& n : numbers) {
        const bool has = std::any_of(doc.begin(), doc.end(),
                                     [&](const std::string& line) { return heading_has(line, n); });
        if (!has) citations.problems.push_back(where + file + " has no heading §" + n);
      }
    }
  }
}

std::string joined(const std::vector<std::string>& problems) {
  std::string text;
  for (const std::string& problem : problems) text += problem + "\n";
  return text;
}

}  // namespace

TEST_CASE("the citation check accepts what resolves and names file:line of what does not") {
  const fs::path root = UFL_SOURCE_DIR;
  Citations good;
  check_text(
      "good.hpp",
      "// The data (docs/experiment.md §1) and the layer (docs/experiment.md §2, §3).\n"
      "// Attention, Fourier, convolution (docs/design.md §2.2-2.4); a head (docs/transformer.md\n"
      "// §3, §8).\n",
      root, good);
  CHECK(good.found == 6);
  CHECK_MESSAGE(good.problems.empty(), joined(good.problems));

  Citations bad;
  check_text("bad.hpp",
             "// spec §2\n"
             "// docs/experiment.md §42\n"
             "// docs/nowhere.md §1\n"
             "// docs/design.md §2.2-2.9\n"
             "// docs/experiment.md and then some words §1\n",
             root, bad);
  CHECK(bad.found == 5);
  REQUIRE(bad.problems.size() == 5);
  CHECK(bad.problems[0] == "bad.hpp:1: §2 names no docs/*.md file");
  CHECK(bad.problems[1] == "bad.hpp:2: docs/experiment.md has no heading §42");
  CHECK(bad.problems[2] == "bad.hpp:3: docs/nowhere.md does not exist (cited as §1)");
  CHECK(bad.problems[3] == "bad.hpp:4: docs/design.md has no heading §2.9");
  CHECK(bad.problems[4] == "bad.hpp:5: §1 names no docs/*.md file");
}

TEST_CASE("every § cited in src/ names a docs file and a heading of it that exist") {
  const fs::path root = UFL_SOURCE_DIR;
  Citations citations;
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(root / "src"))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files)
    check_text(fs::relative(file, root).string(), read_file(file), root, citations);
  // The comments cite the docs about 170 times; far fewer means the scan lost its way.
  CHECK(citations.found > 150);
  CHECK_MESSAGE(citations.problems.empty(), joined(citations.problems));
}
