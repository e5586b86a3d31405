// TransformationRegistry: single message transforms and predicates by name, for `transforms.*.type`
// and `predicates.*.type`.
//
// The built-ins (Connect's SMTs and predicates, Debezium's ExtractNewRecordState) are registered
// under their Java class names and short aliases ("InsertField$Value", "ExtractNewRecordState").
// A program that links the SDK, or a plugin from its KSINK_PLUGIN function, adds its own:
//
//   ksink::TransformationRegistry::global().addTransformation(
//       {"com.example.Redact", "Redact"}, [] { return std::make_unique<Redact>(); });
//
// Registration is not thread-safe: do it before starting workers.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/transformation.h"

namespace ksink {

class TransformationRegistry {
 public:
  using TransformationFactory = std::function<std::unique_ptr<Transformation>()>;
  using PredicateFactory = std::function<std::unique_ptr<Predicate>()>;

  // The registry holding the built-ins.
  static TransformationRegistry& global();

  // `names`: the class name and any aliases; a later registration of a name replaces it.
  void addTransformation(const std::vector<std::string>& names, TransformationFactory factory);
  void addPredicate(const std::vector<std::string>& names, PredicateFactory factory);

  // A new, unconfigured instance; nullptr for an unknown name.
  std::unique_ptr<Transformation> createTransformation(std::string_view name) const;
  std::unique_ptr<Predicate> createPredicate(std::string_view name) const;

  std::vector<std::string> transformationNames() const;
  std::vector<std::string> predicateNames() const;

 private:
  std::map<std::string, TransformationFactory, std::less<>> transformations_;
  std::map<std::string, PredicateFactory, std::less<>> predicates_;
};

}  // namespace ksink
