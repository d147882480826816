#!/usr/bin/env python3
"""Checks the layering of the packages under Packages/.

1. Each layer package's manifest names exactly one package of this repo, the layer directly below
   it (the bottom layer names none). Every target of the package, tests included, can therefore
   only use the layer below.
2. The Cap'n Web protocol core, and its tests, have no SwiftNIO product anywhere in their
   dependency closure.
3. The Cap'n Web umbrella and the layers above it have no swift-syntax in theirs: only code that
   uses the macros (`CapnWebMacros`) builds swift-syntax.

Usage: check_layers.py REPO_ROOT LAYER_PACKAGE... (bottom-up; a package may be written
`Dir=Below` when the layer it names is not the one listed just before it).
"""

import json
import os
import subprocess
import sys

# Targets that must build without SwiftNIO: package directory, target names.
NIO_FREE = {"Packages/Session": ["CapnWebCore", "CapnWebCoreTests"]}
NIO_PACKAGE = "swift-nio"
# Targets that must build without swift-syntax: package directory, target names.
SYNTAX_FREE = {"Packages/Session": ["CapnWeb", "CapnWebCore", "CapnWebNIO", "CapnWebTesting"], "Packages/Managed": ["RpcDo"]}
SYNTAX_PACKAGE = "swift-syntax"

_manifests = {}


def manifest(path):
    """The package's manifest as `swift package dump-package` prints it (memoised)."""
    path = os.path.realpath(path)
    if path not in _manifests:
        out = subprocess.run(
            ["swift", "package", "dump-package", "--package-path", path],
            check=True, capture_output=True, text=True,
        ).stdout
        _manifests[path] = json.loads(out)
    return _manifests[path]


def local_dependencies(path):
    """The `.package(path:)` dependencies of a package, as real paths."""
    result = []
    for dependency in manifest(path)["dependencies"]:
        for entry in dependency.get("fileSystem", []):
            result.append(os.path.realpath(entry["path"]))
    return result


def package_paths(path):
    """Package identity (as dump-package writes it in product references) to its real path."""
    paths = {}
    for dependency in manifest(path)["dependencies"]:
        for kind, entries in dependency.items():
            for entry in entries:
                identity = entry.get("identity") or entry.get("nameForTargetDependencyResolutionOnly")
                if kind == "fileSystem":
                    paths[identity.lower()] = os.path.realpath(entry["path"])
                else:
                    paths[identity.lower()] = None  # a remote package
    return paths


def closure(path, target_name, seen, trail):
    """Yields (package identity, product) for every product reached from a target."""
    data = manifest(path)
    targets = {target["name"]: target for target in data["targets"]}
    key = (os.path.realpath(path), target_name)
    if key in seen or target_name not in targets:
        return
    seen.add(key)
    identities = package_paths(path)
    for dependency in targets[target_name]["dependencies"]:
        if "byName" in dependency:
            name = dependency["byName"][0]
            yield from closure(path, name, seen, trail + [name])
        elif "target" in dependency:
            name = dependency["target"][0]
            yield from closure(path, name, seen, trail + [name])
        elif "product" in dependency:
            product, package = dependency["product"][0], (dependency["product"][1] or "").lower()
            yield package, product, trail + [f"{package}:{product}"]
            below = identities.get(package)
            if below is None:
                continue
            for entry in manifest(below)["products"]:
                if entry["name"] == product:
                    for name in entry["targets"]:
                        yield from closure(below, name, seen, trail + [f"{package}:{product}", name])


def main():
    root = os.path.realpath(sys.argv[1])
    failures = []
    previous = None
    for spec in sys.argv[2:]:
        directory, _, below = spec.partition("=")
        expected = [os.path.realpath(os.path.join(root, below or previous))] if (below or previous) else []
        actual = local_dependencies(os.path.join(root, directory))
        names = lambda paths: sorted(os.path.relpath(p, root) for p in paths)
        if sorted(actual) != sorted(expected):
            failures.append(f"{directory} names {names(actual) or 'no package'} of this repo; "
                            f"it must name exactly {names(expected) or 'none'}")
        else:
            print(f"layers: {directory} -> {', '.join(names(actual)) or '(bottom)'}")
        if not below:
            previous = directory
    for directory, targets in NIO_FREE.items():
        for target in targets:
            reached = [trail for package, _, trail in closure(os.path.join(root, directory), target, set(), [target])
                       if package == NIO_PACKAGE]
            if reached:
                failures.append(f"{target} reaches SwiftNIO: {' -> '.join(reached[0])}")
            else:
                print(f"layers: {target} has no SwiftNIO product in its dependency closure")
    for directory, targets in SYNTAX_FREE.items():
        for target in targets:
            reached = [trail for package, _, trail in closure(os.path.join(root, directory), target, set(), [target])
                       if package == SYNTAX_PACKAGE]
            if reached:
                failures.append(f"{target} reaches swift-syntax: {' -> '.join(reached[0])}")
            else:
                print(f"layers: {target} has no swift-syntax in its dependency closure")
    for failure in failures:
        print(f"error: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
