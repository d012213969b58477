"""Diagnostics of native engine runs and of Signalint's SARIF, as comparable keys.

Pure functions only (no processes): the real-world runner (`run.py`) hands
them engine output and gets back multisets of `Key`s, which it compares with
multiplicity. A native diagnostic is one key; Signalint must produce exactly
one key for each, so `missing` is native minus Signalint and `extra` is
Signalint minus native, both as multisets.

A key is (project-relative file, line, column, rule). Columns are 1-based
UTF-16 code units, the unit Signalint reports and that tsc, ESLint and
Pyright use natively (Pyright 0-based); Oxlint byte offsets and Biome and
Ruff code-point columns are converted. mypy's columns are compared only on
ASCII lines (column 0 elsewhere, on both sides: `mypy_key`): mypy 1.x counts
UTF-8 bytes there and mypy 2.x neither bytes nor characters, so no
conversion of a non-ASCII column is right for every version.
Diagnostics inside `node_modules` or outside the project are not compared
(Signalint drops them by contract); the parsers count them instead.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote


@dataclass(frozen=True, order=True)
class Key:
    """Where one diagnostic points and which rule it names."""

    file: str
    line: int
    col: int
    rule: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col} {self.rule}"


@dataclass
class Parsed:
    """The comparable diagnostics of one run, plus what was left out and why."""

    keys: Counter[Key] = field(default_factory=Counter)
    outside: int = 0  # in node_modules or outside the project root
    messages: dict[Key, str] = field(default_factory=dict)
    # Other places one diagnostic may be located at (Oxlint's further labels:
    # its JSON does not say which label is primary), per diagnostic.
    alternatives: list[tuple[Key, tuple[Key, ...]]] = field(default_factory=list)
    # How many files the engine says it checked, where its output says so
    # (`files_checked`); None for the engines whose output does not.
    files: int | None = None

    def add(self, key: Key, message: str, alternatives: tuple[Key, ...] = ()) -> None:
        self.keys[key] += 1
        self.messages.setdefault(key, message)
        if alternatives:
            self.alternatives.append((key, alternatives))


@dataclass(frozen=True)
class Comparison:
    """Native versus Signalint, with multiplicity."""

    native: int
    ours: int
    missing: Counter[Key]
    extra: Counter[Key]

    @property
    def missing_count(self) -> int:
        return sum(self.missing.values())

    @property
    def extra_count(self) -> int:
        return sum(self.extra.values())


def compare(
    native: Counter[Key],
    ours: Counter[Key],
    alternatives: Sequence[tuple[Key, tuple[Key, ...]]] = (),
) -> Comparison:
    """Multiset difference both ways: a key reported 3 times natively and once
    by Signalint is 2 missing, never 0.

    A native diagnostic with `alternatives` (other labels of the same
    diagnostic) that Signalint did not report at its first location is
    matched, one for one, by a Signalint key at one of its other locations.
    """
    missing = native - ours
    extra = ours - native
    for primary, others in alternatives:
        if missing[primary] <= 0:
            continue
        for other in others:
            if extra[other] > 0:
                extra[other] -= 1
                missing[primary] -= 1
                break
    return Comparison(
        native=sum(native.values()),
        ours=sum(ours.values()),
        missing=+missing,
        extra=+extra,
    )


def relative(root: Path, path: str) -> str | None:
    """`path` (absolute, or relative to `root`) as a POSIX project path, or
    None when it is outside `root` or inside a `node_modules` directory."""
    absolute = Path(path) if os.path.isabs(path) else root / path
    normal = Path(os.path.normpath(absolute))
    try:
        rel = normal.relative_to(os.path.normpath(root))
    except ValueError:
        return None
    if "node_modules" in rel.parts or not rel.parts:
        return None
    return rel.as_posix()


class Sources:
    """File text for position conversions, read once per file."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._bytes: dict[str, bytes] = {}

    def data(self, rel: str) -> bytes:
        if rel not in self._bytes:
            try:
                self._bytes[rel] = (self.root / rel).read_bytes()
            except OSError:
                self._bytes[rel] = b""
        return self._bytes[rel]

    def line_text(self, rel: str, line: int) -> str:
        lines = self.data(rel).split(b"\n")
        if 1 <= line <= len(lines):
            return lines[line - 1].decode("utf-8", errors="replace")
        return ""

    def codepoints_to_utf16(self, rel: str, line: int, col: int) -> int:
        """1-based code-point column -> 1-based UTF-16 column on `line`."""
        prefix = self.line_text(rel, line)[: max(col - 1, 0)]
        return 1 + len(prefix.encode("utf-16-le")) // 2

    def byte_offset_to_position(self, rel: str, offset: int) -> tuple[int, int] | None:
        """0-based UTF-8 byte offset -> (1-based line, 1-based UTF-16 column)."""
        data = self.data(rel)
        if not 0 <= offset <= len(data):
            return None
        start = data.rfind(b"\n", 0, offset) + 1
        line = data.count(b"\n", 0, offset) + 1
        prefix = data[start:offset].decode("utf-8", errors="replace")
        return line, 1 + len(prefix.encode("utf-16-le")) // 2


