#include "plugin_loader.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>

#include "ksink/config_exception.h"
#include "ksink/plugin.h"

namespace ksink {
namespace {

[[noreturn]] void fail(std::string reason) {
  throw ConfigException({{"plugin.path", std::move(reason)}});
}

}  // namespace

std::vector<std::string> loadPlugins(const std::vector<std::string>& directories,
                                     ConnectorRegistry& registry) {
  namespace fs = std::filesystem;
  std::vector<std::string> loaded;
  for (const auto& dir : directories) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) fail(fmt::format("'{}' is not a directory", dir));
    std::vector<fs::path> libraries;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.is_regular_file() && entry.path().extension() == ".so")
        libraries.push_back(entry.path());
    std::sort(libraries.begin(), libraries.end());
    for (const auto& path : libraries) {
      // Never unloaded: the sinks' code must outlive every task created from them.
      void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!handle) fail(fmt::format("cannot load {}: {}", path.string(), ::dlerror()));
      auto version = reinterpret_cast<int (*)()>(::dlsym(handle, "ksink_plugin_abi_version"));
      if (!version)
        fail(fmt::format("{} is not a ksink plugin (no KSINK_PLUGIN entry point)", path.string()));
      if (version() != KSINK_PLUGIN_ABI_VERSION)
        fail(
            fmt::format("{} was built for plugin ABI {}{}, this ksink loads ABI {}: rebuild it "
                        "against this SDK",
                        path.string(), version(),
                        version() == 1   ? " (the sinks-only SinkRegistry)"
                        : version() == 2 ? " (sources registered as bytes-only drivers)"
                        : version() == 3 ? " (sinks that got records unconverted)"
                                         : "",
                        KSINK_PLUGIN_ABI_VERSION));
      auto init = reinterpret_cast<void (*)(ConnectorRegistry&)>(
          ::dlsym(handle, "ksink_register_connectors"));
      if (!init)
        fail(fmt::format("{} is not a ksink plugin (no KSINK_PLUGIN entry point)", path.string()));
      init(registry);
      spdlog::info("loaded plugin {}", path.string());
      loaded.push_back(path.string());
    }
  }
  return loaded;
}

}  // namespace ksink
