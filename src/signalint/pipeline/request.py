"""What a check is asked to do: the values that travel down the check path.

A front end builds one `CheckRequest` from its arguments (what to check:
paths, workspace packages, changed files, a baseline revision; how: the
cache, the progress sink, the key style its history measures) and hands it
to `service.check`. `resolve` validates it once (the revision, packages
against the workspace, targets through the request's `Locate`) and turns
it into a `RunRequest`: what the runner (`check_run.run_check`) checks, already
resolved to a scope and a workspace selection. A baseline check at another
revision (`signalint.pipeline.at_revision`) builds its own `RunRequest` for the old tree.

Both values are frozen: the process's memory (`Context`, the snapshot
store, the session history) is not part of a request and travels beside it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from signalint.engines.registry import ENGINES
from signalint.engines.resolve import Toolchain
from signalint.engines.runner import Progress
from signalint.model import Scope
from signalint.pipeline.changes import commit_of, merge_base
from signalint.pipeline.targets import Locate, from_root, targets_of
from signalint.pipeline.workspaces import Package, Workspace, WorkspaceError
from signalint.pipeline.workspaces import plan as plan_workspace
from signalint.project.work_dir import for_project
from signalint.settings.config import Config, state_dir

if TYPE_CHECKING:
    from signalint.pipeline.shards import Shard

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
    since a revision. `kind` is what the snapshot records. `shard` checks
    only that shard's part of all this (`signalint.pipeline.shards`).

    How: `use_cache=False` runs every engine and stores nothing;
    `progress` wraps the engine runs; `compact` is the key style the
    session history measures payloads in. `files_only`: a check of `paths`
    (alone: no packages, changed files, revision or shard) lets a
    whole-program engine kept warm answer for those files alone, its
    diagnostics elsewhere neither reported nor counted
    (`program_cache.ProgramRequest.files_only`); for front ends that do not
    report what an edit broke elsewhere (the CLI's `check PATHS`; never the
    post-edit hook, whose verdict counts it: `hosts.hook_run`).
    """

    root: Path
    config: Config
    paths: Sequence[str] = ()
    locate: Locate | None = None
    kind: CheckKind = "project"
    packages: Sequence[str] = ()
    changed: Sequence[str] | None = None
    since: Since | None = None
    shard: Shard | None = None
    use_cache: bool = True
    progress: ProgressScope = field(default=no_progress, compare=False)
    compact: bool = False
    files_only: bool = False

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
    """What the runner (`check_run.run_check`) checks, resolved.

    `scope` is where issues are reported. With a planned `workspace`,
    per-package engines (tsc) check each package's own program in check
    order instead of the root's: the packages named in `programs`, or by
    default every package whose directory meets the scope.
    `program_scope` (default: `scope`) is where whole-program engines'
    issues are reported (`check --changed` reports the programs that
    contain the changed files). `workspace_warning` says why planning fell
    back to the root; it is passed through to the answer. `shard` runs
    only that shard's part of the check (`shards.divide`).

    `use_cache=False` runs every engine and stores nothing; `progress`
    receives (engine, "start" | "done"). `state` is where engines keep
    their state (default `config.state_dir(root)`), `cache_dir` where the
    result cache lives (default: `state`); `tools` the toolchain to run
    (`resolve.Toolchain`), by default the engines resolved for `root`. A
    baseline check of an old tree shares the project's cache, not its
    engine state, and runs the current check's toolchain (D22). `warm`
    lets the process's kept-warm workers answer (`Context.warm`); a
    baseline tree, checked once, runs cold. `files_only`: see
    `CheckRequest`. `borrowed_from`: the working tree an old tree links its
    dependencies from (`old_tree.link_dependencies`); files resolving into
    it count as inside the old tree's root (`project.outside`). `work` is
    where engines keep what holds source files or links to them (tsc's
    build wrappers; default the project's work directory outside the
    tree, `work.for_project`).
    """

    root: Path
    config: Config
    scope: Scope = field(default_factory=Scope)
    workspace: Workspace | None = None
    programs: tuple[str, ...] | None = None
    program_scope: Scope | None = None
    workspace_warning: str | None = None
    shard: Shard | None = None
    use_cache: bool = True
    progress: Progress | None = field(default=None, compare=False)
    state: Path | None = None
    cache_dir: Path | None = None
    tools: Toolchain | None = None
    warm: bool = True
    files_only: bool = False
    borrowed_from: Path | None = None
    work: Path | None = None

    @property
    def state_dir(self) -> Path:
        """Where engines keep their state."""
        return self.state or state_dir(self.root)

    @property
    def work_dir(self) -> Path:
        """Where engines keep what holds source files (`signalint.project.work_dir`)."""
        return self.work or for_project(self.root)

    @property
    def cache_home(self) -> Path:
        """The state directory whose result cache the check uses."""
        return self.cache_dir or self.state_dir

    @property
    def reported_programs(self) -> Scope:
        """Where whole-program engines' issues are reported."""
        return self.program_scope or self.scope

    @property
    def packages(self) -> tuple[Package, ...] | None:
        """The workspace packages whose programs per-package engines check
        (`Workspace.checked`); None without a planned workspace."""
        if self.workspace is None:
            return None
        return self.workspace.checked(self.programs, self.reported_programs)


