"""What git says changed: files against a revision, revisions and their trees.

Every function runs `git` in the project root (through `process.run`, the
only place that starts processes) and returns project-relative POSIX
paths, whether the project root is the repository's top level or a
directory inside it. Failures raise `GitError` naming the git command and
what git said (not a repository, an unknown revision, no git at all).
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path

from signalint.errors import SignalintError
from signalint.files import write_atomic
from signalint.process import Command, run

_TIMEOUT_S = 120.0
_SKIPPED = frozenset({".git", ".signalint", "node_modules"})


class GitError(SignalintError):
    """A git command failed; the message names it and what git said (CLI exit 2)."""


async def git(root: Path, *args: str, what: str, env: dict[str, str] | None = None) -> str:
    """`git -C root args...`'s stdout; raises GitError saying `what` failed.

    `env` is added to the environment (e.g. `GIT_INDEX_FILE`)."""
    result = await run(
        Command(
            argv=("git", "-C", str(root), *args),
            cwd=root,
            timeout_s=_TIMEOUT_S,
            ok_exit_codes=frozenset({0}),
            env=env or {},
        )
    )
    if result.missing:
        raise GitError(f"{what}: git is not installed (or not on PATH)")
    if not result.finished or result.exit_code != 0:
        said = (result.stderr or result.start_error or "").strip().splitlines()
        detail = said[0] if said else f"exit code {result.exit_code}"
        raise GitError(f"{what}: `git {' '.join(args)}` failed: {detail}")
    return result.stdout


def _split(output: str) -> list[str]:
    return [p for p in output.split("\0") if p]


async def commit_of(root: Path, rev: str, *, option: str) -> tuple[str, str]:
    """The commit and tree ids of `rev`; `option` names where it came from."""
    if not rev or rev.startswith("-") or "\0" in rev:
        raise GitError(f"{option} {rev!r}: expected a git revision (a branch, tag or commit)")
    what = f"{option} {rev}: not a revision of this repository"
    commit = await git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", what=what)
    tree = await git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{tree}}", what=what)
    return commit.strip(), tree.strip()


async def merge_base(root: Path, branch: str, *, option: str = "--new-from-merge-base") -> str:
    """The merge base of HEAD and `branch` (what a pull request is compared with);
    `option` names where `branch` came from."""
    if not branch or branch.startswith("-") or "\0" in branch:
        raise GitError(f"{option} {branch!r}: expected a branch or revision")
    found = await git(
        root,
        "merge-base",
        "HEAD",
        branch,
        what=f"{option} {branch}: no merge base of HEAD and {branch}",
    )
    return found.strip()


async def changed_since(root: Path, rev: str, *, state: Path) -> list[str]:
    """Project files that differ from `rev`: committed since, staged, unstaged,
    untracked (not ignored); deleted files are left out, and so is anything
    in the state directory `state` or a node_modules, .git or .signalint
    directory (never project sources, even where .gitignore does not say
    so). Sorted."""
    what = f"files changed since {rev}"
    diff = await git(root, "diff", "--name-only", "--relative", "-z", rev, "--", ".", what=what)
    untracked = await git(
        root, "ls-files", "--others", "--exclude-standard", "-z", "--", ".", what=what
    )
    names = set(_split(diff)) | set(_split(untracked))
    within = os.path.relpath(state, root)
    inside = "" if within.startswith("..") else within.rstrip("/") + "/"
    return sorted(
        n
        for n in names
        if os.path.lexists(root / n)
        and not _SKIPPED.intersection(n.split("/"))
        and not (inside and n.startswith(inside))
    )


_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def _diff_path(text: str) -> str:
    """A path of a `+++ b/...` line, unquoted as git quotes unusual names."""
    if text.startswith('"') and text.endswith('"'):
        text = codecs.escape_decode(text[1:-1].encode())[0].decode("utf-8", "replace")
    return text[2:] if text.startswith("b/") else text


def parse_changed_lines(diff: str) -> dict[str, frozenset[int] | None]:
    """The new-side lines of each file in `git diff -U0` output; None for a
    file the diff adds whole. Files whose change adds no line (only
    deletions, a mode change, a binary file) map to an empty set."""
    found: dict[str, set[int] | None] = {}
    current: str | None = None
    added = False
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            current, added = None, False
        elif line.startswith("new file mode"):
            added = True
        elif line.startswith("+++ "):
            target = line[4:]
            current = None if target == "/dev/null" else _diff_path(target)
            if current is not None:
                found[current] = None if added else found.get(current) or set()
        elif current is not None and (match := _HUNK.match(line)):
            lines = found[current]
            if lines is not None:
                start, count = int(match.group(1)), int(match.group(2) or "1")
                lines.update(range(start, start + count))
    return {name: None if lines is None else frozenset(lines) for name, lines in found.items()}


async def changed_lines(root: Path, rev: str) -> Mapping[str, frozenset[int] | None]:
    """The lines of the working tree's project files that changed since `rev`
    (committed, staged, unstaged), per project-relative file; None for a
    whole new file (added since `rev`, or untracked and not ignored). A moved
    file counts only its changed lines (git's rename detection)."""
    what = f"lines changed since {rev}"
    diff = await git(
        root,
        *("diff", "-U0", "--no-color", "--no-ext-diff", "--relative", "-M"),
        *("--src-prefix=a/", "--dst-prefix=b/", rev, "--", "."),
        what=what,
    )
    untracked = await git(
        root, "ls-files", "--others", "--exclude-standard", "-z", "--", ".", what=what
    )
    found = parse_changed_lines(diff)
    found.update(dict.fromkeys(_split(untracked)))
    return found


async def ignored_paths(root: Path) -> list[str]:
    """The project's ignored, untracked paths, a wholly ignored directory as
    one entry ending in "/" (so `node_modules` is not listed file by file)."""
    listed = await git(
        root,
        *("ls-files", "--others", "--ignored", "--exclude-standard"),
        *("--directory", "--no-empty-directory", "-z", "--", "."),
        what="the ignored files the old tree borrows",
    )
    return sorted(_split(listed))


async def checkout_tree(top: Path, tree: str, path: Path) -> bool:
    """The files of `tree` at `path`, written once and reused while the marker
    beside it (`<path>.tree`) names that tree; True when they were written now.

    Written with git's `read-tree` and `checkout-index` through an index
    file of our own, so nothing is written in the repository's `.git` (`git
    worktree add` would register the copy there).
    """
    marker = path.parent / f"{path.name}.tree"
    with contextlib.suppress(OSError):
        if marker.read_text() == tree and path.is_dir():
            return False
    shutil.rmtree(path, ignore_errors=True)
    with contextlib.suppress(OSError):
        marker.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    index = path.parent / f"{path.name}.index"
    env = {"GIT_INDEX_FILE": str(index)}
    what = f"a copy of tree {tree[:12]} in the work directory"
    try:
        await git(top, "read-tree", tree, what=what, env=env)
        await git(top, "checkout-index", "--all", f"--prefix={path}/", what=what, env=env)
    finally:
        with contextlib.suppress(OSError):
            index.unlink()
    write_atomic(marker, tree.encode(), mode=0o644)
    return True


async def toplevel(root: Path) -> Path:
    """The top level of the repository that holds `root`."""
    return Path(
        (await git(root, "rev-parse", "--show-toplevel", what="the git repository")).strip()
    )


__all__ = [
    "GitError",
    "changed_lines",
    "changed_since",
    "checkout_tree",
    "commit_of",
    "git",
    "ignored_paths",
    "merge_base",
    "toplevel",
]
