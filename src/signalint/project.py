"""The project: root selection, JS/TS markers, path containment, the file walk.

Every path that reaches an engine comes from `walk` or `safe_relative`, so
this module is where untrusted input (paths typed by a user or produced by a
model) is checked against the project root.
"""

from __future__ import annotations

import functools
import json
import os
import posixpath
import time
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final, NamedTuple

from pathspec import GitIgnoreSpec
from pathspec.patterns.gitignore import GitIgnorePatternError

from signalint.errors import SignalintError

ROOT_VARIABLE: Final = "SIGNALINT_PROJECT_ROOT"
# Never walked, whatever the ignore settings say: dependencies, VCS data, our state.
ALWAYS_SKIPPED: Final = frozenset({"node_modules", ".git", ".signalint"})
JS_TS_SUFFIXES: Final = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
MARKER_FILES: Final = ("package.json", "tsconfig.json", "jsconfig.json")
# Upward root discovery (CLI): a Signalint config wins over any nearer
# project marker, as a repository's top wins over its subdirectories in git.
CONFIG_MARKER: Final = "signalint.config.json"
CONFIG_MARKERS: Final = (CONFIG_MARKER, ".signalint.json")
ROOT_MARKERS: Final = ("package.json", "pyproject.toml", ".git")


class RootError(SignalintError):
    """`SIGNALINT_PROJECT_ROOT` names something that cannot be a project root."""

    def __init__(self, variable: str, value: str, reason: str) -> None:
        self.variable = variable
        self.value = value
        self.reason = reason
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"{self.variable}={self.value!r} cannot be the project root: {self.reason}"


def find_root(env: Mapping[str, str] | None = None, cwd: str | Path | None = None) -> Path:
    """The canonical (realpath) project root.

    A non-empty `SIGNALINT_PROJECT_ROOT` must name a directory (relative values
    are taken from `cwd`); otherwise `RootError`. Unlike the reference, which
    warns and falls back to the working directory, we refuse: a stale override
    silently checking the wrong repository is worse than a clear error.
    Without the variable the root is `cwd` (default: the process's).
    """
    env = os.environ if env is None else env
    base = os.getcwd() if cwd is None else os.fspath(cwd)
    value = env.get(ROOT_VARIABLE, "")
    if not value:
        return Path(os.path.realpath(base))
    candidate = os.path.join(base, os.path.expanduser(value))
    if not os.path.exists(candidate):
        raise RootError(ROOT_VARIABLE, value, "no such directory")
    if not os.path.isdir(candidate):
        raise RootError(ROOT_VARIABLE, value, "not a directory")
    if not os.access(candidate, os.R_OK | os.X_OK):
        raise RootError(ROOT_VARIABLE, value, "permission denied")
    return Path(os.path.realpath(candidate))


def discover_root(env: Mapping[str, str] | None = None, cwd: str | Path | None = None) -> Path:
    """The CLI's project root: like `find_root`, but found upward from `cwd`.

    A non-empty `SIGNALINT_PROJECT_ROOT` wins (same rules as `find_root`).
    Otherwise, as git finds a repository from a subdirectory: the nearest
    directory at or above `cwd` holding settings (`signalint.config.json`,
    `.signalint.json`, a `package.json` with a `"signalint"` key or a
    `pyproject.toml` with a `[tool.signalint]` table); failing that, the
    nearest holding `package.json`, `pyproject.toml` or `.git`; failing that,
    `cwd` itself. Canonical (realpath).
    """
    env = os.environ if env is None else env
    if env.get(ROOT_VARIABLE, ""):
        return find_root(env, cwd)
    start = Path(os.path.realpath(os.getcwd() if cwd is None else os.fspath(cwd)))
    chain = [start, *start.parents]
    for directory in chain:
        if _holds_settings(directory):
            return directory
    for directory in chain:
        if any(os.path.lexists(directory / name) for name in ROOT_MARKERS):
            return directory
    return start


def _holds_settings(directory: Path) -> bool:
    return (
        any((directory / name).is_file() for name in CONFIG_MARKERS)
        or _has_package_key(directory)
        or _has_tool_table(directory)
    )


def _has_package_key(directory: Path) -> bool:
    try:
        text = (directory / "package.json").read_bytes()
    except OSError:
        return False
    if b'"signalint"' not in text:
        return False  # cheap: most package.json files never mention us
    try:
        data = json.loads(text.decode("utf-8-sig", errors="replace"))
    except ValueError:
        return True  # a config we cannot read may be ours: load_config reports it
    return isinstance(data, dict) and "signalint" in data


