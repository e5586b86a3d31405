// Fuzz target: every converter on arbitrary bytes. The only acceptable failure is
// ConversionError; any other exception, crash, hang or sanitizer report is a bug.
// The first input byte picks the converter; the rest is the record value.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "ksink/converter.h"

namespace {

std::unique_ptr<ksink::Converter> make(const char* name, const char* schemas) {
  return ksink::Converter::create(
      ksink::Config(std::map<std::string, std::string>{{"value.converter", name},
                                                       {"value.converter.schemas.enable", schemas}}),
      false);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static auto json_envelope = make("json", "true");
  static auto json_plain = make("json", "false");
  static auto string = make("string", "false");
  static auto bytes = make("bytes", "false");
  if (size == 0) return 0;
  ksink::Converter* converters[] = {json_envelope.get(), json_plain.get(), string.get(),
                                    bytes.get()};
  auto* converter = converters[data[0] % 4];
  const std::string_view value(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    auto result = converter->toConnectData("fuzz", value);
    (void)result;
  } catch (const ksink::ConversionError&) {
  }
  return 0;
}
