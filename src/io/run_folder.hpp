#pragma once
// A run's output folder that appears only when complete. Files are written into a hidden staging
// folder next to the final one; commit() moves it into place with a rename. A run that fails or
// is interrupted before commit() leaves no folder that looks like a finished run.
#include <filesystem>
#include <string>

namespace ufl::io {

class RunFolder {
 public:
  // Creates a fresh staging folder `<parent>/.<name>.partial-<pid>` next to `final_path`,
  // creating the parent folders, so that an unwritable location fails now rather than after a
  // long run. Throws IoError if `final_path` exists and `force` is false ("results/local already
  // exists; pass --force to overwrite it or --out to choose another folder"), if it exists and is
  // not a folder, or if the staging folder cannot be created.
  RunFolder(std::filesystem::path final_path, bool force);
  RunFolder(const RunFolder&) = delete;
  RunFolder& operator=(const RunFolder&) = delete;
  // Without commit(), removes the staging folder and everything in it.
  ~RunFolder();

  // Where to write the run's files until commit().
  const std::filesystem::path& staging() const { return staging_; }
  // staging() / name.
  std::filesystem::path file(const std::string& name) const { return staging_ / name; }
  const std::filesystem::path& final_path() const { return final_path_; }
  bool committed() const { return committed_; }

  // Leaves the staging folder in place when this object goes without commit(): it holds a
  // checkpoint that `ufl train --continue` resumes from (docs/running.md).
  void keep_staging() { kept_ = true; }

  // Moves the staging folder to the final path. With force and an existing final folder, the two
  // are swapped in one atomic step where the filesystem allows it (Linux renameat2); elsewhere the
  // old folder is renamed aside, the new one renamed in, and the old one deleted. Either way a
  // complete folder exists at every moment. Throws IoError on failure, leaving the old folder in
  // place; calling it twice is a logic_error.
  void commit();

 private:
  void replace_existing();

  std::filesystem::path final_path_;
  std::filesystem::path staging_;
  bool force_;
  bool committed_ = false;
  bool kept_ = false;
};

// Recreates the folder tree `from` at `to`, each file a hard link to the original (a copy where the
// filesystem cannot link): a staging folder that starts as a copy of a run folder costs no space,
// and a file replaced in it by write_file_atomic (a rename) leaves the original untouched. Throws
// IoError on failure.
void link_tree(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace ufl::io
