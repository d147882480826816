#!/usr/bin/env python3
"""Checks that the stack does each shared thing one way.

Each rule names the one place a concern lives and a pattern that betrays a second copy of it
anywhere else in the repository's Swift code (library code, commands, demos and tests). Prints
each rule with the number of places it found, and exits non-zero when any rule finds a copy.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEARCHED = ["Packages", "Tests"]


class Rule:
    def __init__(self, concern, home, pattern, allowed, scope="all", window=0):
        self.concern = concern
        self.home = home
        self.pattern = re.compile(pattern)
        # Files (relative to the root) where the pattern is the one place itself.
        self.allowed = allowed
        # "all", or "sources" (library code and commands only) or "tests".
        self.scope = scope
        # With a window, the pattern must match within that many lines of a `group.addTask`.
        self.window = window


RULES = [
    Rule(
        "one connection supervisor (reconnect loop)",
        "Packages/Transport/Sources/RpcTransport/Connection/ConnectionSupervisor.swift",
        r"backoff\.delay\(forAttempt|reconnectBackoff\.delay\(|takeOpenPermit|mayOpen\b",
        [
            "Packages/Transport/Sources/RpcTransport/Connection/ConnectionSupervisor.swift",
            "Packages/Managed/Sources/RpcDo/Retry/RetryLoop.swift",
        ],
        scope="sources",
    ),
    Rule(
        "one retry loop",
        "Packages/Managed/Sources/RpcDo/Retry/RetryLoop.swift",
        r"struct RetryLoop\b|\bresends\s*\+=\s*1",
        ["Packages/Managed/Sources/RpcDo/Retry/RetryLoop.swift"],
        scope="sources",
    ),
    Rule(
        "one offline queue",
        "the supervisor's held messages and waiters (offlineQueueLimit)",
        r"offlineQueueLimit:\s*0\b|\bstruct RestoreGate\b|\bclass RestoreGate\b",
        [],
        scope="sources",
    ),
    Rule(
        "one liveness scheduler",
        "Packages/Transport/Sources/RpcTransport/Connection/KeepaliveScheduler.swift",
        r"enum KeepaliveScheduler\b|request\(TinyvexMethod\.ping\b|pingMethod:",
        ["Packages/Transport/Sources/RpcTransport/Connection/KeepaliveScheduler.swift"],
        scope="sources",
    ),
    Rule(
        "one owned task set",
        "Packages/Transport/Sources/RpcTransport/Tasks/OwnedTasks.swift",
        r"\[\s*(UInt64|Int)\s*:\s*Task<|class TaskSet\b|class TaskRegistry\b",
        ["Packages/Transport/Sources/RpcTransport/Tasks/OwnedTasks.swift"],
        scope="sources",
    ),
    Rule(
        "one timeout race",
        "Packages/Transport/Sources/RpcTransport/Tasks/Deadline.swift",
        r"Task\.sleep",
        ["Packages/Transport/Sources/RpcTransport/Tasks/Deadline.swift"],
        scope="sources",
        window=3,
    ),
    Rule(
        "one deadline timer",
        "Packages/Transport/Sources/RpcTransport/Tasks/DeadlineTimer.swift",
        r"\bsweeper\b|func sweep\b|\bHeap<|import HeapModule",
        [
            "Packages/Transport/Sources/RpcTransport/Tasks/DeadlineTimer.swift",
            "Packages/Transport/Sources/RpcTransport/Tasks/DeadlineSchedule.swift",
        ],
        scope="sources",
    ),
    Rule(
        "one base64",
        "Packages/Wire/Sources/RpcWire/Support/Base64.swift",
        r"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789|base64EncodedString\(|Data\(base64Encoded",
        ["Packages/Wire/Sources/RpcWire/Support/Base64.swift"],
    ),
    Rule(
        "one waitUntil",
        "Packages/Wire/Sources/RpcTesting/WaitUntil.swift",
        r"func waitUntil\s*[(<]|func eventually\s*[(<]",
        ["Packages/Wire/Sources/RpcTesting/WaitUntil.swift"],
    ),
    Rule(
        "one time-limit helper",
        "Packages/Transport/Sources/RpcTransportTesting/TimeLimit.swift",
        r"func withTimeLimit\s*[(<]",
        ["Packages/Transport/Sources/RpcTransportTesting/TimeLimit.swift"],
    ),
    Rule(
        "one way to run a command built beside the tests",
        "Packages/Transport/Sources/RpcTransportTesting/CommandProcess.swift",
        r"CommandLine\.arguments\[0\]",
        ["Packages/Transport/Sources/RpcTransportTesting/CommandProcess.swift"],
        scope="tests",
    ),
    Rule(
        "one certificate fixture",
        "Packages/Transport/Sources/RpcTransportTesting/CertificateFixture.swift",
        r"-----BEGIN (CERTIFICATE|PRIVATE KEY|EC PRIVATE KEY|RSA PRIVATE KEY)-----|\"genpkey\"|\"req\"",
        ["Packages/Transport/Sources/RpcTransportTesting/CertificateFixture.swift"],
    ),
]


def swift_files():
    for top in SEARCHED:
        for directory, subdirectories, files in os.walk(os.path.join(ROOT, top)):
            subdirectories[:] = [d for d in subdirectories if not d.startswith(".build") and d != ".venv-interop"]
            for name in files:
                if name.endswith(".swift"):
                    path = os.path.join(directory, name)
                    yield os.path.relpath(path, ROOT)


def in_scope(path, scope):
    is_test = "/Tests/" in path or path.startswith("Tests/")
    if scope == "sources":
        return not is_test
    if scope == "tests":
        return is_test
    return True


def code_lines(text):
    """The lines of `text` with `//` comments removed (doc comments may name the patterns)."""
    lines = []
    for line in text.splitlines():
        stripped = line.lstrip()
        if stripped.startswith("//"):
            lines.append("")
        else:
            lines.append(line)
    return lines


def main():
    files = {path: code_lines(open(os.path.join(ROOT, path), encoding="utf-8").read()) for path in swift_files()}
    failed = False
    for rule in RULES:
        hits = []
        for path, lines in files.items():
            if path in rule.allowed or not in_scope(path, rule.scope):
                continue
            for number, line in enumerate(lines, 1):
                if not rule.pattern.search(line):
                    continue
                if rule.window:
                    # A sleep in a task beside another, not in a periodic loop: a race.
                    start = max(0, number - 1 - rule.window)
                    before = lines[start : number - 1]
                    if not any("addTask" in earlier for earlier in before) or any("while" in earlier for earlier in before):
                        continue
                hits.append(f"{path}:{number}: {line.strip()}")
        status = "ok" if not hits else f"{len(hits)} other place(s)"
        print(f"{rule.concern}: {rule.home}: {status}")
        for hit in hits:
            print(f"    {hit}")
        failed = failed or bool(hits)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
