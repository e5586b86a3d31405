#!/usr/bin/env bash
# <ksink/ksink.h> (table/include, the SDK's top layer) includes every public header of the SDK
# core (sdk/include), the data model (data/include), the runtime (runtime/include) and the table
# toolkit (table/include), and nothing that is not there.
set -euo pipefail
src="$1"
umbrella="$src/table/include/ksink/ksink.h"
status=0
for header in "$src"/sdk/include/ksink/*.h "$src"/data/include/ksink/*.h \
  "$src"/runtime/include/ksink/*.h "$src"/table/include/ksink/*.h; do
  name="$(basename "$header")"
  [[ "$name" == ksink.h ]] && continue
  grep -q "#include \"ksink/$name\"" "$umbrella" || { echo "ksink.h leaves out $name"; status=1; }
done
while read -r included; do
  [[ -f "$src/sdk/include/ksink/$included" || -f "$src/data/include/ksink/$included" ||
     -f "$src/runtime/include/ksink/$included" || -f "$src/table/include/ksink/$included" ]] ||
    { echo "ksink.h includes a missing $included"; status=1; }
done < <(sed -n 's|#include "ksink/\(.*\)"|\1|p' "$umbrella")
exit "$status"
