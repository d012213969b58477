"""svelte-check adapter: one whole-program `svelte-check --output machine-verbose` run.

Verified against svelte-check 4.7.9 with svelte 5.46.1 and TypeScript 5.9.3:
- Run in the project root with no other option, as the project's own
  `svelte-check` is: it finds its tsconfig.json (or jsconfig.json) itself
  and diagnoses the files that config includes, `.svelte` files and the
  `.ts`/`.js` files alike (so a project that enables it does not also run
  tsc: `EngineSpec.replaces`); without a config, the `.svelte` files of the
  workspace. It writes nothing.
- `--output machine-verbose` prints one line per event, each starting with
  a time stamp: `START "<workspace>"`, then one JSON object per diagnostic
  (`type` ERROR or WARNING, `filename` relative to the workspace, `start`
  and `end` with 0-based `line` and `character` in UTF-16 code units,
  `message`, `code` (a number for TypeScript's diagnostics, a name such as
  `state_referenced_locally` for Svelte's), `source` ("ts", "svelte",
  "css", "js"), `codeDescription.href` for Svelte's), then `COMPLETED
  <n> FILES <e> ERRORS <w> WARNINGS <f> FILES_WITH_PROBLEMS`; a run that
  fails prints `FAILURE "<message>"`.
- Rules: `TS<code>` for a number (as tsc names it), Svelte's code as it is,
  else the source's name. Columns become 1-based.
- Exit codes: 0 no errors, 1 errors (warnings do not fail).
- It names no file it checked and no input: the files checked are those
  its config includes (`components.tsconfig_scope`), the inputs a superset
  walked from disk (`components.program_inputs`) plus the packages
  installed (`node_env.installed_stamp` in the program key). SvelteKit's
  generated `.svelte-kit/` (written by `svelte-kit sync`, which the
  project runs before `svelte-check`) is read as an input like the rest.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from signalint.engines import adapter_paths as paths
from signalint.engines import components
from signalint.engines.base import EngineContext, EngineOutputError, EngineSpec, Provision
from signalint.model import Issue, Severity
from signalint.process import Command, ProcessResult

SUFFIXES = (".svelte", *paths.JS_SUFFIXES)
CONFIG_NAMES = ("svelte.config.js", "svelte.config.mjs", "svelte.config.cjs", "svelte.config.ts")
TS_CONFIGS = components.TS_CONFIGS
# What the run may read inside the project besides its sources.
_INPUT_SUFFIXES = (*SUFFIXES, ".json", ".d.ts")
_LINE = re.compile(r"^\d+ (?P<kind>START|COMPLETED|FAILURE|\{)(?P<rest>.*)$")
_COMPLETED = re.compile(r"^ (?P<files>\d+) FILES (?P<errors>\d+) ERRORS (?P<warnings>\d+) WARNINGS")

SPEC = EngineSpec(
    name="svelte-check",
    title="Svelte (svelte-check)",
    kind="compiler",
    language="javascript",
    provision=Provision(
        "npm",
        "svelte-check",
        "4.7.9",
        "svelte-check",
        ("node_modules",),
        companions=("typescript@5.9.3", "svelte@5.46.1"),
        prefix="components",
    ),
    majors=(4,),
    timeout_ms=180_000,
    docs_url="https://svelte.dev/docs/cli/sv-check",
    whole_program=True,
    watch_patterns=("svelte.config.*", "tsconfig*.json", "jsconfig*.json"),
    replaces=("tsc",),
    per_package=True,
    from_packages=True,
)


class SvelteCheckEngine(components.ComponentChecker):
    spec = SPEC
    own_configs = CONFIG_NAMES
    dependency = "svelte-check"
    suffixes = SUFFIXES
    component = ".svelte"
    input_suffixes = _INPUT_SUFFIXES

    def command(
        self, ctx: EngineContext, files: Sequence[str], probe: ProcessResult | None
    ) -> Command:
        argv = (str(ctx.executable), "--output", "machine-verbose")
        return Command(
            argv=argv, cwd=self.cwd(ctx), timeout_s=ctx.timeout_s, ok_exit_codes=frozenset({0, 1})
        )

    def parse(self, result: ProcessResult, ctx: EngineContext) -> list[Issue]:
        cwd = self.cwd(ctx)
        issues: list[Issue] = []
        completed = False
        for line in result.stdout.splitlines():
            match = _LINE.match(line.strip())
            if match is None:
                continue
            kind = match["kind"]
            if kind == "FAILURE":
                raise EngineOutputError(f"svelte-check failed: {match['rest'].strip()}", line)
            if kind == "COMPLETED":
                completed = _COMPLETED.match(match["rest"]) is not None
                continue
            if kind == "{":
                issue = _issue(line[line.index("{") :], ctx.root, cwd)
                if issue is not None:
                    issues.append(issue)
        if not completed:
            said = (result.stderr.strip() or result.stdout.strip())[-300:]
            raise EngineOutputError(
                f"svelte-check exited with code {result.exit_code} without completing"
                + (f": {said}" if said else ""),
                said,
            )
        return issues


def _issue(text: str, root: Path, cwd: Path) -> Issue | None:
    try:
        data: Any = json.loads(text)
    except ValueError as exc:
        raise EngineOutputError(
            f"svelte-check printed a diagnostic that is not JSON: {exc}", text
        ) from exc
    if not isinstance(data, dict) or not isinstance(data.get("filename"), str):
        raise EngineOutputError("svelte-check printed a diagnostic without a file name", text)
    file = paths.project_path(root, os.path.join(str(cwd), data["filename"]))
    if file is None:
        return None
    start = data.get("start") or {}
    end = data.get("end") or {}
    code = data.get("code")
    source = data.get("source")
    if isinstance(code, int):
        rule = f"TS{code}"
    elif isinstance(code, str) and code:
        rule = code
    else:
        rule = source if isinstance(source, str) and source else "svelte-check"
    severity: Severity = "error" if data.get("type") == "ERROR" else "warning"
    href = (data.get("codeDescription") or {}).get("href")
    return Issue(
        engine=SPEC.name,
        file=file,
        line=int(start.get("line", 0)) + 1,
        col=int(start.get("character", 0)) + 1,
        end_line=int(end["line"]) + 1 if "line" in end else None,
        end_col=int(end["character"]) + 1 if "character" in end else None,
        rule=rule,
        severity=severity,
        message=str(data.get("message", "")),
        docs_url=href if isinstance(href, str) else None,
    )


ENGINE = SvelteCheckEngine()
