#!/usr/bin/env python3
"""Memory probe of the actor server against clients that do not read.

Starts the debug `rivetkit serve --demo` binary of the shared build folder on 127.0.0.1 with
a free port, once per case, drives it with raw sockets (Python 3 standard library only) and
samples the server's resident memory from /proc/<pid>/status while a case runs. Each case is
a bounded loop of what a careless or hostile client does without reading what it is sent:

  subscriptions   one connection subscribes to 400,000 distinct event names
  unread-answers  one connection sends 1,000,000 actions and reads none of the answers
  large-answers   a chat holding ~400 KB of messages; one connection asks for its history
                  2,000 times and reads nothing, while a second one keeps being answered

Prints one line per case:

  rss <case> <start_mb> <peak_mb> <limit_mb> PASS|FAIL

where limit_mb is the memory at the start plus the case's allowance: the server's
per-connection budgets (maxPendingBytesPerConnection 8 MiB, maxPendingActionBytesPerConnection
4 MiB, maxSubscriptionBytesPerConnection 64 KiB) plus the state the case builds and a constant
for the allocator. Exits 1 when a case fails.

Usage: Scripts/probe-memory-actors.py [--binary PATH]
(build first: swift build --package-path Packages/Actors with the shared debug flags).
"""

import argparse
import json
import pathlib
import socket
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ next to the scripts
from probe_memory import DEBUG_BUILD, Server, WebSocket, frame

DEFAULT_BINARY = DEBUG_BUILD / "rivetkit"

# What a case may add to the server's memory, in MB, on top of its start.
ALLOWANCE_MB = {
    "subscriptions": 48,
    "unread-answers": 48,
    "large-answers": 64,
}


def connect(port, query):
    """A WebSocket to the query gateway of a demo actor, past its Init frame."""
    peer = WebSocket(port, f"/gateway/{query}", protocol="rivet, rivet_encoding.json")
    init = peer.read_text()
    if '"Init"' not in init:
        raise ConnectionError(f"expected Init, got {init[:200]}")
    return peer


def action(action_id, name, args):
    return json.dumps(
        {"body": {"tag": "ActionRequest", "val": {"id": ["$BigInt", str(action_id)], "name": name, "args": args}}},
        separators=(",", ":"),
    )


def send_unread(peer, frames, total, batch=500):
    """Sends `total` frames made by `frames(i)` without reading, in batches, until the server
    stops reading (a send that cannot go on for 2 s) or the count is reached. Returns how many
    were sent."""
    peer.sock.settimeout(2.0)
    sent = 0
    try:
        while sent < total:
            count = min(batch, total - sent)
            peer.sock.sendall(b"".join(frame(frames(sent + i)) for i in range(count)))
            sent += count
    except (socket.timeout, ConnectionError, OSError):
        pass
    return sent


def case_subscriptions(server):
    peer = connect(server.port, "counter/connect?rvt-method=getOrCreate&rvt-key=subs")
    subscribe = lambda i: json.dumps(
        {"body": {"tag": "SubscriptionRequest", "val": {"eventName": f"event-{i}", "subscribe": True}}},
        separators=(",", ":"),
    )
    sent = send_unread(peer, subscribe, 400_000)
    time.sleep(1.0)
    peer.close()
    return f"{sent} subscription requests sent"


def case_unread_answers(server):
    peer = connect(server.port, "counter/connect?rvt-method=getOrCreate&rvt-key=unread")
    sent = send_unread(peer, lambda i: action(i, "getCount", []), 1_000_000)
    time.sleep(1.0)
    peer.close()
    return f"{sent} actions sent"


def case_large_answers(server):
    writer = connect(server.port, "chat/connect?rvt-method=getOrCreate&rvt-key=big")
    # The demo chat keeps 100 messages of at most 4 KiB: a history of about 400 KB.
    text = "m" * 4_000
    for i in range(100):
        writer.send_text(action(i, "send", ["probe", text]))
        answer = writer.read_text()
        if "ActionResponse" not in answer:
            raise ConnectionError(f"the chat refused a message: {answer[:200]}")
    reader = connect(server.port, "chat/connect?rvt-method=getOrCreate&rvt-key=big")
    bystander = connect(server.port, "counter/connect?rvt-method=getOrCreate&rvt-key=bystander")
    sent = send_unread(reader, lambda i: action(i, "history", []), 2_000, batch=50)
    # Another connection is still answered while the reader does not read.
    bystander.sock.settimeout(10)
    bystander.send_text(action(0, "getCount", []))
    answered = "ActionResponse" in bystander.read_text()
    time.sleep(1.0)
    for peer in (writer, reader, bystander):
        peer.close()
    return f"{sent} history requests sent, bystander answered: {answered}"


CASES = [
    ("subscriptions", case_subscriptions),
    ("unread-answers", case_unread_answers),
    ("large-answers", case_large_answers),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=str(DEFAULT_BINARY), help="the rivetkit executable")
    options = parser.parse_args()
    if not pathlib.Path(options.binary).is_file():
        raise SystemExit(f"no rivetkit binary at {options.binary}; build Packages/Actors first")
    failed = False
    for name, run in CASES:
        server = Server(options.binary)
        try:
            time.sleep(0.3)
            start_kb = server.reset_peak()
            detail = run(server)
            time.sleep(0.2)
            alive = server.alive()
        finally:
            server.stop()
        start_mb = start_kb / 1024
        peak_mb = server.peak_kb / 1024
        limit_mb = start_mb + ALLOWANCE_MB[name]
        ok = alive and peak_mb <= limit_mb
        failed |= not ok
        print(f"rss {name} {start_mb:.1f} {peak_mb:.1f} {limit_mb:.1f} {'PASS' if ok else 'FAIL'}", flush=True)
        print(f"  ({detail}{'' if alive else '; the server died'})", file=sys.stderr, flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
