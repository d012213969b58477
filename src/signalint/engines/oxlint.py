"""Oxlint adapter: `oxlint --format json -- <files>`.

Verified against oxlint 1.94.0:
- JSON is `{"diagnostics": [...], "number_of_files": ...}` on stdout; each
  diagnostic has `message`, `code` ("eslint(no-debugger)", absent for parse
  errors), `severity`, `url`, `help`, `filename` (relative to the cwd) and
  `labels[].span` with a UTF-8 byte `offset`/`length` and a 1-based `line`
  and byte-based `column`.
- It never says whether a particular diagnostic has a fix (only rule
  metadata does), so `fixable` stays False.
- A broken config exits 1 with a human message on stdout and no JSON.
- With no config every rule is a warning and the exit code is 0.
- `.vue`, `.svelte` and `.astro` script blocks are linted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from signalint.engines import paths
from signalint.engines.base import Command, EngineContext, EngineOutputError
from signalint.engines.positions import SourceText
from signalint.model import Issue, Severity

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


class OxlintEngine:
    name = "oxlint"
    npm_package = "oxlint"
    bin_name = "oxlint"
    whole_program = False

    def relevant(self, rel_path: str) -> bool:
        return paths.has_suffix(rel_path, SUFFIXES) and not paths.in_node_modules(rel_path)

    def config_files(self, root: Path, rel_path: str) -> list[str]:
        found = paths.configs_upward(root, rel_path, CONFIG_NAMES)
        found = paths.extends_chain(root, found)
        found += [name for name in ROOT_ONLY_FILES if (root / name).is_file()]
        return found

    def probe(self, ctx: EngineContext) -> Command | None:
        return None

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
        issues: list[Issue] = []
        sources: dict[str, SourceText] = {}
        for diag in report["diagnostics"]:
            if not isinstance(diag, dict):
                raise EngineOutputError("oxlint diagnostic is not an object", str(diag))
            file = paths.project_path(ctx.root, str(diag.get("filename") or ""))
            if file is None:
                continue
            source = sources.setdefault(file, SourceText(ctx.root, file))
            issues.append(self._issue(diag, file, source))
        return issues

    def _issue(self, diag: dict[str, Any], file: str, source: SourceText) -> Issue:
        line, col = 1, 1
        end_line: int | None = None
        end_col: int | None = None
        labels = diag.get("labels") or []
        span = labels[0].get("span") if labels and isinstance(labels[0], dict) else None
        if isinstance(span, dict):
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
            help=diag.get("help") or None,
        )


ENGINE = OxlintEngine()
