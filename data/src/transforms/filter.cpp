// Filter: drops every record it is applied to; with a predicate, the records that match (or, with
// negate=true, the ones that do not), like Connect's Filter.
#include "builtin_transforms.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

class Filter : public WithoutConfig<Transformation> {
 public:
  std::optional<ConnectRecord> apply(ConnectRecord) override { return std::nullopt; }
};

}  // namespace

void registerFilter(TransformationRegistry& registry) {
  registerTransform<Filter>(registry, "Filter");
}

}  // namespace ksink::detail
