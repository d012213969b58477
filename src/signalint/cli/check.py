"""`signalint check`: run the enabled engines and print one output format.

Exit codes: 0 clean, 1 issues found, any engine error or anything not
checked (nothing_checked, coverageWarning), 2 usage errors (bad option,
bad config, refused or ignored path, an --output-file that cannot be
written). --fail-on-priority, --max-warnings, --quiet and --exit-zero
change which issues count (`cli.verdict`); a failure always exits 1.
Stopped by Ctrl-C, SIGTERM or SIGHUP it kills its engines' process groups
and exits 130, 143 or 129 (`cli.stop_signals`).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from signalint import answers, formats
from signalint.cache.context import Context
from signalint.cli import engine_choice, output, state_access
from signalint.cli.path_option import PathOption
from signalint.cli.progress import progress_line
from signalint.cli.verdict import Verdict, errors_only
from signalint.daemon import client
from signalint.formats import json_format
from signalint.formats.commands import command_words
from signalint.kept.snapshot_store import SnapshotStore, snapshot_dir
from signalint.model import CheckResult
from signalint.pipeline import runtime
from signalint.pipeline.report import Additions, compact_keys, nothing_checked_message
from signalint.project.roots import discover_root
from signalint.service import check_service as service
from signalint.settings.config import Config, load_config, state_dir

if TYPE_CHECKING:
    from signalint.pipeline.shards import Shard

# The largest count an option takes (`--max-warnings`): past any real report.
MAX_COUNT = 1_000_000_000


def _shard_option(ctx: click.Context, param: click.Parameter, value: str | None) -> Shard | None:
    """`--shard I/N`: shard I (from 1) of N (`signalint.pipeline.shards`)."""
    if value is None:
        return None
    # Loaded by `--shard` only: a check without it starts sooner.
    from signalint.pipeline.shards import ShardError, parse

    try:
        return parse(value)
    except ShardError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None


def _engines_option(
    ctx: click.Context, param: click.Parameter, value: Sequence[str]
) -> frozenset[str] | None:
    """`--only`/`--skip ENGINE[,ENGINE]`: the engine names (`engine_choice.names`)."""
    return engine_choice.names(value, f"--{param.name}") if value else None


def _engine_versions(
    result: CheckResult, config: Config, context: Context
) -> dict[str, str | None]:
    """Each engine's version for SARIF, as the check's cache keys know it: from
    the engine's npm manifest or the versions remembered in the state
    directory, so a warm check starts no engine just to ask (a pnpm shim has
    no manifest beside it). An engine that timed out in the check is not
    asked: its version is None."""
    from signalint.engines.registry import ENGINES
    from signalint.engines.resolve import VersionUnanswered, engine_version, resolve

    root = Path(result.project_root)
    store = context.store(state_dir(root), config.cache_max_rows)

    async def lookup(name: str) -> str | None:
        engine = ENGINES[name]
        failure = result.outcomes[name].failure
        resolved = resolve(engine, root)
        if resolved.path is None or (failure is not None and failure.kind == "timeout"):
            return None
        timeout_s = config.timeouts_ms[name] / 1000
        try:
            found = await engine_version(resolved, engine.spec.provision, timeout_s, store)
        except VersionUnanswered:
            return None
        return None if found == "unknown" else found

    async def lookup_all() -> dict[str, str | None]:
        return {name: await lookup(name) for name in result.outcomes}

    return runtime.run(lookup_all())


def _shard_block(
    checked: service.Checked, workspace: Mapping[str, object] | None, *, with_issues: bool
) -> dict[str, object]:
    """What a shard's output carries for `signalint merge` (`shard_report`):
    with `--new-from-rev`, the new issues (the SARIF log has every issue
    with its state) and the shard's `baseline` block."""
    from signalint.service.shard_report import block

    return block(
        checked.run,
        checked.targets,
        checked.filtered_out,
        workspace,
        with_issues=with_issues,
        only=checked.only_new,
    )


