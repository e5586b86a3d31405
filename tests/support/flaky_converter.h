// FlakyConverter: the string converter with injected faults, for tests of conversion retries and
// bad records (scenarios 34-37 of the Connect sink acceptance scenarios) on the embedded and the
// real broker. Values starting with "flaky" throw RetriableError the first `flaky_failures` times
// they are converted, "stuck" ones every time while `stuck` is set, "bad" ones throw
// ConversionError.
//
// Thread-safety: like any Converter, one per task; the Faults may be changed from any thread.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ksink/config.h"
#include "ksink/conversion_error.h"
#include "ksink/converter.h"
#include "ksink/retriable_error.h"

namespace ksink::testing {

struct Faults {
  std::atomic<int> flaky_failures{0};
  std::atomic<bool> stuck{true};
};

class FlakyConverter : public Converter {
 public:
  explicit FlakyConverter(std::shared_ptr<Faults> faults) : faults_(std::move(faults)) {}
  SchemaAndValue toConnectData(std::string_view topic,
                               std::optional<std::string_view> data) override {
    const auto v = data.value_or("");
    if ((v.starts_with("stuck") && faults_->stuck) ||
        (v.starts_with("flaky") && faults_->flaky_failures-- > 0))
      throw RetriableError("schema registry unavailable");
    if (v.starts_with("bad")) throw ConversionError("cannot parse");
    return inner_->toConnectData(topic, data);
  }
  // Writing has no faults to inject: the string converter's bytes.
  std::optional<std::string> fromConnectData(std::string_view topic,
                                             const SchemaAndValue& data) override {
    return inner_->fromConnectData(topic, data);
  }

 private:
  std::shared_ptr<Faults> faults_;
  std::unique_ptr<Converter> inner_ = Converter::create(
      Config(std::map<std::string, std::string>{{"value.converter", "string"}}), false);
};

}  // namespace ksink::testing
