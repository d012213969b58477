"""Oxlint adapter: `oxlint --format json -- <files>`.

Verified against oxlint 1.94.0:
- JSON is `{"diagnostics": [...], "number_of_files": ...}` on stdout; each
  diagnostic has `message`, `code` ("eslint(no-debugger)", absent for parse
  errors), `severity`, `url`, `help`, `filename` (relative to the cwd) and
  `labels[].span` with a UTF-8 byte `offset`/`length` and a 1-based `line`
  and byte-based `column`.
- It never says whether a particular diagnostic has a fix; the rule table
  (`oxlint --rules --format json`) does, per rule. `fixable` is True for
  the rules whose every diagnostic has a safe fix (`oxlint_fixes`), found
  by the rule's docs URL (`.../rules/<scope>/<rule>.html`).
- A broken config exits 1 with a human message on stdout and no JSON.
- With no config every rule is a warning and the exit code is 0.
- `.vue`, `.svelte` and `.astro` script blocks are linted.
- A diagnostic may carry several labels (`no-duplicate-enum-values`: "1 is
  first used as an initializer here" + "and is re-used here"). The JSON has
  no primary flag in 1.94 (a `"primary": true` label is honoured if a later
  version adds one); Oxlint's own formats (default, unix, github) place the
  diagnostic at its first label. Rules that report each repeated occurrence
  against one anchor repeat the anchor as the first label of every native
  diagnostic (four equal enum values: three diagnostics, all anchored at the
  first value), so the first label is not where those problems are.
"""

from __future__ import annotations

import json
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
)
from signalint.engines.oxlint.fixes import SAFE_FIX_RULES
from signalint.engines.positions import SourceText
from signalint.model import Issue, Severity
from signalint.process import Command
from signalint.project.markers import has_js_ts_markers, has_python_markers

if TYPE_CHECKING:
    from signalint.process import ProcessResult

SUFFIXES = paths.JS_SUFFIXES + paths.COMPONENT_SUFFIXES
# Oxlint discovers `.oxlintrc.json`, `.oxlintrc.jsonc` and `oxlint.config.ts`
# in every directory (nested configs); the legacy names are hashed too so an
# explicit `-c` setup elsewhere cannot produce a stale cache hit.
CONFIG_NAMES = (".oxlintrc.json", ".oxlintrc.jsonc", "oxlint.config.ts", ".oxlintrc", "oxlint.json")
ROOT_ONLY_FILES = (".eslintignore",)


def _decode(stdout: str) -> dict[str, Any] | None:
    """The JSON report, skipping any human notice oxlint printed before it."""
    decoder = json.JSONDecoder()
    starts = [0] if stdout.startswith("{") else []
    starts += [m.start() + 1 for m in re.finditer(r"\n\{", stdout)]
    for index in starts:
        try:
            value, _ = decoder.raw_decode(stdout, index)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and isinstance(value.get("diagnostics"), list):
            return value
    return None


