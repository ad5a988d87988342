"""Print the package-level import graph of ``server`` and ``device_bridge`` and its cycles.

Usage: ``.venv/bin/python scripts/import_graph.py [--chains]``

A package here is a direct sub-package (or top-level module) of ``server`` or of
``device_bridge``. An edge ``a -> b`` means some module in ``a`` imports some module in ``b``,
at module level or inside a function (grimp sees both). The cycles printed are the strongly
connected components of that graph with more than one package, and every two-package cycle
(``a -> b`` and ``b -> a``) with the shortest chain each way; their count is printed last.
The layers these are checked against are described in ``docs/architecture.md``.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Iterable

import grimp

ROOTS = ("server", "device_bridge")


def package_of(module: str) -> str:
    """The direct sub-package of a root that ``module`` belongs to (``server.core.db`` → ``server.core``)."""
    parts = module.split(".")
    return ".".join(parts[:2])


def package_edges(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    """Every package's set of other packages it imports (within the roots)."""
    edges: dict[str, set[str]] = {}
    for module in graph.modules:
        if module.split(".")[0] not in ROOTS:
            continue
        source = package_of(module)
        edges.setdefault(source, set())
        for imported in graph.find_modules_directly_imported_by(module):
            if imported.split(".")[0] not in ROOTS:
                continue
            target = package_of(imported)
            if target != source:
                edges[source].add(target)
    return edges


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one package, largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(found, key=lambda c: (-len(c), c))


def mutual_pairs(edges: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Every pair of packages that import each other."""
    return [
        (a, b)
        for a, b in itertools.combinations(sorted(edges), 2)
        if b in edges.get(a, ()) and a in edges.get(b, ())
    ]


def chain_text(graph: grimp.ImportGraph, importer: str, imported: str) -> str:
    """The shortest module chain from one package to another, as text."""
    chain = graph.find_shortest_chain(importer=importer, imported=imported, as_packages=True)
    return " -> ".join(chain) if chain else "(none)"


def print_lines(lines: Iterable[str]) -> None:
    """Print each line."""
    for line in lines:
        print(line)


def main() -> int:
    """Build the graph, print the edges, the cycles and their count."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chains", action="store_true", help="print the shortest chain of each mutual pair")
    args = parser.parse_args()
    graph = grimp.build_graph(*ROOTS, cache_dir=None)
    edges = package_edges(graph)
    print("# package imports")
    print_lines(f"{a} -> {', '.join(sorted(b))}" for a, b in sorted(edges.items()) if b)
    components = strongly_connected(edges)
    print("\n# cycles (strongly connected components)")
    print_lines(f"{len(c)} packages: {' '.join(c)}" for c in components)
    pairs = mutual_pairs(edges)
    print("\n# packages importing each other")
    for a, b in pairs:
        print(f"{a} <-> {b}")
        if args.chains:
            print(f"    {chain_text(graph, a, b)}")
            print(f"    {chain_text(graph, b, a)}")
    in_cycles = sum(len(c) for c in components)
    print(f"\ncycles: {len(components)} component(s), {in_cycles} packages in them,"
          f" {len(pairs)} mutual pair(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
