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

from signalint.engines import components, paths
from signalint.engines.base import (
    EngineContext,
    EngineDefaults,
    EngineOutputError,
    EngineSpec,
    Memory,
    Program,
    ProgramKey,
    Provision,
)
from signalint.engines.node_env import installed_stamp
from signalint.engines.tsc_program import config_chain
from signalint.model import Issue, Severity
from signalint.process import Command, ProcessResult

SUFFIXES = (".svelte", *paths.JS_SUFFIXES)
CONFIG_NAMES = ("svelte.config.js", "svelte.config.mjs", "svelte.config.cjs", "svelte.config.ts")
TS_CONFIGS = ("tsconfig.json", "jsconfig.json")
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
)


class SvelteCheckEngine(EngineDefaults):
    spec = SPEC

    def detect(self, root: Path) -> str | None:
        """`svelte.config.*` at the root, else `package.json` naming svelte-check."""
        found = paths.root_file(root, CONFIG_NAMES)
        if found is not None:
            return found
        return "package.json" if "svelte-check" in components.dependencies(root) else None

    def relevant(self, rel_path: str) -> bool:
        return paths.has_suffix(rel_path, SUFFIXES) and not paths.in_node_modules(rel_path)

    def config_files(self, root: Path, rel_path: str) -> list[str]:
        own = [c for c in (paths.root_file(root, CONFIG_NAMES),) if c is not None]
        config = components.nearest_config(root, TS_CONFIGS)
        chain = config_chain(root, config) if config is not None else None
        return own + (chain or ([config] if config else []))

    def program_key(self, ctx: EngineContext) -> ProgramKey | None:
        """`svelte.config.*`, the tsconfig and its chain, and the packages installed."""
        configs = self.config_files(ctx.root, ".")
        config = components.nearest_config(ctx.root, TS_CONFIGS)
        if config is not None and config_chain(ctx.root, config) is None:
            return None  # an `extends` we cannot follow: always run
        return ProgramKey(tuple(configs), extra=installed_stamp(ctx.root, ["."]))

    def program(
        self,
        results: Sequence[ProcessResult],
        ctx: EngineContext,
        memory: Memory | None,
        changed: frozenset[str],
    ) -> Program:
        """A superset of what it read; the files its config includes (module docstring)."""
        configs = self.config_files(ctx.root, ".")
        inputs = components.program_inputs(ctx.root, _INPUT_SUFFIXES, configs)
        return Program(inputs=inputs, checked=checked(ctx.root))

    def command(
        self, ctx: EngineContext, files: Sequence[str], probe: ProcessResult | None
    ) -> Command:
        argv = (str(ctx.executable), "--output", "machine-verbose")
        return Command(
            argv=argv, cwd=ctx.root, timeout_s=ctx.timeout_s, ok_exit_codes=frozenset({0, 1})
        )

    def parse(self, result: ProcessResult, ctx: EngineContext) -> list[Issue]:
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
                issue = _issue(line[line.index("{") :], ctx)
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


def checked(root: Path) -> tuple[str, ...]:
    """Absolute paths of the files svelte-check diagnoses: those its config
    includes, else every `.svelte` file of the workspace."""
    config = components.nearest_config(root, TS_CONFIGS)
    if config is not None:
        found = components.tsconfig_scope(root, config, SUFFIXES)
    else:
        found = [
            f"{d}/{n}" if d else n
            for d, names in components.walk(root)
            for n in names
            if n.endswith(".svelte")
        ]
    return tuple(os.path.join(str(root), f) for f in found)


def _issue(text: str, ctx: EngineContext) -> Issue | None:
    try:
        data: Any = json.loads(text)
    except ValueError as exc:
        raise EngineOutputError(
            f"svelte-check printed a diagnostic that is not JSON: {exc}", text
        ) from exc
    if not isinstance(data, dict) or not isinstance(data.get("filename"), str):
        raise EngineOutputError("svelte-check printed a diagnostic without a file name", text)
    file = paths.project_path(ctx.root, os.path.join(str(ctx.root), data["filename"]))
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
