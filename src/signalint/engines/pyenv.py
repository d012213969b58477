"""A Python environment as type checkers see it: its interpreter and packages.

mypy and Pyright resolve imports through the project's interpreter (its
`site-packages`). Their whole-program results depend on which packages are
installed there, not only on the project's files, so the program cache keys
them by an environment stamp: installing, removing or upgrading a package
(a new `*.dist-info` name), or a changed `.pth` file (editable installs add
search paths that way) changes the stamp.
"""

from __future__ import annotations

import glob
import hashlib
import os
import re
from pathlib import Path

from signalint.engines.resolve import project_python

PACKAGE_MARKERS = (".dist-info", ".egg-info", ".egg-link", ".pth")


def interpreter(root: Path, given: Path | None) -> Path | None:
    """The project's interpreter: `given` (the check's context), else the one
    of the project's virtual environment, if any."""
    return given if given is not None else project_python(root)


def named_or_own(root: Path, named: object, given: Path | None) -> Path | None:
    """The interpreter a checker's config names (`named`, a path relative
    to the root; a directory is an environment, its `bin/python`), else
    the project's (`interpreter`)."""
    python = root / named if isinstance(named, str) else interpreter(root, given)
    if python is not None and python.is_dir():
        python = python / "bin" / "python"
    return python


def site_packages(python: Path) -> list[str]:
    """The `site-packages` directories of the environment owning `python`.

    Found on disk (no process is started): `<prefix>/lib/python*/site-packages`
    (POSIX) or `<prefix>/Lib/site-packages` (Windows), where the prefix is
    the directory above the interpreter's `bin`/`Scripts`, for the path as
    given (a virtual environment) and for its real path (a base install).
    """
    found: list[str] = []
    for exe in dict.fromkeys((os.path.abspath(python), os.path.realpath(python))):
        prefix = os.path.dirname(os.path.dirname(exe))
        patterns = (
            os.path.join(glob.escape(prefix), "lib", "python*", "site-packages"),
            os.path.join(glob.escape(prefix), "Lib", "site-packages"),
        )
        for pattern in patterns:
            found.extend(p for p in sorted(glob.glob(pattern)) if p not in found)
    return found


def environment_stamp(python: Path | None, root: Path | None = None) -> str:
    """A digest of what is installed for `python`: "" when there is none.

    Covers the interpreter's path, and per `site-packages` directory the
    sorted names of its distributions (`*.dist-info`, `*.egg-info`, egg
    links) and the names and contents of its `.pth` files. Paths inside
    `root` count relative to it, in those files too (an editable install of
    the project names its `src`), so a project's own virtual environment
    stamps alike wherever the project is checked out.
    """
    if python is None:
        return ""
    inside = f"{os.path.realpath(root)}/" if root is not None else None
    spelled = {f"{root}/", inside} if inside is not None else set()

    def seen(path: str) -> str:
        return "@root/" + path[len(inside) :] if inside and path.startswith(inside) else path

    def portable(content: bytes) -> bytes:
        for prefix in sorted(p for p in spelled if p):
            content = content.replace(prefix.encode(), b"@root/")
            content = re.sub(re.escape(prefix[:-1].encode()) + rb"(?=\r?\n|$)", b"@root", content)
        return content

    digest = hashlib.sha256(seen(os.path.realpath(python)).encode())
    for directory in site_packages(python):
        digest.update(b"\0" + seen(os.path.realpath(directory)).encode())
        try:
            names = sorted(
                entry.name
                for entry in os.scandir(directory)
                if entry.name.endswith(PACKAGE_MARKERS)
            )
        except OSError:
            continue
        for name in names:
            digest.update(b"\0" + name.encode())
            if name.endswith(".pth"):
                try:
                    digest.update(portable(Path(directory, name).read_bytes()))
                except OSError:
                    digest.update(b"?")
    return digest.hexdigest()


def in_environment(path: str) -> bool:
    """Whether an absolute path lies in an installed-packages directory."""
    parts = path.replace("\\", "/").split("/")
    return "site-packages" in parts or "dist-packages" in parts or "node_modules" in parts
