#include "ksink/transformation_chain.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "ksink/detail/config_parse.h"

namespace ksink {
namespace {

// What every step may have beside its transform's own keys (Connect's ConnectorConfig).
constexpr std::string_view kType = "type";
constexpr std::string_view kPredicate = "predicate";
constexpr std::string_view kNegate = "negate";

std::string joined(const std::vector<std::string>& names) {
  return names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "));
}

// The keys under `prefix` (e.g. "transforms.unwrap."), prefix removed, without the step's own.
std::map<std::string, std::string> ownKeys(const std::map<std::string, std::string>& values,
                                           const std::string& prefix, bool is_transform) {
  std::map<std::string, std::string> out;
  for (auto it = values.lower_bound(prefix); it != values.end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    auto key = it->first.substr(prefix.size());
    if (key == kType || (is_transform && (key == kPredicate || key == kNegate))) continue;
    out.emplace(std::move(key), it->second);
  }
  return out;
}

// Checks a component's keys against its definitions; problems are named with the full key.
template <typename Component>
void checkKeys(const Component& component, const std::map<std::string, std::string>& keys,
               const std::string& prefix, std::vector<ConfigProblem>& problems) {
  const auto& def = component.configDef();
  for (const auto& [key, value] : keys)
    if (!def.find(key))
      problems.push_back(
          {prefix + key,
           fmt::format("'{}' is not a key of this {} (its keys: {})", key,
                       prefix.starts_with("transforms.") ? "transform" : "predicate", [&] {
                         std::vector<std::string> names;
                         for (const auto& [n, _] : def.keys()) names.push_back(n);
                         return joined(names);
                       }())});
  for (auto& p : def.validate(keys)) problems.push_back({prefix + p.key, std::move(p.reason)});
}

template <typename Component>
void configureInto(Component& component, std::map<std::string, std::string> keys,
                   const std::string& prefix, std::vector<ConfigProblem>& problems) {
  try {
    component.configure(Config(std::move(keys), component.configDef()));
  } catch (const ConfigException& e) {
    for (const auto& p : e.problems()) problems.push_back({prefix + p.key, p.reason});
  }
}

// The component whose type `prefix`type names, made by `create` and configured with its own keys
// under `prefix`; null, with the problem, when the type is missing or unknown. One whose keys
// have problems is made but not configured.
template <typename Component, typename Create>
std::unique_ptr<Component> makeComponent(const std::map<std::string, std::string>& values,
                                         const std::string& prefix, std::string_view what,
                                         const std::vector<std::string>& known,
                                         const Create& create,
                                         std::vector<ConfigProblem>& problems) {
  const auto type = values.find(prefix + std::string(kType));
  if (type == values.end() || detail::trim(type->second).empty()) {
    problems.push_back({prefix + std::string(kType), fmt::format("is required for each {}", what)});
    return nullptr;
  }
  std::unique_ptr<Component> component = create(detail::trim(type->second));
  if (!component) {
    problems.push_back(
        {prefix + std::string(kType),
         fmt::format("unknown {} '{}' (known: {})", what, type->second, joined(known))});
    return nullptr;
  }
  auto keys = ownKeys(values, prefix, what == "transform");
  const auto before = problems.size();
  checkKeys(*component, keys, prefix, problems);
  if (problems.size() == before) configureInto(*component, std::move(keys), prefix, problems);
  return component;
}

// The transform `prefix`'s predicate (null: none) and negate; a predicate it names is marked
// `used`.
std::pair<const Predicate*, bool> stepCondition(
    const std::map<std::string, std::string>& values, const std::string& prefix,
    const std::map<std::string, const Predicate*>& predicates,
    const std::vector<std::string>& predicate_aliases, std::set<std::string>& used,
    std::vector<ConfigProblem>& problems) {
  std::pair<const Predicate*, bool> out{nullptr, false};
  if (auto it = values.find(prefix + std::string(kPredicate)); it != values.end()) {
    const std::string name(detail::trim(it->second));
    if (auto p = predicates.find(name); p != predicates.end()) {
      out.first = p->second;
      used.insert(name);
    } else if (std::find(predicate_aliases.begin(), predicate_aliases.end(), name) ==
               predicate_aliases.end()) {
      problems.push_back(
          {prefix + std::string(kPredicate),
           fmt::format("'{}' is not listed in predicates ({})", name, joined(predicate_aliases))});
    }
  }
  if (auto it = values.find(prefix + std::string(kNegate)); it != values.end()) {
    auto negate = detail::parseBoolean(it->second);
    if (!negate)
      problems.push_back(
          {prefix + std::string(kNegate), fmt::format("'{}' is not a boolean", it->second)});
    else if (*negate && !values.contains(prefix + std::string(kPredicate)))
      problems.push_back({prefix + std::string(kNegate), "needs a predicate to negate"});
    else
      out.second = *negate;
  }
  return out;
}

// Keys of aliases no list names: a chain the user meant but did not switch on.
void refuseUnlistedAliases(const std::map<std::string, std::string>& values,
                           const std::vector<std::string>& transforms,
                           const std::vector<std::string>& predicate_aliases,
                           std::vector<ConfigProblem>& problems) {
  for (const auto& [key, _] : values) {
    for (const auto* group : {"transforms.", "predicates."}) {
      const std::string_view g(group);
      if (!key.starts_with(g)) continue;
      const auto dot = key.find('.', g.size());
      if (dot == std::string::npos) continue;
      const auto alias = key.substr(g.size(), dot - g.size());
      const auto& names = g == "transforms." ? transforms : predicate_aliases;
      if (std::find(names.begin(), names.end(), alias) == names.end())
        problems.push_back(
            {key, fmt::format("'{}' is not listed in {} ({}), so this key would be ignored", alias,
                              g.substr(0, g.size() - 1), joined(names))});
    }
  }
}

}  // namespace

struct TransformationChain::Step {
  std::string alias;
  std::unique_ptr<Transformation> transformation;
  const Predicate* predicate = nullptr;
  bool negate = false;
};

TransformationChain::TransformationChain() = default;
TransformationChain::~TransformationChain() = default;
TransformationChain::TransformationChain(TransformationChain&&) noexcept = default;
TransformationChain& TransformationChain::operator=(TransformationChain&&) noexcept = default;

const ConfigDef& TransformationChain::configDef() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("transforms", ConfigDef::Type::kList, "", ConfigDef::Importance::kLow,
             "Aliases of the single message transforms applied to each record, in order; each "
             "alias has transforms.<alias>.type and the transform's own keys.");
    d.define("predicates", ConfigDef::Type::kList, "", ConfigDef::Importance::kLow,
             "Aliases of the predicates transforms may name in transforms.<alias>.predicate; "
             "each has predicates.<alias>.type and its own keys.");
    // The keys the aliases name, checked whole (types, their own keys, unused aliases).
    d.claimPrefix("transforms.").claimPrefix("predicates.");
    d.check([](const std::map<std::string, std::string>& values) { return problems(values); });
    return d;
  }();
  return def;
}

