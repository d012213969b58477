"""Biome adapter: `biome lint` (or `biome check` with the formatter) as JSON.

Verified against @biomejs/biome 2.6.8:
- `--reporter=json` prints one object on stdout: `summary` (whose counts
  can disagree with the list, so it is ignored), `diagnostics` and
  `command`; a notice that the reporter is experimental goes to stderr.
- `--max-diagnostics=none` lifts the default limit of 20.
- Each diagnostic has `severity`, `message`, `category`
  ("lint/suspicious/noDoubleEquals", "parse", "fs/cantRead", "format",
  "lint" for oversized files), `location.path` and 1-based `start`/`end`
  line/column counted in code points (end exclusive); whole-file
  diagnostics use line 0 / column 0. `advices[].text` carries extra notes.
- The JSON reporter prints the safe fix of some diagnostics as an advice
  starting "Safe fix:" (useConst) but not of others (noUselessRename), so
  `fixable` is True for such an advice, for a rule whose fix kind is safe
  (`biome_fixes`, recorded from `biome explain`), and for formatter
  diagnostics (`category` "format": `biome check --write` fixes them). It
  says nothing about
  documentation; the rdjson reporter does, but drops the path of
  whole-file diagnostics (every formatter diagnostic is one), so it cannot
  be the source of truth. The docs URL follows Biome's rule-page
  scheme (`lint/<group>/<ruleName>` -> /linter/rules/<rule-name>), checked
  against the URLs the rdjson reporter prints.
- A broken configuration exits 1 with nothing on stdout and a cross-marked headline
  on stderr.
- The files Biome checks are the ones its configuration covers
  (`files.includes`, per-language settings) in a language it handles: with
  no config 2.6 lints JS/TS (also inside `.vue`/`.svelte`/`.astro`), JSON/JSONC,
  CSS, GraphQL, HTML and processes Markdown. It never lists the files it
  checked, so a selection run asks first: with `--files-max-size=1` every
  file Biome would check, and only those, yields a "The size of the file is
  ... exceeds the configured maximum" diagnostic, without being parsed;
  ignored files yield nothing and unknown ones nothing either
  (`--files-ignore-unknown=true`).
- The npm package's `bin/biome` is a Node script that picks the platform
  package's binary (`@biomejs/cli-<os>-<arch>/biome`, `-musl` on musl
  libc, or `$BIOME_BINARY`) and runs it with the same arguments; a pnpm
  shim puts a shell script before it. That costs a Node start and an
  `ldd --version` per run (~0.25 s of the ~0.5 s a small project takes),
  twice per check with the selection run, so commands run that same binary
  directly when it is found where Node would find it (`launcher`); on
  other platforms, musl, or with `BIOME_BINARY` set, through the script.

Biome 1.x (verified against @biomejs/biome 1.9.4, which many projects
still pin) takes the same options for what we run (`biome lint --help`),
except that `biome check` turns import sorting off with
`--organize-imports-enabled=false` (2.x: `--assist-enabled=false`), and its
JSON reporter (announced as "unstable/experimental" on stderr) writes
another shape:
- `location.path` is an object, `{"file": "<path as given>"}`;
- `location.span` is `[start, end]` in UTF-8 byte offsets into the file
  (end exclusive), `null` for whole-file diagnostics (the oversized-file
  one the selection run relies on says so the same way, category "lint");
  `location.sourceCode` is the text Biome read;
- `message` is a list of markup pieces (`{"content": ...}`); `description`
  is the same text, plain;
- `advices` is `{"advices": [...]}`, each a `{"log": [level, [pieces]]}`, a
  `frame`, a `diff` or a `list`; a "Safe fix:" log marks a safe fix as in 2.x.
Which shape a diagnostic has is read from the diagnostic itself, so a
warm answer or an unknown version is read by its shape, not by a guess.
Byte offsets become 1-based lines and UTF-16 columns from the text Biome
read (`sourceCode`, else the file), as the native report's own
`path:line:column` headers count them (in code points).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from signalint.engines import adapter_paths as paths
from signalint.engines.base import (
    EngineContext,
    EngineDefaults,
    EngineOutputError,
    EngineSpec,
    Provision,
    TextTool,
)
from signalint.engines.biome.fixes import SAFE_FIX_RULES
from signalint.engines.positions import SourceText
from signalint.engines.resolve import node_platform, platform_binary
from signalint.model import Issue, Severity
from signalint.process import Command

if TYPE_CHECKING:
    from signalint.process import ProcessResult

CONFIG_NAMES = ("biome.json", "biome.jsonc")
ROOT_ONLY_FILES = (".editorconfig",)
DOCS_BASE = "https://biomejs.dev/linter/rules/"
_CROSS = "\u00d7"  # Biome marks error headlines with a multiplication sign
# A diagnostic header: "/abs/biome.json:1:3 parse ━━━…"
_HEADER = re.compile(r"^(?P<path>\S+?):(?P<pos>\d+:\d+) \S+ ")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
# The notice each major prints on stderr with `--reporter=json` (2.x, 1.x).
_EXPERIMENTAL = re.compile(r"reporters are experimental|unstable/experimental")


def _glibc() -> bool:
    try:
        return bool(os.confstr("CS_GNU_LIBC_VERSION"))
    except (ValueError, OSError):
        return False


def launcher(executable: Path) -> str:
    """What to run for `executable`: the platform binary its Node script
    would run, else the script itself (module docstring)."""
    where = node_platform()  # Biome publishes each platform that table names
    if where is None or "BIOME_BINARY" in os.environ:
        return str(executable)
    system, arch = where
    if system == "linux" and not _glibc():
        return str(executable)
    return platform_binary(executable, f"@biomejs/cli-{system}-{arch}/biome")


def docs_url(category: str) -> str | None:
    parts = category.split("/")
    if len(parts) != 3 or parts[0] != "lint":
        return None
    return DOCS_BASE + _CAMEL.sub("-", parts[2]).lower()


def _failure_message(result: ProcessResult, root: Path) -> str:
    """Biome's first error headline (a cross-marked line), with its location if given."""
    lines = [line.strip() for line in (result.stderr + "\n" + result.stdout).splitlines()]
    lines = [line for line in lines if line and not _EXPERIMENTAL.search(line)]
    where = ""
    for line in lines:
        header = _HEADER.match(line)
        if header:
            where = (
                f"{paths.project_path(root, header['path']) or header['path']}:{header['pos']}: "
            )
        elif line.startswith(_CROSS):
            return where + line.lstrip(_CROSS).strip()
    if lines:
        return lines[0]
    return f"exited with code {result.exit_code} and printed nothing"


