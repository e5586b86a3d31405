// Connect's ConfigInfos and ConfigKeyInfo as the REST API answers them
// (PUT /connector-plugins/{p}/config/validate, GET /connector-plugins/{p}/config): the keys a
// connector class takes, with their definitions, and for a configuration every problem
// `ksink validate` finds, under the key it belongs to.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ksink {

// The ConfigInfos of `config` (a connector's properties as submitted; `worker`'s keys under
// them): `name` is its connector.class, `error_count` the problems found, `configs` every key of
// the class (and any key a problem names) with its definition and value — a password shown as
// "[hidden]" — and its errors.
std::string configInfosJson(const std::map<std::string, std::string>& worker,
                            const std::map<std::string, std::string>& config);

// The [ConfigKeyInfo] of the connector class `plugin`; nullopt for a class not served here.
std::optional<std::string> pluginConfigJson(std::string_view plugin);

}  // namespace ksink
