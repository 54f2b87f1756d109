#include "io/run_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "io/stale_staging.hpp"

namespace ufl::io {
namespace {

namespace fs = std::filesystem;

fs::path named_folder(fs::path folder) {
  if (!folder.has_filename()) folder = folder.parent_path();  // "results/local/"
  return folder;
}

// "process 1234 on host node7", from the lock file; the holder writes it right after locking, so
// an empty file is read again a few times.
std::string holder_of(const fs::path& path) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      char text[300] = {};
      const ssize_t length = ::read(fd, text, sizeof text - 1);
      ::close(fd);
      std::string contents(text, length > 0 ? std::size_t(length) : 0);
      const auto space = contents.find(' ');
      if (space != std::string::npos && contents.back() == '\n') {
        contents.pop_back();
        return "process " + contents.substr(0, space) + " on host " + contents.substr(space + 1);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return "another process";
}

}  // namespace

fs::path RunLock::lock_path(const fs::path& folder) {
  const fs::path named = named_folder(folder);
  const fs::path parent = named.has_parent_path() ? named.parent_path() : fs::path(".");
  return parent / ("." + named.filename().string() + ".lock");
}

RunLock::RunLock(const fs::path& folder) : path_(lock_path(folder)) {
  std::error_code error;
  fs::create_directories(path_.parent_path(), error);
  if (error)
    throw IoError("cannot create " + path_.parent_path().string() + ": " + error.message());
  for (int attempt = 0;; ++attempt) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw errno_error("create the lock file", path_, errno);
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int error_number = errno;
      ::close(fd_);
      fd_ = -1;
      if (error_number == EWOULDBLOCK)
        throw RunLocked(named_folder(folder).string() + " is in use by " + holder_of(path_) +
                        " (lock " + path_.string() + "); wait for it to finish or stop it");
      throw errno_error("lock", path_, error_number);
    }
    // The holder removes the file when it releases the lock; if that happened between our open
    // and our flock, we hold a lock on a file nobody else will open. Lock the file at the path.
    struct stat locked {
    }, current{};
    if (::fstat(fd_, &locked) == 0 && ::stat(path_.c_str(), &current) == 0 &&
        locked.st_dev == current.st_dev && locked.st_ino == current.st_ino)
      break;
    ::close(fd_);
    fd_ = -1;
    if (attempt == 100) throw IoError("cannot lock " + path_.string() + ": it keeps changing");
  }
  const std::string owner = std::to_string(::getpid()) + " " + host_name() + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::write(fd_, owner.data(), owner.size()) < 0) {
    // The lock holds without the PID; messages then say "another process".
  }
}

RunLock::~RunLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // before unlocking, so a waiter never locks a file about to vanish
  ::close(fd_);
}

}  // namespace ufl::io
