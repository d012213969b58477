"""Path helpers shared by the adapters: engine paths -> project paths, config lookup.

Engines print paths relative to their working directory (the project root) or
absolute; everything downstream wants project-relative POSIX strings.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath

JS_SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
COMPONENT_SUFFIXES = (".vue", ".svelte", ".astro")
# Files no text linter reads, whatever its configuration: linters whose file
# set comes from their config (ESLint, Biome) are never handed these, so a
# repository with thousands of images does not feed them to the engine.
BINARY_SUFFIXES = (
    *(".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".bmp", ".ico", ".icns", ".tif"),
    *(".tiff", ".psd", ".heic", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp3", ".mp4"),
    *(".m4a", ".webm", ".ogg", ".wav", ".flac", ".mov", ".avi", ".mkv", ".zip", ".gz"),
    *(".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".tar", ".jar", ".pdf", ".exe", ".dll"),
    *(".so", ".dylib", ".a", ".o", ".node", ".wasm", ".class", ".pyc", ".bin", ".dat"),
    *(".db", ".sqlite", ".parquet", ".pack", ".idx"),
)
# Bound on followed `extends` links: configs can form cycles or long chains.
MAX_CONFIG_CHAIN = 50


def project_path(root: Path, reported: str) -> str | None:
    """`reported` as a project-relative POSIX path; None for `node_modules` files.

    Paths outside the root are kept (as `../...`) rather than silently dropped:
    a type error in a sibling package is still an error of this check.
    """
    if not reported:
        return None
    native = reported.replace("\\", "/") if os.sep == "\\" else reported
    base = str(root)
    normalized = os.path.normpath(native if os.path.isabs(native) else os.path.join(base, native))
    prefix = base.rstrip(os.sep) + os.sep
    # Plain string work: this runs once per diagnostic, thousands per check.
    if normalized.startswith(prefix):
        rel = normalized[len(prefix) :]
    else:
        rel = os.path.relpath(normalized, base)
    if rel.startswith(".."):
        # The engine may have printed a symlinked spelling of a path that is
        # really inside the (canonical) root.
        real_rel = os.path.relpath(os.path.realpath(normalized), root)
        if not real_rel.startswith(".."):
            rel = real_rel
    posix = rel.replace(os.sep, "/") if os.sep != "/" else rel
    if "node_modules" in posix.split("/"):
        return None
    return posix


def in_node_modules(rel_path: str) -> bool:
    return "node_modules" in rel_path.split("/")


def may_be_text_input(rel_path: str) -> bool:
    """Whether a config-driven linter could lint `rel_path` (not binary, not a dependency)."""
    # str.endswith on a tuple: this runs for every file of every check.
    name = rel_path.rsplit("/", 1)[-1].lower()
    return not name.endswith(BINARY_SUFFIXES) and not in_node_modules(rel_path)


def has_suffix(rel_path: str, suffixes: tuple[str, ...]) -> bool:
    """Whether the file name ends with one of `suffixes` (lower case), ignoring case."""
    # str.endswith on a tuple: this runs for every file of every check.
    return rel_path.rsplit("/", 1)[-1].lower().endswith(suffixes)


def upward_dirs(root: Path, rel_path: str) -> list[str]:
    """Project-relative directories from `rel_path`'s directory up to the root ("")."""
    parts = PurePosixPath(rel_path).parts[:-1]
    if ".." in parts:
        return [""]
    return ["/".join(parts[:i]) for i in range(len(parts), -1, -1)]


def root_file(root: Path, names: Sequence[str], prefixes: Sequence[str] = ()) -> str | None:
    """The first root-level file named one of `names` or starting with one of
    `prefixes` (in sorted name order), or None."""
    if any((root / name).is_file() for name in names):
        return next(name for name in names if (root / name).is_file())
    if prefixes:
        try:
            with os.scandir(root) as entries:
                found = sorted(e.name for e in entries if e.name.startswith(tuple(prefixes)))
        except OSError:
            return None
        return next((name for name in found if (root / name).is_file()), None)
    return None


def join(directory: str, name: str) -> str:
    return f"{directory}/{name}" if directory else name


def configs_upward(root: Path, rel_path: str, names: Sequence[str]) -> list[str]:
    """Existing config files named `names`, nearest directory first."""
    found: list[str] = []
    for directory in upward_dirs(root, rel_path):
        for name in names:
            rel = join(directory, name)
            if (root / rel).is_file():
                found.append(rel)
    return found


# Strings are matched first (and kept verbatim) so that comment markers and
# commas inside them are left alone. Comments go before trailing commas, so a
# comma followed by a comment and then "}" is still recognized as trailing.
_STRING = r'"(?:\\.|[^"\\])*"'
_COMMENTS = re.compile(_STRING + r"|//[^\n]*|/\*.*?\*/", re.DOTALL)
_TRAILING_COMMAS = re.compile(_STRING + r"|,(?=\s*[}\]])")


def _strip_jsonc(match: re.Match[str]) -> str:
    token = match.group(0)
    return token if token.startswith('"') else ""


def load_jsonc(path: Path) -> object | None:
    """Parse a JSON-with-comments file; None when unreadable or not JSON."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None
    with contextlib.suppress(json.JSONDecodeError):
        plain: object = json.loads(text)  # plain JSON: nothing to strip
        return plain
    try:
        without_comments = _COMMENTS.sub(_strip_jsonc, text)
        value: object = json.loads(_TRAILING_COMMAS.sub(_strip_jsonc, without_comments))
    except json.JSONDecodeError:
        return None
    return value


def extends_chain(root: Path, start: Sequence[str], key: str = "extends") -> list[str]:
    """`start` plus every project-local config reachable through `key` links.

    Only relative paths are followed (package names are resolved by the
    engine through node_modules, whose contents the lockfile already pins).
    """

    def links(root: Path, rel: str) -> list[str]:
        data = load_jsonc(root / rel)
        if not isinstance(data, dict):
            return []
        found: list[str] = []
        targets = data.get(key)
        for target in [targets] if isinstance(targets, str) else targets or []:
            if not isinstance(target, str) or not target.startswith("."):
                continue
            base = PurePosixPath(rel).parent
            joined = os.path.normpath((base / target).as_posix())
            if (root / joined).is_dir():
                joined = os.path.join(joined, "tsconfig.json")
            elif not (root / joined).exists() and (root / (joined + ".json")).is_file():
                joined += ".json"
            resolved = PurePosixPath(joined).as_posix()
            if not resolved.startswith("..") and (root / resolved).is_file():
                found.append(resolved)
        return found

    return config_walk(root, start, links)


def config_walk(
    root: Path, start: Sequence[str], extends: Callable[[Path, str], list[str]]
) -> list[str]:
    """`start` plus every config reachable through `extends(root, rel)` links.

    `extends` returns the project-relative paths a config file extends; the
    walk is bounded (cycles and long chains) and keeps first-seen order.
    """
    seen: list[str] = []
    queue = list(start)
    while queue and len(seen) < MAX_CONFIG_CHAIN:
        rel = queue.pop(0)
        if rel in seen:
            continue
        seen.append(rel)
        queue.extend(extends(root, rel))
    return seen
