#!/usr/bin/env bash
# Runs the PostgreSQL-backed tests alone (the actor stores' and Tinyvex's), against a throwaway
# cluster (Scripts/with-postgres.sh, or the database RPC_POSTGRES_URL names). `make test-all`
# runs them too, with everything else.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

log "build: Packages/Actors (with tests)"
forget_debug_plan
swift build --package-path Packages/Actors --build-tests "${SWIFT_DEBUG_FLAGS[@]}"
log "build: Packages/Tinyvex (with tests)"
forget_debug_plan
swift build --package-path Packages/Tinyvex --build-tests "${SWIFT_DEBUG_FLAGS[@]}"
export RPC_REQUIRE_POSTGRES=1
"$REPO_ROOT/Scripts/with-postgres.sh" bash -c \
    'cd Packages/Actors && swift test --skip-build "$@" --filter Postgres' _ "${SWIFT_DEBUG_FLAGS[@]}"
# The Tinyvex store contract runs against SQLite and PostgreSQL; the cluster tests need PostgreSQL.
"$REPO_ROOT/Scripts/with-postgres.sh" bash -c \
    'cd Packages/Tinyvex && swift test --skip-build "$@" --filter "StoreContract|TextExactness|PostgresCluster|PostgresCreationOrder|CommandTests"' _ "${SWIFT_DEBUG_FLAGS[@]}"
