"""What a project never has checked: always-skipped directories, the config's
`ignore` patterns and git's ignore files (gitignore syntax, negations included)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from typing import Final, NamedTuple

from pathspec import GitIgnoreSpec
from pathspec.patterns.gitignore import GitIgnorePatternError

from signalint import answers

# Never walked, whatever the ignore settings say: dependencies, VCS data, our state.
ALWAYS_SKIPPED: Final = frozenset({"node_modules", ".git", ".signalint"})


def ignored_reason(
    rel: str, ignore: Sequence[str], *, is_dir: bool, source: str = "signalint.config.json"
) -> str | None:
    """Why the walk never checks project-relative `rel`, or None when it may.

    Names what ignores it: an always-skipped directory, or the first config
    `ignore` pattern that excludes `rel` or a directory above it (the walk
    prunes there), and `source`, where the patterns come from. `.gitignore`
    is not consulted: a file named explicitly is checked even when git
    ignores it (see `walk`).
    """
    if rel == ".":
        return None
    parts = rel.split("/")
    skipped = next((p for p in parts if p in ALWAYS_SKIPPED), None)
    if skipped is not None:
        return (
            f"it is ignored: Signalint never checks {skipped}/ "
            "(dependencies, VCS data and its own state are always skipped)"
        )
    rules = config_rules(tuple(ignore))
    if rules is None:
        return None
    for depth in range(1, len(parts) + 1):
        directory = depth < len(parts) or is_dir
        sub = "/".join(parts[:depth])
        found = rules.spec.check_file(sub + "/" if directory else sub)
        if not found.include or found.index is None:
            continue
        if directory and found.index in rules.contents_only:
            continue  # the walk descends: a negation may re-include something
        pattern = str(rules.spec.patterns[found.index].pattern)
        return (
            f"it is ignored by the pattern {pattern!r} of `ignore` in {source}; "
            "to check it, set `ignore` without that pattern"
        )
    return None


class Rules(NamedTuple):
    """One gitignore-style pattern file, applying below `base` ("" or "dir/")."""

    base: str
    spec: GitIgnoreSpec
    # Indices of "dir/**" patterns in a file that also has "!" patterns: such a
    # match excludes the directory's contents, not the directory, and a
    # negation may re-include some of them, so git still descends into it.
    contents_only: frozenset[int]
    # What identifies the rules' source: the file's stat, or the patterns.
    stamp: str = ""


def compile_rules(base: str, lines: Sequence[str], stamp: str = "") -> Rules | None:
    try:
        spec = GitIgnoreSpec.from_lines(lines)
    except GitIgnorePatternError:
        # git skips invalid lines and keeps the rest; so do we.
        good = [line for line in lines if _valid(line)]
        spec = GitIgnoreSpec.from_lines(good)
    if all(p.include is None for p in spec.patterns):
        return None
    contents_only: frozenset[int] = frozenset()
    if any(p.include is False for p in spec.patterns):
        contents_only = frozenset(
            i for i, p in enumerate(spec.patterns) if str(p.pattern).rstrip().endswith("/**")
        )
    return Rules(base, spec, contents_only, stamp or "\n".join(lines))


@functools.lru_cache(maxsize=8)
def config_rules(ignore: tuple[str, ...]) -> Rules | None:
    """The config's `ignore` patterns, compiled once (a check may name 10,000 paths)."""
    return compile_rules("", ignore)


_VERDICTS = 200_000  # paths remembered per set of patterns


@functools.lru_cache(maxsize=8)
def config_matcher(ignore: tuple[str, ...]) -> Callable[[str], bool]:
    """Whether the config's `ignore` patterns match a project-relative path,
    each path's verdict remembered: every check asks about the same files
    (a whole program's issues, thousands of them)."""
    spec = GitIgnoreSpec.from_lines(ignore)
    verdicts: dict[str, bool] = {}

    def matches(rel_path: str) -> bool:
        verdict = verdicts.get(rel_path)
        if verdict is None:
            if len(verdicts) >= _VERDICTS:
                verdicts.clear()  # only a memo
            verdict = verdicts[rel_path] = spec.match_file(rel_path)
        return verdict

    return matches


def _valid(line: str) -> bool:
    try:
        GitIgnoreSpec.from_lines([line])
    except GitIgnorePatternError:
        return False
    return True


def read_rules(base: str, file: str) -> Rules | None:
    answers.note((file,))
    try:
        with open(file, encoding="utf-8", errors="replace") as fh:
            stamp = file_stamp(os.fstat(fh.fileno()))
            return compile_rules(base, fh.read().splitlines(), f"{file}:{stamp}")
    except OSError:
        return None


def file_stamp(st: os.stat_result) -> str:
    return f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"


def verdict(rules: Sequence[Rules], rel: str, is_dir: bool) -> bool:
    """Whether `rel` is excluded; deeper rule files override shallower ones."""
    candidate = rel + "/" if is_dir else rel
    for base, spec, contents_only, _ in reversed(rules):
        result = spec.check_file(candidate[len(base) :])
        if result.include is None:
            continue
        if is_dir and result.include and result.index in contents_only:
            return False
        return bool(result.include)
    return False


def ancestor_rules(root: str, rel_dir: str) -> list[Rules]:
    """Rules from .git/info/exclude and every .gitignore above `rel_dir`."""
    found = [read_rules("", os.path.join(root, ".git", "info", "exclude"))]
    parts = [] if rel_dir == "." else rel_dir.split("/")
    for depth in range(len(parts)):  # root .. parent of rel_dir; rel_dir's own is read by the walk
        base = "/".join(parts[:depth])
        prefix = base + "/" if base else ""
        found.append(read_rules(prefix, os.path.join(root, base, ".gitignore")))
    return [r for r in found if r is not None]


def local_rules(root: str, prefix: str, inherited: list[Rules], has_ignore: bool) -> list[Rules]:
    """The rules in force inside a directory: the inherited ones plus its own `.gitignore`."""
    if not has_ignore:
        return inherited
    found = read_rules(prefix, os.path.join(root, prefix, ".gitignore"))
    return inherited if found is None else [*inherited, found]