def _position(point: Any) -> tuple[int, int]:
    if not isinstance(point, dict):
        return 0, 0
    return int(point.get("line") or 0), int(point.get("column") or 0)


def location_path(location: Any) -> str:
    """The path of a diagnostic's location: a string in 2.x, `{"file": ...}` in 1.x."""
    if not isinstance(location, dict):
        return ""
    path = location.get("path")
    if isinstance(path, dict):
        path = path.get("file")
    return path if isinstance(path, str) else ""


def _span(location: dict[str, Any]) -> tuple[int, int] | None:
    """A 1.x location's byte span, None when it has none (a whole-file diagnostic)."""
    span = location.get("span")
    if (
        isinstance(span, list)
        and len(span) == 2
        and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in span)
    ):
        return span[0], span[1]
    return None


def _markup(pieces: Any) -> str:
    """Text of 1.x markup: a list of `{"content": ...}` pieces."""
    if isinstance(pieces, str):
        return pieces
    if not isinstance(pieces, list):
        return ""
    return "".join(str(piece.get("content") or "") for piece in pieces if isinstance(piece, dict))


def _notes(diag: dict[str, Any]) -> list[str]:
    """The text advices of a diagnostic, in either version's shape."""
    advices = diag.get("advices")
    if isinstance(advices, list):  # 2.x: [{"text": ...}]
        return [
            str(advice["text"]).strip()
            for advice in advices
            if isinstance(advice, dict) and advice.get("text")
        ]
    found = []
    listed = advices.get("advices") if isinstance(advices, dict) else None
    for advice in listed if isinstance(listed, list) else []:
        log = advice.get("log") if isinstance(advice, dict) else None
        if isinstance(log, list) and len(log) == 2:
            text = _markup(log[1]).strip()
            if text:
                found.append(text)
    return found