async def resolve_revision(root: Path, since: Since) -> str:
    """The revision to compare with: `since.rev`, or the merge base of HEAD and
    `since.merge_branch`; checked to name a commit. Raises GitError."""
    if since.merge_branch is not None:
        return await merge_base(root, since.merge_branch, option=since.option)
    assert since.rev is not None
    await commit_of(root, since.rev, option=since.option)
    return since.rev


async def resolve(request: CheckRequest) -> tuple[RunRequest, str | None]:
    """What the runner checks, and the revision `since` names: the request
    validated once, in this order: the revision (raises `GitError`), the
    workspace plan and package names (`WorkspaceError`), the targets
    (`PathRefused`, with the index of the refused path)."""
    root, config = request.root, request.config
    revision: str | None = None
    if request.since is not None:
        revision = await resolve_revision(root, request.since)
    mode = config.monorepo_mode
    if request.packages:
        mode = "strict"  # the names mean nothing without the workspace
    planned = plan_workspace(root, mode)
    workspace = planned.workspace
    programs: list[str] | None = None
    program_scope: Scope | None = None
    if request.packages:
        assert workspace is not None  # strict planning raised otherwise
        closure = workspace.closure(_known(workspace, request.packages))
        programs = [p.name for p in closure]
        scope = Scope(tuple(p.path for p in closure))
    else:
        # Changed files are project-relative; user paths are located as
        # the front end says.
        changed = request.changed
        paths, locate = (request.paths, request.locator) if changed is None else (changed, None)
        scope = Scope(targets_of(paths, locate or from_root(root)))
        if changed is not None:
            program_scope, programs = _changed_programs(workspace, scope.targets, config)
    run = RunRequest(
        root,
        config,
        scope,
        workspace=workspace,
        programs=None if programs is None else tuple(programs),
        program_scope=program_scope,
        workspace_warning=planned.warning,
        shard=request.shard,
        use_cache=request.use_cache,
        files_only=request.files_only
        and bool(request.paths)
        and not request.packages
        and request.changed is None
        and request.since is None
        and request.shard is None,
    )
    return run, revision


def _known(workspace: Workspace, names: Sequence[str]) -> list[str]:
    known = workspace.by_name()
    for name in names:
        if name not in known:
            listed = ", ".join(sorted(known))
            raise WorkspaceError(
                f"no package of the workspace ({workspace.source}) is named {name!r}; "
                f"its packages are: {listed}"
            )
    return list(dict.fromkeys(names))


def _changed_programs(
    workspace: Workspace | None, targets: Sequence[str], config: Config
) -> tuple[Scope, list[str] | None]:
    """Where whole-program issues are reported for changed files, and which packages run.

    Without a workspace: the whole selected program (the nearest
    configuration of the first changed file). In a workspace: the packages
    holding a changed file and every package that needs them; a changed
    engine configuration outside every package (a shared tsconfig base)
    can affect them all.
    """
    if workspace is None:
        return Scope(), None
    patterns = [p for name in config.enabled_engines for p in ENGINES[name].spec.watch_patterns]
    owners: set[str] = set()
    for target in targets:
        owner = workspace.owner(target)
        if owner is not None:
            owners.add(owner.name)
        elif any(fnmatch(target.rsplit("/", 1)[-1], p) for p in patterns):
            owners.update(p.name for p in workspace.packages)
    affected = workspace.dependents(owners)
    return Scope((*targets, *(p.path for p in affected))), [p.name for p in affected]
