"""What the benches of the Python checkers kept warm share.

The package is bench/synth_python.py's (each module imports the one
before it), its chains cut at `longest` modules where a bench asks: a module whose number is
a multiple of `longest` imports the first module instead of the one
before it, so every module still depends on the first, through a chain
of at most `longest` links (ty overflows its stack on a chain of 2,000,
cold and as a server alike, and sometimes on one of 800).

In one run: T is the engine's native cold command (the pinned engine),
the other native commands given are timed beside it; then a `WarmPool`
answers the engine's command after its first start:

1. a one-module body edit (the last module: nothing depends on it);
2. the first module's signature changed (every module depends on it);

each compared with a cold run of the same content (issues as multisets,
and the files the engine says it checked). `server` is the time the
answer spent waiting on the language server's requests (`LspClient`),
so the rest of it is the driver's and the pool's own. Medians of the
runs, printed as seconds and ratios to T, never asserted.
"""

from __future__ import annotations

import re
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bench.synth_python import generate
from signalint import process
from signalint.engines.base import EngineContext
from signalint.process import Command
from signalint.warm.driver import Driver
from signalint.warm.lsp_client import LspClient
from signalint.warm.pool import WarmPool

LABELS = ("start", "body", "signature")


def package(home: Path, files: int, longest: int | None) -> Path:
    """bench/synth_python.py's package of `files` modules under `home`,
    its chains cut at `longest` modules (module docstring; None: one chain)."""
    root = generate(home / "project", files).resolve()
    for index in range(longest or files, files - 1, longest or files):
        module = root / "pkg" / f"mod{index:05d}.py"
        prev = index - 1
        text = module.read_text()
        text = text.replace(f"pkg.mod{prev:05d}", "pkg.mod00000")
        text = re.sub(rf"\b(VALUE|compute){prev}\b", r"\g<1>0", text)
        module.write_text(text)
    return root


def edit_body(root: Path, files: int, run: int) -> None:
    last = root / "pkg" / f"mod{files - 2:05d}.py"
    last.write_text(last.read_text() + f"\n\nEXTRA{run}: int = {run}\n")


def swap_signature(root: Path) -> None:
    first = root / "pkg" / "mod00000.py"
    text = first.read_text()
    swapped = (
        text.replace("value: int", "value: float")
        if "value: int" in text
        else text.replace("value: float", "value: int")
    )
    first.write_text(swapped)


class _ServerClock:
    """The wall time during which some `LspClient.request` was pending,
    while it is installed (Pyright's pulls overlap)."""

    def __init__(self) -> None:
        self.spent = 0.0
        self._pending = 0
        self._since = 0.0
        self._request = LspClient.request

    def __enter__(self) -> _ServerClock:
        original = self._request
        clock = self

        async def timed(self: LspClient, method: str, params: Any) -> Any:
            if clock._pending == 0:
                clock._since = time.monotonic()
            clock._pending += 1
            try:
                return await original(self, method, params)
            finally:
                clock._pending -= 1
                if clock._pending == 0:
                    clock.spent += time.monotonic() - clock._since

        LspClient.request = timed  # type: ignore[method-assign]
        return self

    def __exit__(self, *_exc: object) -> None:
        LspClient.request = self._request  # type: ignore[method-assign]


async def measure(
    driver: Driver,
    adapter: Any,
    ctx: EngineContext,
    natives: Mapping[str, Command],
    files: int,
    runs: int,
) -> dict[str, list[float]]:
    """Each label's times (module docstring); `natives` are the cold
    commands timed, the engine's own as "cold"."""
    engine = driver.engine
    command = natives["cold"]
    pool = WarmPool(8 << 30, Path(tempfile.mkdtemp()), {engine: driver})
    times: dict[str, list[float]] = {label: [] for label in (*natives, *LABELS)}

    async def warm(label: str) -> None:
        with _ServerClock() as clock:
            started = time.monotonic()
            answer = await pool.answer(engine, ctx, command)
            times[label].append(time.monotonic() - started)
        times.setdefault(f"{label} server", []).append(clock.spent)
        assert answer is not None and answer.result is not None, "not answered warm"
        assert answer.served == "warm", "not answered warm"
        cold = await process.run(command)
        same = Counter(adapter.parse(answer.result, ctx)) == Counter(adapter.parse(cold, ctx))
        checked = set(adapter.program([answer.result], ctx, None, frozenset()).checked or ())
        same_files = checked == set(adapter.program([cold], ctx, None, frozenset()).checked or ())
        print(
            f"  {label}: {times[label][-1]:.3f} s (server {clock.spent:.3f} s), "
            f"equal to cold: {same}, same checked files: {same_files} ({len(checked)})",
            flush=True,
        )

    try:
        for run in range(runs):
            for label, native in natives.items():
                started = time.monotonic()
                await process.run(native)
                times[label].append(time.monotonic() - started)
            said = ", ".join(f"{label} {times[label][-1]:.3f} s" for label in natives)
            print(f"run {run + 1}: {said}", flush=True)
            if run == 0:
                await warm("start")
            edit_body(ctx.root, files, run)
            await warm("body")
            swap_signature(ctx.root)
            await warm("signature")
    finally:
        await pool.close()
    return times


def report(name: str, files: int, times: Mapping[str, list[float]]) -> None:
    cold = statistics.median(times["cold"])
    print(f"\n{files} modules, T = native cold {name} {cold:.3f} s (median)")
    for label, values in times.items():
        if label in LABELS:
            value = statistics.median(values)
            server = statistics.median(times[f"{label} server"])
            print(
                f"  warm {label:<9} {value:6.3f} s  {value / cold:5.2f} x T"
                f"  (server {server:.3f} s, {server / cold:4.2f} x T)"
            )
        elif label != "cold" and not label.endswith(" server"):
            print(f"  native cold {label} {statistics.median(values):.3f} s")
