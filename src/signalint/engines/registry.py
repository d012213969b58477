"""The engines Signalint knows, by name, in their canonical order."""

from __future__ import annotations

from signalint.engines import (
    astro,
    basedpyright,
    biome,
    eslint,
    mypy,
    oxlint,
    pyrefly,
    pyright,
    ruff,
    svelte_check,
    tsc,
    ty,
    vue_tsc,
)
from signalint.engines.base import Engine

ENGINES: dict[str, Engine] = {
    "oxlint": oxlint.ENGINE,
    "tsc": tsc.ENGINE,
    "vue-tsc": vue_tsc.ENGINE,
    "svelte-check": svelte_check.ENGINE,
    "astro": astro.ENGINE,
    "biome": biome.ENGINE,
    "eslint": eslint.ENGINE,
    "ruff": ruff.ENGINE,
    "mypy": mypy.ENGINE,
    "pyright": pyright.ENGINE,
    "basedpyright": basedpyright.ENGINE,
    "ty": ty.ENGINE,
    "pyrefly": pyrefly.ENGINE,
}


def engine_cache_dirs() -> frozenset[str]:
    """Directory names the engines write into a project with their defaults."""
    return frozenset(d for engine in ENGINES.values() for d in engine.spec.cache_dirs)


def engine_cache_files() -> frozenset[str]:
    """File names of the caches the engines may leave in a project when asked to."""
    return frozenset(f for engine in ENGINES.values() for f in engine.spec.cache_files)
