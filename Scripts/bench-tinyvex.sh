#!/usr/bin/env bash
# Benchmarks Tinyvex on loopback in one process: mutations per second of the demo schema's
# `messages.send` from 32 connections with 100 live subscriptions of `messages.list`, on an
# SQLite file with the default durability; in the same run the rate of bare GRDB transactions
# doing the same inserts (one each, same settings), printed as
# `ratio tinyvex-mutations-vs-bare-sqlite <x.xx>` (goal at least 0.5); then the time from
# sending a mutation until all 1,000 subscribed connections have the new value (p50, p99) and,
# in the same run, a bare SQLite write followed by a bare WebSocket broadcast to 1,000
# connections. Builds the TinyvexBenchmarks product of Tests/Benchmarks in release mode; extra
# arguments go to it (--quick runs fewer rounds, --mutations-only stops after the mutation
# rates). With PostgreSQL (Scripts/with-postgres.sh starts a throwaway cluster, or
# RPC_POSTGRES_URL names a database), also the mutation rate on one node and on three nodes of one
# database, and the fan-out from a commit on one node to 1,000 connections spread over three
# nodes against the same connections all on the committing node. The ratio lines have the form
# `ratio tinyvex-fanout-vs-bare <x.xx>` (goal at most 2.0) and, with PostgreSQL,
# `ratio tinyvex-cluster-fanout-vs-single <x.xx>` (goal at most 2.0).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
forget_release_plan

package="$REPO_ROOT/Tests/Benchmarks"
# The release scratch path every benchmark build shares (see lib.sh).
build_flags=(--package-path "$package" "${SWIFT_RELEASE_FLAGS[@]}")

log "bench-tinyvex: building TinyvexBenchmarks (release)"
swift build "${build_flags[@]}" --product TinyvexBenchmarks
bin_dir="$(swift build "${build_flags[@]}" --show-bin-path)"

log "bench-tinyvex: running"
"$REPO_ROOT/Scripts/with-postgres.sh" --optional "$bin_dir/TinyvexBenchmarks" "$@"
