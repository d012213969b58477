"""vue-tsc adapter: tsc with Vue single-file components, one whole-program run.

Verified against vue-tsc 3.3.14 and 2.2.12 with TypeScript 5.9.3 (the same
command line and output):
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
- vue-tsc 2 writes its global types on every run, to
  `node_modules/.vue-global-types/vue_<version>_<options>.d.ts` beside the
  `vue` package, and reads them as an input (3 keeps them in its own
  package). The file is made from Vue's version and the config's
  `vueCompilerOptions`, both already in the program key (the packages
  installed, the config chain), and is rewritten during the run, which
  would keep the program cache from ever storing a record: it is left out
  of the inputs (`program`). It is the project's own vue-tsc writing where
  it writes when the project runs it.
- Without `--incremental`: vue-tsc keeps no build info of its own between
  runs here (the program cache skips a run whose inputs are unchanged).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from signalint.engines import adapter_paths as paths
from signalint.engines import components
from signalint.engines.base import EngineContext, EngineSpec, Memory, Program, Provision
from signalint.engines.tsc.adapter import CONFIG_NAME, TscEngine
from signalint.process import Command, ProcessResult

SUFFIXES = (*paths.JS_SUFFIXES, ".vue")
# Where vue-tsc 2 writes the global types it then reads (module docstring).
GLOBAL_TYPES = "/node_modules/.vue-global-types/"

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
    majors=(2, 3),
    timeout_ms=180_000,
    docs_url="https://github.com/vuejs/language-tools/tree/master/packages/tsc",
    whole_program=True,
    watch_patterns=("tsconfig*.json", "jsconfig*.json"),
    replaces=("tsc",),
    per_package=True,
    from_packages=True,
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

    def program(
        self,
        results: Sequence[ProcessResult],
        ctx: EngineContext,
        memory: Memory | None,
        changed: frozenset[str],
    ) -> Program:
        """tsc's program, without vue-tsc 2's generated global types (module docstring)."""
        program = super().program(results, ctx, memory, changed)
        inputs = tuple(i for i in program.inputs if GLOBAL_TYPES not in i)
        return replace(program, inputs=inputs)

    def rerun(self, result: ProcessResult, ctx: EngineContext, command: Command) -> Command | None:
        """No second command: TypeScript's own `bin/tsc` would drop the Vue plugin."""
        return None


ENGINE = VueTscEngine()
