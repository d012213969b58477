"""Only what is new: the issues of a check that were not present at a git revision.

`check --new-from-rev REV` (and `--new-from-merge-base BRANCH`, which uses
the merge base of HEAD and BRANCH; the MCP check tools' `newFromRev` and
`newFromMergeBase`) checks the project as usual, then finds what the same
checks report at REV and keeps only the issues with no counterpart there.
The pipeline does the checking and the dividing, in the one call the
check service makes into it (`check_entry.check`, which runs
`signalint.pipeline.at_revision`); this module words the answer
(`only_new`: the `baseline` block every front end shows). Counterparts are
matched as deltas match (`matching.persisting`): the same issue id, else the
same file, rule, severity and message nearest by line, else the same
message template; so an issue that merely moved is not new.

The old revision is checked in a copy of its tree in the project's work
directory, outside the project (`<work>/trees/<tree id>`, `signalint.project.work_dir`:
inside it, the project's own tools would read the copy), written through an
index file of our own (nothing is registered in the repository's `.git`),
kept and reused for the same tree (a revision with the same content reuses
it whatever its commit; the few most recently used are kept). It is
checked with the current configuration and with exactly the engine
executables and Python interpreter the current check ran (its
`resolve.Toolchain`, D22): resolution in the copy would refuse the linked
`node_modules` and find other versions, or none.

What the copy borrows from the working tree. Git decides what is code:
tracked files, and untracked files that are not ignored, are the change
being measured, so the copy has them as they are at REV. What git ignores
is the environment the code is checked in (dependencies, generated files
such as a build step's JSON or type declarations, local settings), the
same on both sides:
- every `node_modules` directory is given to the copy as links to its
  entries, except that a link to a workspace package points at that
  package in the copy (at the revision a package reads its siblings as
  they were then); the root's `.venv` or `venv` is linked in;
- every other ignored file under the project root is copied in (a copy,
  not a link, so a generated source importing `./x` finds REV's `x`),
  refreshed on each use and removed once the working tree drops it;
  except a file the revision itself has, what sits in the state
  directory, and tool caches (`__pycache__`, `.mypy_cache`, `.cache`,
  `.turbo`, `*.tsbuildinfo`, coverage output...). Bounded in files and
  bytes, in path order; the answer says when the bound cut the list.
The copy and the borrowing are `signalint.pipeline.old_tree`.
Its engine state lives inside the copy (`.signalint` in its project root,
as the current check's lives inside the project), while its result cache
is the project's: files unchanged since REV are cache hits, and its whole-program
records are kept per tree.

Work is limited to what the change can affect: in a planned workspace,
when every changed file lies in a package, only the packages holding
changed files and their dependents are checked at REV; the other packages'
issues at REV are, file for file and program for program, the ones the
current check found there. Otherwise the whole tree is checked at REV.

An engine that did not run ok at REV could not have seen anything there,
so its issues cannot be matched; rather than calling them all new, such an
engine falls back to the rule golangci-lint's `new-from-rev` uses: its
issues on lines changed since REV (`changes.changed_lines`: committed,
staged, unstaged, and whole untracked files) are new, the others unchanged.
The answer names the engine, why it failed and the rule (`Fallback`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from signalint.model import CheckResult
from signalint.pipeline.at_revision import (
    CHANGED_LINES,
    Baseline,
    Fallback,
    NewSince,
    Split,
    baseline,
    split,
)
from signalint.pipeline.cluster import Clustering
from signalint.pipeline.request import Since, resolve_revision


@dataclass(frozen=True, slots=True, repr=False)
class OnlyNew:
    """A check narrowed to what is new since a revision (`only_new`).

    `result` keeps only the new issues (the check id stays: it names the
    snapshot holding every issue) and `clustering` is theirs; `states` maps
    every issue's id to its SARIF `baselineState` (`new`, `unchanged`);
    `block` is the `baseline` object of the JSON answer (CLI and MCP).
    """

    found: Baseline
    result: CheckResult
    clustering: Clustering
    states: Mapping[str, str]
    block: dict[str, object]

    def __repr__(self) -> str:
        return f"OnlyNew({self.block!r})"


def only_new(compared: NewSince, since: Since, revision: str) -> OnlyNew:
    """A check narrowed to the issues new since `since`, from what the
    pipeline compared (`at_revision.new_since`, run by `check_entry.check`
    for a request with `since`). `revision` is what `since` names
    (`request.resolve_revision`, asked before the check runs so a bad
    revision is refused first)."""
    found, parts = compared.found, compared.parts
    states = {i.issue_id: "new" for i in parts.new}
    states.update({i.issue_id: "unchanged" for i in parts.unchanged})
    block: dict[str, object] = {
        "rev": since.merge_branch if since.merge_branch is not None else revision,
        "commit": found.commit,
        "mergeBase": since.merge_branch is not None,
        "new": len(parts.new),
        "unchanged": len(parts.unchanged),
        "checkedAtRev": list(found.checked),
        "reusedPackages": list(found.reused),
        "enginesNotOkAtRev": list(found.failed),
        "fallback": [
            {"engine": f.engine, "reason": f.reason, "rule": f.rule} for f in found.fallback
        ],
        "borrowedIgnoredFiles": found.borrowed,
        "borrowedAllIgnoredFiles": found.borrowed_all,
    }
    return OnlyNew(found, compared.result, compared.clustering, states, block)


__all__ = [
    "CHANGED_LINES",
    "Baseline",
    "Fallback",
    "OnlyNew",
    "Since",
    "Split",
    "baseline",
    "only_new",
    "resolve_revision",
    "split",
]
