# Sourced by the fetch scripts (integration/*/fetch.sh): what they share — a directory filled once
# in a cache outside the repo, idempotently and safely for concurrent callers.
#
#   fetch_once <dir> <fill> [args...]
#
# Unless <dir> is complete (its marker file), takes a lock beside it, calls `<fill> [args...]
# <tmp>` to fill a fresh temporary directory (the fill's output must go to stderr), writes the
# marker and renames it to <dir>: readers never see a half-filled directory, and an interrupted
# fill is simply redone by the next caller. Prints nothing.
fetch_once() {
  local final="$1"
  shift
  [[ -f "$final/.ksink-complete" ]] && return 0
  mkdir -p "$(dirname "$final")"
  (
    flock 9
    # Another caller may have finished while this one waited.
    [[ -f "$final/.ksink-complete" ]] && exit 0
    local tmp="$final.tmp.$$"
    rm -rf "$tmp"
    mkdir -p "$tmp"
    "$@" "$tmp"
    touch "$tmp/.ksink-complete"
    rm -rf "$final"
    mv "$tmp" "$final"
  ) 9>"$(dirname "$final")/.lock"
}
