"""What git says changed: files against a revision, revisions and their trees.

Every function runs `git` in the project root (through `process.run`, the
only place that starts processes) and returns project-relative POSIX
paths, whether the project root is the repository's top level or a
directory inside it. Failures raise `GitError` naming the git command and
what git said (not a repository, an unknown revision, no git at all).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from signalint.config import state_dir
from signalint.errors import SignalintError
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


async def merge_base(root: Path, branch: str) -> str:
    """The merge base of HEAD and `branch` (what a pull request is compared with)."""
    if not branch or branch.startswith("-") or "\0" in branch:
        raise GitError(f"--new-from-merge-base {branch!r}: expected a branch or revision")
    found = await git(
        root,
        "merge-base",
        "HEAD",
        branch,
        what=f"--new-from-merge-base {branch}: no merge base of HEAD and {branch}",
    )
    return found.strip()


async def changed_since(root: Path, rev: str) -> list[str]:
    """Project files that differ from `rev`: committed since, staged, unstaged,
    untracked (not ignored); deleted files are left out, and so is anything
    in the state directory or a node_modules, .git or .signalint directory
    (never project sources, even where .gitignore does not say so). Sorted."""
    what = f"files changed since {rev}"
    diff = await git(root, "diff", "--name-only", "--relative", "-z", rev, "--", ".", what=what)
    untracked = await git(
        root, "ls-files", "--others", "--exclude-standard", "-z", "--", ".", what=what
    )
    names = set(_split(diff)) | set(_split(untracked))
    state = os.path.relpath(state_dir(root), root)
    inside = "" if state.startswith("..") else state.rstrip("/") + "/"
    return sorted(
        n
        for n in names
        if os.path.lexists(root / n)
        and not _SKIPPED.intersection(n.split("/"))
        and not (inside and n.startswith(inside))
    )


async def toplevel(root: Path) -> Path:
    """The top level of the repository that holds `root`."""
    return Path(
        (await git(root, "rev-parse", "--show-toplevel", what="the git repository")).strip()
    )


def changed_files(root: Path, rev: str = "HEAD") -> list[str]:
    """`changed_since` for synchronous callers (the CLI)."""
    return asyncio.run(changed_since(root, rev))


__all__ = [
    "GitError",
    "changed_files",
    "changed_since",
    "commit_of",
    "git",
    "merge_base",
    "toplevel",
]
