"""ESLint adapter (flat config): `eslint --format json-with-metadata -- <files>`.

Verified against eslint 10.15.0:
- `json-with-metadata` prints `{"results": [...], "metadata": {"rulesMeta":
  {rule: {"docs": {"url": ...}}}}}`; results carry absolute `filePath`s and
  messages with 1-based `line`/`column` (UTF-16) and exclusive
  `endLine`/`endColumn`, `fix` when an autofix exists and `suggestions`.
- Parse failures are `{"ruleId": null, "fatal": true}`; unused disable
  directives are `ruleId: null` without `fatal`.
- `--` ends the options; `--no-warn-ignored` drops the "File ignored"
  warnings for explicitly passed ignored files (also files no config
  matches); `--no-error-on-unmatched-pattern` keeps a vanished file from
  failing the batch.
- A config that cannot load (syntax error, missing plugin, unknown rule) or
  a missing config exits 2 with "Oops! Something went wrong! :(",
  "ESLint: <version>", then the real error, on stderr.
- The files ESLint lints are the ones its flat config matches (any `files`
  glob: HTML through eslint-plugin-html, JSON through @eslint/json, Markdown,
  CSS, ...), minus its `ignores`. Given explicit paths, it prints one result
  per file it linted, even with no messages, and nothing for the others
  (with `--no-warn-ignored`), so every candidate file is passed and the
  results say which ones ESLint checked (`linted`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from signalint.engines import paths
from signalint.engines.base import (
    EngineContext,
    EngineDefaults,
    EngineOutputError,
    EngineSpec,
    Provision,
)
from signalint.model import Issue, Severity
from signalint.process import Command

if TYPE_CHECKING:
    from signalint.process import ProcessResult

CONFIG_NAMES = tuple(f"eslint.config.{ext}" for ext in ("js", "mjs", "cjs", "ts", "mts", "cts"))
_BOILERPLATE = ("Oops! Something went wrong", "ESLint: ")


def _failure_message(result: ProcessResult) -> str:
    """ESLint's own error line: the first line after its "Oops!" preamble."""
    lines = [line.strip() for line in (result.stderr + "\n" + result.stdout).splitlines()]
    for line in lines:
        if line and not line.startswith(_BOILERPLATE):
            return line
    return f"exited with code {result.exit_code} and printed nothing"


def _rule(message: dict[str, Any]) -> str:
    rule = message.get("ruleId")
    if rule:
        return str(rule)
    if message.get("fatal"):
        return "parse"
    text = str(message.get("message") or "")
    if text.startswith(("Unused eslint-disable", "Unused eslint-enable")):
        return "unused-disable-directive"
    return "eslint"


def _docs_urls(metadata: Any) -> dict[str, str]:
    rules = metadata.get("rulesMeta") if isinstance(metadata, dict) else None
    urls: dict[str, str] = {}
    for name, meta in (rules or {}).items():
        docs = meta.get("docs") if isinstance(meta, dict) else None
        url = docs.get("url") if isinstance(docs, dict) else None
        if isinstance(url, str) and url:
            urls[name] = url
    return urls


def _report(result: ProcessResult) -> dict[str, Any]:
    try:
        report = json.loads(result.stdout) if result.stdout.strip() else None
    except json.JSONDecodeError:
        report = None
    # Plain `--format json` is a bare list; accept it too.
    if isinstance(report, list):
        report = {"results": report, "metadata": {}}
    if not isinstance(report, dict) or not isinstance(report.get("results"), list):
        raise EngineOutputError(_failure_message(result), result.stderr or result.stdout)
    return report


def _results(report: dict[str, Any], root: Path) -> list[tuple[dict[str, Any], str]]:
    """(result, project path) per linted file; `node_modules` files left out."""
    found = []
    for entry in report["results"]:
        if not isinstance(entry, dict):
            raise EngineOutputError("eslint result is not an object", str(entry))
        file = paths.project_path(root, str(entry.get("filePath") or ""))
        if file is not None:
            found.append((entry, file))
    return found


SPEC = EngineSpec(
    name="eslint",
    title="ESLint",
    kind="linter",
    language="javascript",
    provision=Provision("npm", "eslint", "10.15.0", "eslint", ("node_modules",)),
    # Typed rules took 34-40 s alone on a large TypeScript library on two
    # cores; the engines of a check share those cores: about twice that.
    timeout_ms=180_000,
    docs_url="https://eslint.org/",
    fix_command="eslint --fix",
    watch_patterns=("eslint.config.*",),
)


class EslintEngine(EngineDefaults):
    spec = SPEC

    def detect(self, root: Path) -> str | None:
        return paths.root_file(root, CONFIG_NAMES)

    def relevant(self, rel_path: str) -> bool:
        # Only a coarse filter: the flat config decides (module docstring).
        return paths.may_be_text_input(rel_path)

    def config_files(self, root: Path, rel_path: str) -> list[str]:
        # ESLint 10 looks up the config from each file's directory upward.
        return paths.configs_upward(root, rel_path, CONFIG_NAMES)

    def command(
        self, ctx: EngineContext, files: Sequence[str], probe: ProcessResult | None
    ) -> Command:
        argv = (
            str(ctx.executable),
            "--format",
            "json-with-metadata",
            "--no-warn-ignored",
            "--no-error-on-unmatched-pattern",
            "--",
            *files,
        )
        return Command(argv=argv, cwd=ctx.root, timeout_s=ctx.timeout_s)

    def fix(self, ctx: EngineContext, files: Sequence[str]) -> Command:
        """Apply ESLint's fixes (`--fix`: fixes, never suggestions) to `files` in place."""
        argv = (
            str(ctx.executable), "--fix", "--format", "json", "--no-warn-ignored",
            "--no-error-on-unmatched-pattern", "--", *files,
        )  # fmt: skip
        return Command(argv=argv, cwd=ctx.root, timeout_s=ctx.timeout_s)

    def parse(self, result: ProcessResult, ctx: EngineContext) -> list[Issue]:
        report = _report(result)
        urls = _docs_urls(report.get("metadata"))
        issues: list[Issue] = []
        for entry, file in _results(report, ctx.root):
            for message in entry.get("messages") or []:
                if isinstance(message, dict):
                    issues.append(self._issue(message, file, urls))
        return issues

    def linted(self, result: ProcessResult, ctx: EngineContext) -> set[str]:
        """The files of the run ESLint linted: one result each, messages or not."""
        return {file for _, file in _results(_report(result), ctx.root)}

    def _issue(self, message: dict[str, Any], file: str, urls: dict[str, str]) -> Issue:
        rule = _rule(message)
        severity: Severity = "error" if message.get("severity") == 2 else "warning"
        suggestions = [
            str(s["desc"])
            for s in message.get("suggestions") or []
            if isinstance(s, dict) and s.get("desc")
        ]
        end_line = message.get("endLine")
        end_col = message.get("endColumn")
        return Issue(
            engine=self.name,
            file=file,
            line=int(message.get("line") or 1),
            col=int(message.get("column") or 1),
            rule=rule,
            severity=severity,
            message=str(message.get("message") or ""),
            fixable=isinstance(message.get("fix"), dict),
            end_line=int(end_line) if isinstance(end_line, int) else None,
            end_col=int(end_col) if isinstance(end_col, int) else None,
            docs_url=urls.get(rule),
            help="\n".join(f"Suggestion: {s}" for s in suggestions) or None,
        )


ENGINE = EslintEngine()
