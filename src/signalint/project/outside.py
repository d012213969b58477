"""Which project paths lie outside the project root (a repository is untrusted input).

A path inside the root may still name a file outside it: a symlink
(`src/config.ts -> ~/secret.env`), a file under a symlinked directory, a
chain of links, at any depth. Such a file is never given to an engine,
nothing an engine says about it is reported, cached or stored, and a
whole-program engine that read one anyway (its own directory walk, an
import) has its diagnostics withheld, since any of them could quote it
(docs/architecture.md, "Nothing from outside the root").

`Boundary` answers, for one check, whether a project-relative path is
outside: plainly (`../x`, absolute) or through a link (`hidden`). The walk
tells it the links out of the root it met (`note_link`), which is also
what the check's coverage names; a path the walk did not list is resolved
once (`os.path.realpath`) and remembered. `trusted` directories count as
inside too: the old tree of `--new-from-rev` links the working tree's
virtual environment and dependencies in.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import Final

from signalint.project.paths import resolved

# Dependencies: installed packages may be links anywhere (pnpm, `npm link`);
# their diagnostics are never reported, and reading them is the engine's job.
_DEPENDENCIES: Final = "node_modules"
# How many paths a coverage note names before counting the rest.
_NAMED: Final = 5


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def plainly_outside(rel: str) -> bool:
    """Whether project-relative `rel` is written as outside the root
    (`..`, `../x`, an absolute path)."""
    return rel == ".." or rel.startswith(("../", "/"))


class Boundary:
    """The project root's edge for one check (module docstring).

    `root` is canonicalized; `trusted` are more directories whose files
    count as inside; `known` are project paths already known to be inside
    (the walked files: the walk kept a file link only when it resolved
    inside the root)."""

    def __init__(
        self, root: Path, trusted: Sequence[Path] = (), known: Collection[str] = ()
    ) -> None:
        self.root = os.path.realpath(root)
        self._roots = (self.root, *(os.path.realpath(t) for t in trusted))
        self._known = known
        self._memo: dict[str, bool] = {}
        # Links out of the root that a walk met, project-relative ("/"
        # appended for a directory), with their real target.
        self.links: dict[str, str] = {}

    def within(self, real: str) -> bool:
        """Whether the real (resolved) path `real` is inside the root or a trusted directory."""
        return any(_inside(real, r) for r in self._roots)

    def note_link(self, rel: str, target: str, is_dir: bool) -> None:
        """A walk met the link `rel` resolving to `target`, outside the root."""
        if not self.within(target):
            self.links[rel + "/" if is_dir else rel] = target

    def outside(self, rel: str) -> bool:
        """Whether project-relative `rel` names a file outside the root:
        written so (`plainly_outside`) or through a link (`hidden`)."""
        return plainly_outside(rel) or self.hidden(rel)

    def hidden(self, rel: str, known: Collection[str] = ()) -> bool:
        """Whether `rel`, a path written inside the root, resolves outside it
        (a link, a file below a linked directory, a chain). Paths in
        `node_modules` are dependencies, never hidden; `known` are more
        paths known to be inside."""
        if rel in self._known or rel in known or plainly_outside(rel):
            return False
        found = self._memo.get(rel)
        if found is None:
            if rel.startswith(_DEPENDENCIES + "/") or f"/{_DEPENDENCIES}/" in rel:
                found = False
            else:
                full = os.path.join(self.root, rel)
                found = os.path.lexists(full) and not self.within(resolved(full))
            if len(self._memo) > 100_000:
                self._memo.clear()  # only a memo
            self._memo[rel] = found
        return found

    def hidden_inputs(self, inputs: Iterable[str], known: Collection[str] = ()) -> list[str]:
        """The project paths among `inputs` (absolute paths an engine read)
        that are hidden: written inside the root, resolving outside it."""
        prefix = self.root.rstrip("/") + "/"
        start = len(prefix)
        # Set arithmetic first: a program reads thousands of known files.
        rest = {path[start:] for path in inputs if path.startswith(prefix)}
        rest.difference_update(self._known)
        rest.difference_update(known)
        return sorted(rel for rel in rest if self.hidden(rel))


def not_checked_note(paths: Sequence[str]) -> str | None:
    """The coverage note naming `paths` outside the root that were not
    checked (D17), or None when there are none."""
    if not paths:
        return None
    named = ", ".join(paths[:_NAMED])
    more = f" and {len(paths) - _NAMED} more" if len(paths) > _NAMED else ""
    count = len(paths)
    files = "file" if count == 1 else "files"
    verb = "was" if count == 1 else "were"
    return (
        f"{count} {files} outside the project root {verb} not checked "
        f"(links out of the root): {named}{more}"
    )


def withheld_gap(engine: str, paths: Sequence[str]) -> str:
    """The coverage gap of a whole-program engine that read `paths`, files
    inside the root that resolve outside it: its diagnostics are withheld."""
    named = ", ".join(paths[:_NAMED])
    more = f" and {len(paths) - _NAMED} more" if len(paths) > _NAMED else ""
    files = "a file that resolves" if len(paths) == 1 else f"{len(paths)} files that resolve"
    return (
        f"{engine} read {files} outside the project root ({named}{more}); "
        "its diagnostics could quote them and are withheld: remove the links, or the "
        "imports of them and any configuration naming them"
    )
