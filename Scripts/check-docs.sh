#!/usr/bin/env bash
# Checks that every public symbol of every layer package has a doc comment.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

folders=()
for package in "${LAYER_PACKAGES[@]}"; do
    dir="$REPO_ROOT/$package"
    # The command also tries the test-only umbrella modules SwiftPM makes up and reports those as
    # failures; only a failure for one of the package's own modules counts.
    out="$(cd "$dir" && swift package --scratch-path .build-docs dump-symbol-graph --minimum-access-level public 2>&1)" || true
    if printf '%s\n' "$out" | grep "Failed to emit symbol graph for" | grep -qvE "PackageTests'|PackageDiscoveredTests'"; then
        printf '%s\n' "$out"
        die "could not extract the symbol graph of $package"
    fi
    folder="$(printf '%s\n' "$out" | sed -n 's/^Files written to //p' | tail -n 1)"
    [ -n "$folder" ] || folder="$(find "$dir/.build-docs" -type d -name symbolgraph | head -n 1)"
    [ -d "$folder" ] || die "no symbol graph for $package"
    folders+=("$folder")
done
python3 "$REPO_ROOT/Scripts/check_docs.py" "${folders[@]}"
