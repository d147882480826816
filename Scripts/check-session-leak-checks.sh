#!/usr/bin/env bash
# Checks that every Session test that opens a session runs in the session harness.
#
# The harness (`withCheckedPeers` and the settings built on it: `withSessionPair` for an in-memory
# pair, `withSocketPeers` and `withSocketSession` for a WebSocket client and server) checks, once
# a test's body has run or thrown, that every peer's tables settled at `{imports: 1, exports: 1}`
# or at the counts the test states, then closes the peers. A test that opens a session outside it
# could leak without anyone noticing.
#
# Reads the Swift sources of Packages/Session/Tests (the harness's own folder aside); builds
# nothing. It finds each `@Test` function and each other function, and follows calls from a test
# into the functions of the test sources, so that a test going through a local helper counts as
# the helper does. Prints how many tests open a session and how many of them run in the harness,
# names each test that opens a session outside it, and exits 1 if there is one.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

python3 - "$REPO_ROOT" <<'PYTHON'
import os
import re
import sys

TESTS = "Packages/Session/Tests"
# The harness's own sources.
SUPPORT = "Packages/Session/Tests/Support"

# Opening a session, a server that opens sessions, or a harness that does.
OPENS = re.compile(
    r"RpcSession(?:<[^>()]*>)?\s*\.\s*(?:start|connect)\s*\("
    r"|\bwithRpcSession\s*\(|\bwithRpcServer\s*[\(\{]"
    r"|\.(?:startServer|startClient)\s*\("
    r"|\b(?:withCheckedPeers|withSessionPair|withSocketPeers|withSocketSession)\s*[\(\{]"
)
# Running in the harness.
HARNESS = re.compile(r"\b(?:withCheckedPeers|withSessionPair|withSocketPeers|withSocketSession)\s*[\(\{]")
FUNC = re.compile(r"\bfunc\s+(\w+)\s*(?:<[^>]*>)?\s*\(")


def strip(text):
    """`text` with comments and the contents of string literals blanked out, same length."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text[i] == '"' or (text[i] == "#" and text.startswith('#"', i)):
            hashes = 0
            while i + hashes < n and text[i + hashes] == "#":
                hashes += 1
            multi = text.startswith('"""', i + hashes)
            quote = '"""' if multi else '"'
            close = quote + "#" * hashes
            start = i
            j = i + hashes + len(quote)
            while j < n:
                if hashes == 0 and text[j] == "\\":
                    j += 2
                    continue
                if text.startswith(close, j):
                    j += len(close)
                    break
                if not multi and text[j] == "\n":
                    break
                j += 1
            out.append(re.sub(r"[^\n]", " ", text[start:j]))
            i = j
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def body_end(code, start):
    """The index just past the `}` closing the first `{` at or after `start`."""
    depth = 0
    for i in range(start, len(code)):
        if code[i] == "{":
            depth += 1
        elif code[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(code)


def functions(path):
    """(name, is_test, body) for each function with a body in the file at `path`."""
    code = strip(open(path, encoding="utf-8").read())
    found = []
    for match in FUNC.finditer(code):
        # The attributes before the declaration: back to the end of the previous declaration.
        head = code[max(0, code.rfind("}", 0, match.start()), code.rfind(";", 0, match.start())):match.start()]
        is_test = re.search(r"@Test\b", head) is not None
        brace = code.find("{", match.end())
        # A declaration without a body (a protocol requirement) ends before any brace.
        paren_depth, i = 0, match.end() - 1
        while i < len(code):
            if code[i] == "(":
                paren_depth += 1
            elif code[i] == ")":
                paren_depth -= 1
                if paren_depth == 0:
                    break
            i += 1
        signature_tail = code[i:brace] if brace >= 0 else ""
        if brace < 0 or "\n" in signature_tail.strip() and not signature_tail.strip().startswith(("->", "async", "throws", "where")):
            continue
        found.append((match.group(1), is_test, code[brace:body_end(code, brace)], path))
    return found


def main():
    root = sys.argv[1]
    tests_dir = os.path.join(root, TESTS)
    support_dir = os.path.join(root, SUPPORT)
    everything = []
    for folder, _, files in os.walk(tests_dir):
        if os.path.commonpath([folder, support_dir]) == support_dir:
            continue
        for name in sorted(files):
            if name.endswith(".swift"):
                everything.extend(functions(os.path.join(folder, name)))

    helpers = {}
    for name, is_test, body, _ in everything:
        if not is_test:
            helpers.setdefault(name, []).append(body)

    def calls(body):
        return {name for name in helpers if re.search(r"(?<![\w.])(?:Self\.|self\.)?" + name + r"\s*[\(\{]", body)}

    memo = {}

    def reach(body, pattern, seen):
        if pattern.search(body):
            return True
        for name in calls(body):
            key = (name, pattern.pattern)
            if key in memo:
                if memo[key]:
                    return True
                continue
            if name in seen:
                continue
            result = any(reach(helper, pattern, seen | {name}) for helper in helpers[name])
            memo[key] = result
            if result:
                return True
        return False

    opening, harnessed, outside = 0, 0, []
    for name, is_test, body, path in everything:
        if not is_test or not reach(body, OPENS, frozenset()):
            continue
        opening += 1
        if reach(body, HARNESS, frozenset()):
            harnessed += 1
        else:
            outside.append(f"{os.path.relpath(path, root)}: {name}")

    print(f"session tests that open a session: {opening}")
    print(f"session tests in the checking harness: {harnessed}")
    for test in outside:
        print(f"opens a session outside the harness: {test}")
    return 1 if outside else 0


if __name__ == "__main__":
    sys.exit(main())
PYTHON