def _has_tool_table(directory: Path) -> bool:
    try:
        text = (directory / "pyproject.toml").read_bytes()
    except OSError:
        return False
    if b"signalint" not in text:
        return False  # cheap: most pyproject.toml files never mention us
    try:
        data = tomllib.loads(text.decode("utf-8", errors="replace"))
    except tomllib.TOMLDecodeError:
        return True  # a config we cannot read is still ours: load_config reports it
    tool = data.get("tool")
    return isinstance(tool, dict) and "signalint" in tool


PYTHON_MARKER_FILES: Final = ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt")


def has_python_markers(root: Path) -> bool:
    """Whether `root` looks like a Python project (a manifest or a top-level module)."""
    if any((root / name).is_file() for name in PYTHON_MARKER_FILES):
        return True
    try:
        with os.scandir(root) as entries:
            return any(e.name.endswith((".py", ".pyi")) and e.is_file() for e in entries)
    except OSError:
        return False


MARKERS_HINT: Final = (
    "package.json, tsconfig.json, jsconfig.json, pyproject.toml, setup.py, setup.cfg, "
    "requirements.txt or a top-level source file"
)


def project_languages(root: Path) -> tuple[str, ...]:
    """The languages `root` has project markers for: "javascript", "python"."""
    found = [("javascript", has_js_ts_markers(root)), ("python", has_python_markers(root))]
    return tuple(name for name, present in found if present)


def has_js_ts_markers(root: Path) -> bool:
    """Whether `root` looks like a JS/TS project (a manifest or a top-level source)."""
    if any((root / name).is_file() for name in MARKER_FILES):
        return True
    try:
        with os.scandir(root) as entries:
            return any(e.name.endswith(JS_TS_SUFFIXES) and e.is_file() for e in entries)
    except OSError:
        return False


class PathRefused(SignalintError, ValueError):
    """A user-supplied path that will not be used; `reason` says why.

    `index` is the position of `path` in the list the caller gave, when it
    gave a list (`at`), so a front end can name the argument at fault.
    """

    def __init__(self, path: str, reason: str, index: int | None = None) -> None:
        self.path = path
        self.reason = reason
        self.index = index
        super().__init__(str(self))

    def at(self, index: int) -> PathRefused:
        """The same refusal, for the path at `index` of the caller's list."""
        return PathRefused(self.path, self.reason, index)

    def __str__(self) -> str:
        return f"path {self.path!r} refused: {self.reason}"


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def refuse_malformed(user_path: str) -> None:
    """Refuse what no path check should even look at: empty, NUL, option-like."""
    if not user_path:
        raise PathRefused(user_path, "the path is empty")
    if "\0" in user_path:
        raise PathRefused(user_path, "it contains a NUL character")
    if user_path.startswith("-"):
        raise PathRefused(user_path, "it starts with '-' and could be read as an option")


def safe_relative(root: Path, user_path: str) -> str:
    """The project-relative POSIX form of an untrusted path, or `PathRefused`.

    Refused: empty, NUL bytes, a leading '-' (it could be read as an option),
    absolute paths, '..' escapes after normalization, anything that resolves
    through a symlink to outside the root, and paths that do not exist.
    Returns "." for the root itself.
    """
    refuse_malformed(user_path)
    if os.path.isabs(user_path):
        raise PathRefused(
            user_path, "absolute paths are not accepted; give one relative to the root"
        )
    norm = posixpath.normpath(user_path)
    if norm == ".." or norm.startswith("../"):
        raise PathRefused(user_path, "it escapes the project root")
    root_real = os.path.realpath(root)
    full = os.path.join(root_real, norm)
    if not os.path.lexists(full):
        raise PathRefused(user_path, "no such file or directory")
    if not _inside(os.path.realpath(full), root_real):
        raise PathRefused(user_path, "it resolves through a symlink to outside the project root")
    if not os.path.exists(full):  # a dangling symlink
        raise PathRefused(user_path, "no such file or directory")
    return norm


