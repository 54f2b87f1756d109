#include "io/run_folder.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <stdexcept>
#include <system_error>

#include "io/io_error.hpp"

namespace ufl::io {
namespace {

namespace fs = std::filesystem;

IoError already_exists(const fs::path& final_path) {
  return IoError(final_path.string() +
                 " already exists; pass --force to overwrite it or --out to choose another folder");
}

fs::path parent_folder(const fs::path& path) {
  return path.has_parent_path() ? path.parent_path() : fs::path(".");
}

// `<parent>/.<name>.<tag>-<pid>`, with `-<n>` appended while that name is taken. Leftovers of
// crashed runs are never deleted here: a folder we did not create is not ours to remove.
fs::path unused_sibling(const fs::path& path, const std::string& tag) {
  static std::atomic<unsigned long> counter{0};
  const std::string stem =
      "." + path.filename().string() + "." + tag + "-" + std::to_string(::getpid());
  for (;;) {
    const unsigned long n = counter.fetch_add(1);
    fs::path candidate = parent_folder(path) / (n == 0 ? stem : stem + "-" + std::to_string(n));
    std::error_code ignored;
    if (!fs::exists(fs::symlink_status(candidate, ignored))) return candidate;
  }
}

// Makes renames in `folder` durable. Best effort: the rename has already happened.
void sync_folder(const fs::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// Swaps two paths in one atomic step. False with errno set when it fails; EINVAL or ENOSYS mean
// the filesystem or system cannot do it.
bool exchange_paths(const fs::path& first, const fs::path& second) {
#if defined(__linux__) && defined(RENAME_EXCHANGE)
  return ::renameat2(AT_FDCWD, first.c_str(), AT_FDCWD, second.c_str(), RENAME_EXCHANGE) == 0;
#else
  (void)first;
  (void)second;
  errno = ENOSYS;
  return false;
#endif
}

}  // namespace

RunFolder::RunFolder(fs::path final_path, bool force)
    : final_path_(std::move(final_path)), force_(force) {
  if (!final_path_.has_filename()) final_path_ = final_path_.parent_path();  // "results/local/"
  const fs::path name = final_path_.filename();
  if (name.empty() || name == "." || name == "..") {
    throw IoError("cannot use " + final_path_.string() +
                  " as a run folder; pass --out with a named folder such as results/local");
  }

  std::error_code error;
  const fs::file_status status = fs::symlink_status(final_path_, error);
  if (fs::exists(status)) {
    // A file or a symlink is never replaced (--force is meant for an earlier run's folder), so
    // this is said first: suggesting --force would only lead to this message.
    if (!fs::is_directory(status)) {
      throw IoError(
          final_path_.string() +
          " exists and is not a folder; remove it or pass --out to choose another folder");
    }
    if (!force_) throw already_exists(final_path_);
  }

  const fs::path parent = parent_folder(final_path_);
  fs::create_directories(parent, error);
  if (error) throw IoError("cannot create " + parent.string() + ": " + error.message());
  staging_ = unused_sibling(final_path_, "partial");
  if (!fs::create_directory(staging_, error)) {
    if (!error) error = std::make_error_code(std::errc::file_exists);  // lost a race for the name
    throw IoError("cannot create " + final_path_.string() + ": " + error.message());
  }
}

RunFolder::~RunFolder() {
  if (committed_ || kept_) return;
  std::error_code ignored;  // a destructor must not throw; nothing better to do on failure
  fs::remove_all(staging_, ignored);
}

void RunFolder::commit() {
  if (committed_) throw std::logic_error("RunFolder::commit called twice");
  sync_folder(staging_);  // the files' own data was synced when they were written

  std::error_code error;
  if (!fs::exists(fs::symlink_status(final_path_, error))) {
    if (::rename(staging_.c_str(), final_path_.c_str()) == 0) {
      committed_ = true;
      sync_folder(parent_folder(final_path_));
      return;
    }
    // Another process may have created the folder since the constructor looked.
    if (errno != EEXIST && errno != ENOTEMPTY) throw errno_error("create", final_path_, errno);
  }
  if (!force_) throw already_exists(final_path_);
  replace_existing();
}

void RunFolder::replace_existing() {
  std::error_code ignored;
  if (exchange_paths(staging_, final_path_)) {
    committed_ = true;
    sync_folder(parent_folder(final_path_));
    fs::remove_all(staging_, ignored);  // now the old run; a leftover is hidden and harmless
    return;
  }
  if (errno != EINVAL && errno != ENOSYS) throw errno_error("replace", final_path_, errno);

  // No atomic swap here: the old folder stays complete under the aside name meanwhile.
  const fs::path aside = unused_sibling(final_path_, "old");
  if (::rename(final_path_.c_str(), aside.c_str()) != 0) {
    throw errno_error("replace", final_path_, errno);
  }
  if (::rename(staging_.c_str(), final_path_.c_str()) != 0) {
    const int error_number = errno;
    ::rename(aside.c_str(), final_path_.c_str());  // put the old run back
    throw errno_error("replace", final_path_, error_number);
  }
  committed_ = true;
  sync_folder(parent_folder(final_path_));
  fs::remove_all(aside, ignored);
}

void link_tree(const fs::path& from, const fs::path& to) {
  std::error_code error;
  fs::create_directories(to, error);
  if (error) throw IoError("cannot create " + to.string() + ": " + error.message());
  for (auto it = fs::recursive_directory_iterator(from, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    const fs::path target = to / fs::relative(it->path(), from);
    const fs::file_status status = it->symlink_status(error);
    if (error) break;
    if (fs::is_directory(status)) {
      fs::create_directories(target, error);
    } else if (fs::is_regular_file(status)) {
      fs::create_hard_link(it->path(), target, error);
      if (error) {
        error.clear();
        fs::copy_file(it->path(), target, error);
      }
    } else if (fs::is_symlink(status)) {
      fs::copy_symlink(it->path(), target, error);
    }
    if (error)
      throw IoError("cannot copy " + it->path().string() + " to " + target.string() + ": " +
                    error.message());
  }
  if (error) throw IoError("cannot read " + from.string() + ": " + error.message());
}

}  // namespace ufl::io
