#!/usr/bin/env python3
"""Memory probe of the Tinyvex server against clients that do not read.

Starts the debug `tinyvex serve --demo` binary of the shared build folder on 127.0.0.1 with a
free port, once per case, drives it over raw sockets (Python 3 standard library only) and
samples the server's resident memory from /proc/<pid>/status while the case runs. Each case is
a bounded loop of what a careless or hostile client does without reading what it is sent:

  subscriptions   ~1 MB of messages in one channel; one connection subscribes to it 1,000
                  times and reads nothing
  pings           one connection sends up to 1,000,000 pings and reads none of the answers
  actions         one connection starts 60,000 `messages.sendLater` actions (60 s each)
                  and reads nothing
  request-ids     500 mutations whose requestIds are 900 KB long, answers unread

Prints one line per case:

  rss <case> <start_mb> <peak_mb> <limit_mb> PASS|FAIL

where limit_mb is the memory at the start plus the server's configured per-connection budget
that the case can fill (maxSendQueueBytes 32 MiB, the transport's outbound buffer 8 MiB) and
a constant for the allocator and the bytes in flight. Exits 1 when a case fails.

Usage: Scripts/probe-memory-tinyvex.py [--binary PATH] [--case NAME]
(build first: swift build --package-path Packages/Tinyvex with the shared debug flags).
"""

import argparse
import json
import pathlib
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ next to the scripts
from probe_memory import DEBUG_BUILD, Server, WebSocket, frame

DEFAULT_BINARY = DEBUG_BUILD / "tinyvex"

MIB = 1024 * 1024
# The budgets a client that does not read can fill on one connection (docs/limits.md).
MAX_SEND_QUEUE_BYTES = 32 * MIB
TRANSPORT_OUTBOUND_BUFFER = 8 * MIB
# The allocator, the inbound bytes in flight, and what a case stores on purpose.
CONSTANT_MB = 48


class Peer(WebSocket):
    """A JSON-RPC client of the server, on a WebSocket that reads only when asked."""

    def __init__(self, port):
        super().__init__(port)
        self.next_id = 0

    def message(self, method, params):
        self.next_id += 1
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        return frame(json.dumps(body, separators=(",", ":")).encode())

    def send(self, method, params):
        self.sock.sendall(self.message(method, params))
        return self.next_id

    def send_for(self, frames, seconds):
        """Sends frames until they are all sent or the server stops taking them for `seconds`
        (it no longer reads); returns how many were sent whole."""
        self.sock.setblocking(False)
        sent = 0
        stalled_since = None
        try:
            for data in frames:
                view = memoryview(data)
                while view:
                    try:
                        count = self.sock.send(view)
                        view = view[count:]
                        stalled_since = None
                    except (BlockingIOError, InterruptedError):
                        now = time.monotonic()
                        stalled_since = stalled_since or now
                        if now - stalled_since > seconds:
                            return sent
                        time.sleep(0.005)
                    except OSError:
                        return sent
                sent += 1
            return sent
        finally:
            self.sock.setblocking(True)

    def call(self, method, params):
        """Sends a request and reads until its answer."""
        wanted = self.send(method, params)
        while True:
            opcode, payload = self.read_frame()
            if opcode != 1:
                continue
            message = json.loads(payload)
            if message.get("id") == wanted:
                return message


def send_unread(peer, frames, settle):
    """Sends `frames` on `peer` until they are all sent or the server stops taking them for 3 s,
    says how many went, then leaves the server `settle` seconds with them, unread."""
    sent = peer.send_for(frames, seconds=3)
    print(f"  {sent} requests sent before the server stopped taking them", file=sys.stderr, flush=True)
    time.sleep(settle)


def case_subscriptions(server):
    writer = Peer(server.port)
    text = "x" * 60_000
    for index in range(17):
        writer.call(
            "tinyvex/mutation",
            {"requestId": f"big{index}", "name": "messages.send", "args": {"channel": "big", "author": "a", "text": text}},
        )
    server.reset_peak()
    reader = Peer(server.port)
    frames = (
        reader.message("tinyvex/subscribe", {"subId": f"s{index}", "name": "messages.list", "params": {"channel": "big"}})
        for index in range(1_000)
    )
    send_unread(reader, frames, settle=3)
    return [writer, reader]


def case_pings(server):
    peer = Peer(server.port)
    frames = (peer.message("tinyvex/ping", {"t": index}) for index in range(1_000_000))
    send_unread(peer, frames, settle=2)
    return [peer]


def case_actions(server):
    peer = Peer(server.port)
    frames = (
        peer.message(
            "tinyvex/action",
            {
                "requestId": f"a{index}",
                "name": "messages.sendLater",
                "args": {"channel": "later", "author": "a", "text": "t", "delayMs": 60_000},
            },
        )
        for index in range(60_000)
    )
    send_unread(peer, frames, settle=2)
    return [peer]


def case_request_ids(server):
    peer = Peer(server.port)
    long_id = "r" * 900_000
    frames = (
        peer.message(
            "tinyvex/mutation",
            {"requestId": f"{index}{long_id}", "name": "messages.send", "args": {"channel": "ids", "author": "a", "text": "t"}},
        )
        for index in range(500)
    )
    send_unread(peer, frames, settle=2)
    return [peer]


CASES = {
    "subscriptions": case_subscriptions,
    "pings": case_pings,
    "actions": case_actions,
    "request-ids": case_request_ids,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=str(DEFAULT_BINARY))
    parser.add_argument("--case", choices=sorted(CASES), action="append")
    arguments = parser.parse_args()
    binary = pathlib.Path(arguments.binary)
    if not binary.exists():
        raise SystemExit(f"{binary} is missing: build Packages/Tinyvex first")
    failed = False
    for name in arguments.case or list(CASES):
        server = Server(binary)
        try:
            time.sleep(0.3)
            server.reset_peak()
            start_kb = server.rss_kb()
            peers = CASES[name](server)
            alive = server.alive()
            peak_mb = server.peak_kb / 1024
            start_mb = start_kb / 1024
            limit_mb = start_mb + (MAX_SEND_QUEUE_BYTES + TRANSPORT_OUTBOUND_BUFFER) / MIB + CONSTANT_MB
            verdict = "PASS" if alive and peak_mb <= limit_mb else "FAIL"
            failed = failed or verdict == "FAIL"
            note = "" if alive else " (the server died)"
            print(f"rss {name} {start_mb:.0f} {peak_mb:.0f} {limit_mb:.0f} {verdict}{note}", flush=True)
            for peer in peers:
                peer.close()
        finally:
            server.stop()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
