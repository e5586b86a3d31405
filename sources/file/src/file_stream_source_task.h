// FileStreamSourceTask: Kafka Connect's file source task. Reads a file's lines as they are
// appended (a line ends at \n, \r\n or \r), each one a record with a null key, the line as a
// string value (schema: required string; decoded as UTF-8 as Connect's is, each malformed sequence
// one U+FFFD, see ksink/utf8.h) and the time it was read; batch.size lines at most per poll().
// Source partition {"filename": <file>}, offset {"position": <bytes before the next line>,
// "fingerprint": <PositionFingerprint of the bytes before it>}: at start it resumes there.
//
// Where it differs from Connect's: the position counts bytes, where Connect's counts UTF-16 units
// of the decoded text — equal for ASCII text, and bytes are what both skip when they resume, so
// Connect's task resumes a file with other text at the wrong place and this one does not. An
// empty `file` (stdin in Connect) is refused. When nothing new is there, poll() waits up to a
// second, but returns at once on wakeup().
//
// And it follows log rotation, which Connect's does not see (it reads the open stream forever,
// and resumes a new file at the old file's position): at the end of what it has read it looks at
// the file; one truncated below what was read is read again from its beginning, and when the path
// names another file (renamed or removed, then created) that has data, the old one is read to its
// end, then the new one from its beginning; what the old held after its last line end is sent as
// its last line. At a restart, a file shorter than the stored position, or whose bytes before it
// are not the fingerprint's, is read from its beginning. Each is logged as a warning.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/source_task.h"
#include "position_fingerprint.h"

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
  // What happened to the file, seen at the end of what the open one holds.
  enum class Rotation {
    kNone,
    kTruncated,  // the open file holds fewer bytes than were read: read it again from byte 0
    kReplaced,   // the path names another file, which has data: read that one from byte 0
  };

  bool open();    // false while the file is missing
  void resume();  // checks a stored position against the file just opened
  SourceRecord lineRecord(std::string_view bytes, size_t length, int64_t read_at);
  Rotation rotated(int64_t read_end);
  void startOver(Rotation rotation, int64_t read_end);
  [[noreturn]] void fail(const std::string& what) const;  // with errno's text
  void wait();

  std::string filename_;
  SourceMap partition_;  // {"filename": filename_}, as Connect builds it
  std::string topic_;
  size_t batch_size_ = 2000;
  int fd_ = -1;
  int64_t position_ = 0;                       // bytes before the first unread line
  PositionFingerprint fingerprint_;            // of the bytes before position_
  std::optional<int64_t> stored_fingerprint_;  // the stored offset's, until the file is opened
  std::string buffer_;                         // read, not yet a whole line
  bool draining_ = false;  // replaced: the old file is being read to its end once more
  bool warned_removed_ = false;
  bool warned_malformed_ = false;  // once per task: a file of another encoding would flood the log
  std::mutex mutex_;
  std::condition_variable woken_;
  bool wake_ = false;
};

}  // namespace ksink