def target_from_cwd(
    root: Path,
    cwd: Path,
    user_path: str,
    ignore: Sequence[str],
    source: str = "signalint.config.json",
) -> str:
    """The project-relative form of a command-line path, or `PathRefused`.

    As in git, `user_path` is relative to `cwd` (the caller's working
    directory; absolute paths are taken as they are) and must lie inside
    `root`. Refused like `safe_relative` (empty, NUL, a leading '-', missing,
    symlink escapes) and, before the symlink check, when it is ignored: inside
    a directory that is never checked (node_modules, .git, .signalint) or
    matched by the config `ignore` patterns of `source` (`ignored_reason`).
    `root` and `cwd` are canonical (realpath). Returns "." for the root.
    """
    refuse_malformed(user_path)
    joined = os.path.normpath(os.path.join(cwd, user_path))
    root_s = os.fspath(root)
    if not _inside(joined, root_s):
        # An absolute path may reach the project through a symlinked
        # directory (/tmp -> /private/tmp): resolve the directories, not the
        # last component, whose own link is still checked by safe_relative.
        head, tail = os.path.split(joined)
        joined = os.path.join(os.path.realpath(head), tail)
        if os.path.isdir(joined) and not _inside(joined, root_s):
            joined = os.path.realpath(joined)
    if not _inside(joined, root_s):
        raise PathRefused(user_path, f"it is outside the project root {root_s}")
    rel = Path(os.path.relpath(joined, root_s)).as_posix()
    if not os.path.lexists(joined):
        raise PathRefused(user_path, "no such file or directory")
    reason = ignored_reason(rel, ignore, is_dir=os.path.isdir(joined), source=source)
    if reason is not None:
        raise PathRefused(user_path, reason)
    return safe_relative(root, rel)


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
    rules = _config_rules(tuple(ignore))
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


class _Rules(NamedTuple):
    """One gitignore-style pattern file, applying below `base` ("" or "dir/")."""

    base: str
    spec: GitIgnoreSpec
    # Indices of "dir/**" patterns in a file that also has "!" patterns: such a
    # match excludes the directory's contents, not the directory, and a
    # negation may re-include some of them, so git still descends into it.
    contents_only: frozenset[int]
    # What identifies the rules' source: the file's stat, or the patterns.
    stamp: str = ""


def _compile(base: str, lines: Sequence[str], stamp: str = "") -> _Rules | None:
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
    return _Rules(base, spec, contents_only, stamp or "\n".join(lines))


@functools.lru_cache(maxsize=8)
def _config_rules(ignore: tuple[str, ...]) -> _Rules | None:
    """The config's `ignore` patterns, compiled once (a check may name 10,000 paths)."""
    return _compile("", ignore)


def _valid(line: str) -> bool:
    try:
        GitIgnoreSpec.from_lines([line])
    except GitIgnorePatternError:
        return False
    return True


def _read_rules(base: str, file: str) -> _Rules | None:
    try:
        with open(file, encoding="utf-8", errors="replace") as fh:
            stamp = _stamp(os.fstat(fh.fileno()))
            return _compile(base, fh.read().splitlines(), f"{file}:{stamp}")
    except OSError:
        return None


def _stamp(st: os.stat_result) -> str:
    return f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"


# A directory modified this recently may change again within one timestamp
# tick without its stat changing: its listing is used but not remembered.
_RACY_NS: Final = 2_000_000_000


class WalkMemo:
    """Directory listings of earlier walks, reused while provably unchanged.

    A directory's entries change only together with its own stat (creating,
    removing or renaming an entry updates it); its verdicts also depend on
    the rules in force (the config patterns and every `.gitignore` above it,
    identified by their stats) and on its own `.gitignore`. An entry is kept
    only when the directory has no symlink (a link's target can change
    without the directory changing) and was not modified within the last
    two seconds. A long-lived process (a server) keeps one per project.
    """

    def __init__(self) -> None:
        self._dirs: dict[tuple[str, ...], tuple[str, str, list[str], list[str]]] = {}

    def get(
        self, key: tuple[str, ...], dir_stamp: str, ignore_stamp: str
    ) -> tuple[list[str], list[str]] | None:
        found = self._dirs.get(key)
        if found is None or found[0] != dir_stamp or found[1] != ignore_stamp:
            return None
        return found[2], found[3]

    def put(
        self,
        key: tuple[str, ...],
        dir_stamp: str,
        ignore_stamp: str,
        files: list[str],
        subdirs: list[str],
    ) -> None:
        if len(self._dirs) > 200_000:
            self._dirs.clear()  # only a memo
        self._dirs[key] = (dir_stamp, ignore_stamp, files, subdirs)


def _verdict(rules: Sequence[_Rules], rel: str, is_dir: bool) -> bool:
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


def _ancestor_rules(root: str, rel_dir: str) -> list[_Rules]:
    """Rules from .git/info/exclude and every .gitignore above `rel_dir`."""
    found = [_read_rules("", os.path.join(root, ".git", "info", "exclude"))]
    parts = [] if rel_dir == "." else rel_dir.split("/")
    for depth in range(len(parts)):  # root .. parent of rel_dir; rel_dir's own is read by the walk
        base = "/".join(parts[:depth])
        prefix = base + "/" if base else ""
        found.append(_read_rules(prefix, os.path.join(root, base, ".gitignore")))
    return [r for r in found if r is not None]


