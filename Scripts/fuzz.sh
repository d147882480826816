#!/usr/bin/env bash
# Fuzzes with libFuzzer and AddressSanitizer:
#   FuzzJSONParser      JSON parser and serializer (parse, write, parse back, canonical form)
#   FuzzCapnWebDecoder  Cap'n Web codec (decode, encode, decode back, tree encoder)
#   FuzzCapnWebSession  a server session fed the input's lines as frames (it ends, its tables
#                       empty, every object of its API freed)
#   FuzzRivetFrames     RivetKit JSON frames and HTTP action bodies (read, write, read back)
#   FuzzRivetCBOR       the CBOR of actor creation inputs (read, write, read back)
#   FuzzRivetJSONCompat RivetKit's JSON compat forms (read, write, read back unchanged)
#   FuzzActorKey        actor keys in both their forms (parts survive every round trip)
#   FuzzTinyvexMessages a Tinyvex server connection fed the input's lines as JSON-RPC frames
#                       (it never traps and ends with its server within 5 s of the close)
# Each target runs for FUZZ_SECONDS (default 60) from a temporary corpus seeded with the
# JSONTestSuite parsing cases and every message of the reference Cap'n Web transcript; the
# session target's seeds are the transcript's client frames, one connection's calls at a time.
# Inputs that crash, hang or exhaust memory are saved in Tests/Fuzz/artifacts/<target>/ with the
# run's log; the script exits non-zero if any target found one.
#
# Environment: FUZZ_SECONDS (per target), FUZZ_MAX_LEN (largest generated input, default 16384),
# FUZZ_TARGETS (the targets to run, separated by spaces; default all), FUZZ_JOBS (how many
# targets run at once, default 1), RPC_SHARED_DIR
# (conformance material, default ../shared beside the checkout).
# Reproduce an artifact: Tests/Fuzz/.build/debug/<target> <artifact>
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
FUZZ_MAX_LEN="${FUZZ_MAX_LEN:-16384}"
[[ "$FUZZ_SECONDS" =~ ^[1-9][0-9]*$ ]] || die "FUZZ_SECONDS must be a positive number of seconds"
[[ "$FUZZ_MAX_LEN" =~ ^[1-9][0-9]*$ ]] || die "FUZZ_MAX_LEN must be a positive number of bytes"

# Each target with the seeds it starts from and the dictionary it uses: `target:kind` uses the
# seeds of <kind> and Dictionaries/<kind>.dict; `target:kind:dict` uses Dictionaries/<dict>.dict.
all_targets=(
    "FuzzJSONParser:json" "FuzzCapnWebDecoder:capnweb" "FuzzCapnWebSession:session"
    "FuzzRivetFrames:rivet" "FuzzRivetCBOR:cbor" "FuzzRivetJSONCompat:compat:rivet" "FuzzActorKey:actorkey"
    "FuzzTinyvexMessages:tinyvex"
)
FUZZ_TARGETS="${FUZZ_TARGETS:-${all_targets[*]%%:*}}"
specs=()
for target in $FUZZ_TARGETS; do
    found=""
    for spec in "${all_targets[@]}"; do
        if [ "${spec%%:*}" = "$target" ]; then found="$spec"; fi
    done
    [ -n "$found" ] || die "unknown fuzz target $target (known: ${all_targets[*]%%:*})"
    specs+=("$found")
done

fuzz_dir="$REPO_ROOT/Tests/Fuzz"
artifacts="$fuzz_dir/artifacts"
json_suite="$RPC_SHARED_DIR/conformance/JSONTestSuite/test_parsing"
transcript="$RPC_SHARED_DIR/conformance/capnweb/reference-wire-transcript.log"
[ -d "$json_suite" ] || die "JSONTestSuite not found at $json_suite (set RPC_SHARED_DIR)"
[ -f "$transcript" ] || die "Cap'n Web transcript not found at $transcript (set RPC_SHARED_DIR)"

