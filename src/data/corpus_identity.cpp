#include "data/corpus_identity.hpp"

#include "io/content_hash.hpp"

namespace ufl::data {
namespace {

using nlohmann::json;

// The recorded files, or none when the record is missing or older (paths only, no sizes).
std::vector<const json*> identified_files(const json& record) {
  std::vector<const json*> files;
  if (!record.is_object() || !record.contains("files") || !record["files"].is_array()) return {};
  for (const json& file : record["files"]) {
    if (!file.is_object() || !file.contains("path") || !file.contains("bytes") ||
        !file.contains("fnv1a64"))
      return {};
    files.push_back(&file);
  }
  return files;
}

const json* find_file(const std::vector<const json*>& files, const std::string& path) {
  for (const json* file : files)
    if (file->value("path", std::string()) == path) return file;
  return nullptr;
}

}  // namespace

json corpus_record(const std::vector<CorpusFile>& files) {
  json record = json::array();
  for (const CorpusFile& file : files)
    record.push_back({{"path", file.path},
                      {"bytes", file.bytes},
                      {"fnv1a64", io::content_hash_text(file.content_hash)}});
  return record;
}

std::string corpus_change(const json& recorded, const json& now) {
  const std::vector<const json*> before = identified_files(recorded), after = identified_files(now);
  if (before.empty()) return "";
  for (const json* file : before) {
    const std::string path = file->value("path", std::string());
    const json* current = find_file(after, path);
    if (current == nullptr)
      return path + " is no longer read (gone, or no longer text); restore it";
    const auto bytes = file->value("bytes", std::uint64_t(0));
    const auto bytes_now = current->value("bytes", std::uint64_t(0));
    if (bytes_now != bytes)
      return path + " changed size: " + std::to_string(bytes_now) + " bytes now, " +
             std::to_string(bytes) + " when the run trained; restore it";
    if (current->value("fnv1a64", std::string()) != file->value("fnv1a64", std::string()))
      return path + " changed content at the same size (" + std::to_string(bytes) +
             " bytes; FNV-1a hash " + current->value("fnv1a64", std::string()) + " now, " +
             file->value("fnv1a64", std::string()) + " when the run trained); restore it";
  }
  for (const json* file : after)
    if (find_file(before, file->value("path", std::string())) == nullptr)
      return file->value("path", std::string()) +
             " was added to the corpus folder; move it out of the folder";
  return "";
}

}  // namespace ufl::data
