"""Where `init` puts the settings: a home the project's own linters accept (D21).

Many projects' lint configs reach further than their source: zustand's
ESLint config has a block for `*.config.*` files, so `eslint .` parses a
`signalint.config.json` as JavaScript and fails on it. `init` must not add a
problem to the project, so before writing it asks the project's own linters
about each candidate home, in the order of `signalint.settings.homes.HOMES`:

1. `signalint.config.json`, then `.signalint.json` (new files);
2. a `"signalint"` key appended to an existing `package.json` (its
   indentation, newline style and key order kept).

The first home that adds no problem is written. "Adds no problem" is asked,
not guessed: each engine the root configures that lints a text on stdin
(`engines.base.LintsText`; ESLint today, when the root has a flat config)
lints the exact text at the exact path, and only problems the file did not
already have count. A formatter of texts on stdin (`FormatsText`; Biome
today) formats the text first, so it has nothing to say about it; Biome's
JSON lint rules have nothing to find in settings without duplicate keys.
The other engines never read a `.json` file. The text itself is laid out as
Prettier lays JSON out (objects one key a line, short arrays on one line).

A linter that cannot answer (it fails to start or to load its config) is
reported, and its silence is not taken as approval of a later home: the
first home is then kept, as it would be without that linter.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from signalint.engines.base import FormatsText, LintsText, TextTool, version_major
from signalint.engines.registry import ENGINES
from signalint.engines.resolve import resolve, version
from signalint.files import write_atomic
from signalint.process import ProcessResult, run_blocking
from signalint.settings.config import (
    CONFIG_FILE,
    DEFAULT_TIMEOUTS_MS,
    DOT_CONFIG_FILE,
    PACKAGE_FILE,
    PACKAGE_KEY,
)

# The homes `init` can write, in the order it tries them.
WRITABLE: Final = (CONFIG_FILE, DOT_CONFIG_FILE, PACKAGE_FILE)
_WIDTH: Final = 80  # Prettier's and Biome's default line width


def render(value: object, indent: str = "  ", newline: str = "\n", level: int = 0) -> str:
    """`value` as JSON laid out the way Prettier lays out a JSON file.

    Objects have one key a line; an array of plain values stays on one line
    when it fits the line width (an 80-column line, as the formatters default).
    """
    return _render(value, indent, newline, level, len(indent) * level)


def _render(value: object, indent: str, newline: str, level: int, column: int) -> str:
    inner = indent * (level + 1)
    if isinstance(value, dict) and value:
        items = []
        for key, item in value.items():
            lead = f"{inner}{json.dumps(key)}: "
            items.append(lead + _render(item, indent, newline, level + 1, len(lead)))
        return "{" + newline + ("," + newline).join(items) + newline + indent * level + "}"
    if isinstance(value, list) and value:
        flat = "[" + ", ".join(json.dumps(v) for v in value) + "]"
        plain = not any(isinstance(v, dict | list) for v in value)
        if plain and column + len(flat) + 1 <= _WIDTH:  # +1: the comma after it
            return flat
        items = [inner + _render(v, indent, newline, level + 1, len(inner)) for v in value]
        return "[" + newline + ("," + newline).join(items) + newline + indent * level + "]"
    return json.dumps(value)


def new_file_text(value: object) -> str:
    """The text of a new `signalint.config.json` or `.signalint.json`."""
    return render(value) + "\n"


def package_text(old: str, value: object) -> str | None:
    """`package.json`'s text with `"signalint": value` appended as its last key.

    Everything else is kept byte for byte: the key order, the indentation
    (taken from the file's first indented line), the newline style, a BOM and
    the trailing newline. None when the file is not a JSON object, already
    has the key, or the edit would not read back as exactly that addition.
    """
    bom = "\ufeff" if old.startswith("\ufeff") else ""
    body = old[len(bom) :]
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict) or PACKAGE_KEY in data:
        return None
    stripped = body.rstrip()
    if not stripped.endswith("}"):
        return None
    head, tail = stripped[:-1].rstrip(), body[len(stripped) :]
    comma = "" if head.endswith("{") else ","
    key = json.dumps(PACKAGE_KEY)
    if "\n" in stripped:
        newline = "\r\n" if "\r\n" in body else "\n"
        indent = _indent_of(body)
        text = f"{head}{comma}{newline}{indent}{key}: {render(value, indent, newline, 1)}"
        text += f"{newline}}}"
    else:  # a one-line package.json stays one line
        text = f"{head}{comma} {key}: {json.dumps(value)}}}"
    new = bom + text + tail
    expected = {**data, PACKAGE_KEY: value}
    try:
        again = json.loads(new[len(bom) :])
    except ValueError:
        return None
    if again != expected or list(again) != list(expected):
        return None
    return new


def _indent_of(text: str) -> str:
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and stripped != line:
            return line[: len(line) - len(stripped)]
    return "  "


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the project's linters say about one candidate home.

    `problems`: the new problems writing it would add (empty: none).
    `unknown`: per linter that could not answer, its first error line.
    """

    home: str
    text: str
    problems: tuple[str, ...] = ()
    unknown: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Linter:
    name: str
    title: str
    engine: FormatsText | LintsText
    tool: TextTool


def _linters(root: Path) -> list[_Linter]:
    """The engines the project configures at its root that format or lint a
    text on stdin, resolved, in the registry's order (a formatter first: the
    linters then read the text it formatted)."""
    found = []
    for name, engine in ENGINES.items():
        if not isinstance(engine, (FormatsText, LintsText)) or engine.detect(root) is None:
            continue
        resolved = resolve(engine, root)
        if resolved.path is not None and resolved.source != "missing":
            told = version(resolved.path, engine.spec.provision)
            major = version_major(told) if told is not None else None
            tool = TextTool(resolved.path, DEFAULT_TIMEOUTS_MS[name] / 1000, major)
            found.append(_Linter(name, engine.spec.title, engine, tool))
    found.sort(key=lambda linter: not isinstance(linter.engine, FormatsText))
    return found


def _first_line(result: ProcessResult) -> str:
    for line in (result.start_error or result.stderr or result.stdout or "").splitlines():
        if line.strip():
            return line.strip()
    return f"exit code {result.exit_code}"


def _format(root: Path, linter: _Linter, rel: str, text: str) -> str:
    """`text` as the project's formatter formats `rel`; unchanged when it cannot."""
    assert isinstance(linter.engine, FormatsText)
    result = run_blocking(linter.engine.format_text(root, linter.tool, rel, text))
    return linter.engine.formatted(result, text)


def _problems(root: Path, linter: _Linter, rel: str, text: str) -> list[str] | str:
    """The linter's problems for `text` at `rel`, or its first error line when it fails."""
    assert isinstance(linter.engine, LintsText)
    command = linter.engine.lint_text(root, linter.tool, rel, text)
    if command is None:
        return []
    result = run_blocking(command)
    problems = linter.engine.text_problems(result)
    return _first_line(result) if problems is None else problems


def judge(root: Path, home: str, text: str, old: str | None) -> Verdict:
    """Ask the project's linters whether writing `text` to `home` adds a problem.

    `old` is the file's current text (None: the file is new). For Biome the
    text is formatted the project's way first (an existing file only when it
    already was); the verdict carries the text to write.
    """
    unknown: dict[str, str] = {}
    problems: list[str] = []
    for linter in _linters(root):
        if isinstance(linter.engine, FormatsText):
            if old is None or _format(root, linter, home, old) == old:
                text = _format(root, linter, home, text)
            continue
        after = _problems(root, linter, home, text)
        before = [] if old is None else _problems(root, linter, home, old)
        if isinstance(after, str) or isinstance(before, str):
            unknown[linter.name] = after if isinstance(after, str) else str(before)
            continue
        added = Counter(after) - Counter(before)
        problems += [f"{linter.title} {p}" for p in added.elements()]
    return Verdict(home, text, tuple(problems), unknown)


def candidates(
    root: Path, value: object, only: str | None = None
) -> list[tuple[str, str, str | None]]:
    """(home, text, current text) for each home `init` may write, in order.

    `package.json` is a candidate only when it exists and takes the key
    cleanly (`package_text`). `only` limits the list to one home.
    """
    found: list[tuple[str, str, str | None]] = []
    for home in WRITABLE if only is None else (only,):
        if home == PACKAGE_FILE:
            try:
                old = _read(root / PACKAGE_FILE)
            except (OSError, UnicodeDecodeError):
                continue
            text = package_text(old, value)
            if text is not None:
                found.append((home, text, old))
        else:
            found.append((home, new_file_text(value), None))
    return found


def _read(path: Path) -> str:
    # Bytes, then decode: text mode would turn CRLF into LF behind our back.
    return path.read_bytes().decode("utf-8")


def write(root: Path, verdict: Verdict, old: str | None) -> bool:
    """Write the chosen home; False when it appeared (or changed) meanwhile."""
    path = root / verdict.home
    if old is None:
        try:
            with path.open("x", encoding="utf-8", newline="") as fh:  # "x": no overwrite race
                fh.write(verdict.text)
        except FileExistsError:
            return False
        return True
    if _read(path) != old:
        return False  # edited since we read it: leave the user's version alone
    # In one step: never a half-written package.json; its mode bits kept.
    write_atomic(path, verdict.text.encode(), mode=path.stat().st_mode & 0o7777)
    return True
