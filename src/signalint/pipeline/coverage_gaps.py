"""Coverage gaps the check sees in an engine's outcome itself (D17).

Two cases no adapter can report about itself:

- the engine's version is outside the majors its adapter reads
  (`EngineSpec.majors`): it ran, but what its output says cannot be
  trusted to be all it found (an output shape read as "no diagnostics",
  an option it does not know);
- a file-local engine the project configures (its own config file at the
  root) was given files in a check of the whole project and says it
  checked none of them: an answer of "ok, 0 files" there is almost always
  output the adapter did not understand, never a clean check.

Either makes the outcome `error` with a `coverage_gap` naming the reason;
the issues it did report are kept.
"""

from __future__ import annotations

import dataclasses

from signalint.engines.base import EngineSpec
from signalint.model import EngineOutcome


def with_gap(outcome: EngineOutcome, gap: str) -> EngineOutcome:
    """`outcome` with `gap` added to its coverage gap; `error` unless disabled."""
    if outcome.status == "disabled":
        return outcome
    joined = gap if outcome.coverage_gap is None else f"{outcome.coverage_gap}; {gap}"
    return dataclasses.replace(outcome, status="error", coverage_gap=joined)


def version_gap(spec: EngineSpec, version: str, outcome: EngineOutcome) -> EngineOutcome:
    """`outcome` of a run of `version`, with a gap when the adapter does not read it."""
    gap = spec.unread_version(version)
    return outcome if gap is None else with_gap(outcome, gap)


def nothing_checked(spec: EngineSpec, given: int, outcome: EngineOutcome) -> EngineOutcome:
    """`outcome` of a configured file-local engine given `given` files of a
    whole-project check, with a gap when it answered ok and checked none."""
    if given == 0 or outcome.status != "ok" or outcome.files_checked > 0:
        return outcome
    files = "file" if given == 1 else "files"
    gap = (
        f"{spec.name} was given {given} {files} of the project it configures "
        f"and reported none checked"
    )
    return with_gap(outcome, gap)
