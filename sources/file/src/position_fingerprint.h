// PositionFingerprint: what the bytes just before a read position of a file are — a hash (64-bit
// FNV-1a) of the last kBytes of them, fewer at the file's start — stored beside the position in
// the source offset so that a restart can tell whether the file at the path is still the one that
// was read: a file truncated and written again, or another file put at the path, almost never has
// the same bytes there. One owner, no locking (the task's thread).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ksink {

class PositionFingerprint {
 public:
  static constexpr size_t kBytes = 64;

  // The position is at the start of a file, or after `before` (of which the last kBytes count).
  void reset(std::string_view before = {}) {
    window_.assign(before.substr(before.size() - std::min(before.size(), kBytes)));
  }
  // The position moved past `bytes`.
  void advance(std::string_view bytes) {
    if (bytes.size() >= kBytes) return reset(bytes);
    window_.append(bytes);
    if (window_.size() > kBytes) window_.erase(0, window_.size() - kBytes);
  }
  int64_t value() const { return of(window_); }

  // The fingerprint of a position preceded by `before` (its last kBytes).
  static int64_t of(std::string_view before) {
    before = before.substr(before.size() - std::min(before.size(), kBytes));
    uint64_t hash = 0xcbf29ce484222325;  // FNV-1a 64's offset basis and prime
    for (const unsigned char c : before) hash = (hash ^ c) * 0x100000001b3;
    return static_cast<int64_t>(hash);
  }

 private:
  std::string window_;
};

}  // namespace ksink
