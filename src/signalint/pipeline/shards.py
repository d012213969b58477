"""CI shards: which part of a check one of N shards runs (`check --shard I/N`).

A shard is a deterministic part of the check the same arguments would
run unsharded: every shard of one check computes the same division from
the same tree and arguments, and every file and program belongs to
exactly one shard, so the shards' issues together are the unsharded
check's issues, each once (`signalint merge` puts them back together).

The division (docs/ci.md):

1. Workspace packages first. Each package (with everything under its
   directory: its files for the file-local engines, its own program for
   the per-package engines) goes to one shard. Packages are dealt out
   largest first (walked files under the package, plus one for its
   program), ties by path, each to the shard with the least weight so
   far, ties to the lowest index: the shards' loads stay even however
   few packages there are.
2. Files outside every package (all files, without a workspace) go by a
   hash of their project-relative path (`bucket`: the first eight bytes
   of a SHA-256, modulo N).
3. A whole-program engine's program that is not a package's own (tsc on
   the root's tsconfig.json, mypy, Pyright) goes by a hash of the engine
   name and the program's project-relative directory, modulo N; so two
   type checkers of one project usually run on different shards.

The hash never depends on the machine, the process or the checkout's
absolute path.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from signalint.pipeline.workspaces import Package

_FORM = re.compile(r"^\s*([0-9]{1,9})\s*/\s*([0-9]{1,9})\s*$")
# The most shards a check is divided into: more jobs than any CI matrix
# runs (GitHub Actions allows 256), and a bound the division's work keeps.
MAX_SHARDS = 1000


class ShardError(ValueError):
    """A `--shard` value that is not `I/N` with 1 <= I <= N; the message says why."""


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard `index` (1-based) of `count`."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not 1 <= self.count <= MAX_SHARDS or not 1 <= self.index <= self.count:
            raise ShardError(f"shard {self.index} of {self.count} does not exist")

    @property
    def label(self) -> str:
        """`I/N`, as the option takes it."""
        return f"{self.index}/{self.count}"

    @property
    def slug(self) -> str:
        """`shard-I-of-N`, for identifiers (SARIF `automationDetails.id`)."""
        return f"shard-{self.index}-of-{self.count}"

    def describe(self) -> str:
        return f"shard {self.index} of {self.count}"


ACCEPTED = (
    f"I/N with whole numbers 1 <= I <= N <= {MAX_SHARDS} "
    "(I counts from 1: 1/3, 2/3 and 3/3 are three shards)"
)


def parse(text: str) -> Shard:
    """The shard `text` names (`I/N`). Raises ShardError saying what is accepted."""
    found = _FORM.match(text)
    if found is None:
        raise ShardError(f"{text!r} is not a shard: expected {ACCEPTED}")
    index, count = int(found[1]), int(found[2])
    if count < 1:
        raise ShardError(f"{text!r} has no shards (N is {count}): expected {ACCEPTED}")
    if count > MAX_SHARDS:
        raise ShardError(f"{text!r} asks for more than {MAX_SHARDS} shards: expected {ACCEPTED}")
    if not 1 <= index <= count:
        raise ShardError(f"{text!r} names shard {index} of {count}: expected {ACCEPTED}")
    return Shard(index, count)


def bucket(key: str, count: int) -> int:
    """The 1-based shard of `count` that a hash of `key` picks."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


@dataclass(frozen=True, slots=True)
class Division:
    """What one shard owns: `packages` (names) among the workspace's
    `package_paths` (path -> name), then files and programs by hash."""

    shard: Shard
    package_paths: dict[str, str] = field(default_factory=dict)
    packages: frozenset[str] = frozenset()

    def package_of(self, rel_path: str) -> str | None:
        """The name of the deepest package holding `rel_path`, or None."""
        if not self.package_paths:
            return None
        path = rel_path
        while True:
            name = self.package_paths.get(path)
            if name is not None:
                return name
            if "/" not in path:
                return None
            path = path.rsplit("/", 1)[0]

    def owns_file(self, rel_path: str) -> bool:
        package = self.package_of(rel_path)
        if package is not None:
            return package in self.packages
        return bucket(f"file:{rel_path}", self.shard.count) == self.shard.index

    def owns_package(self, package: Package) -> bool:
        return package.name in self.packages

    def program_shard(self, engine: str, directory: str) -> int:
        """The shard that runs `engine`'s program at `directory` (not a package's own)."""
        return bucket(f"program:{engine}:{directory}", self.shard.count)

    def owns_program(self, engine: str, directory: str) -> bool:
        return self.program_shard(engine, directory) == self.shard.index


def divide(
    shard: Shard,
    packages: Sequence[Package],
    files: Iterable[str],
    programs: Iterable[str] = (),
) -> Division:
    """The division for `shard`: workspace `packages` dealt out by weight
    (module docstring), `files` being the walked files and `programs` the
    names of the packages whose own programs run."""
    division = Division(shard, {p.path: p.name for p in packages})
    weight = dict.fromkeys((p.name for p in packages), 0)
    for name in programs:
        if name in weight:
            weight[name] += 1
    for rel_path in files:
        owner = division.package_of(rel_path)
        if owner is not None:
            weight[owner] += 1
    loads = [0] * shard.count
    owned: set[str] = set()
    for package in sorted(packages, key=lambda p: (-weight[p.name], p.path)):
        lightest = min(range(shard.count), key=lambda i: (loads[i], i))
        loads[lightest] += weight[package.name]
        if lightest + 1 == shard.index:
            owned.add(package.name)
    return Division(shard, division.package_paths, frozenset(owned))


__all__ = ["ACCEPTED", "MAX_SHARDS", "Division", "Shard", "ShardError", "bucket", "divide", "parse"]
