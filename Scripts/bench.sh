#!/usr/bin/env bash
# Runs every benchmark (release builds), one layer after the other. Every benchmark is a product
# of Tests/Benchmarks: the whole package is built once first, so each script's own build only
# checks that it is up to date.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
forget_release_plan

"$REPO_ROOT/Scripts/bootstrap.sh" --system
log "bench: building every benchmark (release)"
swift build --package-path "$REPO_ROOT/Tests/Benchmarks" "${SWIFT_RELEASE_FLAGS[@]}"

for script in "$REPO_ROOT"/Scripts/bench-*.sh; do
    log "bench: $(basename "$script" .sh)"
    "$script"
done
