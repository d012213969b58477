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

ESLint 8 (verified against eslint 8.57.1):
- It knows neither `--warn-ignored` nor `--no-warn-ignored` in eslintrc
  mode ("Invalid option '--warn-ignored'"), so its command leaves the
  option out under 8 whatever the config kind; an explicitly passed file
  its ignores (or, flat, no config) cover is then answered by a result
  holding one warning, "File ignored because ...", which is not a lint of
  the file (`only_ignored`: no issue, not linted). 9 and 10 print the same
  when the option is absent.
- It reads a flat config (`eslint.config.js`, `.mjs`, `.cjs`) when one is
  found, unless `ESLINT_USE_FLAT_CONFIG=false`; else the eslintrc files
  (`.eslintrc.js`, `.cjs`, `.yaml`, `.yml`, `.json`, legacy `.eslintrc`, or
  `eslintConfig` in package.json) from each file's directory upward, and
  `.eslintignore` at the root.
- Under eslintrc, a file passed by name is linted whatever its extension
  (a README.md becomes a parse error), while `eslint .`, what a project
  runs, lints `.js` files plus those matching an `overrides[].files`
  pattern. So the command passes only those (`eslintrc_lints`): `.js`,
  and the extensions the `*.ext` patterns of its eslintrc files name (read
  as text, so a pattern in a JavaScript config counts too; one named only
  in an `ignorePatterns` entry is answered "File ignored").
- `json-with-metadata` and `--no-error-on-unmatched-pattern` are as in 10;
  `rulesMeta` lists every rule ESLint loaded, not only those reported.
"""

from __future__ import annotations

import json
import os
import posixpath
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
    version_major,
)
from signalint.model import Issue, Severity
from signalint.process import Command

if TYPE_CHECKING:
    from signalint.process import ProcessResult

CONFIG_NAMES = tuple(f"eslint.config.{ext}" for ext in ("js", "mjs", "cjs", "ts", "mts", "cts"))
# The flat configs ESLint 8 finds on its own.
FLAT_8_NAMES = CONFIG_NAMES[:3]
ESLINTRC_NAMES = tuple(f".eslintrc{ext}" for ext in (".js", ".cjs", ".yaml", ".yml", ".json", ""))
ESLINTRC_IGNORE = ".eslintignore"
_IGNORED = "File ignored "
# `*.ts`, `**/*.tsx`, `*.{ts,tsx}` in an eslintrc file's text.
_EXT_PATTERN = re.compile(r"\*\.(?:\{([A-Za-z0-9_,. ]+)\}|([A-Za-z0-9_]+))\b")
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


def only_ignored(entry: dict[str, Any]) -> bool:
    """A result saying only that ESLint ignored the file (module docstring)."""
    messages = entry.get("messages")
    if not isinstance(messages, list) or len(messages) != 1:
        return False
    only = messages[0]
    return (
        isinstance(only, dict)
        and only.get("ruleId") is None
        and not only.get("fatal")
        and str(only.get("message") or "").startswith(_IGNORED)
    )


def _results(report: dict[str, Any], root: Path) -> list[tuple[dict[str, Any], str]]:
    """(result, project path) per linted file; `node_modules` files and
    files ESLint says it ignored left out."""
    found = []
    for entry in report["results"]:
        if not isinstance(entry, dict):
            raise EngineOutputError("eslint result is not an object", str(entry))
        file = paths.project_path(root, str(entry.get("filePath") or ""))
        if file is not None and not only_ignored(entry):
            found.append((entry, file))
    return found


def flat_config(root: Path, major: int | None) -> bool:
    """Whether ESLint of `major` (None: the newest) reads a flat config in
    `root` (else eslintrc files): always from 10 on; 9 and 8 unless
    `ESLINT_USE_FLAT_CONFIG=false`; 8 only when it finds a flat config or
    `ESLINT_USE_FLAT_CONFIG=true`."""
    if major is None or major >= 10:
        return True
    setting = os.environ.get("ESLINT_USE_FLAT_CONFIG", "").strip().lower()
    if setting == "false":
        return False
    if major >= 9 or setting == "true":
        return True
    return paths.root_file(root, FLAT_8_NAMES) is not None or _flat_above(root)


def _flat_above(root: Path) -> bool:
    """A flat config in a directory above `root` (ESLint 8 looks up from its cwd)."""
    for directory in root.parents:
        if any((directory / name).is_file() for name in FLAT_8_NAMES):
            return True
    return False


def _package_eslint_config(path: Path) -> bool:
    """Whether the package.json at `path` has an `eslintConfig` key."""
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and "eslintConfig" in data


def eslintrc_files(root: Path, rel_path: str) -> list[str]:
    """The eslintrc files (and package.json files with `eslintConfig`)
    from `rel_path`'s directory upward, nearest first."""
    found = []
    for directory in paths.upward_dirs(root, rel_path):
        for name in ESLINTRC_NAMES:
            rel = paths.join(directory, name)
            if (root / rel).is_file():
                found.append(rel)
        manifest = paths.join(directory, "package.json")
        if (root / manifest).is_file() and _package_eslint_config(root / manifest):
            found.append(manifest)
    return found


