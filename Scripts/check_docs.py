#!/usr/bin/env python3
"""Fails when a public symbol of our modules has no doc comment.

Reads the symbol graphs that `swift package dump-symbol-graph` wrote into the folders given on
the command line. Symbols the compiler synthesised, and symbols without a source location
(inherited from other modules), are not ours to document and are skipped.
"""
import json
import pathlib
import sys


def main(folders):
    missing = []
    checked = 0
    for folder in folders:
        for path in sorted(pathlib.Path(folder).glob("*.symbols.json")):
            graph = json.loads(path.read_text())
            for symbol in graph.get("symbols", []):
                if symbol.get("accessLevel") not in ("public", "open"):
                    continue
                precise = symbol.get("identifier", {}).get("precise", "")
                if "::SYNTHESIZED::" in precise or "location" not in symbol:
                    continue
                uri = symbol["location"].get("uri", "")
                if "/Sources/" not in uri:
                    continue
                checked += 1
                lines = symbol.get("docComment", {}).get("lines", [])
                if not any(line.get("text", "").strip() for line in lines):
                    position = symbol["location"].get("position", {})
                    name = ".".join(symbol.get("pathComponents", [])) or precise
                    where = uri.split("/Sources/", 1)[-1]
                    missing.append(f"Sources/{where}:{position.get('line', 0) + 1}: {name}")
    if missing:
        print(f"{len(missing)} public symbols without a doc comment:")
        for line in sorted(set(missing)):
            print(f"  {line}")
        return 1
    print(f"doc comments: {checked} public symbols checked, all documented")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
