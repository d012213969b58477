"""`signalint doctor`: is this project ready for checks and for an MCP host?

Unlike the reference's doctor, it proves the engines rather than reading
package metadata: every enabled engine is started (`--version`) and runs one
real check on one file it covers, so a configuration that cannot load its
plugin fails here with the engine's own first error line. A configuration
that does not load is a failure too, not a swallowed warning. Then the MCP
client files of the registry are scanned (`signalint.hosts.scan`): stale
project roots, executables that are gone, roots pinned in user-wide files,
legacy Antigravity paths.

The last line is `PASSED` or `FAILED`; exit 1 on failure. Nothing here
shows a traceback: problems are lines.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from pathlib import Path, PurePosixPath
from typing import Final

import click

from signalint.engines.registry import ENGINES
from signalint.engines.resolve import install_hint, resolve
from signalint.project.markers import MARKERS_HINT, project_languages
from signalint.project.roots import discover_root
from signalint.project.walk import walk
from signalint.settings.config import (
    DEFAULT_IGNORE,
    Config,
    ConfigError,
    config_source,
    describe_source,
    load_config,
)
from signalint.wording import count


def _first_line(text: str | None) -> str:
    """The first non-blank line, without the output excerpt outcomes append."""
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip().split(" (output: ", 1)[0]
    return "no detail"


def _start(path: Path) -> tuple[str | None, str | None]:
    """(version, None) when `<engine> --version` runs, else (None, its first error line)."""
    from signalint.engines.resolve import parse_version, version_command
    from signalint.process import run_blocking

    result = run_blocking(version_command(path))
    if result.exit_code != 0:
        return None, _first_line(result.start_error or result.stderr or result.stdout)
    return parse_version(result.stdout) or "?", None


def _sample_files(files: list[str], names: list[str]) -> dict[str, str]:
    """One file per engine that it checks (the first in walk order)."""
    wanted = {name: ENGINES[name] for name in names}
    chosen: dict[str, str] = {}
    for rel in files:
        for name, engine in wanted.items():
            if name not in chosen and engine.relevant(rel):
                chosen[name] = rel
        if len(chosen) == len(wanted):
            break
    return chosen


_SUFFIX_LANGUAGE: Final = {
    **dict.fromkeys((".ts", ".mts", ".cts", ".tsx"), "typescript"),
    **dict.fromkeys((".js", ".mjs", ".cjs", ".jsx"), "javascript"),
    **dict.fromkeys((".py", ".pyi"), "python"),
}


def describe_languages(markers: tuple[str, ...], files: list[str]) -> str:
    """The languages line: what the project's files are written in, with counts.

    `markers` are the languages with project markers (`project_languages`,
    where "javascript" stands for JS and TS alike); the files, as walked,
    tell TypeScript from JavaScript, so a TypeScript-only project reads
    `typescript (N files)`. A marker language without a file of its own is
    still named (a fresh project), without a count.
    """
    counts: dict[str, int] = {}
    for rel in files:
        language = _SUFFIX_LANGUAGE.get(PurePosixPath(rel).suffix)
        if language is not None:
            counts[language] = counts.get(language, 0) + 1
    if "javascript" not in markers:
        counts.pop("typescript", None)
        counts.pop("javascript", None)
    if "python" not in markers:
        counts.pop("python", None)
    order = ("typescript", "javascript", "python")
    ranked = [
        f"{lang} ({counts[lang]} file{'s' if counts[lang] != 1 else ''})"
        for lang in sorted(counts, key=lambda lang: (-counts[lang], order.index(lang)))
    ]
    bare = [
        lang
        for lang in markers
        if lang not in counts and not (lang == "javascript" and "typescript" in counts)
    ]
    return ", ".join(ranked + bare) or "none"


def _engine_checks(
    root: Path, config: Config, files: list[str], names: list[str]
) -> dict[str, str | None]:
    """Per engine: None when its one-file check ran ok, else the first error line."""
    from signalint.service import check_service as service

    outcome: dict[str, str | None] = {}
    samples = _sample_files(files, names)
    for name in names:
        if name not in samples:
            outcome[name] = "skip"
            continue
        only = {n: dataclasses.replace(s, enabled=n == name) for n, s in config.engines.items()}
        checked = asyncio.run(
            service.check(
                service.CheckRequest(
                    root,
                    dataclasses.replace(config, engines=only),
                    [samples[name]],
                    locate=service.from_root(root),
                    kind="files",
                    use_cache=False,
                )
            )
        )
        result = checked.result.outcomes.get(name)
        if result is None or result.status == "ok":
            outcome[name] = None
        else:
            outcome[name] = _first_line(result.message)
    return outcome


@click.command()
@click.option("--no-run", is_flag=True, help="Resolve engines without starting them.")
def doctor(no_run: bool) -> int:
    """Check the root, configuration, engines (started, one file each) and client files.

    Prints PASSED or FAILED last; exits 1 when something would stop a check
    or mislead an MCP host: no project markers, a configuration that does
    not load, an enabled engine that is missing or fails its one-file check,
    a client entry whose executable is gone or whose pinned root is stale.
    """
    problems: list[str] = []
    root = discover_root()  # a RootError is a usage error, reported by the entry point
    click.echo(f"project root:  {root}")
    config: Config | None = None
    lines: list[str] = []
    try:
        # A malformed pyproject.toml fails here already: we cannot tell
        # whether it holds a [tool.signalint] table.
        source = config_source(root)
        if source is None:
            lines.append("config:        none (defaults; run `signalint init`)")
        else:
            named = describe_source(source)
            lines.append(f"config:        {source}{f' ({named})' if named != source.name else ''}")
        config = load_config(root)
    except ConfigError as exc:
        lines.append(f"config error:  {exc}")
        problems.append("the configuration does not load")
    languages = project_languages(root)
    files = walk(root, config.ignore if config is not None else DEFAULT_IGNORE)
    click.echo(f"languages:     {describe_languages(languages, files)}")
    if not languages:
        problems.append(f"no JS/TS or Python project markers ({MARKERS_HINT})")
    for line in lines:
        click.echo(line)
    if config is not None:
        problems += _report_engines(root, config, files, run=not no_run)
        problems += _report_remote(config)
    problems += _report_clients(root)
    for problem in problems:
        click.echo(f"problem: {problem}", err=True)
    click.echo("FAILED" if problems else "PASSED")
    return 1 if problems else 0


def _report_remote(config: Config) -> list[str]:
    """The shared result store: key set, reachable, a signed round trip."""
    settings = config.remote_cache
    if settings is None:
        click.echo("remote cache:  none (remoteCache / SIGNALINT_REMOTE_CACHE not set)")
        return []
    import os

    from signalint.cache.remote import open_remote
    from signalint.cache.remote_url import url_label

    mode = "read-only" if settings.read_only else "read-write"
    label = f"{url_label(settings.url)} (namespace {settings.namespace}, {mode})"
    reasons: list[str] = []
    tier = open_remote(settings, os.environ, reasons.append)
    problem = tier if isinstance(tier, str) else tier.probe()
    if problem is not None:
        click.echo(f"remote cache:  {label}: {problem}")
        return [f"the remote cache {url_label(settings.url)} is not usable: {problem}"]
    proof = "a signed read" if settings.read_only else "a signed round trip"
    click.echo(f"remote cache:  {label}: ok ({proof})")
    return []


def _report_engines(root: Path, config: Config, files: list[str], *, run: bool) -> list[str]:
    problems: list[str] = []
    compact = " (compact keys)" if config.compact else ""
    click.echo(f"mcpPayload:    {config.mcp_payload}{compact}")
    started: list[str] = []
    rows: dict[str, str] = {}
    for name, engine in ENGINES.items():
        # An engine another enabled one replaces does not run (tsc beside vue-tsc).
        enabled = name in config.enabled_engines
        resolved = resolve(engine, root)
        if resolved.path is None:
            rows[name] = f"missing: {install_hint(name)}"
            if enabled:
                problems.append(f"{name} is enabled but not installed: {install_hint(name)}")
            continue
        if not enabled or not run:
            from signalint.engines.resolve import version

            found = version(resolved.path, engine.spec.provision) or "?"
            rows[name] = f"{resolved.source} {found} {resolved.path}"
            continue
        found_version, error = _start(resolved.path)
        if error is not None:
            rows[name] = f"does not start: {error}"
            problems.append(f"{name} does not start: {error}")
            continue
        from signalint.engines.resolve import package_version

        # The package's own version where its manifest names it (vue-tsc's
        # `--version` prints its TypeScript's).
        real = os.path.realpath(resolved.path)
        found_version = package_version(real, engine.spec.provision) or found_version
        rows[name] = f"{resolved.source} {found_version} {resolved.path}"
        started.append(name)
    checks = _engine_checks(root, config, files, started) if started else {}
    width = max(len(name) for name in ENGINES)
    by_packages = _brought(root, config)
    for name in ENGINES:
        enabled = name in config.enabled_engines or name in by_packages
        verdict = f"  (brought by {by_packages[name]})" if name in by_packages else ""
        replacing = config.replaced_by(name) if config.engines[name].enabled else None
        if replacing is not None:
            verdict = f"  (replaced by {replacing}, which checks its program)"
        if name in checks:
            error = checks[name]
            if error == "skip":
                verdict = "  (no file of this project for it to check)"
            elif error is None:
                verdict = "  one-file check ok"
            else:
                verdict = f"  one-file check FAILED: {error}"
                problems.append(f"{name} fails a one-file check: {error}")
        state = "enabled " if enabled else "disabled"
        click.echo(f"  {name:<{width}} {state}  {rows[name]}{verdict}")
    if not config.enabled_engines:
        problems.append("no engine is enabled")
    return problems


def _brought(root: Path, config: Config) -> dict[str, str]:
    """The engines a planned workspace's packages bring (`check_plan.brought`),
    each with the packages that do, as shown."""
    from signalint.pipeline.check_plan import brought
    from signalint.pipeline.workspaces import WorkspaceError, plan

    try:
        workspace = plan(root, config.monorepo_mode).workspace
    except WorkspaceError:
        return {}  # strict planning's error is the check's to say
    if workspace is None:
        return {}
    found = brought(config, workspace.packages, root)
    return {name: ", ".join(f"{p.path}/" for p in found[name]) for name in found}


def _report_clients(root: Path) -> list[str]:
    from signalint.hosts.scan import scan

    findings, entries = scan(root, Path.home())
    click.echo(f"MCP clients:   {count(len(entries), 'file')} with a signalint entry")
    for path in entries:
        click.echo(f"  {path}")
    problems: list[str] = []
    for finding in findings:
        if finding.problem:
            problems.append(f"{finding.path}: {finding.message}")
        else:
            click.echo(f"  note: {finding.path}: {finding.message}")
    return problems
