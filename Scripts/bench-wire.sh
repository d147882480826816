#!/usr/bin/env bash
# Benchmarks the Wire layer against Foundation's JSON: parse, serialize and typed decode on three
# inputs, plus the Cap'n Web codec. Builds Tests/Benchmarks in release mode and runs
# WireBenchmarks; extra arguments go to it (for example --quick, --runs 7).
# The last three lines have the form `ratio <name> <x.xx>`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
forget_release_plan

package="$REPO_ROOT/Tests/Benchmarks"
# The release scratch path every benchmark build shares (see lib.sh).
build_flags=(--package-path "$package" "${SWIFT_RELEASE_FLAGS[@]}")

log "bench-wire: building WireBenchmarks (release)"
swift build "${build_flags[@]}" --product WireBenchmarks
bin_dir="$(swift build "${build_flags[@]}" --show-bin-path)"

log "bench-wire: running"
"$bin_dir/WireBenchmarks" "$@"