def _message(diag: dict[str, Any]) -> str:
    message = diag.get("message")
    if isinstance(message, str):
        return message
    description = diag.get("description")
    if isinstance(description, str) and description:
        return description
    return _markup(message)


def _diagnostics(result: ProcessResult, root: Path) -> list[dict[str, Any]]:
    try:
        report = json.loads(result.stdout)
    except json.JSONDecodeError:
        report = None
    if not isinstance(report, dict) or not isinstance(report.get("diagnostics"), list):
        raise EngineOutputError(_failure_message(result, root), result.stderr or result.stdout)
    for diag in report["diagnostics"]:
        if not isinstance(diag, dict):
            raise EngineOutputError("biome diagnostic is not an object", str(diag))
    return list(report["diagnostics"])


SPEC = EngineSpec(
    name="biome",
    title="Biome",
    kind="linter",
    language="javascript",
    provision=Provision("npm", "@biomejs/biome", "2.6.8", "biome", ("node_modules",)),
    majors=(1, 2),
    timeout_ms=60_000,
    docs_url="https://biomejs.dev/",
    fix_command="biome lint --write",
    options={"includeFormatter": False},
    watch_patterns=(*CONFIG_NAMES, *ROOT_ONLY_FILES),
    hook_suffixes=paths.JS_SUFFIXES,
)