@click.command()
@click.argument("paths", nargs=-1)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(formats.FORMATS),
    default="json",
    show_default=True,
    help="json: schema 1.4 summary with ranked clusters; text: for people; "
    "github: one workflow annotation per issue; sarif: SARIF 2.1.0 with every issue.",
)
@click.option(
    "--compact",
    is_flag=True,
    default=None,
    help="Abbreviated JSON keys without projectRoot (also SIGNALINT_COMPACT=1).",
)
@click.option(
    "--fail-on-priority",
    type=click.IntRange(min=1),
    metavar="N",
    help="Exit 1 only if a returned cluster or flat issue has priority <= N "
    "(1 most urgent .. 5), or an engine failed; otherwise exit 0.",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Run every enabled engine on every file; neither read nor write the result cache.",
)
@click.option(
    "--package",
    "packages",
    multiple=True,
    metavar="NAME",
    help="Check this workspace package (its package.json name) and the packages it "
    "needs; repeatable. Plans the workspace strictly, whatever monorepoMode says.",
)
@click.option(
    "--changed",
    is_flag=True,
    help="Check the files changed against HEAD (staged, unstaged, untracked) plus the "
    "type checkers' programs that contain them (in a workspace: their packages and "
    "the packages that need them).",
)
@click.option(
    "--new-from-rev",
    "new_from_rev",
    metavar="REV",
    help="Report only issues not present at git revision REV (checked in a copy of its "
    "tree kept outside the project, with the same engine binaries; an issue that moved "
    "still matches; an engine failing at REV counts its issues on changed lines as new). "
    "SARIF lists every issue with baselineState new or unchanged.",
)
@click.option(
    "--new-from-merge-base",
    "new_from_merge_base",
    metavar="BRANCH",
    help="Like --new-from-rev, with the merge base of HEAD and BRANCH (pull requests).",
)
@click.option(
    "--shard",
    callback=_shard_option,
    metavar="I/N",
    help="Check only shard I of N (1 <= I <= N <= 1000) of what this check covers: workspace "
    "packages dealt out by size, other files by a hash of their path, each type checker's "
    "program in one shard. `signalint merge` joins the shards' json or sarif outputs "
    "into the unsharded report (docs/ci.md).",
)
@click.option(
    "--no-daemon",
    is_flag=True,
    help="Check in this process even when the project's daemon runs "
    "(`signalint daemon`; SIGNALINT_DAEMON=0 does so always).",
)
@click.option(
    "--output-file",
    "-o",
    "output_file",
    type=PathOption(dir_okay=False),
    metavar="PATH",
    help="Write the report to PATH (replaced in one step: never half written) "
    "instead of stdout; messages still go to stderr.",
)
@click.option(
    "--only",
    "--engine",
    "only",
    multiple=True,
    callback=_engines_option,
    metavar="ENGINE[,ENGINE]",
    help="Run only these engines (comma-separated or repeated), even one the settings "
    f"turn off. Engines: {engine_choice.accepted()}.",
)
@click.option(
    "--skip",
    multiple=True,
    callback=_engines_option,
    metavar="ENGINE[,ENGINE]",
    help="Leave these engines out of this run (comma-separated or repeated).",
)
@click.option(
    "--config",
    "config_file",
    type=PathOption(exists=True, dir_okay=False),
    metavar="PATH",
    help="Read the settings from PATH (a JSON file of signalint.config.json's keys, or a "
    "package.json / pyproject.toml holding them) instead of the project root's.",
)
@click.option(
    "--max-warnings",
    type=click.IntRange(min=0, max=MAX_COUNT),
    metavar="N",
    help="Exit 1 when there are more than N warnings (ESLint's meaning); warnings up "
    "to N alone exit 0, any error still exits 1.",
)
@click.option(
    "--quiet",
    "-q",
    is_flag=True,
    help="Report errors only: warnings are neither shown nor counted for the exit code.",
)
@click.option(
    "--color/--no-color",
    "color",
    default=None,
    help="Colour the text format, or not (default: on a terminal; FORCE_COLOR and "
    "NO_COLOR are honoured).",
)
@click.option(
    "--exit-zero",
    is_flag=True,
    help="Exit 0 even when issues are found; an engine failure or anything not "
    "checked still exits 1.",
)
def check(
    paths: Sequence[str],
    output_format: str,
    compact: bool | None,
    fail_on_priority: int | None,
    no_cache: bool,
    packages: Sequence[str],
    changed: bool,
    new_from_rev: str | None,
    new_from_merge_base: str | None,
    shard: Shard | None,
    no_daemon: bool,
    output_file: str | None,
    only: frozenset[str] | None,
    skip: frozenset[str] | None,
    config_file: str | None,
    max_warnings: int | None,
    quiet: bool,
    color: bool | None,
    exit_zero: bool,
) -> int:
    """Check the project (or PATHS inside it) with the enabled engines.

    The project root is found upward from the working directory (the
    nearest signalint.config.json, else package.json, pyproject.toml or
    .git). PATHS are files or directories relative to the working
    directory; ignored ones are refused. The first one selects
    the TypeScript configuration (a directory's tsconfig.json, an explicit
    tsconfig*.json, or the nearest one above a source file). Output goes to
    stdout in the chosen format; progress and errors go to stderr. The
    check is kept in the state directory, so every id it prints expands
    with `signalint show ID` (and in the MCP server).

    In a workspace (monorepoMode auto or strict: pnpm-workspace.yaml or
    the `workspaces` field of package.json) TypeScript checks each package
    with its own tsconfig.json in dependency order, and the output gains
    a per-package summary.

    When the project's daemon runs (`signalint daemon start`), the check is
    answered by it, with the engines kept warm, and prints what it would
    print here; `--no-daemon` or SIGNALINT_DAEMON=0 checks in this process.

    Ctrl-C, SIGTERM or SIGHUP stops it and every engine it started: exit
    130, 143 or 129.
    """
    if no_daemon:  # this process checks: no daemon (`daemon.client.check`)
        os.environ["SIGNALINT_DAEMON"] = "0"
    report = Report(
        output_format,
        compact,
        output.absolute(output_file),
        color,
        quiet,
        Verdict(fail_on_priority, max_warnings, exit_zero),
    )
    choice = engine_choice.EngineChoice(only, skip or frozenset())
    settings = output.absolute(config_file)
    work = functools.partial(
        _check,
        paths,
        no_cache,
        packages,
        changed,
        new_from_rev,
        new_from_merge_base,
        shard,
        Selection(choice, settings),
        report,
    )
    return answers.keeping(work)