# --- tsc ------------------------------------------------------------------

_TSC_LOCATED = re.compile(
    r"^(?P<file>.+?)\((?P<line>\d+),(?P<col>\d+)\): (?:error|warning|message) "
    r"TS(?P<code>\d+): (?P<msg>.*)$"
)
_TSC_GLOBAL = re.compile(r"^(?:error|warning|message) TS(?P<code>\d+): (?P<msg>.*)$")


def parse_tsc(stdout: str, root: Path, config: str) -> Parsed:
    """`tsc --pretty false` output (paths relative to `root`, the cwd).
    A diagnostic without a file is keyed to `config` at 1:1."""
    parsed = Parsed()
    for line in stdout.splitlines():
        located = _TSC_LOCATED.match(line)
        if located:
            rel = relative(root, located["file"])
            if rel is None:
                parsed.outside += 1
                continue
            key = Key(rel, int(located["line"]), int(located["col"]), f"TS{located['code']}")
            parsed.add(key, located["msg"])
            continue
        unlocated = _TSC_GLOBAL.match(line)
        if unlocated:
            parsed.add(Key(config, 1, 1, f"TS{unlocated['code']}"), unlocated["msg"])
    return parsed


# --- ESLint ---------------------------------------------------------------


def eslint_rule(message: dict[str, Any]) -> str:
    """ESLint's rule id; messages without one get the names Signalint's
    contract gives them (parse errors, unused directives)."""
    rule = message.get("ruleId")
    if rule:
        return str(rule)
    if message.get("fatal"):
        return "parse"
    text = str(message.get("message") or "")
    if text.startswith(("Unused eslint-disable", "Unused eslint-enable")):
        return "unused-disable-directive"
    return "eslint"


def parse_eslint(stdout: str, root: Path) -> Parsed:
    """`eslint --format json`: a list of file results with absolute paths."""
    parsed = Parsed()
    for result in json.loads(stdout):
        rel = relative(root, str(result["filePath"]))
        for message in result.get("messages") or []:
            if rel is None:
                parsed.outside += 1
                continue
            key = Key(
                rel,
                int(message.get("line") or 1),
                int(message.get("column") or 1),
                eslint_rule(message),
            )
            parsed.add(key, str(message.get("message") or ""))
    return parsed


# --- Oxlint ---------------------------------------------------------------


def _primary_label(labels: list[Any]) -> dict[str, Any] | None:
    dicts = [label for label in labels if isinstance(label, dict)]
    for label in dicts:
        if label.get("primary"):
            return label
    return dicts[0] if dicts else None