def _failure_message(result: ProcessResult) -> str:
    """Oxlint's headline plus its first `x ...` detail line, if any."""
    lines = [line.strip() for line in (result.stdout + "\n" + result.stderr).splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        return f"exited with code {result.exit_code} and printed nothing"
    detail = next((line[2:].strip() for line in lines if line.startswith("x ")), None)
    return f"{lines[0]} {detail}" if detail and detail not in lines[0] else lines[0]


SPEC = EngineSpec(
    name="oxlint",
    title="Oxlint",
    kind="linter",
    language="javascript",
    provision=Provision("npm", "oxlint", "1.94.0", "oxlint", ("node_modules",)),
    majors=(1,),
    timeout_ms=60_000,  # it lints large repositories in a few seconds
    docs_url="https://oxc.rs/docs/guide/usage/linter",
    fix_command="oxlint --fix",
    watch_patterns=(".oxlintrc*", "oxlint.config.ts", *ROOT_ONLY_FILES),
    fallback=True,
    warm_driver="signalint.engines.oxlint.warm",
)


class OxlintEngine(EngineDefaults):
    spec = SPEC

    def detect(self, root: Path) -> str | None:
        return paths.root_file(root, (".oxlintrc", "oxlint.config.ts"), (".oxlintrc.",))

    def default_enabled(self, root: Path) -> bool:
        # The reference enables Oxlint unless told otherwise, in a JS/TS project.
        # Except in a project that is only Python.
        return has_js_ts_markers(root) or not has_python_markers(root)

    def relevant(self, rel_path: str) -> bool:
        return paths.has_suffix(rel_path, SUFFIXES) and not paths.in_node_modules(rel_path)

    def config_files(self, root: Path, rel_path: str) -> list[str]:
        found = paths.configs_upward(root, rel_path, CONFIG_NAMES)
        found = paths.extends_chain(root, found)
        found += [name for name in ROOT_ONLY_FILES if (root / name).is_file()]
        return found

    def command(
        self, ctx: EngineContext, files: Sequence[str], probe: ProcessResult | None
    ) -> Command:
        argv = (
            str(ctx.executable),
            "--format",
            "json",
            # All-ignored batches are not an error: they simply yield no diagnostics.
            "--no-error-on-unmatched-pattern",
            "--",
            *files,
        )
        return Command(argv=argv, cwd=ctx.root, timeout_s=ctx.timeout_s)

    def parse(self, result: ProcessResult, ctx: EngineContext) -> list[Issue]:
        report = _decode(result.stdout)
        if report is None:
            raise EngineOutputError(_failure_message(result), result.stdout or result.stderr)
        located: list[tuple[dict[str, Any], str]] = []
        for diag in report["diagnostics"]:
            if not isinstance(diag, dict):
                raise EngineOutputError("oxlint diagnostic is not an object", str(diag))
            file = paths.project_path(ctx.root, str(diag.get("filename") or ""))
            if file is not None:
                located.append((diag, file))
        anchors = _shared_anchors(located)
        sources: dict[str, SourceText] = {}
        issues: list[Issue] = []
        for diag, file in located:
            source = sources.setdefault(file, SourceText(ctx.root, file))
            key = _anchor_key(diag, file)
            span = primary_span(diag, anchors.get(key, 1) if key is not None else 1)
            issues.append(self._issue(diag, file, source, span))
        return issues

    def _issue(
        self, diag: dict[str, Any], file: str, source: SourceText, span: dict[str, Any] | None
    ) -> Issue:
        line, col = 1, 1
        end_line: int | None = None
        end_col: int | None = None
        if span is not None:
            line = int(span.get("line") or 1)
            col = int(span.get("column") or 1)
            offset = span.get("offset")
            start = None
            if isinstance(offset, int):
                start = source.offset_to_position(offset)
            # Trust the byte offset only when it agrees with the reported line
            # (the file may have changed since oxlint read it).
            if start is not None and start[0] == line and isinstance(offset, int):
                col = start[1]
                end = source.offset_to_position(offset + int(span.get("length") or 0))
                if end is not None:
                    end_line, end_col = end
        severity: Severity = "error" if diag.get("severity") == "error" else "warning"
        return Issue(
            engine=self.name,
            file=file,
            line=line,
            col=col,
            rule=str(diag.get("code") or "parse"),
            severity=severity,
            message=str(diag.get("message") or ""),
            end_line=end_line,
            end_col=end_col,
            docs_url=diag.get("url") or None,
            help=_help(diag, span, source),
            fixable=_safe_fix(diag.get("url")),
        )

    def fix(self, ctx: EngineContext, files: Sequence[str]) -> Command:
        """Apply Oxlint's safe fixes to `files` in place (no suggestions, nothing dangerous)."""
        argv = (
            str(ctx.executable), "--fix", "--format", "json",
            "--no-error-on-unmatched-pattern", "--", *files,
        )  # fmt: skip
        return Command(argv=argv, cwd=ctx.root, timeout_s=ctx.timeout_s)


_RULE_URL = re.compile(r"/rules/([\w-]+/[\w-]+)\.html$")


def _safe_fix(url: object) -> bool:
    """Whether the rule behind a docs URL always has a safe fix (module docstring)."""
    found = _RULE_URL.search(url) if isinstance(url, str) else None
    return found is not None and found.group(1) in SAFE_FIX_RULES


def _spans(diag: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(label, span) pairs of a diagnostic, in Oxlint's order."""
    found = []
    for label in diag.get("labels") or []:
        if isinstance(label, dict) and isinstance(label.get("span"), dict):
            found.append((label, label["span"]))
    return found


def _where(span: dict[str, Any]) -> tuple[object, object]:
    return span.get("offset"), span.get("length")


def _anchor_key(diag: dict[str, Any], file: str) -> tuple[object, ...] | None:
    spans = _spans(diag)
    if len(spans) < 2 or any(label.get("primary") is True for label, _ in spans):
        return None
    return (file, diag.get("code"), diag.get("message"), *_where(spans[0][1]))


def _shared_anchors(located: list[tuple[dict[str, Any], str]]) -> dict[tuple[object, ...], int]:
    """How many multi-label diagnostics share each (file, rule, message, first label)."""
    counts: dict[tuple[object, ...], int] = {}
    for diag, file in located:
        key = _anchor_key(diag, file)
        if key is not None:
            counts[key] = counts.get(key, 0) + 1
    return counts


def primary_span(diag: dict[str, Any], sharing: int = 1) -> dict[str, Any] | None:
    """The span of the label that locates `diag` (module docstring).

    A label flagged `"primary": true` wins. Otherwise the first label, as in
    Oxlint's own formats, unless `sharing` (the number of diagnostics of the
    same file, rule and message whose first label is this one) is above 1:
    then the first label is a shared anchor and the diagnostic is located at
    its first label elsewhere, which is what tells it apart from the others.
    """
    spans = _spans(diag)
    if not spans:
        return None
    flagged = [span for label, span in spans if label.get("primary") is True]
    if flagged:
        return flagged[0]
    anchor = spans[0][1]
    if sharing > 1:
        for _, span in spans[1:]:
            if _where(span) != _where(anchor):
                return span
    return anchor


def _help(diag: dict[str, Any], primary: dict[str, Any] | None, source: SourceText) -> str | None:
    """Oxlint's help, then the other labels as `line:column: text` notes (D5)."""
    notes = [str(diag["help"])] if diag.get("help") else []
    for label, span in _spans(diag):
        if span is primary:
            continue
        line, col = span.get("line"), span.get("column")
        offset = span.get("offset")
        found = source.offset_to_position(offset) if isinstance(offset, int) else None
        if found is not None and found[0] == line:
            col = found[1]  # UTF-16, like every Issue column
        text = str(label.get("label") or "related location")
        notes.append(f"{line}:{col}: {text}")
    return "\n".join(notes) or None


ENGINE = OxlintEngine()