TransformationChain::TransformationChain(const Config& config,
                                         const TransformationRegistry& registry) {
  const auto& values = config.values();
  std::vector<ConfigProblem> problems;
  const auto list = [&](const char* key) {
    auto it = values.find(key);
    return it == values.end() ? std::vector<std::string>{} : detail::parseList(it->second);
  };
  const auto transforms = list("transforms");
  const auto predicate_aliases = list("predicates");

  std::map<std::string, const Predicate*> predicates;
  for (const auto& alias : predicate_aliases) {
    auto predicate = makeComponent<Predicate>(
        values, fmt::format("predicates.{}.", alias), "predicate", registry.predicateNames(),
        [&](std::string_view type) { return registry.createPredicate(type); }, problems);
    if (!predicate) continue;
    predicates.emplace(alias, predicate.get());
    predicates_.push_back(std::move(predicate));
  }

  std::set<std::string> used;
  for (const auto& alias : transforms) {
    const auto prefix = fmt::format("transforms.{}.", alias);
    const auto [predicate, negate] =
        stepCondition(values, prefix, predicates, predicate_aliases, used, problems);
    auto transformation = makeComponent<Transformation>(
        values, prefix, "transform", registry.transformationNames(),
        [&](std::string_view type) { return registry.createTransformation(type); }, problems);
    if (transformation) steps_.push_back({alias, std::move(transformation), predicate, negate});
  }

  refuseUnlistedAliases(values, transforms, predicate_aliases, problems);
  for (const auto& alias : predicate_aliases)
    if (predicates.contains(alias) && !used.contains(alias))
      problems.push_back({fmt::format("predicates.{}", alias),
                          "no transform names this predicate, so it would be ignored"});
  if (!problems.empty()) throw ConfigException(std::move(problems));
}

std::vector<ConfigProblem> TransformationChain::problems(
    const std::map<std::string, std::string>& values, const TransformationRegistry& registry) {
  try {
    TransformationChain chain(Config(values), registry);
  } catch (const ConfigException& e) {
    return e.problems();
  }
  return {};
}

bool TransformationChain::empty() const {
  return steps_.empty();
}
size_t TransformationChain::size() const {
  return steps_.size();
}

std::optional<ConnectRecord> TransformationChain::apply(ConnectRecord record) {
  for (auto& step : steps_) {
    if (step.predicate && step.predicate->test(record) == step.negate) continue;
    auto out = step.transformation->apply(std::move(record));
    if (!out) return std::nullopt;
    record = std::move(*out);
  }
  return record;
}

}  // namespace ksink