def parse_oxlint(stdout: str, root: Path) -> Parsed:
    """`oxlint --format json`: `{"diagnostics": [...]}`, one per native
    diagnostic whatever its number of labels, located at its primary label
    (else its first), from the label's UTF-8 byte offset."""
    parsed = Parsed()
    sources = Sources(root)
    for diag in json.loads(stdout).get("diagnostics") or []:
        rel = relative(root, str(diag.get("filename") or ""))
        if rel is None:
            parsed.outside += 1
            continue
        rule = str(diag.get("code") or "parse")
        labels = [label for label in diag.get("labels") or [] if isinstance(label, dict)]
        first = _primary_label(labels)
        ordered = [first, *(label for label in labels if label is not first)] if first else []
        keys = [Key(rel, *_label_position(label, rel, sources), rule) for label in ordered]
        if not keys:
            keys = [Key(rel, 1, 1, rule)]
        parsed.add(keys[0], str(diag.get("message") or ""), tuple(keys[1:]))
    return parsed


def _label_position(label: dict[str, Any], rel: str, sources: Sources) -> tuple[int, int]:
    span = label.get("span")
    if not isinstance(span, dict):
        return 1, 1
    line, col = int(span.get("line") or 1), int(span.get("column") or 1)
    offset = span.get("offset")
    if isinstance(offset, int):
        position = sources.byte_offset_to_position(rel, offset)
        if position is not None:
            line, col = position
    return line, col


# --- Biome ----------------------------------------------------------------


def parse_biome(stdout: str, root: Path) -> Parsed:
    """`biome lint|check --reporter json`: `{"diagnostics": [...]}` with
    `location.path` and 1-based code-point `location.start` (2.x), or
    `location.path.file` and a `location.span` of UTF-8 byte offsets with
    the plain message in `description` (1.x); a diagnostic about a whole
    file (no start, no span) is keyed at 1:1."""
    parsed = Parsed()
    sources = Sources(root)
    for diag in json.loads(stdout).get("diagnostics") or []:
        location = diag.get("location") or {}
        path = location.get("path")
        if isinstance(path, dict):
            path = path.get("file")
        rel = relative(root, str(path or ""))
        if rel is None:
            parsed.outside += 1
            continue
        message = diag.get("message")
        if not isinstance(message, str):
            message = str(diag.get("description") or "")
        line, col = 1, 1
        if "span" in location:
            span = location.get("span")
            if isinstance(span, list) and span and isinstance(span[0], int):
                position = sources.byte_offset_to_position(rel, span[0])
                if position is not None:
                    line, col = position
        else:
            start = location.get("start") or {}
            line = int(start.get("line") or 0)
            col = int(start.get("column") or 0)
            if line < 1:
                line, col = 1, 1
            else:
                col = sources.codepoints_to_utf16(rel, line, max(col, 1))
        rule = str(diag.get("category") or "biome")
        parsed.add(Key(rel, line, col, rule), message)
    return parsed


# --- Ruff -----------------------------------------------------------------

# The rule of a Ruff diagnostic without a code (syntax errors of older
# releases; later ones say `invalid-syntax`), as Signalint names it.
RUFF_NO_CODE = "invalid-syntax"


def parse_ruff(stdout: str, root: Path) -> Parsed:
    """`ruff check --output-format json`: a list of violations with absolute
    `filename` and 1-based `location` (`row`, code-point `column`)."""
    parsed = Parsed()
    sources = Sources(root)
    for diag in json.loads(stdout):
        rel = relative(root, str(diag.get("filename") or ""))
        if rel is None:
            parsed.outside += 1
            continue
        location = diag.get("location") or {}
        line = max(int(location.get("row") or 1), 1)
        col = sources.codepoints_to_utf16(rel, line, max(int(location.get("column") or 1), 1))
        rule = str(diag.get("code") or RUFF_NO_CODE)
        parsed.add(Key(rel, line, col, rule), str(diag.get("message") or ""))
    return parsed


# --- mypy -----------------------------------------------------------------


def mypy_key(key: Key, sources: Sources) -> Key:
    """`key` with its column kept only when its line is ASCII (see the module
    docstring); applied to native and Signalint keys alike."""
    if key.col and not sources.line_text(key.file, key.line).isascii():
        return Key(key.file, key.line, 0, key.rule)
    return key


