"""basedpyright kept warm (`warm.basedpyright`) against basedpyright run cold (real tier).

The Pyright driver given basedpyright's adapter: each test checks through a
real `WarmPool` and compares with a cold `use_cache=False` check of the same
content, as multisets of issues, after every edit of a sequence: a widely
imported signature changed, a module added and one deleted, the config
edited, the baseline's error fixed, the baseline edited. The project's
baseline is never rewritten.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TypeVar

import pytest

from signalint.engines.basedpyright import warm as warm_basedpyright
from signalint.warm.pool import WarmPool
from tests.conftest import require_engine
from tests.warm.differential import Differential

T = TypeVar("T")
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "engines" / "basedpyright"
LIB = """def scale(value: int) -> int:
    return value * 2
"""
USER = """from app.lib import scale

size: int = scale({n})
wrong: str = scale({n})
"""


BASED = Differential("basedpyright", warm_basedpyright.DRIVER)
check = BASED.check
issues = BASED.issues
run = BASED.run
warm_equals_cold = BASED.warm_equals_cold


def project(tmp_path: Path) -> Path:
    require_engine("basedpyright")
    root = tmp_path / "proj"
    shutil.copytree(FIXTURE, root)
    (root / "src/app/lib.py").write_text(LIB)
    for n in range(3):
        (root / f"src/app/use{n}.py").write_text(USER.format(n=n))
    return root.resolve()


def edit(root: Path, kind: str, step: int) -> None:
    lib = root / "src/app/lib.py"
    if kind == "signature":
        text = lib.read_text()
        lib.write_text(
            text.replace("value: int", "value: str")
            if "value: int" in text
            else text.replace("value: str", "value: int")
        )
    elif kind == "add":
        (root / f"src/app/added{step}.py").write_text(USER.format(n=100 + step))
    elif kind == "delete":
        (root / "src/app/use0.py").unlink()
    elif kind == "config":
        pyproject = root / "pyproject.toml"
        text = pyproject.read_text()
        pyproject.write_text(
            text.replace('reportArgumentType = "warning"', 'reportArgumentType = "error"')
        )
    elif kind == "fix-baselined":
        (root / "src/app/old.py").write_text("baselined: int = 1\n")
    elif kind == "baseline":
        (root / ".basedpyright/baseline.json").write_text(json.dumps({"files": {}}))


KINDS = ("signature", "add", "delete", "config", "fix-baselined", "baseline")


@pytest.mark.real
def test_the_fixture_and_each_kind_of_edit_answer_warm_as_cold(tmp_path: Path) -> None:
    root = project(tmp_path)
    baseline = (root / ".basedpyright/baseline.json").read_bytes()

    async def body(warm: WarmPool) -> None:
        first = await warm_equals_cold(root, warm)
        assert not [i for i in first if i.file == "src/app/old.py"]  # the baseline applies
        for step, kind in enumerate(KINDS):
            edit(root, kind, step)
            await warm_equals_cold(root, warm)
            if kind == "fix-baselined":
                # Fixed: basedpyright would drop it from the baseline; nobody did.
                assert (root / ".basedpyright/baseline.json").read_bytes() == baseline
        assert warm.counts.fallbacks == 0
        # The config and the baseline edits start a fresh server; the rest is told.
        assert warm.counts.started == 3

    run(body)
