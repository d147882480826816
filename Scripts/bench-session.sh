#!/usr/bin/env bash
# Benchmarks Cap'n Web sessions against a bare SwiftNIO WebSocket echo on loopback, one process
# per side: sequential `square` calls with a 128-byte string argument (p50, p99, calls per
# second), calls per second with 64 in flight, and a 4-step chain pipelined against the same
# calls awaited one by one; also sequential calls of `squareAsync` (the same method answered
# from the target's async method), reported but not part of a ratio; and sequential `square` calls
# answered by an `@Rpc` object beside the hand-written target, in the same run; and sequential and
# 64-in-flight `square` calls with permessage-deflate negotiated (server and client on their
# default compression settings), taking turns with the plain session in the same run. Builds
# Tests/Benchmarks in release mode and runs SessionBenchmarks; extra arguments go to it (for
# example --quick, --runs 3).
# The last six lines have the form `ratio <name> <x.xx>`; the last one,
# `ratio session-deflate-throughput-vs-plain`, is calls per second with deflate over without.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
forget_release_plan

package="$REPO_ROOT/Tests/Benchmarks"
# The release scratch path every benchmark build shares (see lib.sh).
build_flags=(--package-path "$package" "${SWIFT_RELEASE_FLAGS[@]}")

log "bench-session: building SessionBenchmarks (release)"
swift build "${build_flags[@]}" --product SessionBenchmarks
bin_dir="$(swift build "${build_flags[@]}" --show-bin-path)"

log "bench-session: running"
"$bin_dir/SessionBenchmarks" "$@"
