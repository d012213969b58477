"""vue-tsc adapter: tsc with Vue single-file components, one whole-program run.

Verified against vue-tsc 3.3.14 with TypeScript 5.9.3:
- vue-tsc is `tsc` with the Vue language plugin: the same command line
  (`-p <config> --noEmit`, `-b` for a config with `references`), the same
  `--pretty false` output (`file(line,col): error TS2322: msg`, UTF-16
  1-based columns; a `.vue` file's line and column are the component
  file's own, in its `<script setup>` or its `<template>`), the same
  `--listFiles` (the `.vue` files among the program's inputs) and exit codes
  (0, 1, 2). The TypeScript adapter's reading is used unchanged
  (`TscEngine`): only the spec, detection, the files it may read and the
  stack-overflow rerun (which re-runs TypeScript's own `bin/tsc`) differ.
- It checks the `.ts` files of the same program too, so a project that
  enables it does not also run tsc (`EngineSpec.replaces`).
- It needs TypeScript's JavaScript API (5.x or 6.x): TypeScript 7 (the
  native port) has none, so the managed copy gets TypeScript 5.9.3 beside
  it in a prefix of its own (`Provision.prefix`).
- `--version` prints the TypeScript version; the package's manifest names
  vue-tsc's own (`resolve.version`).
- Without `--incremental`: vue-tsc keeps no build info of its own between
  runs here (the program cache skips a run whose inputs are unchanged).
"""

from __future__ import annotations

from pathlib import Path

from signalint.engines import components, paths
from signalint.engines.base import EngineContext, EngineSpec, Provision
from signalint.engines.tsc import CONFIG_NAME, TscEngine
from signalint.process import Command, ProcessResult

SUFFIXES = (*paths.JS_SUFFIXES, ".vue")

SPEC = EngineSpec(
    name="vue-tsc",
    title="Vue (vue-tsc)",
    kind="compiler",
    language="javascript",
    provision=Provision(
        "npm",
        "vue-tsc",
        "3.3.14",
        "vue-tsc",
        ("node_modules",),
        companions=("typescript@5.9.3",),
        prefix="components",
    ),
    majors=(3,),
    timeout_ms=180_000,
    docs_url="https://github.com/vuejs/language-tools/tree/master/packages/tsc",
    whole_program=True,
    watch_patterns=("tsconfig*.json", "jsconfig*.json"),
    replaces=("tsc",),
)


class VueTscEngine(TscEngine):
    spec = SPEC

    def detect(self, root: Path) -> str | None:
        """`package.json` when it names vue-tsc, or Vue in a project with a
        tsconfig.json (its components' types are otherwise unchecked)."""
        names = components.dependencies(root)
        if "vue-tsc" in names:
            return "package.json"
        if "vue" in names and paths.root_file(root, (CONFIG_NAME,)) is not None:
            return "package.json"
        return None

    def default_enabled(self, root: Path) -> bool:
        return self.detect(root) is not None

    def relevant(self, rel_path: str) -> bool:
        return paths.has_suffix(rel_path, SUFFIXES) and not paths.in_node_modules(rel_path)

    def rerun(self, result: ProcessResult, ctx: EngineContext, command: Command) -> Command | None:
        """No second command: TypeScript's own `bin/tsc` would drop the Vue plugin."""
        return None


ENGINE = VueTscEngine()
