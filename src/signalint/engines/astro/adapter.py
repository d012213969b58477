"""Astro adapter: one whole-program `astro check` run.

Verified against astro 5.18.2 with @astrojs/check 0.9.12 and TypeScript 5.9.3:
- `astro check` runs `astro sync` first (it writes the generated types in
  the project's `.astro/`, as the project's own `astro check`, `dev` and
  `build` do), then checks the files its tsconfig includes: `.astro`
  files and `.ts`/`.js` files alike (so a project that enables it does not
  also run tsc: `EngineSpec.replaces`), never `.vue` or `.svelte` files;
  without a tsconfig, the `.astro` files of the project. The engine option
  `sync` (default true, as the native command) set to false passes
  `--noSync`: nothing is written, and the types `.astro/` already holds are
  read as they are (they are then part of the inputs).
- It has no machine-readable output. Each diagnostic is printed by
  TypeScript's `formatDiagnosticsWithColorAndContext` (always with ANSI
  colors, stripped here): `<file>:<line>:<col> - <error|warning>
  <source>(<code>): <message>` (the file relative to the project, 1-based
  UTF-16 columns; hints are printed as warnings), further message lines,
  a blank line, then a code frame. The run ends with `Result (<n> files):`.
- Rules: `TS<code>` for TypeScript's diagnostics (`ts(2322)`), as tsc names
  them; `<source>(<code>)` otherwise (Astro's own, `astro(4000)`).
- Exit codes: 0 no errors, 1 errors. `ASTRO_TELEMETRY_DISABLED=1` keeps
  it off the network.
- It names no file it checked and no input: the files checked are those its
  tsconfig includes (`components.tsconfig_scope`), the inputs a superset
  walked from disk (`components.program_inputs`; content collections'
  Markdown, YAML, JSON and TOML included) plus the packages installed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from signalint.engines import adapter_paths as paths
from signalint.engines import components
from signalint.engines.base import EngineContext, EngineOutputError, EngineSpec, Provision
from signalint.model import Issue, Severity
from signalint.process import Command, ProcessResult

SUFFIXES = (".astro", *paths.JS_SUFFIXES)
CONFIG_NAMES = tuple(f"astro.config.{ext}" for ext in ("mjs", "js", "ts", "mts", "cjs", "cts"))
TS_CONFIGS = components.TS_CONFIGS
_INPUT_SUFFIXES = (*SUFFIXES, ".json", ".md", ".mdx", ".markdoc", ".yaml", ".yml", ".toml")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_HEADER = re.compile(
    r"^(?P<file>\S.*?):(?P<line>\d+):(?P<col>\d+) - (?P<category>error|warning) "
    r"(?P<source>[A-Za-z-]*)(?:\((?P<code>[^)]*)\))?: (?P<message>.*)$"
)
_RESULT = re.compile(r"^Result \((?P<files>\d+) files?\):")
GENERATED = ".astro"

SPEC = EngineSpec(
    name="astro",
    title="Astro (astro check)",
    kind="compiler",
    language="javascript",
    provision=Provision(
        "npm",
        "astro",
        "5.18.2",
        "astro",
        ("node_modules",),
        companions=("@astrojs/check@0.9.12", "typescript@5.9.3"),
        prefix="components",
    ),
    majors=(5,),
    timeout_ms=240_000,
    docs_url="https://docs.astro.build/en/reference/cli-reference/#astro-check",
    whole_program=True,
    options={"sync": True},
    watch_patterns=("astro.config.*", "tsconfig*.json", "jsconfig*.json"),
    replaces=("tsc",),
    per_package=True,
    from_packages=True,
)


class AstroEngine(components.ComponentChecker):
    spec = SPEC
    own_configs = CONFIG_NAMES
    dependency = "@astrojs/check"
    suffixes = SUFFIXES
    component = ".astro"
    input_suffixes = _INPUT_SUFFIXES
    generated = GENERATED

    def extra_key(self, ctx: EngineContext) -> str:
        """Whether it syncs."""
        return f"sync={_syncs(ctx)}\0"

    def writes_generated(self, ctx: EngineContext) -> bool:
        """With sync, `.astro/` is the run's own output, made from the other inputs."""
        return _syncs(ctx)

    def command(
        self, ctx: EngineContext, files: Sequence[str], probe: ProcessResult | None
    ) -> Command:
        argv: tuple[str, ...] = (str(ctx.executable), "check")
        if not _syncs(ctx):
            argv += ("--noSync",)
        return Command(
            argv=argv,
            cwd=self.cwd(ctx),
            timeout_s=ctx.timeout_s,
            ok_exit_codes=frozenset({0, 1}),
            env={"ASTRO_TELEMETRY_DISABLED": "1"},
        )

    def parse(self, result: ProcessResult, ctx: EngineContext) -> list[Issue]:
        return read(result, ctx.root, self.cwd(ctx))


def _syncs(ctx: EngineContext) -> bool:
    return ctx.options.get("sync", True) is not False


def read(result: ProcessResult, root: Path, cwd: Path) -> list[Issue]:
    """The diagnostics of one `astro check` run in `cwd` (module docstring)."""
    lines = _ANSI.sub("", result.stdout).splitlines()
    issues: list[Issue] = []
    completed = False
    at = 0
    while at < len(lines):
        line = lines[at].rstrip()
        at += 1
        if _RESULT.match(line):
            completed = True
            continue
        header = _HEADER.match(line)
        if header is None:
            continue
        message = [header["message"]]
        # Further message lines run to the blank line before the code frame.
        while at < len(lines) and lines[at].strip():
            if _HEADER.match(lines[at].rstrip()):
                break
            message.append(lines[at].rstrip())
            at += 1
        file = paths.project_path(root, os.path.join(str(cwd), header["file"]))
        if file is None:
            continue
        source, code = header["source"], header["code"]
        rule = f"TS{code}" if source == "ts" and code else f"{source}({code})" if code else source
        severity: Severity = "error" if header["category"] == "error" else "warning"
        issues.append(
            Issue(
                engine=SPEC.name,
                file=file,
                line=int(header["line"]),
                col=int(header["col"]),
                rule=rule or "astro",
                severity=severity,
                message="\n".join(message),
            )
        )
    if not completed:
        said = (result.stderr.strip() or _ANSI.sub("", result.stdout).strip())[-300:]
        raise EngineOutputError(
            f"astro check exited with code {result.exit_code} without a result"
            + (f": {said}" if said else ""),
            said,
        )
    return issues


ENGINE = AstroEngine()
