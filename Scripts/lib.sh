#!/usr/bin/env bash
# Shared definitions for the scripts in this folder. Source it; do not run it.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO_ROOT

# The layer packages, bottom-up. A new package joins `make test-all` by being added here.
LAYER_PACKAGES=(
    Packages/Wire
    Packages/Transport
    Packages/Session
    Packages/Managed
)

# The layering `make check-layers` enforces: each layer names exactly the package before it in
# this list, or the one written after `=` (two layers may stand on the same one).
LAYER_SPECS=(
    Packages/Wire
    Packages/Transport
    Packages/Session
    Packages/Managed
)

# Packages under Tests/ whose tests `make test-all` runs after the layers (cross-package and
# interop tests).
TEST_PACKAGES=(
    Tests/Interop
)

# Packages under Tests/ that `make test-all` only builds (benchmarks), so they cannot rot.
BUILD_ONLY_PACKAGES=(
    Tests/Benchmarks
)

# Conformance material sits beside the checkout unless RPC_SHARED_DIR says otherwise.
: "${RPC_SHARED_DIR:=$(cd "$REPO_ROOT/.." && pwd)/shared}"
export RPC_SHARED_DIR

# The interop tests' Python peer: a virtual environment inside the clone, made by bootstrap.sh,
# holding the `websockets` package at this version.
INTEROP_VENV="$REPO_ROOT/.venv-interop"
INTEROP_WEBSOCKETS_VERSION="15.0.1"

# Flags every build of our own code uses: no warnings allowed.
SWIFT_STRICT_FLAGS=(-Xswiftc -warnings-as-errors)

log() {
    printf '==> %s\n' "$*"
}

die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}
