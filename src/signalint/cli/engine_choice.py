"""`check --only ENGINE[,ENGINE]` and `--skip ENGINE`: the engines of one run.

The choice is a value the command's options parse into (`names`, as
click callbacks) and apply to the loaded settings (`apply`): the settings returned run exactly
the chosen engines, each with its options from the settings. `--only`
names the engines to run, including one the settings turn off (asked for
by name, it runs); `--skip` leaves engines out of whatever would run.
Both take a comma-separated list and may be repeated. A name that is no
engine, or a choice that leaves no engine to run, is a usage error naming
the accepted engines.

Results stay keyed per engine (each engine's options, config files,
version and inputs: `storage.check_store`), so a run of some engines reads
and keeps the same entries as a full run: it never stands in for the
engines it did not run. A kept answer is keyed by the command's
arguments (`answers`), so an `--only` answer is never replayed for a full
check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType

import click

from signalint.settings.config import ENGINE_NAMES, Config, EngineSetting


@dataclass(frozen=True, slots=True)
class EngineChoice:
    """The engines `--only` names (None: the settings' enabled ones) and
    those `--skip` leaves out."""

    only: frozenset[str] | None = None
    skip: frozenset[str] = frozenset()

    @property
    def chosen(self) -> bool:
        return self.only is not None or bool(self.skip)


def accepted() -> str:
    return ", ".join(ENGINE_NAMES)


def names(values: Sequence[str], option: str) -> frozenset[str]:
    """The engine names of `values` (each a comma-separated list) given to
    `option`. Raises click.BadParameter naming the accepted engines."""
    found: set[str] = set()
    for value in values:
        for part in value.split(","):
            name = part.strip().lower()
            if not name:
                raise click.BadParameter(
                    f"{value!r} has an empty engine name; accepted engines: {accepted()}",
                    param_hint=f"'{option}'",
                )
            if name not in ENGINE_NAMES:
                raise click.BadParameter(
                    f"{part.strip()!r} is not an engine; accepted engines: {accepted()}",
                    param_hint=f"'{option}'",
                )
            found.add(name)
    return frozenset(found)


def apply(config: Config, choice: EngineChoice) -> Config:
    """`config` running the chosen engines. Raises click.UsageError when
    none would run."""
    if not choice.chosen:
        return config
    wanted = set(config.enabled_engines if choice.only is None else choice.only) - choice.skip
    if not wanted:
        given = "--only and --skip leave" if choice.only is not None else "--skip leaves"
        enabled = ", ".join(config.enabled_engines) or "none"
        raise click.UsageError(
            f"{given} no engine to run (enabled in the settings: {enabled}; "
            f"accepted engines: {accepted()})"
        )
    # What `--only` or `--skip` names is chosen: no workspace package brings it
    # (`EngineSpec.from_packages`); with `--only`, nothing else runs either.
    engines = {
        name: replace(
            setting,
            enabled=name in wanted,
            chosen=setting.chosen or choice.only is not None or name in choice.skip,
        )
        for name, setting in config.engines.items()
    }
    settings: dict[str, EngineSetting] = engines
    return replace(config, engines=MappingProxyType(settings))


__all__ = ["EngineChoice", "accepted", "apply", "names"]
