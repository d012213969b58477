"""What a TypeScript result depends on: the config chain and the real inputs (D2).

The tsc engine's side of the generic program cache (`WholeProgram`):

- the key: the selected config, its `extends` chains (local files and
  packages) and every referenced project's config, hashed by content;
- the inputs: `--listFiles` prints the compiler's real input list. In build
  mode (`references`) a project tsc found up to date prints nothing: its
  inputs are the ones remembered when it was last built (`Memory`), unless
  one of them changed after its build info was written, in which case that
  build info is removed and the program cache runs tsc once more; that
  second run reads the inputs the first one printed (the projects the
  first built are up to date in the second).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

from signalint.engines import adapter_paths as paths
from signalint.engines.base import Memory, Program
from signalint.engines.tsc.build import BuildPlan, read_report, references, resolve_extends
from signalint.wording import count


def config_chain(root: Path, config: str) -> list[str] | None:
    """The selected config, its `extends` chains and referenced configs.

    Paths are relative to `root` (a package base in node_modules, or a
    config outside the root, as `../...`). None when a config cannot be read
    or an `extends` cannot be resolved: then freshness cannot be proven from
    files and tsc always runs.
    """
    order = [config]
    index = 0
    while index < len(order):  # grows as bases and referenced projects are added
        if len(order) > paths.MAX_CONFIG_CHAIN:
            return None
        absolute = os.path.normpath(os.path.join(root, order[index]))
        index += 1
        data = paths.load_jsonc(Path(absolute))
        if not isinstance(data, dict):
            return None  # a config we cannot read could extend anything
        bases = data.get("extends")
        found: list[str] = []
        for base in [bases] if isinstance(bases, str) else bases or []:
            target = (
                resolve_extends(base, os.path.dirname(absolute)) if isinstance(base, str) else None
            )
            if target is None:
                return None
            found.append(target)
        found += [target for target, _ in references(absolute)]
        order += [r for r in (os.path.relpath(f, root) for f in found) if r not in order]
    return order


def _inputs_key(plan: BuildPlan, config: str) -> str:
    return hashlib.sha256(f"tsc-project-inputs\x1f{plan.base}\x1f{config}".encode()).hexdigest()


def build_program(
    plan: BuildPlan, stdout: str, memory: Memory | None, changed: frozenset[str]
) -> Program:
    """The union of a build's inputs over every project of the graph.

    An up-to-date project printed no inputs: they are the ones remembered
    when it was last built. tsc decides "up to date" from modification
    times; a project with an input whose content we saw change (`changed`)
    after its build info was written (by change time, which no tool can set
    back, unlike the modification time npm gives extracted packages) is not
    trusted: its build info is removed and `retry` asks for another run.
    """
    report = read_report(plan, stdout)
    union = dict.fromkeys(f for listed in report.inputs.values() for f in listed)
    distrusted: list[str] = []
    if report.up_to_date:
        keys = {c: _inputs_key(plan, c) for c in report.up_to_date}
        stored = memory.get_many(list(keys.values())) if memory is not None else {}
        for config, key in keys.items():
            project = plan.project(config)
            buildinfo = project.buildinfo if project is not None else ""
            listed = json.loads(stored[key]) if key in stored else None
            if listed is None or _changed_since(changed.intersection(listed), buildinfo):
                distrusted.append(buildinfo)
                continue
            union.update(dict.fromkeys(listed))
    # What this run built is remembered even when it is run again: the
    # projects it built are up to date then, and printed nothing.
    remember: Mapping[str, bytes] = {
        _inputs_key(plan, c): json.dumps(listed).encode() for c, listed in report.inputs.items()
    }
    if distrusted:
        for buildinfo in distrusted:
            with contextlib.suppress(OSError):
                os.remove(buildinfo)
        return Program(tuple(union), retry=True, remember=remember)
    gap = None
    if report.missed:
        names = ", ".join(os.path.relpath(c, plan.root) for c in report.missed)
        said = next(iter(report.reasons.values()), "")
        gap = (
            f"tsc did not type-check {count(len(report.missed), 'project')} of the reference "
            f"graph: {names}" + (f"; tsc said: {said}" if said else "")
        )
    return Program(tuple(union), gap=gap, remember=remember)


def _changed_since(files: set[str] | frozenset[str], buildinfo: str) -> bool:
    """Whether any of `files` changed (by ctime) after `buildinfo` was written."""
    if not files:
        return False
    try:
        built = os.stat(buildinfo).st_mtime_ns
    except OSError:
        return True
    for path in files:
        try:
            if os.stat(path).st_ctime_ns >= built:
                return True
        except OSError:
            return True
    return False
