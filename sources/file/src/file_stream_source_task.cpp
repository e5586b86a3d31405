#include "file_stream_source_task.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
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
    if (key != "position" || value.isNull()) continue;
    if (value.kind() != Value::Kind::kInt)
      throw std::runtime_error(
          fmt::format("the stored offset of {} has a position that is not "
                      "a whole number: {}",
                      filename_, Value::object(*stored).toJson()));
    position_ = value.asInt();
    spdlog::info("FileStreamSource: resuming {} at byte {}", filename_, position_);
  }
}

bool FileStreamSourceTask::open() {
  fd_ = ::open(filename_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    spdlog::warn("FileStreamSource: cannot open {} ({}); waiting for it", filename_,
                 std::strerror(errno));
    return false;
  }
  if (position_ > 0 && ::lseek(fd_, position_, SEEK_SET) < 0)
    throw std::runtime_error(fmt::format("FileStreamSource: cannot seek {} to byte {}: {}",
                                         filename_, position_, std::strerror(errno)));
  return true;
}

std::vector<SourceRecord> FileStreamSourceTask::poll() {
  if (fd_ < 0 && !open()) {
    wait();
    return {};
  }
  std::vector<SourceRecord> records;
  records.reserve(std::min<size_t>(batch_size_, 1024));
  const auto schema = Schema::of(Schema::Type::kString);
  int64_t read_at = nowMillis();  // Connect stamps a line with the time it was read
  size_t scanned = 0;             // bytes of buffer_ known to hold no line end
  size_t consumed = 0;
  bool eof = false;
  while (records.size() < batch_size_) {
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
      position_ += static_cast<int64_t>(next - consumed);
      std::string line = buffer_.substr(consumed, until - consumed);
      if (replaceMalformedUtf8(line) && !warned_malformed_) {
        warned_malformed_ = true;
        spdlog::warn(
            "FileStreamSource: {} has text that is not valid UTF-8 (first in the line ending at "
            "byte {}); each malformed sequence is sent as U+FFFD, as Kafka Connect does",
            filename_, position_);
      }
      records.emplace_back(partition_, SourceMap{{"position", Value::integer(position_)}}, topic_,
                           std::nullopt, SchemaAndValue{},
                           SchemaAndValue{schema, Value::string(std::move(line))}, read_at);
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
      throw std::runtime_error(
          fmt::format("FileStreamSource: reading {} failed: {}", filename_, std::strerror(errno)));
    }
    buffer_.resize(old + static_cast<size_t>(n));
    read_at = nowMillis();
    if (n == 0) eof = true;
    if (scanned > 0 && buffer_[scanned - 1] == '\r') --scanned;  // a \r may now be followed
  }
  buffer_.erase(0, consumed);
  if (records.empty()) wait();
  return records;
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
