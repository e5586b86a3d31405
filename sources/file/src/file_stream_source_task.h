// FileStreamSourceTask: Kafka Connect's file source task. Reads a file's lines as they are
// appended (a line ends at \n, \r\n or \r), each one a record with a null key, the line as a
// string value (schema: required string; decoded as UTF-8 as Connect's is, each malformed sequence
// one U+FFFD, see ksink/utf8.h) and the time it was read; batch.size lines at most per
// poll(). Source partition {"filename": <file>}, offset {"position": <bytes before the next line>}:
// at start it resumes there.
//
// Where it differs from Connect's: the position counts bytes, where Connect's counts UTF-16 units
// of the decoded text — equal for ASCII text, and bytes are what both skip when they resume, so
// Connect's task resumes a file with other text at the wrong place and this one does not. An
// empty `file` (stdin in Connect) is refused. When nothing new is there, poll() waits up to a
// second, but returns at once on wakeup().
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ksink/source_task.h"

namespace ksink {

class FileStreamSourceTask final : public SourceTask {
 public:
  static constexpr std::chrono::milliseconds kNoDataWait{1000};

  ~FileStreamSourceTask() override;
  void start(const Config& config) override;
  std::vector<SourceRecord> poll() override;
  void wakeup() override;
  void stop() override;
  std::string version() const override;

  static const ConfigDef& configDef();

 private:
  bool open();  // false while the file is missing
  void wait();

  std::string filename_;
  SourceMap partition_;  // {"filename": filename_}, as Connect builds it
  std::string topic_;
  size_t batch_size_ = 2000;
  int fd_ = -1;
  int64_t position_ = 0;           // bytes before the first unread line
  std::string buffer_;             // read, not yet a whole line
  bool warned_malformed_ = false;  // once per task: a file of another encoding would flood the log
  std::mutex mutex_;
  std::condition_variable woken_;
  bool wake_ = false;
};

}  // namespace ksink