def parse_mypy(stdout: str, root: Path) -> Parsed:
    """`mypy -O json`: one JSON object per line (paths relative to `root`,
    the cwd; 0-based `column`, -1 when mypy has none). Errors and standalone
    notes are diagnostics; notes attached to an error are its `hint`, not
    separate lines. A diagnostic without an error code (a blocking error)
    is keyed by its severity, as Signalint names it. Other lines (a blank
    line on success) are skipped."""
    parsed = Parsed()
    sources = Sources(root)
    for text in stdout.splitlines():
        if not text.startswith("{"):
            continue
        diag = json.loads(text)
        rel = relative(root, str(diag.get("file") or ""))
        if rel is None:
            parsed.outside += 1
            continue
        line = max(int(diag.get("line") or 1), 1)
        column = int(diag.get("column") if diag.get("column") is not None else -1)
        rule = str(diag.get("code") or diag.get("severity") or "error")
        key = Key(rel, line, max(column + 1, 1), rule)
        parsed.add(mypy_key(key, sources), str(diag.get("message") or ""))
    return parsed


# --- Pyright --------------------------------------------------------------

# The rule of a Pyright diagnostic without one (syntax errors, `reveal_type`
# information), as Signalint names it.
PYRIGHT_NO_RULE = "pyright"


def parse_pyright(stdout: str, root: Path) -> Parsed:
    """`pyright --outputjson`: `generalDiagnostics` with absolute `file` and
    a 0-based `range` in UTF-16 code units. Every severity (error, warning,
    information) is a diagnostic."""
    parsed = Parsed()
    for diag in json.loads(stdout).get("generalDiagnostics") or []:
        rel = relative(root, str(diag.get("file") or ""))
        if rel is None:
            parsed.outside += 1
            continue
        start = (diag.get("range") or {}).get("start") or {}
        key = Key(
            rel,
            int(start.get("line") or 0) + 1,
            int(start.get("character") or 0) + 1,
            str(diag.get("rule") or PYRIGHT_NO_RULE),
        )
        parsed.add(key, str(diag.get("message") or ""))
    return parsed


def parse_basedpyright(stdout: str, root: Path) -> Parsed:
    """`basedpyright --outputjson`: Pyright's output (a diagnostic without
    a rule keyed by its severity, as Signalint's adapter names it)."""
    parsed = Parsed()
    start = stdout.find("{")
    for diag in json.loads(stdout[max(start, 0) :]).get("generalDiagnostics") or []:
        rel = relative(root, str(diag.get("file") or ""))
        if rel is None:
            parsed.outside += 1
            continue
        point = (diag.get("range") or {}).get("start") or {}
        rule = str(diag.get("rule") or diag.get("severity") or "error")
        key = Key(rel, int(point.get("line") or 0) + 1, int(point.get("character") or 0) + 1, rule)
        parsed.add(key, str(diag.get("message") or ""))
    return parsed


def parse_ty(stdout: str, root: Path) -> Parsed:
    """`ty check --output-format gitlab`: GitLab Code Quality objects, paths
    relative to the cwd, 1-based code-point columns (converted to UTF-16);
    the description starts with the rule."""
    parsed = Parsed()
    sources = Sources(root)
    for diag in json.loads(stdout):
        location = diag.get("location") or {}
        rel = relative(root, str(location.get("path") or ""))
        if rel is None:
            parsed.outside += 1
            continue
        begin = (location.get("positions") or {}).get("begin") or {}
        line = max(int(begin.get("line") or 1), 1)
        col = sources.codepoints_to_utf16(rel, line, max(int(begin.get("column") or 1), 1))
        rule = str(diag.get("check_name") or "ty")
        message = str(diag.get("description") or "").removeprefix(f"{rule}: ")
        parsed.add(Key(rel, line, col, rule), message)
    return parsed


