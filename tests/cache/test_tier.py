"""Result tiers: nearest first, farther hits copied nearer, writes everywhere."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from signalint.cache.local_store import ResultCache
from signalint.cache.tier import ResultTier, Tiers


class Memory:
    """A tier in memory that records what it was asked."""

    def __init__(self, data: dict[str, bytes] | None = None) -> None:
        self.data = dict(data or {})
        self.asked: list[list[str]] = []

    def get_many(self, keys: Sequence[str], group: str = "") -> dict[str, bytes]:
        self.asked.append(list(keys))
        return {k: self.data[k] for k in keys if k in self.data}

    def put_many(self, items: Mapping[str, bytes]) -> None:
        self.data.update(items)


def test_a_farther_tier_is_asked_only_for_what_is_missing_and_fills_the_nearer(
    tmp_path: Path,
) -> None:
    near = Memory({"a": b"1"})
    far = Memory({"b": b"2", "c": b"3"})
    tiers = Tiers([near, far])
    assert tiers.get_many(["a", "b", "a", "x"]) == {"a": b"1", "b": b"2"}
    assert far.asked == [["b", "x"]]  # one call for the batch, without "a"
    assert near.data == {"a": b"1", "b": b"2"}
    assert tiers.get_many(["b"]) == {"b": b"2"}
    assert far.asked == [["b", "x"]]  # now a near hit


def test_a_write_reaches_every_tier(tmp_path: Path) -> None:
    near, far = Memory(), Memory()
    Tiers([near, far]).put_many({"k": b"v"})
    assert near.data == far.data == {"k": b"v"}


def test_the_local_sqlite_cache_is_a_tier(tmp_path: Path) -> None:
    local: ResultTier = ResultCache(tmp_path / "state")
    far = Memory({"k": b"v"})
    tiers = Tiers([local, far])
    assert tiers.get_many(["k"]) == {"k": b"v"}
    assert local.get_many(["k"]) == {"k": b"v"}
