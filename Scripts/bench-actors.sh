#!/usr/bin/env bash
# Benchmarks the actor server and client (Packages/Actors) on loopback, in one process:
# sequential actions (p50, p99, actions per second; from the connection's executor and from the
# cooperative pool), actions per second with 64 in flight, and one actor broadcasting to 1,000
# subscribed connections (events per second, p99 delivery), actions per second on one actor with
# 100 connected listeners subscribed to the event each action broadcasts (64 in flight, p99
# delivery), and wake latency (a sleeping actor to its first action answered, p50 and p99 over
# the wakes, on a server whose sleeper actor sleeps after 20 ms), with the Session layer's calls
# per second (64 in flight) measured in the same run. Builds Tests/Benchmarks in release mode and
# runs ActorsBenchmarks; extra arguments go to it (--quick, --runs N, --sequential-only N).
# With PostgreSQL (Scripts/with-postgres.sh starts a throwaway cluster), also actions per second
# through a node that forwards to the actor's owner against the owner itself.
# The last lines have the form `ratio actors-forwarded-vs-direct <x.xx>` and
# `ratio actors-vs-session-calls <x.xx>`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
forget_release_plan

package="$REPO_ROOT/Tests/Benchmarks"
# The release scratch path every benchmark build shares (see lib.sh).
build_flags=(--package-path "$package" "${SWIFT_RELEASE_FLAGS[@]}")

log "bench-actors: building ActorsBenchmarks (release)"
swift build "${build_flags[@]}" --product ActorsBenchmarks
bin_dir="$(swift build "${build_flags[@]}" --show-bin-path)"

# With a throwaway PostgreSQL cluster (or the database RPC_POSTGRES_URL names), the run adds two
# nodes on one database: actions through a forwarding node against the owner node.
log "bench-actors: running"
"$REPO_ROOT/Scripts/with-postgres.sh" --optional "$bin_dir/ActorsBenchmarks" "$@"