def parse_pyrefly(stdout: str, root: Path) -> Parsed:
    """`pyrefly check --output-format json`: `errors` with paths relative to
    the cwd and 1-based code-point columns (converted to UTF-16)."""
    parsed = Parsed()
    sources = Sources(root)
    start = stdout.find("{")
    for diag in json.loads(stdout[max(start, 0) :]).get("errors") or []:
        rel = relative(root, str(diag.get("path") or ""))
        if rel is None:
            parsed.outside += 1
            continue
        line = max(int(diag.get("line") or 1), 1)
        col = sources.codepoints_to_utf16(rel, line, max(int(diag.get("column") or 1), 1))
        parsed.add(
            Key(rel, line, col, str(diag.get("name") or "pyrefly")),
            str(diag.get("description") or ""),
        )
    return parsed


def files_checked(engine: str, stdout: str) -> int | None:
    """How many files a native run checked, where its machine-readable output
    says so: ESLint lists every linted file, Pyright counts the files it
    analyzed, Oxlint and Biome give a count; tsc, Ruff and mypy do not."""
    try:
        data = json.loads(stdout)
    except ValueError:
        return None
    if engine == "eslint" and isinstance(data, list):
        return len(data)
    if not isinstance(data, dict):
        return None
    if engine in ("pyright", "basedpyright"):
        value = (data.get("summary") or {}).get("filesAnalyzed")
    elif engine == "oxlint":
        value = data.get("number_of_files")
    elif engine == "biome":
        value = (data.get("summary") or {}).get("checked")
    else:
        return None
    return int(value) if isinstance(value, int) else None


# --- svelte-check -----------------------------------------------------------


def parse_svelte_check(stdout: str, root: Path) -> Parsed:
    """`svelte-check --output machine-verbose`: a time stamp, then one JSON
    object per diagnostic (0-based UTF-16 positions, `filename` relative to
    the workspace), then `COMPLETED ...` (required: a run without it failed)."""
    parsed = Parsed()
    completed = False
    for line in stdout.splitlines():
        _, _, rest = line.strip().partition(" ")
        if rest.startswith("COMPLETED"):
            completed = True
            continue
        if not rest.startswith("{"):
            continue
        data = json.loads(rest)
        rel = relative(root, os.path.join(root, data["filename"]))
        if rel is None:
            parsed.outside += 1
            continue
        code = data.get("code")
        rule = f"TS{code}" if isinstance(code, int) else str(code or data.get("source") or "")
        start = data.get("start") or {}
        key = Key(rel, int(start.get("line", 0)) + 1, int(start.get("character", 0)) + 1, rule)
        parsed.add(key, str(data.get("message", "")))
    if not completed:
        raise ValueError("svelte-check printed no COMPLETED line")
    return parsed


# --- astro check ------------------------------------------------------------

_ANSI_CODE = re.compile(r"\x1b\[[0-9;]*m")
_ASTRO_DIAGNOSTIC = re.compile(
    r"^(?P<file>[^\s].*?):(?P<line>[0-9]+):(?P<col>[0-9]+) - (?:error|warning) "
    r"(?P<source>[\w-]*)(?:\((?P<code>[^)]*)\))?: "
)


def parse_astro(stdout: str, root: Path) -> Parsed:
    """`astro check` text (colored whatever the terminal; the colors are
    dropped): each diagnostic opens with `file:line:col - error|warning
    source(code): message` (file relative to the project, 1-based UTF-16
    columns, hints printed as warnings), then its message lines and a code
    frame; the run ends with `Result (N files):` (required: a run without it
    failed). TypeScript's `ts(2322)` is the rule TS2322, any other source
    keeps its name and code (`astro(4000)`)."""
    parsed = Parsed()
    completed = False
    for line in _ANSI_CODE.sub("", stdout).splitlines():
        line = line.rstrip()
        files = re.match(r"^Result \(([0-9]+) files?\):", line)
        if files:
            completed = True
            parsed.files = int(files.group(1))
            continue
        found = _ASTRO_DIAGNOSTIC.match(line)
        if found is None:
            continue
        rel = relative(root, os.path.join(root, found["file"]))
        if rel is None:
            parsed.outside += 1
            continue
        source, code = found["source"], found["code"]
        if source == "ts" and code:
            rule = f"TS{code}"
        else:
            rule = f"{source}({code})" if code else source or "astro"
        key = Key(rel, int(found["line"]), int(found["col"]), rule)
        parsed.add(key, line[found.end() :])
    if not completed:
        raise ValueError("astro check printed no `Result (N files):` line")
    return parsed


