"""The recorded tool reports and a copy of the project they were recorded on."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
RECORDED = HERE / "recorded"
FIXTURES = HERE.parent / "fixtures" / "reports"


@pytest.fixture
def reports(tmp_path: Path) -> Path:
    copy = Path(os.path.realpath(tmp_path)) / "reports"
    shutil.copytree(FIXTURES, copy)
    return copy


def recorded(name: str, reports: Path) -> str:
    return (RECORDED / name).read_text().replace("<ROOT>", str(reports))
