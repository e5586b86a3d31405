// ConfigProviders: Kafka Connect's configuration providers (KIP-297), so that secrets stay out of
// the .properties files as they do under Connect. The worker file declares them:
//
//   config.providers=env,file
//   config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider
//   config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider
//
// and any value of the worker or a connector file may hold `${provider:[path:]key}`: an
// environment variable (EnvVarConfigProvider, `${env:PGPASS}`), a key of a properties file
// (FileConfigProvider, `${file:/etc/ksink/secrets.properties:password}`) or a file's contents
// (DirectoryConfigProvider, `${dir:/run/secrets:pgpass}`). Their parameters
// `config.providers.<name>.param.allowlist.pattern` (env) and `….param.allowed.paths` (file,
// directory) are honoured.
//
// Where Connect leaves a reference it cannot resolve in place (the text `${env:X}` would become a
// table name or a password), ksink refuses the configuration, naming the key: an undeclared
// provider, a missing variable, file or key. Pure; any thread.
#pragma once

#include <map>
#include <optional>
#include <regex>
#include <string>

namespace ksink {

class ConfigProviders {
 public:
  // The providers the worker's config.providers keys declare. Throws ConfigException naming a
  // bad declaration (unknown class, unknown parameter).
  static ConfigProviders fromWorker(const std::map<std::string, std::string>& worker);

  // `values` with every reference replaced. Throws ConfigException naming each key whose
  // reference cannot be resolved. The config.providers keys themselves are left as they are.
  std::map<std::string, std::string> resolve(std::map<std::string, std::string> values) const;

 private:
  enum class Kind { kEnv, kFile, kDirectory };
  struct Provider {
    Kind kind;
    std::optional<std::regex> allowlist;  // env: variables it may read (anchored); none: any
    std::string allowed_paths;            // file, directory: comma-separated roots (empty: any)
  };
  std::string lookup(const std::string& name, const std::string& path,
                     const std::string& key) const;

  std::map<std::string, Provider> providers_;
};

}  // namespace ksink
