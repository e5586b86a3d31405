// FileOffsetStore: source offsets in Kafka Connect standalone's offsets file
// (offset.storage.file.filename): a Java-serialized HashMap<byte[],byte[]> of the entries' key and
// value bytes (java_serialized_map.h), a reset offset kept as a null value — so Connect's
// standalone worker and ksink read each other's file.
//
// Written atomically, where Connect rewrites the file in place: the whole map goes to a temporary
// file beside it, which is synced and renamed over it, so a crash leaves the old file or the new
// one, never a torn one. A file that is there but cannot be read, or is empty (as no writer leaves
// it but Connect's interrupted rewrite), stops the task with the reason (Connect starts over from
// no offsets); a missing one means no offsets yet.
//
// One store per file per process, shared by every task naming it (forFile()); thread-safe. A write
// is durable when write() returns, which calls `done` before returning. A started store holds an
// exclusive lock (flock on <file>.lock) until it is destroyed: a second process — another ksink
// running a connector on the file, or `ksink offsets` changing it — is refused while one runs,
// since each rewrites the whole file and would undo the other's writes. A store opened to read
// (Access::kRead, `ksink offsets` listing) takes no lock: the file is only ever replaced whole.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "java_serialized_map.h"
#include "offset_backing_store.h"

namespace ksink {

class FileOffsetStore final : public OffsetBackingStore {
 public:
  enum class Access {
    kReadWrite,  // start() takes the lock
    kRead,       // start() reads without it; write() fails
  };

  static std::shared_ptr<FileOffsetStore> forFile(const std::string& path);
  explicit FileOffsetStore(std::string path, Access access = Access::kReadWrite);
  ~FileOffsetStore() override;

  void start() override;  // loads the file once
  void write(const OffsetEntries& entries, Done done) override;
  void poll(std::chrono::milliseconds) override {}
  std::optional<std::string> get(std::string_view key) const override;
  std::vector<std::string> keys() const override;

 private:
  void takeLock();  // the flock on <file>.lock, with mutex_ held
  void save();      // with mutex_ held

  const std::string path_;
  const Access access_;
  mutable std::mutex mutex_;
  bool loaded_ = false;
  int lock_fd_ = -1;
  JavaByteArrayMap entries_;
};

}  // namespace ksink
