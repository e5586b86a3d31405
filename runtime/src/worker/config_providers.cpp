#include "config_providers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "ksink/config.h"
#include "ksink/config_exception.h"
#include "ksink/detail/config_parse.h"
#include "ksink/detail/read_file.h"

namespace ksink {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPrefix = "config.providers";
// Connect's ConfigTransformer.DEFAULT_PATTERN: ${provider:[path:]key}.
const std::regex& referencePattern() {
  static const std::regex pattern(R"(\$\{([^}]*?):(([^}]*?):)?([^}]*?)\})");
  return pattern;
}

// A reference's failure, carried to the key it was found in.
struct Unresolved : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string readWhole(const fs::path& path) {
  auto text = readFile(path);
  if (!text) throw Unresolved(fmt::format("cannot read {}", path.string()));
  return std::move(*text);
}

// allowed.paths: the path, made absolute and normal, lies under one of the roots.
void requireAllowed(const std::string& roots, const fs::path& path) {
  if (roots.empty()) return;
  const auto normal = fs::absolute(path).lexically_normal();
  for (const auto& root : detail::parseList(roots)) {
    const auto base = fs::path(root).lexically_normal();
    const auto relative = normal.lexically_relative(base);
    if (!relative.empty() && *relative.begin() != "..") return;
  }
  throw Unresolved(fmt::format("{} is outside allowed.paths ({})", path.string(), roots));
}

}  // namespace

ConfigProviders ConfigProviders::fromWorker(const std::map<std::string, std::string>& worker) {
  ConfigProviders out;
  std::vector<ConfigProblem> problems;
  std::vector<std::string> declared;
  if (const auto names = worker.find(std::string(kPrefix)); names != worker.end())
    declared = detail::parseList(names->second);
  for (const auto& name : declared) {
    const auto prefix = fmt::format("{}.{}.", kPrefix, name);
    const auto cls = worker.find(prefix + "class");
    if (cls == worker.end()) {
      problems.push_back({prefix + "class", "is required for each of config.providers"});
      continue;
    }
    const auto type = std::string(detail::trim(cls->second));
    Provider provider;
    if (type == "org.apache.kafka.common.config.provider.EnvVarConfigProvider") {
      provider.kind = Kind::kEnv;
    } else if (type == "org.apache.kafka.common.config.provider.FileConfigProvider") {
      provider.kind = Kind::kFile;
    } else if (type == "org.apache.kafka.common.config.provider.DirectoryConfigProvider") {
      provider.kind = Kind::kDirectory;
    } else {
      problems.push_back(
          {prefix + "class", fmt::format("'{}' is not a provider ksink has (EnvVarConfigProvider, "
                                         "FileConfigProvider, DirectoryConfigProvider)",
                                         type)});
      continue;
    }
    out.providers_.emplace(name, provider);
  }
  // Parameters: only those the providers read, on declared providers.
  for (auto it = worker.lower_bound(std::string(kPrefix) + "."); it != worker.end(); ++it) {
    const auto& key = it->first;
    if (!key.starts_with(std::string(kPrefix) + ".")) break;
    const auto rest = key.substr(kPrefix.size() + 1);
    const auto dot = rest.find('.');
    const auto name = rest.substr(0, dot);
    const auto setting = dot == std::string::npos ? "" : rest.substr(dot + 1);
    auto provider = out.providers_.find(name);
    if (provider == out.providers_.end()) {
      // A declared provider whose class was refused has its problem already.
      if (std::find(declared.begin(), declared.end(), name) == declared.end())
        problems.push_back({key, fmt::format("'{}' is not one of config.providers", name)});
      continue;
    }
    if (setting == "class") continue;
    if (setting == "param.allowlist.pattern" && provider->second.kind == Kind::kEnv) {
      try {
        provider->second.allowlist = std::regex(it->second);
      } catch (const std::regex_error& e) {
        problems.push_back(
            {key, fmt::format("'{}' is not a regular expression: {}", it->second, e.what())});
      }
    } else if (setting == "param.allowed.paths" && provider->second.kind != Kind::kEnv) {
      provider->second.allowed_paths = it->second;
    } else {
      problems.push_back({key, "is not a parameter of this provider"});
    }
  }
  if (!problems.empty()) throw ConfigException(std::move(problems));
  return out;
}

std::string ConfigProviders::lookup(const std::string& name, const std::string& path,
                                    const std::string& key) const {
  const auto it = providers_.find(name);
  if (it == providers_.end())
    throw Unresolved(
        fmt::format("names config provider '{}', which config.providers does not "
                    "declare",
                    name));
  const auto& provider = it->second;
  switch (provider.kind) {
    case Kind::kEnv: {
      if (provider.allowlist && !std::regex_match(key, *provider.allowlist))
        throw Unresolved(
            fmt::format("environment variable {} is not allowed by allowlist.pattern", key));
      const char* value = std::getenv(key.c_str());
      if (!value) throw Unresolved(fmt::format("environment variable {} is not set", key));
      return value;
    }
    case Kind::kFile: {
      if (path.empty()) throw Unresolved("a file reference needs a path: ${file:<path>:<key>}");
      requireAllowed(provider.allowed_paths, path);
      const auto values = Config::parseProperties(readWhole(path));
      const auto found = values.find(key);
      if (found == values.end()) throw Unresolved(fmt::format("{} has no key {}", path, key));
      return found->second;
    }
    case Kind::kDirectory: {
      if (path.empty())
        throw Unresolved("a directory reference needs a path: ${<provider>:<directory>:<file>}");
      const auto file = fs::path(path) / key;
      requireAllowed(provider.allowed_paths, file);
      if (fs::path(key).has_parent_path() || !fs::is_regular_file(file))
        throw Unresolved(fmt::format("{} is not a file of {}", key, path));
      return readWhole(file);
    }
  }
  throw Unresolved("unknown provider");
}

std::map<std::string, std::string> ConfigProviders::resolve(
    std::map<std::string, std::string> values) const {
  std::vector<ConfigProblem> problems;
  for (auto& [key, value] : values) {
    if (key.starts_with(kPrefix)) continue;
    if (value.find("${") == std::string::npos) continue;
    std::string out;
    auto at = value.cbegin();
    try {
      for (std::sregex_iterator m(value.begin(), value.end(), referencePattern()), end; m != end;
           ++m) {
        out.append(at, (*m)[0].first);
        out += lookup((*m)[1].str(), (*m)[3].str(), (*m)[4].str());
        at = (*m)[0].second;
      }
    } catch (const Unresolved& e) {
      // The reason only: the value may hold other secrets.
      problems.push_back({key, fmt::format("a ${{…:…}} reference {}", e.what())});
      continue;
    }
    out.append(at, value.cend());
    value = std::move(out);
  }
  if (!problems.empty()) throw ConfigException(std::move(problems));
  return values;
}

}  // namespace ksink
