"""The shadow copy's checks run on a loop of their own (`backend.CopyLoop`).

The dependents check (the whole copy, by tsc) is held in the middle of its
work by blocking its loop; meanwhile the caller's loop (the server's)
answers a whole disk check through the daemon and cancels the held check;
once released, the next dependents check answers as a cold check of the
same content does. Nothing is timed: the order of events is the proof.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import threading
from pathlib import Path

import pytest

from signalint.lsp.backend import Backend
from tests.lsp.harness import cli_keys

pytestmark = pytest.mark.real

FILE = "src/cart.ts"
DEPENDENT = "src/order.ts"


def test_the_servers_loop_answers_while_a_dependents_check_runs(
    demo_project: Path, tmp_path: Path
) -> None:
    root = demo_project
    (root / DEPENDENT).write_text(
        'import type { Item } from "./cart";\n\n'
        "export function cost(item: Item): number {\n  return item.price;\n}\n"
    )
    text = (root / FILE).read_text().replace("price: number;", "price: string;")
    twin = tmp_path / "twin" / root.name
    shutil.copytree(root, twin, ignore=shutil.ignore_patterns(".signalint"))
    config = json.loads((twin / "signalint.config.json").read_text())
    config["engines"] = {"oxlint": False, "tsc": True, "biome": False, "eslint": False}
    (twin / "signalint.config.json").write_text(json.dumps(config))
    (twin / FILE).write_text(text)
    expected = {k[0] for k in cli_keys(twin, DEPENDENT) if k[1] == ("tsc",)}
    assert expected  # the unsaved change breaks the importer

    async def session() -> None:
        backend = Backend(root)
        try:
            await backend.check_buffer(FILE, text, ["tsc"], files_only=True)  # the copy
            held, release = threading.Event(), threading.Event()

            def hold() -> None:
                held.set()
                release.wait()

            check = asyncio.ensure_future(backend.check_copy(["tsc"]))
            await asyncio.sleep(0)  # the check is sent to the copy's loop, then:
            backend.copy_loop.loop.call_soon_threadsafe(hold)
            await asyncio.to_thread(held.wait)
            # The copy's loop is held with the check under way; this loop answers.
            disk = await backend.check_disk()
            assert disk.result.outcomes["tsc"].status == "ok"
            assert not check.done()
            check.cancel()  # a newer change cancels it from here
            await asyncio.wait([check])
            assert check.cancelled()
            release.set()

            again = await backend.check_copy(["tsc"])
            assert again is not None
            found = {i.issue_id for i in again.result.issues if i.file == DEPENDENT}
            assert found == expected, (found, expected)
            on_disk = {i.issue_id for i in disk.result.issues if i.file == DEPENDENT}
            assert not on_disk & expected
        finally:
            await backend.close()

    asyncio.run(session())


def test_closing_the_copy_loop_mid_check_leaves_no_engine_running(tmp_path: Path) -> None:
    """A check cancelled on the server's loop just before the copy's loop is
    closed (a `shutdown` mid-check) still ends its engine's process group:
    the loop finishes the cancelled work before it stops."""
    from signalint.lsp.backend import CopyLoop
    from signalint.process import Command, run
    from tests.helpers import HANG_WITH_CHILD, wait_for_file, wait_until_dead, write_executable

    pidfile = tmp_path / "pids"
    engine = tmp_path / "engine"
    write_executable(engine, HANG_WITH_CHILD.format(pidfile=pidfile))

    async def session() -> None:
        copy_loop = CopyLoop()
        check = asyncio.ensure_future(
            copy_loop.run(run(Command((str(engine),), tmp_path, timeout_s=600)))
        )
        await asyncio.to_thread(wait_for_file, pidfile)
        check.cancel()
        await asyncio.wait([check])
        await copy_loop.close()

    asyncio.run(session())
    pids = [int(p) for p in pidfile.read_text().split()]
    assert wait_until_dead(pids, timeout_s=5) == []
