"""A bounded mapping that keeps the entries used last: the process's caches of what the log
already says (folded states, seeds, streams' partitions and last versions, tables seen
unrated), each of a size that bounds its memory whatever the number of tables."""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

__all__ = ["Lru"]

V = TypeVar("V")


class Lru(Generic[V]):
    """A mapping that keeps the ``size`` entries used last (a read counts as a use).

    >>> cache: Lru[int] = Lru(2)
    >>> cache.put("a", 1); cache.put("b", 2); cache.get("a"); cache.put("c", 3)
    1
    >>> "b" in cache, cache.get("a"), cache.get("c"), len(cache)
    (False, 1, 3, 2)
    """

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"a cache needs room for at least one entry, not {size!r}")
        self.size = size
        self._items: OrderedDict[str, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def items(self) -> list[tuple[str, V]]:
        """The entries, least recently used first."""
        return list(self._items.items())

    def get(self, key: str) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: str, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def clear(self) -> None:
        self._items.clear()
