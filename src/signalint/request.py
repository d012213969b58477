"""What a check is asked to do: the values that travel down the check path.

A front end builds one `CheckRequest` from its arguments (what to check:
paths, workspace packages, changed files, a baseline revision; how: the
cache, the progress sink, the key style its history measures) and hands it
to `service.check`. The service validates it once (targets through the
request's `Locate`, packages against the workspace, the revision) and turns
it into a `RunRequest`: what the runner (`check.run_check`) checks, already
resolved to a scope and a workspace selection. A baseline check at another
revision (`signalint.baseline`) builds its own `RunRequest` for the old tree.

Both values are frozen: the process's memory (`Context`, the snapshot
store, the session history) is not part of a request and travels beside it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from signalint.config import Config
from signalint.engines.resolve import Toolchain
from signalint.engines.runner import Progress
from signalint.model import Scope
from signalint.targets import Locate, from_root
from signalint.workspaces import Workspace

# Wraps one check's engine runs: given the enabled engines, yields the
# callback the runner reports (engine, "start" | "done") to, or None.
ProgressScope = Callable[[Sequence[str]], AbstractAsyncContextManager[Progress | None]]

# What the snapshot of a check records it as (`snapshots.SnapshotKind`).
CheckKind = Literal["project", "files"]


@asynccontextmanager
async def no_progress(engines: Sequence[str]) -> AsyncIterator[Progress | None]:
    """A `ProgressScope` that reports nothing."""
    yield None


@dataclass(frozen=True, slots=True)
class Since:
    """What a check is compared with: the revision `rev`, or the merge base of
    HEAD and `merge_branch` (exactly one is set). `names` are what the front
    end calls the two (`--new-from-rev`, `newFromRev`), for messages."""

    rev: str | None = None
    merge_branch: str | None = None
    names: tuple[str, str] = ("--new-from-rev", "--new-from-merge-base")

    @property
    def option(self) -> str:
        return self.names[0] if self.merge_branch is None else self.names[1]


def _frozen(values: Sequence[str] | None) -> tuple[str, ...] | None:
    return None if values is None else tuple(values)


@dataclass(frozen=True, slots=True)
class CheckRequest:
    """One check as a front end asks for it (`service.check`).

    What: `paths` are user paths, located by `locate` (`targets.from_cwd`
    for the CLI, `targets.from_root` otherwise; by default relative to the
    root); none means the whole project. `packages` names workspace
    packages to check with everything they need, `changed` the
    project-relative files changed against HEAD (`service.changed_paths`);
    either replaces `paths`. `since` narrows the answer to what is new
    since a revision. `kind` is what the snapshot records.

    How: `use_cache=False` runs every engine and stores nothing;
    `progress` wraps the engine runs; `compact` is the key style the
    session history measures payloads in.
    """

    root: Path
    config: Config
    paths: Sequence[str] = ()
    locate: Locate | None = None
    kind: CheckKind = "project"
    packages: Sequence[str] = ()
    changed: Sequence[str] | None = None
    since: Since | None = None
    use_cache: bool = True
    progress: ProgressScope = field(default=no_progress, compare=False)
    compact: bool = False

    def __post_init__(self) -> None:
        # Sequences are kept as tuples: the request never changes under the check.
        object.__setattr__(self, "paths", tuple(self.paths))
        object.__setattr__(self, "packages", tuple(self.packages))
        object.__setattr__(self, "changed", _frozen(self.changed))

    @property
    def locator(self) -> Locate:
        """How `paths` become targets (`targets.targets_of`)."""
        return self.locate if self.locate is not None else from_root(self.root)


@dataclass(frozen=True, slots=True)
class RunRequest:
    """What the runner (`check.run_check`) checks, resolved.

    `scope` is where issues are reported. With a planned `workspace`,
    per-package engines (tsc) check each package's own program in check
    order instead of the root's: the packages named in `programs`, or by
    default every package whose directory meets the scope.
    `program_scope` (default: `scope`) is where whole-program engines'
    issues are reported (`check --changed` reports the programs that
    contain the changed files). `workspace_warning` says why planning fell
    back to the root; it is passed through to the answer.

    `use_cache=False` runs every engine and stores nothing; `progress`
    receives (engine, "start" | "done"). `state` is where engines keep
    their state (default `config.state_dir(root)`), `cache_dir` where the
    result cache lives (default: `state`); `tools` the toolchain to run
    (`resolve.Toolchain`), by default the engines resolved for `root`. A
    baseline check of an old tree shares the project's cache, not its
    engine state, and runs the current check's toolchain (D22).
    """

    root: Path
    config: Config
    scope: Scope = field(default_factory=Scope)
    workspace: Workspace | None = None
    programs: tuple[str, ...] | None = None
    program_scope: Scope | None = None
    workspace_warning: str | None = None
    use_cache: bool = True
    progress: Progress | None = field(default=None, compare=False)
    state: Path | None = None
    cache_dir: Path | None = None
    tools: Toolchain | None = None

    @property
    def reported_programs(self) -> Scope:
        """Where whole-program engines' issues are reported."""
        return self.program_scope or self.scope
