#include "file_stream_source_task.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "ksink/config_exception.h"
#include "ksink/utf8.h"

namespace ksink {
namespace {

constexpr size_t kReadChunk = 64 * 1024;

int64_t nowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

ConfigDef makeDef() {
  using Type = ConfigDef::Type;
  using Importance = ConfigDef::Importance;
  ConfigDef def;
  def.define("file", Type::kString, "", Importance::kHigh,
             "The file to read (Connect reads stdin when it is empty; ksink needs a file).",
             [](std::string_view v) -> std::optional<std::string> {
               if (!v.empty()) return std::nullopt;
               return "must name a file: reading stdin (Connect's behaviour for an empty file) "
                      "has no offset to resume from and is not supported";
             })
      .define("topic", Type::kString, std::nullopt, Importance::kHigh,
              "The topic to publish data to.", ConfigDef::nonEmpty())
      .define("batch.size", Type::kInt, "2000", Importance::kLow,
              "The maximum number of records the task returns per poll().", ConfigDef::atLeast(1))
      .check([](const std::map<std::string, std::string>& values) {
        std::vector<ConfigProblem> out;
        if (auto it = values.find("tasks.max"); it != values.end() && it->second != "1")
          out.push_back({"tasks.max",
                         "FileStreamSource reads its one file with one task, as "
                         "Connect's does: set tasks.max=1 (more tasks would read "
                         "every line once each)"});
        return out;
      });
  return def;
}

}  // namespace

FileStreamSourceTask::~FileStreamSourceTask() {
  if (fd_ >= 0) ::close(fd_);
}

const ConfigDef& FileStreamSourceTask::configDef() {
  static const ConfigDef def = makeDef();
  return def;
}

std::string FileStreamSourceTask::version() const {
  return KSINK_FILE_SOURCE_VERSION;
}

void FileStreamSourceTask::start(const Config& config) {
  filename_ = config.getString("file");
  topic_ = config.getString("topic");
  batch_size_ = static_cast<size_t>(config.getInt("batch.size"));
  partition_ = SourceMap{{"filename", Value::string(filename_)}};
  const auto stored = context().offsetStorageReader().offset(partition_);
  if (!stored) return;
  for (const auto& [key, value] : *stored) {
    if ((key != "position" && key != "fingerprint") || value.isNull()) continue;
    if (value.kind() != Value::Kind::kInt)
      throw std::runtime_error(
          fmt::format("the stored offset of {} has a {} that is not "
                      "a whole number: {}",
                      filename_, key, Value::object(*stored).toJson()));
    if (key == "position")
      position_ = value.asInt();
    else
      stored_fingerprint_ = value.asInt();
  }
  spdlog::info("FileStreamSource: resuming {} at byte {}", filename_, position_);
}

bool FileStreamSourceTask::open() {
  fd_ = ::open(filename_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    spdlog::warn("FileStreamSource: cannot open {} ({}); waiting for it", filename_,
                 std::strerror(errno));
    return false;
  }
  fingerprint_.reset();
  if (position_ > 0) resume();
  stored_fingerprint_.reset();
  if (position_ > 0 && ::lseek(fd_, position_, SEEK_SET) < 0)
    throw std::runtime_error(fmt::format("FileStreamSource: cannot seek {} to byte {}: {}",
                                         filename_, position_, std::strerror(errno)));
  return true;
}

void FileStreamSourceTask::resume() {
  struct stat file {};
  if (::fstat(fd_, &file) != 0) fail("cannot stat");
  std::string before(std::min<size_t>(PositionFingerprint::kBytes, position_), '\0');
  const auto from = position_ - static_cast<int64_t>(before.size());
  const ssize_t got =
      file.st_size < position_ ? 0 : ::pread(fd_, before.data(), before.size(), from);
  if (got < 0) fail(fmt::format("cannot read the bytes before byte {} of", position_));
  if (static_cast<size_t>(got) < before.size()) {
    spdlog::warn(
        "FileStreamSource: {} holds {} bytes, fewer than the stored position {}: it was "
        "truncated or replaced while the connector was stopped; reading it from its beginning",
        filename_, file.st_size, position_);
    position_ = 0;
    return;
  }
  if (stored_fingerprint_ && PositionFingerprint::of(before) != *stored_fingerprint_) {
    spdlog::warn(
        "FileStreamSource: the bytes of {} before the stored position {} are not those that were "
        "read there: another file was put at the path, or it was rewritten, while the connector "
        "was stopped; reading it from its beginning",
        filename_, position_);
    position_ = 0;
    return;
  }
  fingerprint_.reset(before);
}

std::vector<SourceRecord> FileStreamSourceTask::poll() {
  if (fd_ < 0 && !open()) {
    wait();
    return {};
  }
  std::vector<SourceRecord> records;
  records.reserve(std::min<size_t>(batch_size_, 1024));
  int64_t read_at = nowMillis();  // Connect stamps a line with the time it was read
  size_t scanned = 0;             // bytes of buffer_ known to hold no line end
  size_t consumed = 0;
  bool eof = false;
  while (records.size() < batch_size_ && fd_ >= 0) {
    // The next line end from `scanned` on; a \r last in the buffer waits for what follows it.
    size_t until = std::string::npos, next = 0;
    for (size_t i = std::max(scanned, consumed); i < buffer_.size(); ++i) {
      if (buffer_[i] == '\n') {
        until = i;
        next = i + 1;
        break;
      }
      if (buffer_[i] == '\r') {
        if (i + 1 >= buffer_.size()) break;
        until = i;
        next = buffer_[i + 1] == '\n' ? i + 2 : i + 1;
        break;
      }
    }
    if (until != std::string::npos) {
      records.push_back(lineRecord(std::string_view(buffer_).substr(consumed, next - consumed),
                                   until - consumed, read_at));
      consumed = next;
      scanned = next;
      continue;
    }
    scanned = buffer_.size();
    if (eof) break;
    const size_t old = buffer_.size();
    buffer_.resize(old + kReadChunk);
    const ssize_t n = ::read(fd_, buffer_.data() + old, kReadChunk);
    if (n < 0) {
      buffer_.resize(old);
      if (errno == EINTR) continue;
      fail("cannot read");
    }
    buffer_.resize(old + static_cast<size_t>(n));
    read_at = nowMillis();
    if (n > 0) {
      if (scanned > 0 && buffer_[scanned - 1] == '\r') --scanned;  // a \r may now be followed
      continue;
    }
    // The end of what the open file holds: where a rotation shows.
    const int64_t read_end = position_ + static_cast<int64_t>(buffer_.size() - consumed);
    const Rotation rotation = rotated(read_end);
    if (rotation == Rotation::kNone) {
      eof = true;
    } else if (rotation == Rotation::kReplaced && !draining_) {
      draining_ = true;  // once more to its end: what its writer added before moving on
    } else {
      // What was read and is not yet a line is the old content's last line.
      if (consumed < buffer_.size()) {
        const std::string_view rest = std::string_view(buffer_).substr(consumed);
        records.push_back(lineRecord(rest, rest.size() - (rest.back() == '\r'), read_at));
      }
      buffer_.clear();
      consumed = scanned = 0;
      startOver(rotation, read_end);
    }
  }
  buffer_.erase(0, consumed);
  if (records.empty()) wait();
  return records;
}

SourceRecord FileStreamSourceTask::lineRecord(std::string_view bytes, size_t length,
                                              int64_t read_at) {
  position_ += static_cast<int64_t>(bytes.size());
  fingerprint_.advance(bytes);
  std::string line(bytes.substr(0, length));
  if (replaceMalformedUtf8(line) && !warned_malformed_) {
    warned_malformed_ = true;
    spdlog::warn(
        "FileStreamSource: {} has text that is not valid UTF-8 (first in the line ending at "
        "byte {}); each malformed sequence is sent as U+FFFD, as Kafka Connect does",
        filename_, position_);
  }
  static const auto schema = Schema::of(Schema::Type::kString);
  return SourceRecord(partition_,
                      SourceMap{{"position", Value::integer(position_)},
                                {"fingerprint", Value::integer(fingerprint_.value())}},
                      topic_, std::nullopt, SchemaAndValue{},
                      SchemaAndValue{schema, Value::string(std::move(line))}, read_at);
}

FileStreamSourceTask::Rotation FileStreamSourceTask::rotated(int64_t read_end) {
  struct stat open_file {};
  if (::fstat(fd_, &open_file) != 0) fail("cannot stat");
  if (open_file.st_size < read_end) return Rotation::kTruncated;
  struct stat at_path {};
  if (::stat(filename_.c_str(), &at_path) != 0) {
    if (!warned_removed_)
      spdlog::warn(
          "FileStreamSource: {} was removed ({}); what was written to it is read, then the file "
          "created at the path next, from its beginning",
          filename_, std::strerror(errno));
    warned_removed_ = true;
    return Rotation::kNone;
  }
  warned_removed_ = false;
  // A new empty file may be one made for a writer that still writes to the old (logrotate's
  // `create`): the old is followed until the new one has data.
  if ((at_path.st_ino == open_file.st_ino && at_path.st_dev == open_file.st_dev) ||
      at_path.st_size == 0) {
    draining_ = false;
    return Rotation::kNone;
  }
  return Rotation::kReplaced;
}

void FileStreamSourceTask::startOver(Rotation rotation, int64_t read_end) {
  position_ = 0;
  fingerprint_.reset();
  if (rotation == Rotation::kTruncated) {
    spdlog::warn(
        "FileStreamSource: {} was truncated (it holds fewer bytes than the {} read); reading it "
        "again from its beginning",
        filename_, read_end);
    if (::lseek(fd_, 0, SEEK_SET) < 0) fail("cannot seek to the beginning of");
    return;
  }
  spdlog::warn(
      "FileStreamSource: {} is another file now (rotated: renamed or removed, then created "
      "again); the old one was read to its end ({} bytes), the new one is read from its "
      "beginning",
      filename_, read_end);
  ::close(fd_);
  fd_ = -1;
  draining_ = false;
  open();  // when it is gone again already, the next poll() waits for it
}

void FileStreamSourceTask::fail(const std::string& what) const {
  throw std::runtime_error(
      fmt::format("FileStreamSource: {} {}: {}", what, filename_, std::strerror(errno)));
}

void FileStreamSourceTask::wait() {
  std::unique_lock lock(mutex_);
  woken_.wait_for(lock, kNoDataWait, [&] { return wake_; });
  wake_ = false;
}

void FileStreamSourceTask::wakeup() {
  std::lock_guard lock(mutex_);
  wake_ = true;
  woken_.notify_all();
}

void FileStreamSourceTask::stop() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace ksink
