// RecordBytes: the bytes of a batch's records — keys, values, headers, topic names — copied out of
// librdkafka's messages as they are polled, so that a message (and the fetch buffer it pins, and
// librdkafka's per-message structures) is released at once rather than when its batch is put.
// Copies share 256 KiB chunks, up to 8 MiB of them kept across clear(), so a steady stream of
// batches allocates nothing; a record over 64 KiB gets an allocation of its own (so that chunks
// waste at most that), freed at clear().
//
// Thread-safety: one owner (a task's batch).
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace ksink {

class RecordBytes {
 public:
  // A copy of `bytes` that stays valid until clear().
  std::string_view copy(std::string_view bytes);
  // Forgets every copy; keeps up to 8 MiB of chunks for reuse.
  void clear();
  // Bytes allocated, used or not.
  size_t capacity() const;

 private:
  static constexpr size_t kChunkSize = 256 * 1024;
  static constexpr size_t kOutsized = kChunkSize / 4;
  static constexpr size_t kKeptChunks = 32;

  std::vector<std::unique_ptr<char[]>> chunks_;
  std::vector<std::pair<std::unique_ptr<char[]>, size_t>> outsized_;
  size_t current_ = 0;  // the chunk being filled
  size_t used_ = 0;     // bytes used in it
};

}  // namespace ksink
