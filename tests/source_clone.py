"""A clone of this repository holding its working tree as it is now, committed.

What a user pins is a commit; the tests that install Signalint from a git
URL pinned to one (tests/test_release.py, tests/cli/test_pre_commit_hook.py)
must also run on uncommitted changes, so they install from such a clone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from .conftest import REPO

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def committed_clone(dest: Path) -> str:
    """Clone the repository into `dest`, copy the working tree's files over
    it (tracked and untracked, not ignored), commit; returns the commit SHA."""
    env = {**os.environ, **GIT_IDENTITY}

    def git(*args: str, cwd: Path = dest) -> str:
        done = subprocess.run(
            ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
        return done.stdout

    git("clone", "-q", "--no-local", str(REPO), str(dest), cwd=REPO)
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=REPO)
    for name in filter(None, listed.split("\0")):
        origin = REPO / name
        if origin.is_file() and not origin.is_symlink():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, dest / name)
        elif not origin.exists() and (dest / name).is_file():
            (dest / name).unlink()  # deleted in the working tree
    git("add", "-A")
    git("commit", "-q", "--allow-empty", "-m", "the working tree")
    return git("rev-parse", "HEAD").strip()
