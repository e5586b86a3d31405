// Fuzz target: every converter on arbitrary bytes, both ways. The only acceptable failure is
// ConversionError; any other exception, crash, hang or sanitizer report is a bug. What a converter
// read it writes, and what it wrote it reads back to data that writes the same bytes again (the
// first write may normalise: a float32 is written as a float, a null takes its default).
// The first input byte picks the converter; the rest is the record value.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ksink/converter.h"

namespace {

std::unique_ptr<ksink::Converter> make(const char* name, const char* schemas) {
  return ksink::Converter::create(
      ksink::Config(std::map<std::string, std::string>{
          {"value.converter", name}, {"value.converter.schemas.enable", schemas}}),
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
  ksink::SchemaAndValue read;
  try {
    read = converter->toConnectData("fuzz", value);
  } catch (const ksink::ConversionError&) {
    return 0;  // bytes the converter refuses
  }
  // From here on any exception is a bug: what was read can be written, and read back.
  const auto written = converter->fromConnectData("fuzz", read);
  if (!written) return 0;
  const auto again = converter->fromConnectData("fuzz", converter->toConnectData("fuzz", *written));
  if (again != written) __builtin_trap();  // writing is not stable
  return 0;
}