NATIVE_PARSERS: dict[str, Callable[[str, Path], Parsed]] = {
    "svelte-check": parse_svelte_check,
    "astro": parse_astro,
    "eslint": parse_eslint,
    "oxlint": parse_oxlint,
    "biome": parse_biome,
    "ruff": parse_ruff,
    "mypy": parse_mypy,
    "pyright": parse_pyright,
    "basedpyright": parse_basedpyright,
    "ty": parse_ty,
    "pyrefly": parse_pyrefly,
}


def normalize_engine_keys(engine: str, parsed: Parsed, root: Path) -> Parsed:
    """Signalint's keys for `engine` in the form its native keys take (only
    mypy's differ: `mypy_key`)."""
    if engine != "mypy":
        return parsed
    sources = Sources(root)
    normal = Parsed(outside=parsed.outside)
    for key, count in parsed.keys.items():
        new = mypy_key(key, sources)
        normal.keys[new] += count
        normal.messages.setdefault(new, parsed.messages.get(key, ""))
    return normal


# --- Signalint's SARIF ----------------------------------------------------


@dataclass
class SarifRun:
    """One engine's run in Signalint's SARIF log."""

    engine: str
    parsed: Parsed
    successful: bool
    notes: list[str]


def _also_reported_by(result: dict[str, Any]) -> list[str]:
    # D20 merges one problem reported by two engines into one result; the
    # other engines are named in the result's properties.
    properties = result.get("properties") or {}
    for name in ("alsoReportedBy", "signalintAlsoReportedBy"):
        value = properties.get(name)
        if isinstance(value, list):
            return [str(item) for item in value]
    return []


def parse_sarif(text: str, root: Path) -> dict[str, SarifRun]:
    """Signalint's SARIF log per engine. A result merged from several
    engines (D20) counts for each engine it names."""
    log = json.loads(text)
    runs: dict[str, SarifRun] = {}

    def run_for(engine: str) -> SarifRun:
        return runs.setdefault(engine, SarifRun(engine, Parsed(), True, []))

    for run in log.get("runs") or []:
        engine = str(run["tool"]["driver"]["name"])
        current = run_for(engine)
        for invocation in run.get("invocations") or []:
            if not invocation.get("executionSuccessful", True):
                current.successful = False
            for note in invocation.get("toolExecutionNotifications") or []:
                current.notes.append(str((note.get("message") or {}).get("text") or ""))
        for result in run.get("results") or []:
            location = result["locations"][0]["physicalLocation"]
            uri = unquote(str(location["artifactLocation"]["uri"]))
            rel = relative(root, uri)
            region = location.get("region") or {}
            for name in [engine, *_also_reported_by(result)]:
                target = run_for(name)
                if rel is None:
                    target.parsed.outside += 1
                    continue
                key = Key(
                    rel,
                    int(region.get("startLine") or 1),
                    int(region.get("startColumn") or 1),
                    str(result.get("ruleId") or ""),
                )
                target.parsed.add(key, str((result.get("message") or {}).get("text") or ""))
    return runs


def sample(keys: Counter[Key], messages: dict[Key, str], limit: int = 5) -> list[str]:
    """Up to `limit` keys as `file:line:col rule xN message` lines, for reports."""
    lines: list[str] = []
    for key in sorted(keys)[:limit]:
        count = keys[key]
        text = messages.get(key, "").splitlines()[0][:100] if messages.get(key) else ""
        lines.append(f"{key}" + (f" x{count}" if count > 1 else "") + (f" {text}" if text else ""))
    return lines


def rules_summary(keys: Iterable[Key]) -> Counter[str]:
    """How many keys each rule has."""
    return Counter(key.rule for key in keys)


