#!/usr/bin/env bash
# Runs every test: each layer package bottom-up, then the packages under Tests/.
# Stops at the first failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

"$REPO_ROOT/Scripts/bootstrap.sh"

# The interop tests find their Python peer's interpreter here.
export RPC_INTEROP_PYTHON="${RPC_INTEROP_PYTHON:-$INTEROP_VENV/bin/python}"

[ -d "$RPC_SHARED_DIR/conformance" ] || die "conformance material not found at $RPC_SHARED_DIR (set RPC_SHARED_DIR)"

for package in "${LAYER_PACKAGES[@]}" "${TEST_PACKAGES[@]}"; do
    log "test: $package"
    (cd "$REPO_ROOT/$package" && swift build --build-tests "${SWIFT_STRICT_FLAGS[@]}" && swift test "${SWIFT_STRICT_FLAGS[@]}")
done

for package in "${BUILD_ONLY_PACKAGES[@]}"; do
    log "build: $package"
    (cd "$REPO_ROOT/$package" && swift build "${SWIFT_STRICT_FLAGS[@]}")
done

log "docs: every public symbol has a doc comment"
"$REPO_ROOT/Scripts/check-docs.sh"

log "test-all: passed"
