#!/usr/bin/env bash
# <ksink/ksink.h> includes every public header of the SDK (and nothing that is not there).
set -euo pipefail
dir="$1/sdk/include/ksink"
status=0
for header in "$dir"/*.h; do
  name="$(basename "$header")"
  [[ "$name" == ksink.h ]] && continue
  grep -q "#include \"ksink/$name\"" "$dir/ksink.h" || { echo "ksink.h leaves out $name"; status=1; }
done
while read -r included; do
  [[ -f "$dir/$included" ]] || { echo "ksink.h includes a missing $included"; status=1; }
done < <(sed -n 's|#include "ksink/\(.*\)"|\1|p' "$dir/ksink.h")
exit "$status"