@dataclass
class Baselined:
    """Signalint's SARIF of `check --new-from-rev`: each result once (a result
    merged from several engines is one issue), its rule prefixed with the
    engine of its run, under its `baselineState` (`none` when it has none)."""

    states: dict[str, Counter[Key]] = field(default_factory=dict)
    messages: dict[Key, str] = field(default_factory=dict)
    outside: int = 0
    # Engines whose states come from the changed-lines rule (the run's
    # `signalintBaselineFallback` property), with that property.
    fallback: dict[str, Any] = field(default_factory=dict)

    def total(self) -> Counter[Key]:
        everything: Counter[Key] = Counter()
        for keys in self.states.values():
            everything.update(keys)
        return everything


def parse_sarif_states(text: str, root: Path) -> Baselined:
    """Every result of a SARIF log as an issue key (rule `engine:ruleId`),
    grouped by its `baselineState`; results outside the project are counted."""
    found = Baselined()
    for run in json.loads(text).get("runs") or []:
        engine = str(run["tool"]["driver"]["name"])
        fallback = (run.get("properties") or {}).get("signalintBaselineFallback")
        if fallback:
            found.fallback[engine] = fallback
        for result in run.get("results") or []:
            location = result["locations"][0]["physicalLocation"]
            rel = relative(root, unquote(str(location["artifactLocation"]["uri"])))
            if rel is None:
                found.outside += 1
                continue
            region = location.get("region") or {}
            key = Key(
                rel,
                int(region.get("startLine") or 1),
                int(region.get("startColumn") or 1),
                f"{engine}:{result.get('ruleId') or ''}",
            )
            state = str(result.get("baselineState") or "none")
            found.states.setdefault(state, Counter())[key] += 1
            found.messages[key] = str((result.get("message") or {}).get("text") or "")
    return found


@dataclass(frozen=True)
class NewFromRev:
    """`--new-from-rev` against what it should say: the planted issues (keys
    of the plain check at the planted lines) new, every other issue of the
    plain check unchanged, with multiplicity."""

    expected_new: Counter[Key]
    expected_unchanged: Counter[Key]
    new: Counter[Key]
    unchanged: Counter[Key]
    other: Counter[Key]  # results with another state, or none

    @property
    def exact(self) -> bool:
        return (
            self.new == self.expected_new
            and self.unchanged == self.expected_unchanged
            and not self.other
        )

    @property
    def wrongly_new(self) -> Counter[Key]:
        """Reported new although present at REV (or not in the plain check)."""
        return self.new - self.expected_new

    @property
    def planted_not_new(self) -> Counter[Key]:
        return self.expected_new - self.new

    @property
    def unchanged_difference(self) -> tuple[Counter[Key], Counter[Key]]:
        """(unchanged that should be, but are not; unchanged that should not be)."""
        return self.expected_unchanged - self.unchanged, self.unchanged - self.expected_unchanged


def judge_new_from_rev(
    plain: Counter[Key],
    planted_at: dict[str, int],
    found: Baselined,
    new_files: Iterable[str] = (),
) -> NewFromRev:
    """Compare `--new-from-rev`'s states with the plain check's issues
    `plain`: an issue in a planted file at or after the line where the planted
    text starts (`planted_at`: file -> first planted line), or in a file that
    REV does not have (`new_files`, e.g. an untracked config), must be new,
    every other one unchanged."""
    absent = set(new_files)
    expected_new: Counter[Key] = Counter()
    expected_unchanged: Counter[Key] = Counter()
    for key, count in plain.items():
        start = planted_at.get(key.file)
        is_new = key.file in absent or (start is not None and key.line >= start)
        target = expected_new if is_new else expected_unchanged
        target[key] += count
    other: Counter[Key] = Counter()
    for state, keys in found.states.items():
        if state not in ("new", "unchanged"):
            other.update(keys)
    return NewFromRev(
        expected_new,
        expected_unchanged,
        Counter(found.states.get("new") or {}),
        Counter(found.states.get("unchanged") or {}),
        other,
    )
