"""A least-recently-used cache bounded by entry count and by total weight.

Blobs (``gitstore``), text indexes (``match``) and syntax trees (``symbols``)
are kept by their object id or text; each costs memory in proportion to its
text, so a count alone does not bound the cache: the weight does.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, Hashable, TypeVar

V = TypeVar("V")


class SizedLRU(Generic[V]):
    """Oldest-used entries leave first once there are more than ``max_entries``
    or their weights add up to more than ``max_weight``. The newest entry is
    always kept, so one large value is still cached until the next arrives."""

    def __init__(self, max_weight: int, max_entries: int | None = None) -> None:
        self.max_weight = max_weight
        self.max_entries = max_entries
        self.total_weight = 0
        self._items: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()
        #: the entry got or put last, ``(key, value)``: the newest, so asked again (the
        #: checks go file by file, asking for one file's text and index many times in a
        #: row) it is answered without the lock or a move (one tuple: read whole, never torn)
        self._last: tuple[Hashable, V] | None = None

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Hashable) -> V | None:
        last = self._last
        if last is not None and last[0] == key:
            return last[1]
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            self._items.move_to_end(key)
            self._last = (key, item[0])
            return item[0]

    def put(self, key: Hashable, value: V, weight: int) -> None:
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.total_weight -= old[1]
            self._items[key] = (value, weight)
            self._last = (key, value)
            self.total_weight += weight
            while len(self._items) > 1 and (
                self.total_weight > self.max_weight
                or (self.max_entries is not None and len(self._items) > self.max_entries)
            ):
                _, (_, dropped) = self._items.popitem(last=False)
                self.total_weight -= dropped

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._last = None
            self.total_weight = 0
