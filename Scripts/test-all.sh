#!/usr/bin/env bash
# Runs every test: builds every package (the layers bottom-up, then the packages under Tests/),
# then runs the tests of each, then checks the doc comments and builds the DocC catalogs. Stops at
# the first failure.
#
# Every build shares one scratch path (BUILD_DIR, see lib.sh): swift-nio and the other external
# packages, and each layer package, are compiled once, by the first package that needs them;
# the packages after it only compile their own modules. The compiler writes the symbol graphs
# during that one build, so the doc check and DocC read them instead of building again.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

"$REPO_ROOT/Scripts/bootstrap.sh"

# The tests that need PostgreSQL find a throwaway cluster through RPC_POSTGRES_URL: unless one
# is given, this script runs again under with-postgres.sh, which starts one and stops it at the
# end.
if [ -z "${RPC_POSTGRES_URL:-}" ]; then
    exec "$REPO_ROOT/Scripts/with-postgres.sh" "$0" "$@"
fi
# Every PostgreSQL-backed test runs here: a test fails when the cluster is missing.
export RPC_REQUIRE_POSTGRES=1

# The interop tests find their Python peer's interpreter here.
export RPC_INTEROP_PYTHON="${RPC_INTEROP_PYTHON:-$INTEROP_VENV/bin/python}"

[ -d "$RPC_SHARED_DIR/conformance" ] || die "conformance material not found at $RPC_SHARED_DIR (set RPC_SHARED_DIR)"

log "layers: each package names only the layer below"
"$REPO_ROOT/Scripts/check-layers.sh"

log "session tests: every test that opens a session checks both peers' tables"
"$REPO_ROOT/Scripts/check-session-leak-checks.sh"

log "one way: each shared concern (supervisor, retry loop, offline queue, liveness, task set, timeout race, base64, test helpers) lives once"
python3 "$REPO_ROOT/Scripts/check_one_way.py"

mkdir -p "$SYMBOL_GRAPH_DIR"

# The builds run from one folder (--package-path, no cd): SwiftPM compiles a dependency's
# plugins again whenever the environment differs from the last time, the working folder included.
cd "$REPO_ROOT"

build_start=$SECONDS
for package in "${LAYER_PACKAGES[@]}" "${TEST_PACKAGES[@]}"; do
    log "build: $package (with tests)"
    forget_debug_plan
    swift build --package-path "$package" --build-tests "${SWIFT_DEBUG_FLAGS[@]}"
done
for package in "${BUILD_ONLY_PACKAGES[@]}"; do
    log "build: $package"
    forget_debug_plan
    swift build --package-path "$package" "${SWIFT_DEBUG_FLAGS[@]}"
done
build_seconds=$((SECONDS - build_start))
warn_on_diverging_pins "${LAYER_PACKAGES[@]}" "${TEST_PACKAGES[@]}" "${BUILD_ONLY_PACKAGES[@]}"

test_start=$SECONDS
for package in "${LAYER_PACKAGES[@]}" "${TEST_PACKAGES[@]}"; do
    log "test: $package"
    # Built just above with the same flags: nothing to build.
    (cd "$REPO_ROOT/$package" && swift test --skip-build "${SWIFT_DEBUG_FLAGS[@]}")
done
test_seconds=$((SECONDS - test_start))

log "docs: every public symbol has a doc comment"
"$REPO_ROOT/Scripts/check-docs.sh" --no-build

log "docs: the DocC catalogs build without a warning (no broken link or symbol reference)"
docs_start=$SECONDS
"$REPO_ROOT/Scripts/docs.sh" --no-build
docs_seconds=$((SECONDS - docs_start))

log "test-all: passed (build ${build_seconds}s, tests ${test_seconds}s, docs ${docs_seconds}s)"
