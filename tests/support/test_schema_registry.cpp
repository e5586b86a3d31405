#include "test_schema_registry.h"

#include <fmt/format.h>

#include <cstdlib>

#include "command_output.h"
#include "test_kafka.h"

namespace ksink::it {

SchemaRegistryProcess::SchemaRegistryProcess(std::filesystem::path workdir)
    : workdir_(std::move(workdir)) {}

SchemaRegistryProcess::~SchemaRegistryProcess() {
  try {
    stop();
    test::scriptOutput(fmt::format("'{}/integration/schema-registry/stop.sh' '{}' --purge",
                                   KSINK_SOURCE_DIR, workdir_.string()));
  } catch (...) {
  }
}

std::string SchemaRegistryProcess::start() {
  url_ = test::scriptOutput(fmt::format("'{}/integration/schema-registry/start.sh' '{}'",
                                        KSINK_SOURCE_DIR, workdir_.string()));
  running_ = true;
  return url_;
}

void SchemaRegistryProcess::stop() {
  if (!running_) return;
  running_ = false;
  test::scriptOutput(fmt::format("'{}/integration/schema-registry/stop.sh' '{}'", KSINK_SOURCE_DIR,
                                 workdir_.string()));
}

void SchemaRegistryProcess::pause() {
  test::scriptOutput(fmt::format("kill -STOP \"$(cat '{}/pid')\"", workdir_.string()));
}

void SchemaRegistryProcess::resume() {
  test::scriptOutput(fmt::format("kill -CONT \"$(cat '{}/pid')\"", workdir_.string()));
}

const std::string& TestSchemaRegistry::url() {
  static std::unique_ptr<SchemaRegistryProcess> own;
  static const std::string url = [] {
    if (const char* env = std::getenv("KSINK_TEST_REGISTRY_URL"); env && *env)
      return std::string(env);
    own = std::make_unique<SchemaRegistryProcess>(freshDir("ksink-registry"));
    return own->start();
  }();
  return url;
}

}  // namespace ksink::it
