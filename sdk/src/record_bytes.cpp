#include "record_bytes.h"

#include <cstring>

namespace ksink {

std::string_view RecordBytes::copy(std::string_view bytes) {
  if (bytes.empty()) return std::string_view("", 0);
  if (bytes.size() > kChunkSize) {  // its own allocation, freed at clear()
    auto& own = outsized_.emplace_back(std::make_unique_for_overwrite<char[]>(bytes.size()));
    std::memcpy(own.get(), bytes.data(), bytes.size());
    return {own.get(), bytes.size()};
  }
  while (current_ < chunks_.size() && kChunkSize - used_ < bytes.size()) {
    ++current_;
    used_ = 0;
  }
  if (current_ == chunks_.size()) {
    chunks_.push_back(std::make_unique_for_overwrite<char[]>(kChunkSize));
    used_ = 0;
  }
  char* at = chunks_[current_].get() + used_;
  std::memcpy(at, bytes.data(), bytes.size());
  used_ += bytes.size();
  return {at, bytes.size()};
}

void RecordBytes::clear() {
  outsized_.clear();
  current_ = 0;
  used_ = 0;
}

}  // namespace ksink