class BiomeEngine(EngineDefaults):
    spec = SPEC

    def format_text(self, root: Path, tool: TextTool, rel: str, text: str) -> Command:
        """`biome format` of `text` on stdin as the file `rel`."""
        argv = (str(tool.executable), "format", f"--stdin-file-path={rel}", "--colors=off")
        return Command(argv, root, tool.timeout_s, stdin=text.encode())

    def formatted(self, result: ProcessResult, text: str) -> str:
        """The formatted JSON `format_text` printed, when it holds the same
        value as `text`; else `text`."""
        if result.exit_code != 0 or not result.stdout.strip():
            return text
        try:
            same = json.loads(result.stdout) == json.loads(text)
        except ValueError:
            return text
        return result.stdout if same else text

    def detect(self, root: Path) -> str | None:
        return paths.root_file(root, CONFIG_NAMES)

    def default_enabled(self, root: Path) -> bool:
        return False

    def relevant(self, rel_path: str) -> bool:
        # Only a coarse filter: Biome's configuration decides (module docstring).
        return paths.may_be_text_input(rel_path)

    def config_files(self, root: Path, rel_path: str) -> list[str]:
        found = paths.extends_chain(root, paths.configs_upward(root, rel_path, CONFIG_NAMES))
        found += [name for name in ROOT_ONLY_FILES if (root / name).is_file()]
        return found

    def command(
        self, ctx: EngineContext, files: Sequence[str], probe: ProcessResult | None
    ) -> Command:
        return self._run(ctx, files)

    def selection(self, ctx: EngineContext, files: Sequence[str]) -> Command:
        """Which of `files` Biome checks, answered without linting (module docstring)."""
        return self._run(ctx, files, "--files-max-size=1")

    def selected(self, result: ProcessResult, ctx: EngineContext) -> set[str]:
        chosen = set()
        for diag in _diagnostics(result, ctx.root):
            category = str(diag.get("category") or "")
            # fs/* diagnostics (unreadable, vanished, unknown) are files it skips.
            if category.startswith("fs/"):
                continue
            file = paths.project_path(ctx.root, location_path(diag.get("location")))
            if file is not None:
                chosen.add(file)
        return chosen

    def _run(self, ctx: EngineContext, files: Sequence[str], *extra: str) -> Command:
        mode = _mode(ctx)
        argv = (
            launcher(ctx.executable),
            *mode,
            "--reporter=json",
            "--max-diagnostics=none",
            "--colors=off",
            # A batch whose files the config ignores is not an error, and a
            # file in a language Biome does not handle is simply not checked.
            "--no-errors-on-unmatched",
            "--files-ignore-unknown=true",
            *extra,
            "--",
            *files,
        )
        return Command(argv=argv, cwd=ctx.root, timeout_s=ctx.timeout_s)

    def parse(self, result: ProcessResult, ctx: EngineContext) -> list[Issue]:
        issues: list[Issue] = []
        sources: dict[str, SourceText] = {}
        for diag in _diagnostics(result, ctx.root):
            location = diag.get("location")
            location = location if isinstance(location, dict) else {}
            file = paths.project_path(ctx.root, location_path(location))
            if file is None:
                continue
            source = sources.get(file)
            if source is None:
                read = location.get("sourceCode")
                # 1.x spans count bytes of the text Biome read, given beside them.
                known = isinstance(read, str) and "span" in location
                text = read.encode("utf-8") if known and isinstance(read, str) else None
                source = sources[file] = SourceText(ctx.root, file, text)
            issues.append(self._issue(diag, location, file, source))
        return issues

    def _issue(
        self, diag: dict[str, Any], location: dict[str, Any], file: str, source: SourceText
    ) -> Issue:
        start: tuple[int, int] | None = None
        end: tuple[int, int] | None = None
        if "span" in location:  # 1.x: UTF-8 byte offsets (module docstring)
            span = _span(location)
            if span is not None:
                start = source.offset_to_position(span[0])
                end = source.offset_to_position(span[1])
        else:
            line, col = _position(location.get("start"))
            end_line, end_col = _position(location.get("end"))
            if line >= 1:
                start = line, source.codepoint_to_utf16(line, col)
                if end_line >= 1:
                    end = end_line, source.codepoint_to_utf16(end_line, end_col)
        if start is None:  # a whole-file diagnostic
            end = None
        category = str(diag.get("category") or "biome")
        severity: Severity = "error" if diag.get("severity") in ("error", "fatal") else "warning"
        notes = _notes(diag)
        return Issue(
            engine=self.name,
            file=file,
            line=start[0] if start else 1,
            col=start[1] if start else 1,
            rule=category,
            severity=severity,
            message=_message(diag),
            end_line=end[0] if end else None,
            end_col=end[1] if end else None,
            docs_url=docs_url(category),
            help="\n".join(notes) or None,
            fixable=category == "format"
            or category in SAFE_FIX_RULES
            or any(n.startswith("Safe fix:") for n in notes),
        )

    def fix(self, ctx: EngineContext, files: Sequence[str]) -> Command:
        """Apply Biome's safe fixes (and formatting, in check mode) to `files` in place."""
        mode = _mode(ctx)
        argv = (
            launcher(ctx.executable), *mode, "--write", "--colors=off", "--reporter=json",
            "--no-errors-on-unmatched", "--files-ignore-unknown=true", "--", *files,
        )  # fmt: skip
        return Command(argv=argv, cwd=ctx.root, timeout_s=ctx.timeout_s)


def _mode(ctx: EngineContext) -> tuple[str, ...]:
    """`lint`, or with the formatter `check` without import sorting (whose
    actions are not diagnostics we report), in the flag of the major."""
    if ctx.options.get("includeFormatter") is not True:
        return ("lint",)
    if ctx.major == 1:
        return ("check", "--organize-imports-enabled=false")
    return ("check", "--assist-enabled=false")


ENGINE = BiomeEngine()
