"""The interface of a result store, and stores stacked in tiers.

Engine results are kept by content-addressed key (D1, D2): the same key
always means the same result, so a store may be local (the SQLite cache),
shared across machines, slow, or gone. A `ResultTier` never raises and
never answers wrongly: a store that fails answers a miss and drops the
write, and says so once itself. `Tiers` reads the nearest tier first, asks
the next one only for what is still missing (one call per tier per batch),
and copies what a farther tier had into the nearer ones; a write goes to
every tier.

A read may name its `group` (the batch's engine, version and options): a
tier that keeps whole groups in one value (`remote.RemoteTier`) answers it
in one round trip; others ignore it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol


class ResultTier(Protocol):
    """A store of engine results by key; see the module docstring."""

    def get_many(self, keys: Sequence[str], group: str = "") -> dict[str, bytes]:
        """The values of the `keys` it holds (a failure is a miss)."""
        ...

    def put_many(self, items: Mapping[str, bytes]) -> None:
        """Keep `items` (a failure loses them, never raises)."""
        ...


class Tiers:
    """Result tiers, nearest first, used as one `ResultTier`."""

    def __init__(self, tiers: Sequence[ResultTier]) -> None:
        self.tiers = tuple(tiers)

    def get_many(self, keys: Sequence[str], group: str = "") -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        missing = list(dict.fromkeys(keys))
        for depth, tier in enumerate(self.tiers):
            if not missing:
                break
            hits = tier.get_many(missing, group)
            if hits:
                found.update(hits)
                for nearer in self.tiers[:depth]:
                    nearer.put_many(hits)
                missing = [k for k in missing if k not in hits]
        return found

    def put_many(self, items: Mapping[str, bytes]) -> None:
        if items:
            for tier in self.tiers:
                tier.put_many(items)


__all__ = ["ResultTier", "Tiers"]