def walk(
    root: Path,
    ignore: Sequence[str],
    targets: Sequence[str] = (".",),
    memo: WalkMemo | None = None,
) -> list[str]:
    """Every file under `targets`, as sorted project-relative POSIX paths.

    Honours .git/info/exclude and each `.gitignore` (relative to its own
    directory, negations included) and, independently, the config `ignore`
    patterns (gitignore syntax, relative to the root): a path is skipped if
    either excludes it. Directories named node_modules, .git or .signalint are
    never entered. Directory symlinks are not followed; file symlinks are kept
    only when their target is a file inside the root. There is no cap (D3).

    Choice: a target naming a *file* is returned even if ignore rules exclude
    it (asking for a file explicitly is a request to check it), unless it lies
    in an always-skipped directory. A *directory* target is walked with all
    rules applied to its contents. Targets are untrusted: see `safe_relative`.
    """
    root_s = os.path.realpath(root)
    config = _compile("", list(ignore))
    out: set[str] = set()
    for target in targets:
        rel = safe_relative(Path(root_s), target)
        full = os.path.join(root_s, rel)
        if os.path.isdir(full):
            # A symlinked directory target is walked at its real location.
            rel = posixpath.normpath(os.path.relpath(os.path.realpath(full), root_s))
            if not ALWAYS_SKIPPED.intersection(rel.split("/")):
                _walk_tree(root_s, rel, _ancestor_rules(root_s, rel), config, out, memo)
        elif os.path.isfile(full) and not ALWAYS_SKIPPED.intersection(rel.split("/")[:-1]):
            out.add(rel)
    return sorted(out)


def _walk_tree(
    root: str,
    start: str,
    rules: list[_Rules],
    config: _Rules | None,
    out: set[str],
    memo: WalkMemo | None = None,
) -> None:
    # Iterative, scandir-based, and ignored directories are pruned before
    # being opened: 20,000-file trees must walk in a fraction of a second.
    configs = [config] if config is not None else []
    stack: list[tuple[str, list[_Rules]]] = [(start, rules)]
    now = time.time_ns()
    while stack:
        rel_dir, inherited = stack.pop()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        key = (rel_dir, *(r.stamp for r in configs), *(r.stamp for r in inherited))
        if memo is not None:
            try:
                dir_st = os.stat(os.path.join(root, prefix))
                ignore_st = _stat_or_none(os.path.join(root, prefix, ".gitignore"))
            except OSError:
                continue
            dir_stamp = _stamp(dir_st)
            ignore_stamp = _stamp(ignore_st) if ignore_st is not None else "-"
            known = memo.get(key, dir_stamp, ignore_stamp)
            if known is not None:
                files, subdirs = known
                out.update(files)
                if subdirs:
                    local = _local_rules(root, prefix, inherited, ignore_st is not None)
                    stack.extend((d, local) for d in subdirs)
                continue
        try:
            with os.scandir(os.path.join(root, prefix)) as it:
                entries = list(it)
        except OSError:
            continue  # unreadable or vanished directory: nothing to report from it
        local = _local_rules(root, prefix, inherited, any(e.name == ".gitignore" for e in entries))
        files = []
        subdirs = []
        linked = False
        for entry in entries:
            rel = prefix + entry.name
            if entry.is_dir(follow_symlinks=False):
                if entry.name in ALWAYS_SKIPPED:
                    continue
                if not (_verdict(configs, rel, True) or _verdict(local, rel, True)):
                    subdirs.append(rel)
                continue
            if entry.is_symlink():
                linked = True
                target = os.path.realpath(entry.path)
                if not (_inside(target, root) and os.path.isfile(target)):
                    continue  # outside the root, dangling, or a directory link
            elif not entry.is_file(follow_symlinks=False):
                continue  # sockets, fifos, devices
            if not (_verdict(configs, rel, False) or _verdict(local, rel, False)):
                files.append(rel)
        out.update(files)
        stack.extend((d, local) for d in subdirs)
        if memo is not None and not linked and dir_st.st_mtime_ns < now - _RACY_NS:
            memo.put(key, dir_stamp, ignore_stamp, files, subdirs)


def _local_rules(root: str, prefix: str, inherited: list[_Rules], has_ignore: bool) -> list[_Rules]:
    """The rules in force inside a directory: the inherited ones plus its own `.gitignore`."""
    if not has_ignore:
        return inherited
    found = _read_rules(prefix, os.path.join(root, prefix, ".gitignore"))
    return inherited if found is None else [*inherited, found]


def _stat_or_none(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None
