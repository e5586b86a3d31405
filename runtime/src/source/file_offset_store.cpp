#include "file_offset_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "ksink/detail/read_file.h"

namespace ksink {
namespace {

void writeAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("writing {}: {}", path, std::strerror(errno)));
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
}

void syncDirectoryOf(const std::string& path) {
  const auto dir = std::filesystem::path(path).parent_path();
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

std::shared_ptr<FileOffsetStore> FileOffsetStore::forFile(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<FileOffsetStore>> stores;
  const auto key = std::filesystem::absolute(path).lexically_normal().string();
  std::lock_guard lock(mutex);
  if (auto existing = stores[key].lock()) return existing;
  auto store = std::make_shared<FileOffsetStore>(key);
  stores[key] = store;
  return store;
}

FileOffsetStore::FileOffsetStore(std::string path, Access access)
    : path_(std::move(path)), access_(access) {}

FileOffsetStore::~FileOffsetStore() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

void FileOffsetStore::start() {
  std::lock_guard lock(mutex_);
  if (loaded_) return;
  if (access_ == Access::kReadWrite) takeLock();
  std::error_code ec;
  if (!std::filesystem::exists(path_, ec)) {
    loaded_ = true;
    spdlog::info("offsets file {}: no offsets yet", path_);
    return;
  }
  const auto bytes = readFile(path_);
  if (!bytes)
    throw std::runtime_error(
        fmt::format("the offsets file {} (offset.storage.file.filename) cannot be opened", path_));
  // No writer leaves an empty file behind on purpose: ksink renames a whole one into place, and
  // Kafka Connect's holds at least an empty HashMap's header — it is 0 bytes only when Connect
  // stopped while rewriting it in place, its offsets lost. Reading it as "none yet" would start
  // every connector on it over from the beginning without a word (what Connect does).
  if (bytes->empty())
    throw std::runtime_error(fmt::format(
        "the offsets file {} (offset.storage.file.filename) is empty: the offsets it held were "
        "lost (Kafka Connect leaves it so when stopped while rewriting it). Restore it from a "
        "backup, or remove it to start its connectors over from no offsets",
        path_));
  try {
    entries_ = readJavaSerializedMap(*bytes);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format(
        "the offsets file {} (offset.storage.file.filename) cannot be read: {}", path_, e.what()));
  }
  loaded_ = true;
  spdlog::info("offsets file {}: {} entries", path_, entries_.size());
}

void FileOffsetStore::takeLock() {
  const auto lock_path = path_ + ".lock";
  lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0)
    throw std::runtime_error(
        fmt::format("the offsets file's lock {}: {}", lock_path, std::strerror(errno)));
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
    throw std::runtime_error(fmt::format(
        "the offsets file {} (offset.storage.file.filename) is in use by another process (it "
        "holds {}): stop it first",
        path_, lock_path));
  }
}

void FileOffsetStore::write(const OffsetEntries& entries, Done done) {
  if (access_ == Access::kRead)
    return done(fmt::format("the offsets file {} was opened to read only", path_));
  std::optional<std::string> error;
  {
    std::lock_guard lock(mutex_);
    auto before = entries_;
    for (const auto& [key, value] : entries) entries_.insert_or_assign(key, value);
    try {
      save();
    } catch (const std::exception& e) {
      entries_ = std::move(before);  // only what is on disk is visible
      error = e.what();
    }
  }
  done(error);
}

void FileOffsetStore::save() {
  const auto temporary = fmt::format("{}.tmp-{}", path_, ::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error(fmt::format("creating {}: {}", temporary, std::strerror(errno)));
  try {
    writeAll(fd, writeJavaSerializedMap(entries_), temporary);
    if (::fsync(fd) != 0)
      throw std::runtime_error(fmt::format("syncing {}: {}", temporary, std::strerror(errno)));
  } catch (...) {
    ::close(fd);
    ::unlink(temporary.c_str());
    throw;
  }
  ::close(fd);
  if (::rename(temporary.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(temporary.c_str());
    throw std::runtime_error(
        fmt::format("renaming {} to {}: {}", temporary, path_, std::strerror(err)));
  }
  syncDirectoryOf(path_);
}

std::optional<std::string> FileOffsetStore::get(std::string_view key) const {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(std::string(key));
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> FileOffsetStore::keys() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [key, value] : entries_)
    if (value) out.push_back(key);
  return out;
}

}  // namespace ksink
