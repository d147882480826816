#!/usr/bin/env bash
# Benchmarks the Transport layer's WebSocket against a bare SwiftNIO WebSocket echo on loopback,
# one process per side: sequential round trips (p50, p99) and messages per second with 64 in
# flight, plain, with permessage-deflate and over TLS. Builds Tests/Benchmarks in release mode
# and runs TransportBenchmarks; extra arguments go to it (for example --quick, --runs 3).
# The last two lines have the form `ratio <name> <x.xx>`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
forget_release_plan

package="$REPO_ROOT/Tests/Benchmarks"
# The release scratch path every benchmark build shares (see lib.sh).
build_flags=(--package-path "$package" "${SWIFT_RELEASE_FLAGS[@]}")

log "bench-transport: building TransportBenchmarks (release)"
swift build "${build_flags[@]}" --product TransportBenchmarks
bin_dir="$(swift build "${build_flags[@]}" --show-bin-path)"

log "bench-transport: running"
"$bin_dir/TransportBenchmarks" "$@"
