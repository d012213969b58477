"""The warm registry: a driver per engine, each module loaded when its engine is first asked for."""

from __future__ import annotations

import subprocess
import sys

import pytest

from signalint.warm.registry import drivers


def test_each_driver_serves_the_engine_it_is_named_by() -> None:
    found = drivers()
    assert set(found) == {"basedpyright", "eslint", "mypy", "oxlint", "pyright", "tsc", "ty"}
    for name in found:
        assert found[name].engine == name
    assert found.get("ruff") is None and "ruff" not in found


@pytest.mark.real
def test_a_typescript_server_never_loads_the_python_drivers() -> None:
    # Pyright's driver brings pygls and lsprotocol: about 17 MiB of a server.
    code = (
        "import sys\n"
        "from signalint.warm.registry import drivers\n"
        "found = drivers()\n"
        "assert 'pyright' in found\n"
        "[found[name] for name in ('tsc', 'eslint', 'oxlint')]\n"
        "print(sorted(m for m in ('pygls', 'lsprotocol', 'signalint.engines.pyright.warm',"
        " 'signalint.engines.mypy.warm', 'signalint.engines.ty.warm') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
