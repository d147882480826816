#!/usr/bin/env python3
"""Fails when a public symbol of our modules has no doc comment.

Usage: check_docs.py SYMBOL_GRAPH_DIR DESCRIPTION.json...

SYMBOL_GRAPH_DIR holds the symbol graphs the compiler wrote during the debug build
(`-emit-symbol-graph`, public symbols and up) of every module it compiled, ours and those of
swift-nio and the other dependencies. Each DESCRIPTION.json is a layer package's
`swift package describe --type json`; the Swift library modules it lists are the ones checked,
every other graph in the folder is ignored. A checked module without a graph is an error.

Symbols the compiler synthesised, symbols without a source location (inherited from other
modules), and symbols of a dependency's sources (a module it re-exports) are not ours to
document and are skipped.
"""
import json
import pathlib
import sys

# A module's extensions of other modules' types are in `<Module>@<Other>.symbols.json`, written
# by the same compiler job right after `<Module>.symbols.json`. One older than that by more than
# this many seconds is left from an earlier build (the extensions it lists are gone).
STALE_AFTER_SECONDS = 30


def checked_modules(description_paths):
    modules = []
    for path in description_paths:
        description = json.loads(pathlib.Path(path).read_text())
        for target in description.get("targets", []):
            if target.get("type") == "library" and target.get("module_type") == "SwiftTarget":
                modules.append(target["name"])
    return sorted(set(modules))


def graph_files(folder, module):
    main = folder / f"{module}.symbols.json"
    if not main.is_file():
        return None
    oldest = main.stat().st_mtime - STALE_AFTER_SECONDS
    extensions = [
        path for path in sorted(folder.glob(f"{module}@*.symbols.json")) if path.stat().st_mtime >= oldest
    ]
    return [main, *extensions]


def main(folder, description_paths):
    folder = pathlib.Path(folder)
    modules = checked_modules(description_paths)
    if not modules:
        print("error: no library modules to check")
        return 1
    missing = []
    checked = 0
    for module in modules:
        paths = graph_files(folder, module)
        if paths is None:
            print(f"error: no symbol graph for module {module} in {folder} (was it built?)")
            return 1
        for path in paths:
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
                # A dependency's symbol, in the graph because a module of ours re-exports it
                # (RivetKit re-exports OpenCombine's Combine names): not ours to document.
                if "/checkouts/" in uri:
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
    print(f"doc comments: {checked} public symbols of {len(modules)} modules checked, all documented")
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
