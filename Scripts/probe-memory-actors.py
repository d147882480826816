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
import base64
import json
import os
import pathlib
import socket
import subprocess
import sys
import threading
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_BINARY = REPO / ".build" / "debug" / "rivetkit"

# What a case may add to the server's memory, in MB, on top of its start.
ALLOWANCE_MB = {
    "subscriptions": 48,
    "unread-answers": 48,
    "large-answers": 64,
}


class Server:
    """One `rivetkit serve --demo` process on a free port."""

    def __init__(self, binary):
        self.process = subprocess.Popen(
            [str(binary), "serve", "--demo", "--host", "127.0.0.1", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        line = self.process.stdout.readline().strip()
        if not line.startswith("READY "):
            self.stop()
            raise SystemExit(f"the server did not start: {line!r}")
        self.port = int(line.rsplit(":", 1)[1])
        self.peak_kb = 0
        self._sampling = True
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def rss_kb(self):
        try:
            with open(f"/proc/{self.process.pid}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return 0

    def _sample(self):
        while self._sampling:
            self.peak_kb = max(self.peak_kb, self.rss_kb())
            time.sleep(0.02)

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        self._sampling = False
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def frame(text):
    """A masked text frame (mask key zero, so the payload goes as it is)."""
    payload = text.encode()
    length = len(payload)
    if length < 126:
        head = bytes([0x81, 0x80 | length])
    elif length < 65536:
        head = bytes([0x81, 0x80 | 126]) + length.to_bytes(2, "big")
    else:
        head = bytes([0x81, 0x80 | 127]) + length.to_bytes(8, "big")
    return head + b"\x00\x00\x00\x00" + payload


def read_frame(sock):
    """The payload of the next server frame (unmasked), as text."""

    def exactly(count):
        data = b""
        while len(data) < count:
            chunk = sock.recv(count - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data

    first, second = exactly(2)
    length = second & 0x7F
    if length == 126:
        length = int.from_bytes(exactly(2), "big")
    elif length == 127:
        length = int.from_bytes(exactly(8), "big")
    return exactly(length).decode(errors="replace")


def connect(port, query):
    """A WebSocket to the query gateway of a demo actor, past its Init frame."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /gateway/{query} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            "Sec-WebSocket-Protocol: rivet, rivet_encoding.json\r\n\r\n"
        ).encode()
    )
    response = b""
    while b"\r\n\r\n" not in response:
        chunk = sock.recv(1)
        if not chunk:
            raise ConnectionError("no upgrade")
        response += chunk
    if b" 101 " not in response.split(b"\r\n", 1)[0]:
        raise ConnectionError(response.split(b"\r\n", 1)[0].decode())
    init = read_frame(sock)
    if '"Init"' not in init:
        raise ConnectionError(f"expected Init, got {init[:200]}")
    return sock


def action(action_id, name, args):
    return json.dumps(
        {"body": {"tag": "ActionRequest", "val": {"id": ["$BigInt", str(action_id)], "name": name, "args": args}}},
        separators=(",", ":"),
    )


def send_unread(sock, frames, total, batch=500):
    """Sends `total` frames made by `frames(i)` without reading, in batches, until the server
    stops reading (a send that cannot go on for 2 s) or the count is reached. Returns how many
    were sent."""
    sock.settimeout(2.0)
    sent = 0
    try:
        while sent < total:
            count = min(batch, total - sent)
            sock.sendall(b"".join(frame(frames(sent + i)) for i in range(count)))
            sent += count
    except (socket.timeout, ConnectionError, OSError):
        pass
    return sent


def case_subscriptions(server):
    sock = connect(server.port, "counter/connect?rvt-method=getOrCreate&rvt-key=subs")
    subscribe = lambda i: json.dumps(
        {"body": {"tag": "SubscriptionRequest", "val": {"eventName": f"event-{i}", "subscribe": True}}},
        separators=(",", ":"),
    )
    sent = send_unread(sock, subscribe, 400_000)
    time.sleep(1.0)
    sock.close()
    return f"{sent} subscription requests sent"


def case_unread_answers(server):
    sock = connect(server.port, "counter/connect?rvt-method=getOrCreate&rvt-key=unread")
    sent = send_unread(sock, lambda i: action(i, "getCount", []), 1_000_000)
    time.sleep(1.0)
    sock.close()
    return f"{sent} actions sent"


def case_large_answers(server):
    writer = connect(server.port, "chat/connect?rvt-method=getOrCreate&rvt-key=big")
    # The demo chat keeps 100 messages of at most 4 KiB: a history of about 400 KB.
    text = "m" * 4_000
    for i in range(100):
        writer.sendall(frame(action(i, "send", ["probe", text])))
        answer = read_frame(writer)
        if "ActionResponse" not in answer:
            raise ConnectionError(f"the chat refused a message: {answer[:200]}")
    reader = connect(server.port, "chat/connect?rvt-method=getOrCreate&rvt-key=big")
    bystander = connect(server.port, "counter/connect?rvt-method=getOrCreate&rvt-key=bystander")
    sent = send_unread(reader, lambda i: action(i, "history", []), 2_000, batch=50)
    # Another connection is still answered while the reader does not read.
    bystander.settimeout(10)
    bystander.sendall(frame(action(0, "getCount", [])))
    answered = "ActionResponse" in read_frame(bystander)
    time.sleep(1.0)
    for sock in (writer, reader, bystander):
        sock.close()
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
            start_kb = server.rss_kb()
            server.peak_kb = start_kb
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