def eslintrc_lints(root: Path, rel_path: str, texts: dict[str, str] | None = None) -> bool:
    """Whether `eslint .` under eslintrc lints `rel_path`: a `.js` file, or
    one whose extension a `*.ext` pattern of its eslintrc files names
    (module docstring). `texts` memoizes the files read."""
    suffix = posixpath.splitext(rel_path)[1].lower()
    if suffix == ".js":
        return True
    if not suffix:
        return False
    texts = {} if texts is None else texts
    for config in eslintrc_files(root, rel_path):
        if config not in texts:
            try:
                texts[config] = (root / config).read_text(encoding="utf-8", errors="replace")
            except OSError:
                texts[config] = ""
        for group, single in _EXT_PATTERN.findall(texts[config]):
            names = group.split(",") if group else [single]
            if suffix[1:] in {n.strip().lower() for n in names}:
                return True
    return False


def project_eslint_major(root: Path) -> int | None:
    """The major version of the project's own ESLint package, if it has one."""
    try:
        manifest = json.loads((root / "node_modules/eslint/package.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    version = manifest.get("version") if isinstance(manifest, dict) else None
    return version_major(version) if isinstance(version, str) else None


SPEC = EngineSpec(
    name="eslint",
    title="ESLint",
    kind="linter",
    language="javascript",
    provision=Provision("npm", "eslint", "10.15.0", "eslint", ("node_modules",)),
    majors=(8, 9, 10),
    # Typed rules took 34-40 s alone on a large TypeScript library on two
    # cores; the engines of a check share those cores: about twice that.
    timeout_ms=180_000,
    docs_url="https://eslint.org/",
    fix_command="eslint --fix",
    watch_patterns=("eslint.config.*", ".eslintrc*", ESLINTRC_IGNORE),
    hook_suffixes=paths.JS_SUFFIXES,
    warm_driver="signalint.engines.eslint.warm",
    cache_files=(".eslintcache",),
)


class EslintEngine(EngineDefaults):
    spec = SPEC

    def lint_text(self, root: Path, tool: TextTool, rel: str, text: str) -> Command | None:
        return lint_text(root, tool, rel, text)

    def text_problems(self, result: ProcessResult) -> list[str] | None:
        return text_problems(result)

    def detect(self, root: Path) -> str | None:
        """A flat config at the root; or, where the project's own ESLint is 8
        or older, its eslintrc file or package.json's `eslintConfig` (D21:
        the linter the project chose; the managed ESLint 10 reads no eslintrc)."""
        found = paths.root_file(root, CONFIG_NAMES)
        if found is not None:
            return found
        major = project_eslint_major(root)
        if major is None or major > 8:
            return None
        found = paths.root_file(root, ESLINTRC_NAMES)
        if found is None and _package_eslint_config(root / "package.json"):
            found = "package.json"
        return found

    def relevant(self, rel_path: str) -> bool:
        # Only a coarse filter: the flat config decides (module docstring).
        return paths.may_be_text_input(rel_path)

    def config_files(self, root: Path, rel_path: str) -> list[str]:
        # ESLint 10 looks up the config from each file's directory upward;
        # an eslintrc project's (ESLint 8) files count too.
        found = paths.configs_upward(root, rel_path, CONFIG_NAMES)
        found += eslintrc_files(root, rel_path)
        if (root / ESLINTRC_IGNORE).is_file():
            found.append(ESLINTRC_IGNORE)
        return found

    def command(
        self, ctx: EngineContext, files: Sequence[str], probe: ProcessResult | None
    ) -> Command:
        argv = (
            str(ctx.executable),
            "--format",
            "json-with-metadata",
            *_quiet_ignored(ctx),
            "--no-error-on-unmatched-pattern",
            "--",
            *_lintable(ctx, files),
        )
        return Command(argv=argv, cwd=ctx.root, timeout_s=ctx.timeout_s)

    def fix(self, ctx: EngineContext, files: Sequence[str]) -> Command:
        """Apply ESLint's fixes (`--fix`: fixes, never suggestions) to `files` in place."""
        argv = (
            str(ctx.executable), "--fix", "--format", "json", *_quiet_ignored(ctx),
            "--no-error-on-unmatched-pattern", "--", *_lintable(ctx, files),
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


def quiet_ignored(root: Path, major: int | None) -> tuple[str, ...]:
    """`--no-warn-ignored` where ESLint of `major` knows it: 9 and later,
    with a flat config (module docstring)."""
    if (major is not None and major <= 8) or not flat_config(root, major):
        return ()
    return ("--no-warn-ignored",)


def lint_text(root: Path, tool: TextTool, rel: str, text: str) -> Command | None:
    """ESLint over `text` on stdin as the file `rel`. Under an eslintrc
    config (ESLint 8) a file `eslint .` does not lint has no problems (None:
    `--stdin-filename` would lint it whatever its extension), and ESLint 8
    takes no `--no-warn-ignored` (its "File ignored" warning is no problem)."""
    if not flat_config(root, tool.major) and not eslintrc_lints(root, rel):
        return None
    argv = (
        str(tool.executable),
        "--format",
        "json",
        *quiet_ignored(root, tool.major),
        "--stdin",
        "--stdin-filename",
        rel,
    )
    return Command(argv, root, tool.timeout_s, stdin=text.encode())


def text_problems(result: ProcessResult) -> list[str] | None:
    """`rule: message` of each problem `lint_text`'s run reports; None when
    it failed or printed no JSON report."""
    try:
        report = json.loads(result.stdout) if result.exit_code in (0, 1) else None
    except ValueError:
        report = None
    if not isinstance(report, list):
        return None
    problems = []
    for entry in report:
        if not isinstance(entry, dict) or only_ignored(entry):
            continue
        for message in entry.get("messages", []):
            rule = message.get("ruleId") or "parse"
            problems.append(f"{rule}: {message.get('message', '')}")
    return problems


def _quiet_ignored(ctx: EngineContext) -> tuple[str, ...]:
    return quiet_ignored(ctx.root, ctx.major)


def _lintable(ctx: EngineContext, files: Sequence[str]) -> list[str]:
    """`files`, or under an eslintrc config only those `eslint .` lints."""
    if flat_config(ctx.root, ctx.major):
        return list(files)
    texts: dict[str, str] = {}
    return [f for f in files if eslintrc_lints(ctx.root, f, texts)]


ENGINE = EslintEngine()
