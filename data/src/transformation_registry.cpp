#include "ksink/transformation_registry.h"

#include "transforms/builtin_transforms.h"

namespace ksink {
namespace {

template <typename Map>
std::vector<std::string> keysOf(const Map& map) {
  std::vector<std::string> out;
  out.reserve(map.size());
  for (const auto& [name, _] : map) out.push_back(name);
  return out;
}

}  // namespace

TransformationRegistry& TransformationRegistry::global() {
  static TransformationRegistry* registry = [] {
    auto* r = new TransformationRegistry;  // never destroyed: plugins' factories may live in it
    detail::registerBuiltinTransforms(*r);
    return r;
  }();
  return *registry;
}

void TransformationRegistry::addTransformation(const std::vector<std::string>& names,
                                               TransformationFactory factory) {
  for (const auto& name : names) transformations_.insert_or_assign(name, factory);
}

void TransformationRegistry::addPredicate(const std::vector<std::string>& names,
                                          PredicateFactory factory) {
  for (const auto& name : names) predicates_.insert_or_assign(name, factory);
}

std::unique_ptr<Transformation> TransformationRegistry::createTransformation(
    std::string_view name) const {
  auto it = transformations_.find(name);
  return it == transformations_.end() ? nullptr : it->second();
}

std::unique_ptr<Predicate> TransformationRegistry::createPredicate(std::string_view name) const {
  auto it = predicates_.find(name);
  return it == predicates_.end() ? nullptr : it->second();
}

std::vector<std::string> TransformationRegistry::transformationNames() const {
  return keysOf(transformations_);
}

std::vector<std::string> TransformationRegistry::predicateNames() const {
  return keysOf(predicates_);
}

}  // namespace ksink
