"""`signalint doctor`: is this project ready for checks and for an MCP host?

Unlike the reference's doctor, a configuration that does not load is a
failure (exit 1), not a swallowed warning; engines are resolved exactly as a
check would resolve them, with their versions.
"""

from __future__ import annotations

import click

from signalint.config import ConfigError, config_source, load_config
from signalint.engines.registry import ENGINES
from signalint.engines.resolve import install_hint, resolve, version
from signalint.project import MARKERS_HINT, discover_root, project_languages


@click.command()
def doctor() -> int:
    """Report the project root, configuration, project languages, engines and payload mode.

    Exits 1 when something would stop a check (no markers, a configuration
    that does not load, no enabled engine available), 0 otherwise.
    """
    problems: list[str] = []
    root = discover_root()  # a RootError is a usage error, reported by the entry point
    click.echo(f"project root:  {root}")
    languages = project_languages(root)
    click.echo(f"languages:     {', '.join(languages) if languages else 'none'}")
    if not languages:
        problems.append(f"no JS/TS or Python project markers ({MARKERS_HINT})")
    try:
        # A malformed pyproject.toml fails here already: we cannot tell
        # whether it holds a [tool.signalint] table.
        source = config_source(root)
        click.echo(f"config:        {source or 'none (defaults; run `signalint init`)'}")
        config = load_config(root)
    except ConfigError as exc:
        click.echo(f"config error:  {exc}")
        problems.append("the configuration does not load")
        config = None
    if config is not None:
        compact = " (compact keys)" if config.compact else ""
        click.echo(f"mcpPayload:    {config.mcp_payload}{compact}")
        usable = 0
        for name, engine in ENGINES.items():
            enabled = config.engines[name].enabled
            resolved = resolve(engine, root)
            found = resolved.path is not None
            usable += enabled and found
            detail = (
                f"{resolved.source} {version(resolved.path, engine.spec.provision) or '?'} "
                f"{resolved.path}"
                if resolved.path is not None
                else f"missing: {install_hint(name)}"
            )
            click.echo(f"  {name:<7} {'enabled ' if enabled else 'disabled'}  {detail}")
        if not usable:
            problems.append("no enabled engine can be found")
    for problem in problems:
        click.echo(f"problem: {problem}", err=True)
    click.echo("FAILED" if problems else "OK")
    return 1 if problems else 0
