"""Union-find over duplicate edges; the canonical of a group is its earliest member."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


class UnionFind:
    """Union-find whose root is always the earliest member by (fetched_at, id)."""

    def __init__(self, order: Mapping[str, tuple[str, str]]) -> None:
        # order[id] = (fetched_at, id); ids missing from it sort by id alone, last.
        self._order = order
        self._parent: dict[str, str] = {}

    def _key(self, x: str) -> tuple[int, str, str]:
        o = self._order.get(x)
        return (0, o[0], o[1]) if o else (1, "", x)

    def find(self, x: str) -> str:
        parent = self._parent
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while x != root:  # path compression
            nxt = parent.get(x, x)
            parent[x] = root
            x = nxt
        return root

    def union(self, a: str, b: str) -> str:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return ra
        if self._key(rb) < self._key(ra):
            ra, rb = rb, ra
        self._parent[rb] = ra
        return ra


def groups(
    members: Iterable[str],
    edges: Iterable[tuple[str, str]],
    order: Mapping[str, tuple[str, str]],
) -> dict[str, str]:
    """Map every member to the canonical (earliest) id of its group."""
    uf = UnionFind(order)
    for a, b in edges:
        uf.union(a, b)
    return {m: uf.find(m) for m in members}
