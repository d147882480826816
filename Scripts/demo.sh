#!/usr/bin/env bash
# The main job: the seed's Todo API served by a Cap'n Web server inside the `rpcdo-demo`
# process (127.0.0.1, a free port), and an RpcDo client that walks through pipelining, parallel
# calls, a server-side map, a stream, a server restart and a rate-limited call. Then the Actors
# step (`rivetkit-demo`): an embedded actor server, two clients on one counter, a
# fire-and-forget send, a typed action error, `enabled` off and on, and a restart keeping state.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

"$REPO_ROOT/Scripts/bootstrap.sh" --system

# The shared debug build (see lib.sh): after `make test-all` there is nothing left to compile.
package="$REPO_ROOT/Packages/Managed"
mkdir -p "$SYMBOL_GRAPH_DIR"
cd "$REPO_ROOT"  # one working folder for every build, as in test-all.sh
log "demo: building rpcdo-demo (the first build takes a few minutes)"
forget_debug_plan
swift build --package-path "$package" --product rpcdo-demo "${SWIFT_DEBUG_FLAGS[@]}" -q
bin="$(swift build --package-path "$package" --product rpcdo-demo "${SWIFT_DEBUG_FLAGS[@]}" --show-bin-path)"
log "demo: running"
"$bin/rpcdo-demo"

actors="$REPO_ROOT/Packages/Actors"
log "demo: building rivetkit-demo"
forget_debug_plan
swift build --package-path "$actors" --product rivetkit-demo "${SWIFT_DEBUG_FLAGS[@]}" -q
bin="$(swift build --package-path "$actors" --product rivetkit-demo "${SWIFT_DEBUG_FLAGS[@]}" --show-bin-path)"
log "demo: running the Actors step"
"$bin/rivetkit-demo"

# The Tinyvex step: an embedded server, two clients on one query, a restart resumed by lastSeq.
tinyvex="$REPO_ROOT/Packages/Tinyvex"
log "demo: building tinyvex-demo"
forget_debug_plan
swift build --package-path "$tinyvex" --product tinyvex-demo "${SWIFT_DEBUG_FLAGS[@]}" -q
bin="$(swift build --package-path "$tinyvex" --product tinyvex-demo "${SWIFT_DEBUG_FLAGS[@]}" --show-bin-path)"
log "demo: running the Tinyvex step"
"$bin/tinyvex-demo"
