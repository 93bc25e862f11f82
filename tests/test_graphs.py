"""``graphs.components``: Tarjan's components, children first, on cycles, diamonds and graphs
with finished parts, against a brute-force reachability definition."""

from __future__ import annotations

import random

from ptxlint.graphs import components


def _reach(graph: dict[str, list[str]], start: str) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for child in graph.get(todo.pop(), []):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def _run(graph: dict[str, list[str]], root: str, done: dict[str, int]) -> list[list[str]]:
    out = []
    for members in components(root, lambda n: graph.get(n, []), done):
        for m in members:
            # every child outside the component is finished before the component comes out
            assert all(c in done or c in members for c in graph.get(m, []))
        for m in members:
            done[m] = len(out)
        out.append(members)
    return out


def test_cycle_and_diamond() -> None:
    graph = {"a": ["b", "c"], "b": ["d"], "c": ["d"], "d": ["e"], "e": ["d"]}
    found = _run(graph, "a", {})
    assert [sorted(c) for c in found][0] == ["d", "e"]
    assert sorted(map(sorted, found)) == [["a"], ["b"], ["c"], ["d", "e"]]


def test_finished_nodes_are_not_entered() -> None:
    graph = {"a": ["b"], "b": ["c"], "c": []}
    entered: list[str] = []

    def children(n: str) -> list[str]:
        entered.append(n)
        return graph[n]

    done = {"b": 0}
    assert list(components("a", children, done)) == [["a"]]
    assert entered == ["a"]


def test_random_graphs_match_mutual_reachability() -> None:
    rnd = random.Random(4)
    for _ in range(300):
        nodes = [str(i) for i in range(rnd.randint(1, 9))]
        graph = {n: rnd.sample(nodes, rnd.randint(0, min(3, len(nodes)))) for n in nodes}
        found = _run(graph, nodes[0], {})
        assert sorted(m for c in found for m in c) == sorted(_reach(graph, nodes[0]))
        for comp in found:
            for x in comp:
                for y in comp:
                    assert y in _reach(graph, x)
        for i, a in enumerate(found):
            for b in found[i + 1:]:
                assert not (b[0] in _reach(graph, a[0]) and a[0] in _reach(graph, b[0]))
