// A real schema registry for the integration tests: Apicurio Registry, which serves Confluent's
// REST API under /apis/ccompat/v7 (integration/schema-registry/start.sh).
//
// TestSchemaRegistry::shared() is the registry named by KSINK_TEST_REGISTRY_URL or, when unset,
// one this test binary starts itself and stops at exit: a test never skips because no registry
// runs. A test that stops a registry mid-run (an outage) runs a SchemaRegistryProcess of its own.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

namespace ksink::it {

class SchemaRegistryProcess {
 public:
  explicit SchemaRegistryProcess(std::filesystem::path workdir);
  ~SchemaRegistryProcess();  // stops the registry and deletes its files
  SchemaRegistryProcess(const SchemaRegistryProcess&) = delete;
  SchemaRegistryProcess& operator=(const SchemaRegistryProcess&) = delete;
  // Starts (or restarts, on the same port: empty, it keeps nothing) the registry; returns the URL
  // of its Confluent API, what schema.registry.url takes.
  std::string start();
  void stop();
  // SIGSTOP / SIGCONT: a registry that accepts connections and never answers (a hung or
  // overloaded one), then answers again with everything it held.
  void pause();
  void resume();
  const std::string& url() const { return url_; }

 private:
  std::filesystem::path workdir_;
  std::string url_;
  bool running_ = false;
};

class TestSchemaRegistry {
 public:
  static const std::string& url();
};

}  // namespace ksink::it
