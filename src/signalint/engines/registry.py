"""The engines Signalint knows, by name, in their canonical order."""

from __future__ import annotations

from signalint.engines.astro import adapter as astro
from signalint.engines.base import Engine
from signalint.engines.basedpyright import adapter as basedpyright
from signalint.engines.biome import adapter as biome
from signalint.engines.eslint import adapter as eslint
from signalint.engines.mypy import adapter as mypy
from signalint.engines.oxlint import adapter as oxlint
from signalint.engines.pyrefly import adapter as pyrefly
from signalint.engines.pyright import adapter as pyright
from signalint.engines.ruff import adapter as ruff
from signalint.engines.svelte_check import adapter as svelte_check
from signalint.engines.tsc import adapter as tsc
from signalint.engines.ty import adapter as ty
from signalint.engines.vue_tsc import adapter as vue_tsc

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
