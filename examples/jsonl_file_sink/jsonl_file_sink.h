// JsonlFileSink: the example sink of the README's "write your own sink". Appends every record as
// one JSON line ({"topic","partition","offset","timestamp","key","value"}) to the file named by
// `file`, as the runtime converted and transformed it (key.converter, value.converter,
// transforms=): bytes (the default converter's) as their text, a Struct as a JSON object; put()
// hands each batch to the OS, flush() makes the file durable (fsync), so the default preCommit only
// lets the worker commit what is on disk: at-least-once delivery into a file.
#pragma once

#include <cstdio>
#include <string>

#include "ksink/connect_record.h"
#include "ksink/ksink.h"

namespace example {

class JsonlFileSink : public ksink::SinkTask {
 public:
  static const ksink::ConfigDef& configDef();

  void start(const ksink::Config& config) override;
  void put(std::span<const ksink::SinkRecord> records) override;
  void flush(const ksink::OffsetMap& offsets) override;
  void stop() override;
  std::string version() const override { return "1.0"; }

 private:
  std::FILE* file_ = nullptr;
  std::string line_;  // reused buffer
};

}  // namespace example
