"""Strongly connected components of a graph given by a children function (the include graph).

One iterative Tarjan for the two summaries kept over headers: ``macros``' include closures and
``file_index``'s Merkle fingerprints. Both combine a component from its members and the finished
results of the components it points to, so components come out children first.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator


def components(
    root: str, children: Callable[[str], Iterable[str]], done: Container[str]
) -> Iterator[list[str]]:
    """The strongly connected components reachable from ``root`` that are not already
    ``done``, each before any component that reaches it (reverse topological order). Nodes in
    ``done`` are not entered. The caller marks a yielded component done before the next one
    is asked for, so later components can read its result. O(nodes + edges), no recursion."""
    order = {root: 0}
    low = {root: 0}
    stack = [root]
    on_stack = {root}
    work = [(root, iter(children(root)))]
    while work:
        node, kids = work[-1]
        descended = False
        for child in kids:
            if child in done:
                continue
            if child not in order:
                order[child] = low[child] = len(order)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(children(child))))
                descended = True
                break
            if child in on_stack:
                low[node] = min(low[node], order[child])
        if descended:
            continue
        work.pop()
        if work:
            parent = work[-1][0]
            low[parent] = min(low[parent], low[node])
        if low[node] == order[node]:
            members: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                members.append(member)
                if member == node:
                    break
            yield members
