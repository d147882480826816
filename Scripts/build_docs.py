#!/usr/bin/env python3
"""Builds the DocC catalogs of our library modules and fails on any DocC warning.

Usage: build_docs.py SYMBOL_GRAPH_DIR OUTPUT_DIR CATALOG...

Each CATALOG is a `Packages/<Package>/Sources/<Module>/Documentation.docc` folder; the module is
the folder that holds it. Its symbols come from SYMBOL_GRAPH_DIR, the graphs the compiler wrote
during the shared debug build (see lib.sh), so nothing is compiled again: `docc convert` reads
the module's graphs and the catalog and writes `<Module>.doccarchive` into OUTPUT_DIR, with
warnings as errors, so a broken link or symbol reference (in an article or in a doc comment)
fails the build.

A module's graph also lists what it re-exports. Our own layers stay (`import RpcDo` gives the
transport's types, and their pages link to each other); symbols declared in a dependency's
sources (RivetKit re-exports OpenCombine's Combine names) are left out: they are not ours to
document, and thousands of them would make DocC take minutes instead of seconds.
"""
import json
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from check_docs import graph_files  # noqa: E402  (the same graph files the doc-comment check reads)

# Relationships through which a symbol belongs to another: a member of a left-out symbol (a
# method an OpenCombine protocol extension gives every publisher) is left out with it.
MEMBERSHIP = {"memberOf", "requirementOf", "optionalRequirementOf", "extensionTo"}


def is_dependency_symbol(symbol):
    return "/checkouts/" in symbol.get("location", {}).get("uri", "")


def own_graph(graph):
    """The graph without the symbols declared in a dependency's sources, nor their members."""
    symbols = graph.get("symbols", [])
    relationships = graph.get("relationships", [])
    left_out = {s["identifier"]["precise"] for s in symbols if is_dependency_symbol(s)}
    grown = True
    while grown:
        grown = False
        for relationship in relationships:
            if (
                relationship.get("kind") in MEMBERSHIP
                and relationship.get("target") in left_out
                and relationship.get("source") not in left_out
            ):
                left_out.add(relationship["source"])
                grown = True
    graph["symbols"] = [s for s in symbols if s["identifier"]["precise"] not in left_out]
    graph["relationships"] = [
        r for r in relationships if r.get("source") not in left_out and r.get("target") not in left_out
    ]
    return graph


def cpu_seconds():
    """The CPU time the finished child processes (docc) used, user and system."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def build(catalog, graphs, output, work):
    module = catalog.parent.name
    paths = graph_files(graphs, module)
    if paths is None:
        print(f"error: no symbol graph for module {module} in {graphs} (was it built?)")
        return False
    module_graphs = work / module
    module_graphs.mkdir()
    for path in paths:
        graph = own_graph(json.loads(path.read_text()))
        if path.name != f"{module}.symbols.json" and not graph["symbols"]:
            continue  # extensions of another module's types, all of them a dependency's
        (module_graphs / path.name).write_text(json.dumps(graph))
    archive = output / f"{module}.doccarchive"
    command = [
        "docc", "convert", str(catalog),
        "--additional-symbol-graph-dir", str(module_graphs),
        "--output-path", str(archive),
        "--fallback-display-name", module,
        "--fallback-bundle-identifier", module,
        "--warnings-as-errors",
    ]
    started, cpu_before = time.monotonic(), cpu_seconds()
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seconds, cpu = time.monotonic() - started, cpu_seconds() - cpu_before
    if result.returncode != 0:
        print(result.stdout, end="")
        print(f"error: the documentation of {module} has errors ({catalog})")
        return False
    print(f"docs: {module} built in {seconds:.1f}s ({cpu:.1f}s of CPU): {archive}")
    return True


def main(graphs, output, catalogs):
    graphs, output = pathlib.Path(graphs), pathlib.Path(output)
    output.mkdir(parents=True, exist_ok=True)
    failed = []
    with tempfile.TemporaryDirectory(prefix="build-docs.") as work:
        for catalog in dict.fromkeys(pathlib.Path(c).resolve() for c in catalogs):
            if not build(catalog, graphs, output, pathlib.Path(work)):
                failed.append(catalog.parent.name)
    if failed:
        print(f"error: documentation with errors: {', '.join(failed)}")
        return 1
    print(f"docs: {len(catalogs)} catalogs built without a warning")
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
