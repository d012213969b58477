"""The installed packages a TypeScript program resolves its imports against.

tsc finds a bare import (`import x from "dep"`) in the `node_modules`
directories from the importing file's directory upward. Whether it is found,
and which declaration file it names, depends on those directories, not on
the program's inputs: before `npm install` the import fails and no file of
the package is an input, so the program cache keys tsc's results also by
this stamp (`TscEngine.program_key`). It covers, for each `node_modules`
directory from each config's directory up to the file system's root:

- its entry names, and those of its `@scope` directories (a package added
  or removed);
- where each link among them points (pnpm and workspaces link packages; a
  link inside the project is named relative to it);
- the content of the package managers' own install records (npm's
  `.package-lock.json`, pnpm's `.modules.yaml`, yarn's `.yarn-state.yml`
  and `.yarn-integrity`), which every install, upgrade or removal rewrites.

An edit made by hand inside an installed package (a `package.json` rewritten
in place) is not seen here; the warm worker sees it (docs/engines.md).
Every directory and record looked at is noted for kept answers
(`answers.note`); what one says is remembered while their stats stay as
they were when it was read (and were settled then).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterable
from pathlib import Path

from signalint import answers

INSTALL_RECORDS = (".package-lock.json", ".modules.yaml", ".yarn-state.yml", ".yarn-integrity")
# A directory or record written this recently may change again without its
# stat changing (the rule of the file digests, `cache/local_store.py`).
SETTLE_NS = 2_000_000_000
# (node_modules directory, project root) -> the stats it was read at, and what it says.
_seen: dict[tuple[str, str], tuple[tuple[tuple[int, int, int, int] | None, ...], bytes]] = {}


def installed_stamp(root: Path, config_dirs: Iterable[str]) -> str:
    """A digest of the packages installed for programs whose configs are in
    `config_dirs` (absolute, or relative to `root`); see the module docstring."""
    base = os.path.realpath(root)
    seen: dict[str, None] = {}
    for directory in config_dirs:
        at = os.path.realpath(os.path.join(base, directory))
        while True:
            seen[os.path.join(at, "node_modules")] = None
            parent = os.path.dirname(at)
            if parent == at:
                break
            at = parent
    digest = hashlib.sha256()
    for modules in sorted(seen):  # the same order in every process
        listing = _listing(modules, base)
        if listing is not None:  # one that does not exist adds nothing: the
            # stamp is the same wherever the project is checked out
            digest.update(b"\0d" + os.path.relpath(modules, base).encode() + listing)
    return digest.hexdigest()


def _listing(modules: str, base: str) -> bytes | None:
    """One `node_modules` directory's names, links and install records (None
    when it is not a directory), remembered while the directories and
    records keep their settled stats."""
    if not os.path.isdir(modules):
        answers.note([modules])
        return None
    scopes = _scopes(modules)
    looked = [modules, *scopes, *(os.path.join(modules, r) for r in INSTALL_RECORDS)]
    answers.note(looked)
    stats = tuple(_stat(p) for p in looked)
    known = _seen.get((modules, base))
    if known is not None and known[0] == stats:
        return known[1]
    parts: list[bytes] = []
    for directory in (modules, *scopes):
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            name = os.path.relpath(entry.path, modules)
            parts.append(b"\0n" + name.encode())
            if entry.is_symlink():
                try:
                    target = os.readlink(entry.path)
                except OSError:
                    target = "?"
                if os.path.isabs(target) and target.startswith(f"{base}/"):
                    target = "@root/" + target[len(base) + 1 :]
                parts.append(b"\0l" + target.encode())
    for record in INSTALL_RECORDS:
        try:
            with open(os.path.join(modules, record), "rb") as handle:
                content = hashlib.file_digest(handle, "sha256").digest()
        except OSError:
            continue
        parts.append(b"\0r" + record.encode() + content)
    found = b"".join(parts)
    settled = time.time_ns() - SETTLE_NS
    if all(s is None or max(s[1], s[2]) < settled for s in stats):
        _seen[(modules, base)] = (stats, found)
    return found


def _stat(path: str) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _scopes(modules: str) -> list[str]:
    """The `@scope` directories in `modules` (none when it cannot be listed)."""
    try:
        return sorted(
            entry.path
            for entry in os.scandir(modules)
            if entry.name.startswith("@") and entry.is_dir()
        )
    except OSError:
        return []


__all__ = ["INSTALL_RECORDS", "installed_stamp"]