@dataclass(frozen=True, slots=True)
class Selection:
    """Which settings and engines a check runs with: `--only`/`--skip`
    (`engine_choice`) and `--config` (an absolute path, or None)."""

    engines: engine_choice.EngineChoice
    settings: Path | None

    def config(self, root: Path) -> Config:
        return engine_choice.apply(load_config(root, settings=self.settings), self.engines)


@dataclass(frozen=True, slots=True)
class Report:
    """How a check's answer is given: its format and keys, where it goes
    (`destination`: an absolute `--output-file`, None for stdout), its
    colour (`--color`/`--no-color`, None: `output.wants_colour` decides),
    errors only (`--quiet`) and the exit options (`verdict`)."""

    output_format: str
    compact: bool | None
    destination: Path | None
    color: bool | None
    quiet: bool
    verdict: Verdict


def _check(
    paths: Sequence[str],
    no_cache: bool,
    packages: Sequence[str],
    changed: bool,
    new_from_rev: str | None,
    new_from_merge_base: str | None,
    shard: Shard | None,
    selection: Selection,
    report: Report,
) -> tuple[int, Path | None]:
    """`check`'s work: its exit code, and the project root when its answer
    may be kept (every engine answered, no shared store was used)."""
    output_format = report.output_format
    chosen = [
        n
        for n, on in (("PATHS", bool(paths)), ("--package", bool(packages)), ("--changed", changed))
        if on
    ]
    if len(chosen) > 1:
        raise click.UsageError(f"{' and '.join(chosen)} cannot be combined: choose one scope")
    if new_from_rev is not None and new_from_merge_base is not None:
        raise click.UsageError("--new-from-rev and --new-from-merge-base cannot be combined")
    root = discover_root()
    config = selection.config(root)
    changed_paths: list[str] | None = None
    if changed:
        # Outside a repository `git diff` compares files instead; ask first,
        # so the answer is git's "not a git repository", as --new-from-rev's.
        from signalint.pipeline.changes import git

        runtime.run(git(root, "rev-parse", "--git-dir", what="--changed"))
        changed_paths = runtime.run(service.changed_paths(root, config))
        if not changed_paths:
            click.echo("signalint: no file changed against HEAD: nothing to check", err=True)
            return 0, None
    use_compact = config.compact if report.compact is None else report.compact
    # A state directory that cannot be written is said once, here, before
    # the cache, the engines' state and the kept check each fail on it.
    state_access.require(
        state_dir(root), "checks keep engine state, results and the checks `show` expands there"
    )
    # Snapshots are written by a worker thread, so the answer never waits
    # for them; `flush` below waits before the command returns (D19: the
    # ids printed resolve in `signalint show`, hooks and the MCP server).
    store = SnapshotStore(
        config.snapshot_max, config.snapshot_ttl_s, directory=snapshot_dir(root), background=True
    )
    # This command's memory, shared by the check and the versions (the
    # daemon's, with its warm engines, when the daemon runs the command).
    context = runtime.context()
    since = None
    if new_from_rev is not None or new_from_merge_base is not None:
        since = service.Since(new_from_rev, new_from_merge_base)
    # Through the project's daemon when one runs (`daemon.client.check`).
    checked = runtime.run(
        client.check(
            service.CheckRequest(
                root,
                config,
                paths,
                locate=service.from_cwd(root, config),
                packages=packages,
                changed=changed_paths,
                since=since,
                shard=shard,
                use_cache=not no_cache,
                progress=progress_line,
                files_only=True,
            ),
            service.Services(context, store),
            kind="cli",
        )
    )
    if report.quiet:
        checked = _errors_only(checked)
    result, clustering = checked.result, checked.clustering
    from signalint.service.package_summary import summarize

    states: Mapping[str, str] | None = None
    found: dict[str, object] | None = None
    fallback: dict[str, dict[str, object]] | None = None
    everything = result
    only = checked.only_new
    if only is not None:
        result, clustering, states, found = only.result, only.clustering, only.states, only.block
        fallback = {f.engine: {"rule": f.rule, "reason": f.reason} for f in only.found.fallback}
    workspace = summarize(checked.run, result)
    options: dict[str, object] = {}
    if output_format == "json":
        # The one check payload builder, as the MCP tools use it (nextStep
        # worded for the CLI): no second rendering of the same answer.
        payload: Mapping[str, object] = checked.payload(words=command_words)
        if shard is not None:
            payload = {**payload, "shard": _shard_block(checked, workspace, with_issues=True)}
        text = json_format.dump(compact_keys(payload) if use_compact else payload)
    elif output_format == "sarif":
        options = {"versions": _engine_versions(result, config, context), "workspace": workspace}
        if shard is not None:
            options["shard"] = _shard_block(checked, workspace, with_issues=False)
        if states is not None:
            from signalint.formats.sarif import Baseline

            options["baseline"] = Baseline(states, fallback or {})
            result = everything  # SARIF lists every issue, each with its baselineState
    elif output_format == "text":
        stream = sys.stdout if report.destination is None else None
        colour = output.wants_colour(report.color, stream)
        added = Additions(checked.filtered_out or 0, workspace=workspace, baseline=found)
        options = {"color": colour, "added": added}
    if output_format != "json":
        text = formats.render(output_format, result, clustering, **options)
    output.emit(text, report.destination)
    store.flush()
    if workspace is not None and workspace.get("warning"):
        click.echo(f"signalint: {workspace['warning']}", err=True)
    if only is not None:
        result = only.result

    if output_format != "text":  # the text format lists engine errors itself
        for line in service.engine_problems(result):
            click.echo(line, err=True)
    if output_format in ("sarif", "github"):
        # These formats have no place for it: say on stderr why exit is 1.
        if result.code is not None:
            click.echo(f"signalint: {nothing_checked_message(result)}", err=True)
        elif result.coverage_warning is not None:
            click.echo(f"signalint: {result.coverage_warning}", err=True)
    engine_failed = result.status == "error"
    # Kept only when every engine answered, and not when a shared store did:
    # the answer reports that store's round trips, which a replay does not make.
    kept = None if engine_failed or everything.remote_cache is not None else root
    too_many = report.verdict.too_many_warnings(result)
    if too_many is not None:
        click.echo(f"signalint: {too_many}", err=True)
    return report.verdict.code(result, clustering), kept


def _errors_only(checked: service.Checked) -> service.Checked:
    """`checked` answering with its errors only (`--quiet`): the kept
    check (already stored, under the same id) still holds every issue."""
    snapshot = checked.snapshot
    result, clustering = errors_only(snapshot.result, snapshot.clustering)
    only = checked.only_new
    if only is not None:
        narrowed, narrowed_clusters = errors_only(only.result, only.clustering)
        only = dataclasses.replace(only, result=narrowed, clustering=narrowed_clusters)
    return dataclasses.replace(
        checked,
        snapshot=dataclasses.replace(snapshot, result=result, clustering=clustering),
        only_new=only,
    )
