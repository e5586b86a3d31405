// TransformationChain: a connector's `transforms=` chain with its predicates, built from the
// connector configuration (syntax in transformation.h). The table sinks run it through
// RecordMapper; a custom sink that converts records itself can run one too.
//
// Thread-safety: apply() changes the transforms' state; one chain per task (thread).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ksink/config.h"
#include "ksink/config_def.h"
#include "ksink/config_exception.h"
#include "ksink/connect_record.h"
#include "ksink/transformation_registry.h"

namespace ksink {

class TransformationChain {
 public:
  TransformationChain();  // empty: apply() returns the record as it is
  // Throws ConfigException listing every problem of the chain (see problems()).
  explicit TransformationChain(const Config& config, const TransformationRegistry& registry =
                                                         TransformationRegistry::global());
  ~TransformationChain();
  TransformationChain(TransformationChain&&) noexcept;
  TransformationChain& operator=(TransformationChain&&) noexcept;

  // `transforms` and `predicates`, for a sink's ConfigDef: a sink that includes them declares
  // that it applies the chain (the worker refuses `transforms` for a sink that does not).
  static const ConfigDef& configDef();
  // Every problem of the chain in `values` (a connector's properties): unknown or missing types,
  // undeclared predicates, keys a transform does not define, bad values of its keys, predicates
  // no transform uses. Empty when the chain can be built.
  static std::vector<ConfigProblem> problems(
      const std::map<std::string, std::string>& values,
      const TransformationRegistry& registry = TransformationRegistry::global());

  bool empty() const;
  size_t size() const;
  // Runs the transforms in order; nullopt when one of them dropped the record. A transform's
  // exception (ConversionError for a bad record) propagates.
  std::optional<ConnectRecord> apply(ConnectRecord record);

 private:
  struct Step;
  std::vector<Step> steps_;
  std::vector<std::unique_ptr<Predicate>> predicates_;  // owned here, shared by the steps
};

}  // namespace ksink
