#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstddef>

#include "io/io_error.hpp"

namespace ufl::io {
namespace {

namespace fs = std::filesystem;

// `.<name>.tmp.<pid>.<n>` in the target's folder: the same filesystem, so rename is atomic; the
// counter keeps two writers in one process apart, the pid keeps processes apart.
fs::path temporary_path_for(const fs::path& path) {
  static std::atomic<unsigned long> counter{0};
  const std::string name = "." + path.filename().string() + ".tmp." + std::to_string(::getpid()) +
                           "." + std::to_string(counter.fetch_add(1));
  return path.parent_path() / name;
}

// Writes every byte, retrying short writes and interrupted calls. Returns 0 or an errno value.
int write_all(int fd, std::string_view bytes) {
  constexpr std::size_t kMaxChunk = std::size_t{1} << 30;  // below SSIZE_MAX everywhere
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), std::min(bytes.size(), kMaxChunk));
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (written == 0) return EIO;  // no progress and no error: do not spin forever
    bytes.remove_prefix(static_cast<std::size_t>(written));
  }
  return 0;
}

// Makes the rename itself durable. Best effort: the file is already complete and in place, and some
// filesystems refuse to sync a folder.
void sync_folder(const fs::path& folder) {
  const int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

IoError write_error(const fs::path& path, int error_number) {
  // ENOENT from open(O_CREAT) means a folder on the way is missing; say which one.
  std::error_code ignored;
  if (error_number == ENOENT && !path.parent_path().empty() &&
      !fs::exists(path.parent_path(), ignored)) {
    return IoError("cannot write " + path.string() + ": folder " + path.parent_path().string() +
                   " does not exist");
  }
  return errno_error("write", path, error_number);
}

}  // namespace

void write_file_atomic(const fs::path& path, std::string_view contents) {
  write_file_atomic(path, std::span<const std::string_view>(&contents, 1));
}

void write_file_atomic(const fs::path& path, std::span<const std::string_view> pieces) {
  if (!path.has_filename()) {
    throw IoError("cannot write " + path.string() + ": the path names a folder, not a file");
  }
  const fs::path temporary = temporary_path_for(path);
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) throw write_error(path, errno);

  const auto fail = [&](int error_number) {
    if (fd >= 0) ::close(fd);
    ::unlink(temporary.c_str());
    return write_error(path, error_number);
  };
  for (const std::string_view piece : pieces) {
    if (const int error_number = write_all(fd, piece)) throw fail(error_number);
  }
  if (::fsync(fd) != 0) throw fail(errno);
  const int close_result = ::close(fd);
  fd = -1;
  if (close_result != 0) throw fail(errno);  // e.g. a delayed write error on a network filesystem
  if (::rename(temporary.c_str(), path.c_str()) != 0) throw fail(errno);
  sync_folder(path.parent_path());
}

std::string read_file(const fs::path& path) {
  // O_NONBLOCK so that opening a FIFO returns at once (a blocking open waits for a writer that
  // may never come); a regular file ignores it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) throw IoError("cannot read " + path.string() + ": file does not exist");
    throw errno_error("read", path, errno);
  }
  std::string contents;
  struct stat status {};
  if (::fstat(fd, &status) == 0) {
    if (S_ISDIR(status.st_mode)) {
      ::close(fd);
      throw IoError("cannot read " + path.string() + ": it is a folder, not a file");
    }
    if (!S_ISREG(status.st_mode)) {
      ::close(fd);
      const char* kind = S_ISFIFO(status.st_mode)   ? "a FIFO"
                         : S_ISSOCK(status.st_mode) ? "a socket"
                         : S_ISCHR(status.st_mode)  ? "a character device"
                                                    : "a device";
      throw IoError("cannot read " + path.string() + ": not a regular file (" + kind +
                    "); ufl reads its inputs from regular files");
    }
    if (status.st_size > 0) contents.reserve(static_cast<std::size_t>(status.st_size));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  // Read to end of file rather than trusting st_size, which may change or be 0 (e.g. /proc).
  char buffer[1 << 16];
  for (;;) {
    const ssize_t count = ::read(fd, buffer, sizeof buffer);
    if (count < 0) {
      if (errno == EINTR) continue;
      const int error_number = errno;
      ::close(fd);
      throw errno_error("read", path, error_number);
    }
    if (count == 0) break;
    contents.append(buffer, static_cast<std::size_t>(count));
  }
  ::close(fd);
  return contents;
}

}  // namespace ufl::io
