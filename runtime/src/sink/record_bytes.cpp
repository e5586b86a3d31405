#include "record_bytes.h"

#include <cstring>

namespace ksink {

std::string_view RecordBytes::copy(std::string_view bytes) {
  if (bytes.empty()) return std::string_view("", 0);
  if (bytes.size() > kOutsized) {  // its own allocation, freed at clear()
    auto& [own, size] =
        outsized_.emplace_back(std::make_unique_for_overwrite<char[]>(bytes.size()), bytes.size());
    std::memcpy(own.get(), bytes.data(), size);
    return {own.get(), size};
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

size_t RecordBytes::capacity() const {
  size_t outsized = 0;
  for (const auto& [data, size] : outsized_) outsized += size;
  return chunks_.size() * kChunkSize + outsized;
}

void RecordBytes::clear() {
  outsized_.clear();
  // A burst of large records does not stay allocated for the batches after it.
  if (chunks_.size() > kKeptChunks) chunks_.resize(kKeptChunks);
  current_ = 0;
  used_ = 0;
}

}  // namespace ksink
