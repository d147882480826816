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
    Packages/Actors
    Packages/Tinyvex
)

# The layering `make check-layers` enforces: each layer names exactly the package before it in
# LAYER_PACKAGES. Two layers standing on the same one are written with the one below after `=`
# here (for example `Packages/Tinyvex=Packages/Managed` after `Packages/Actors`).
LAYER_SPECS=()
for package in "${LAYER_PACKAGES[@]}"; do
    case "$package" in
        Packages/Tinyvex) LAYER_SPECS+=("Packages/Tinyvex=Packages/Managed") ;;
        *) LAYER_SPECS+=("$package") ;;
    esac
done

# Packages under Tests/ whose tests `make test-all` runs after the layers (cross-package and
# interop tests).
TEST_PACKAGES=(
    Tests/Interop
    Tests/Frameworks
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

# Every debug build of every package above (tests, the doc check, `make demo`) shares one
# scratch path, so swift-nio and the other external packages, and each layer package, are
# compiled once however many packages depend on them. This is sound because:
#   - every module name and every product name is unique across our packages (SwiftPM puts all
#     modules of a scratch path in one folder, so two packages must never declare a target, an
#     executable or a package of the same name);
#   - every build passes exactly SWIFT_DEBUG_FLAGS, so a module compiled for one root package
#     is up to date for the next (different flags would make SwiftPM compile it again);
#   - the packages resolve their dependencies to the same versions (a fresh clone resolves them
#     minutes apart; test-all.sh warns when the Package.resolved files disagree, as a version
#     switch in the shared checkouts means compiling that dependency again).
# `swift test` only runs the root package's own test bundle, so sharing the scratch path does
# not mix the packages' tests.
BUILD_DIR="$REPO_ROOT/.build"
# The symbol graphs of every module the debug build compiles, emitted by the compiler during that
# build; the doc check reads our own modules' graphs from here instead of building again.
SYMBOL_GRAPH_DIR="$BUILD_DIR/symbolgraphs"
SWIFT_DEBUG_FLAGS=(
    --scratch-path "$BUILD_DIR"
    "${SWIFT_STRICT_FLAGS[@]}"
    -Xswiftc -emit-symbol-graph
    -Xswiftc -emit-symbol-graph-dir -Xswiftc "$SYMBOL_GRAPH_DIR"
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public
)

# Release builds (the benchmarks) share their own scratch path, for the same reason. Every
# benchmark is a product of the one package Tests/Benchmarks, so this path only ever builds that
# root package: switching root packages in one release scratch path could leave SwiftPM planning
# from a stale build description ("No target named ... in build description") on a fresh clone.
RELEASE_BUILD_DIR="$REPO_ROOT/.build-release"
SWIFT_RELEASE_FLAGS=(-c release --scratch-path "$RELEASE_BUILD_DIR")

# SwiftPM does not always notice a source file added to or removed from a layer package that
# the benchmark package depends on by path, and then builds from a stale plan ("missing
# inputs", "cannot find ... in scope"). The benchmark scripts call this before they build: the
# plan is quick to make again, and the compiled modules are kept.
forget_release_plan() {
    rm -f "$RELEASE_BUILD_DIR/release.yaml"
}

# The same holds for the debug scratch path, which the packages' builds take turns in: a test
# file just added to a package can be left out of its next build, and its tests then silently do
# not run. The scripts that build call this before each package's build; planning again takes a
# few seconds, and the compiled modules are kept.
forget_debug_plan() {
    rm -f "$BUILD_DIR/debug.yaml"
}

# Warns when the packages given (folders relative to REPO_ROOT) resolved one dependency to
# different revisions: they share the checkouts of BUILD_DIR, so each switch between them
# compiles that dependency again. `swift package update` in each package brings them together.
warn_on_diverging_pins() {
    python3 - "$REPO_ROOT" "$@" <<'PY' || true
import json, pathlib, sys
root, packages = pathlib.Path(sys.argv[1]), sys.argv[2:]
seen = {}
for package in packages:
    path = root / package / "Package.resolved"
    if not path.is_file():
        continue
    for pin in json.loads(path.read_text()).get("pins", []):
        state = pin.get("state", {})
        seen.setdefault(pin["identity"], {}).setdefault(state.get("version") or state.get("revision"), []).append(package)
for identity, versions in sorted(seen.items()):
    if len(versions) > 1:
        found = "; ".join(f"{v} in {', '.join(p)}" for v, p in versions.items())
        print(f"warning: {identity} resolved differently ({found}): the shared build compiles it again on each switch", file=sys.stderr)
PY
}

log() {
    printf '==> %s\n' "$*"
}

die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}
