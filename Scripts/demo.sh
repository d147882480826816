#!/usr/bin/env bash
# The main job. Until the upper layers land, it shows the Wire layer at work on the messages of a
# real Cap'n Web session, using the `rpcwire` command.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

package="$REPO_ROOT/Packages/Wire"
log "demo: building rpcwire"
(cd "$package" && swift build --product rpcwire -q)
rpcwire="$(cd "$package" && swift build --product rpcwire --show-bin-path)/rpcwire"

session='["push",["pipeline",0,["getUser"],[42]]]
["push",["pipeline",1,["profile","displayName"]]]
["pull",2]
["resolve",2,"User 42"]
["push",["remap",3,[],[["import",0]],[["pipeline",-1,["square"],[["pipeline",0]]],["pipeline",1]]]]
["resolve",4,{"t":["date",null],"e":["error","RangeError","r",null,{"code":7}],"big":["bigint","-5"],"u16":["bytes","AQACAQ","Uint16Array"]}]
["release",2,1]'

step() {
    printf '\n--- %s\n' "$1"
}

step "Cap'n Web messages decoded into the typed model"
printf '%s\n' "$session" | "$rpcwire" capnweb

step "Decode then encode gives back the same bytes"
if diff <(printf '%s\n' "$session") <(printf '%s\n' "$session" | "$rpcwire" capnweb --roundtrip) >/dev/null; then
    echo "all $(printf '%s\n' "$session" | wc -l | tr -d ' ') messages round-trip byte for byte"
else
    die "round trip changed a message"
fi

step "Malformed messages give typed errors that name the offending part"
printf '%s\n' '["push",["frob",1]]' '["pull"]' '["push",[1,2]]' '["resolve",1,["bytes","AQ=Z"]]' |
    "$rpcwire" capnweb || true

step "Strict JSON: errors carry line, column and byte offset"
printf '{\n  "id": 42,\n  "tags": ["a", "b",]\n}\n' | "$rpcwire" validate || true
printf '[01]' | "$rpcwire" validate || true

step "Canonical form (sorted keys) for de-duplication"
printf '{"b": 2, "a": {"z": 1.50, "y": 1e21}}' | "$rpcwire" format --canonical

printf '\ndemo: done\n'