# Its own scratch path, not the shared debug one (lib.sh): the sanitizer flags differ, so sharing
# would compile the Wire layer again on every switch between this build and the others, and the
# package depends on no external package that sharing would save compiling.
build_flags=(
    -c debug --package-path "$fuzz_dir" --scratch-path "$fuzz_dir/.build"
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
)
log "fuzz: building with libFuzzer and AddressSanitizer"
# The linker warns once per AddressSanitizer helper it cannot export; that noise says nothing
# about our code, so it is left out.
swift build "${build_flags[@]}" 2>&1 | { grep -v "Cannot export local symbol '__asan" || true; }
bin_dir="$(swift build "${build_flags[@]}" --show-bin-path)"

# Let libFuzzer and AddressSanitizer report a crash; the Swift runtime's own backtracer would
# read memory AddressSanitizer watches and bury the report under one of its own.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"

work="$(mktemp -d "${TMPDIR:-/tmp}/wire-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Seeds: every JSONTestSuite parsing case, and each message of the transcript (the payload after
# "[ws#N] <- " or "[ws#N] -> ", and the bare lines of the HTTP batch), one file per message.
mkdir -p "$work/seeds/json" "$work/seeds/capnweb"
cp "$json_suite"/*.json "$work/seeds/json/"
sed -nE -e 's/^\[ws#[0-9]+\] (<-|->) //p;t' -e '/^\["/p' "$transcript" |
    awk -v dir="$work/seeds/capnweb" '{ file = sprintf("%s/message-%04d", dir, NR); printf "%s", $0 > file; close(file) }'
cp "$work/seeds/capnweb"/* "$work/seeds/json/"

# Session seeds: the client's frames of each WebSocket connection of the transcript, one frame a
# line, cut after each call (a push on the main object following a release starts the next
# call). Each seed holds the connection from its start up to the end of one call, so the IDs
# it uses are the ones a fresh session gives; the HTTP batch request is one more seed. The
# client's answers to the server's own calls (a resolve or reject of a positive ID) are left
# out: the fuzz target's peer sends those itself.
mkdir -p "$work/seeds/session"
awk -v dir="$work/seeds/session" '
    function save(name, text,   file) { file = dir "/" name; printf "%s", text > file; close(file) }
    function end_call() { if (call_open) { calls++; save(sprintf("connection-%d-call-%03d", connection, calls), frames) } call_open = 0 }
    /^\[ws#[0-9]+\] open/ { end_call(); connection++; frames = ""; last = ""; next }
    /^\[batch [^]]*\] request:/ { end_call(); in_batch = 1; batch = ""; next }
    /^\[batch [^]]*\] response/ { if (in_batch) save("batch-request", batch); in_batch = 0; next }
    in_batch && /^\["/ { batch = batch $0 "\n"; next }
    /^\[ws#[0-9]+\] <- / {
        frame = $0; sub(/^\[ws#[0-9]+\] <- /, "", frame)
        if (frame ~ /^\["(resolve|reject)",[0-9]/) next
        if (frame ~ /^\["push",\["pipeline",0,/ && last ~ /^\["release"/) end_call()
        frames = frames frame "\n"; last = frame; call_open = 1
    }
    END { end_call() }
' "$transcript"
# The layer-4 targets' seeds: RivetKit's wire logs and hand-made edge cases (see fuzz_seeds.py);
# the compat target also starts from every JSON seed.
python3 "$REPO_ROOT/Scripts/fuzz_seeds.py" "$work/seeds" "$RPC_SHARED_DIR/conformance"
cp "$work/seeds/json"/* "$work/seeds/compat/"

log "fuzz: $(ls "$work/seeds/json" | wc -l | tr -d ' ') JSON seeds, $(ls "$work/seeds/capnweb" | wc -l | tr -d ' ') Cap'n Web seeds, $(ls "$work/seeds/session" | wc -l | tr -d ' ') session seeds; ${FUZZ_SECONDS}s per target"

# Runs one target; prints its summary line and returns non-zero if it found a failing input.
run_target() {
    local target="$1" seeds="$2" dict="$3"
    # The session target checks leaks itself (see its SessionRun): its sessions free memory on
    # other threads after an input returns, which would set off libFuzzer's leak check on
    # almost every input.
    local extra=()
    case "$target" in
        FuzzCapnWebSession | FuzzTinyvexMessages) extra+=(-detect_leaks=0) ;;
    esac
    local corpus="$work/corpus/$target" out="$artifacts/$target"
    local log_file="$out/last-run.log"
    mkdir -p "$corpus" "$out"
    # Inputs that once failed (Tests/Fuzz/Regressions/<target>) run at the start, with the seeds.
    local inputs=("$corpus" "$seeds")
    if [ -d "$fuzz_dir/Regressions/$target" ]; then inputs+=("$fuzz_dir/Regressions/$target"); fi
    local status=0
    "$bin_dir/$target" "${inputs[@]}" \
        -dict="$dict" \
        -max_total_time="$FUZZ_SECONDS" \
        -max_len="$FUZZ_MAX_LEN" \
        -rss_limit_mb=4096 \
        -timeout=10 \
        -print_final_stats=1 \
        -artifact_prefix="$out/" \
        ${extra[@]+"${extra[@]}"} \
        >"$log_file" 2>&1 || status=$?

    local runs coverage features corpus_size rate
    runs="$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log_file" | tail -n 1)"
    rate="$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+).*/\1/p' "$log_file" | tail -n 1)"
    coverage="$(sed -nE 's/^#[0-9]+.* cov: ([0-9]+).*/\1/p' "$log_file" | tail -n 1)"
    features="$(sed -nE 's/^#[0-9]+.* ft: ([0-9]+).*/\1/p' "$log_file" | tail -n 1)"
    corpus_size="$(find "$corpus" -type f | wc -l | tr -d ' ')"
    if [ -z "$runs" ]; then
        runs="$(sed -nE 's/^#([0-9]+).*/\1/p' "$log_file" | tail -n 1)"
    fi

    local artifact
    artifact="$(sed -nE "s/.*Test unit written to (.*)$/\1/p" "$log_file" | tail -n 1)"
    if [ "$status" -ne 0 ] || [ -n "$artifact" ]; then
        printf '%s: FAILED (exit %s) after %s runs, cov %s; input %s; log %s\n' \
            "$target" "$status" "${runs:-?}" "${coverage:-?}" "${artifact:-none saved}" "${log_file#"$REPO_ROOT"/}"
        grep -m 1 -E 'Fatal error|Precondition failed|ERROR: (AddressSanitizer|libFuzzer|LeakSanitizer)' "$log_file" >&2 || true
        return 1
    fi
    printf '%s: ok, %s runs in %ss (%s/s), cov %s, ft %s, corpus %s inputs\n' \
        "$target" "${runs:-?}" "$FUZZ_SECONDS" "${rate:-?}" "${coverage:-?}" "${features:-?}" "$corpus_size"
}

