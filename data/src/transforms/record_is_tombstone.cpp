// RecordIsTombstone predicate: true for records whose value is null, like Connect's
// predicates.RecordIsTombstone.
#include "builtin_transforms.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

class RecordIsTombstone : public WithoutConfig<Predicate> {
 public:
  bool test(const ConnectRecord& record) const override { return record.isTombstone(); }
};

}  // namespace

void registerRecordIsTombstone(TransformationRegistry& registry) {
  registerPredicate<RecordIsTombstone>(registry, "RecordIsTombstone");
}

}  // namespace ksink::detail
