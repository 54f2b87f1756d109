#pragma once
// The identity of a text corpus (docs/transformer.md §4): manifest.json records each file read
// with its size and content hash, and a resume compares the corpus it reads now with that record,
// so that a run never trains half on one text and half on another.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/tokens.hpp"

namespace ufl::data {

// [{"path": …, "bytes": …, "fnv1a64": "…"}, …], as manifest.json "data" "files" holds it.
nlohmann::json corpus_record(const std::vector<CorpusFile>& files);

// How the corpus read now (`now`, a manifest "data" record) differs from the one a run recorded
// (`recorded`): "" when they are the same, or when `recorded` predates the record (paths only);
// else one phrase naming the first file that differs and how, and what brings the recorded corpus
// back ("/x/a.txt changed size: 3000 bytes now, 2900 when the run trained; restore it", "/x/b.txt
// was added to the corpus folder; move it out of the folder").
std::string corpus_change(const nlohmann::json& recorded, const nlohmann::json& now);

}  // namespace ufl::data