FUZZ_JOBS="${FUZZ_JOBS:-1}"
[[ "$FUZZ_JOBS" =~ ^[1-9][0-9]*$ ]] || die "FUZZ_JOBS must be a positive number"

# Runs the targets, FUZZ_JOBS at a time; each writes its summary line to a file of its own.
mkdir -p "$work/results"
running=0
for spec in "${specs[@]}"; do
    IFS=: read -r target kind dict <<<"$spec"
    log "fuzz: $target"
    (
        if run_target "$target" "$work/seeds/$kind" "$fuzz_dir/Dictionaries/${dict:-$kind}.dict" >"$work/results/$target.line"; then
            echo ok >"$work/results/$target.status"
        else
            echo failed >"$work/results/$target.status"
        fi
        cat "$work/results/$target.line"
    ) &
    running=$((running + 1))
    if [ "$running" -ge "$FUZZ_JOBS" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait

failed=0
summaries=()
for spec in "${specs[@]}"; do
    target="${spec%%:*}"
    summaries+=("$(cat "$work/results/$target.line" 2>/dev/null || echo "$target: no result")")
    [ "$(cat "$work/results/$target.status" 2>/dev/null)" = "ok" ] || failed=1
done

log "fuzz: summary"
printf '%s\n' "${summaries[@]}"
[ "$failed" -eq 0 ] || die "fuzzing found failing inputs (see Tests/Fuzz/artifacts/)"
log "fuzz: no failures"
