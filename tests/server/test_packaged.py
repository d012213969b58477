"""The handshake answers shipped with the package (`server.packaged`): a
server's very first start answers `initialize` and `tools/list` without the
SDK, exactly as the SDK would, and only where they are the SDK's answers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from signalint.server import front, packaged
from signalint.server.front import Recorded
from signalint.settings.config import load_config

from .conftest import write_project
from .test_front import HELLO, assert_light, probe_initialize, raw_session

REGENERATE = "the shipped handshake is stale: run `python -m signalint.server.packaged`"


def shipped() -> dict[str, Any]:
    data = json.loads(packaged.FILE.read_text())
    assert isinstance(data, dict)
    return data


def test_the_shipped_answers_were_made_from_the_current_sources() -> None:
    # The SDK's versions are theirs to move (a newer release only leaves the
    # answering to the SDK, `..._are_what_the_sdk_answers_now`); ours are not.
    identity = shipped()["identity"]
    now = packaged._identity(identity["sources"]["files"])
    assert identity["sources"] == now["sources"], REGENERATE
    assert None not in identity["sdk"].values()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    root.mkdir()
    return root


def test_the_default_payload_is_config_s(root: Path) -> None:
    assert load_config(root).mcp_payload == packaged.DEFAULT_PAYLOAD


@pytest.fixture
def installed_sdk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped answers as if made with the installed SDK (a newer SDK
    release must not make these tests pass by refusing everything)."""
    data = shipped()
    data["identity"]["sdk"] = packaged._identity([])["sdk"]
    copy = tmp_path / "handshake.json"
    copy.write_text(json.dumps(data))
    monkeypatch.setattr(packaged, "FILE", copy)


def filled(root: Path, **env: str) -> Recorded | None:
    recorded = Recorded("key")
    return recorded if packaged.fill(recorded, root, {"HOME": "/x", **env}) else None


@pytest.mark.usefixtures("installed_sdk")
def test_the_shipped_answers_fill_a_start_with_the_default_settings(root: Path) -> None:
    recorded = filled(root)
    assert recorded is not None
    assert recorded.tools == shipped()["tools"]
    assert recorded.initialize == shipped()["initialize"]
    (root / "signalint.config.json").write_text('{"mcpPayload": "both", "ignore": ["x"]}')
    (root / "package.json").write_text('{"name": "x", "description": "no \\u00e9 here"}')
    assert filled(root) is not None


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("signalint.config.json", '{"mcpPayload": "text"}'),
        (".signalint.json", '{"mcpPayload": "structured"}'),
        ("package.json", '{"signalint": {"mcp\\u0050ayload": "text"}}'),
        ("pyproject.toml", '[tool.signalint]\n"mcp\\u0050ayload" = "text"\n'),
        ("pyproject.toml", "[tool.signalint]\nmcpPayload = 'structured'\n"),
        ("signalint.config.json", '{"mcpPayload": "text",'),  # does not parse
    ],
)
@pytest.mark.usefixtures("installed_sdk")
def test_a_project_that_may_set_the_payload_mode_is_left_to_the_sdk(
    root: Path, name: str, content: str
) -> None:
    (root / name).write_text(content)
    assert filled(root) is None


@pytest.mark.parametrize(
    "env",
    [{"SIGNALINT_MCP_PAYLOAD": "text"}, {"SIGNALINT_COMPACT": "1"}, {front.PACKAGED_SWITCH: "0"}],
)
@pytest.mark.usefixtures("installed_sdk")
def test_the_variables_that_shape_the_answers_or_turn_them_off_are_heeded(
    root: Path, env: dict[str, str]
) -> None:
    assert filled(root, **env) is None


@pytest.mark.usefixtures("installed_sdk")
def test_answers_made_under_another_identity_are_not_used(root: Path) -> None:
    data = shipped()
    copy = packaged.FILE

    def with_identity(change: dict[str, object]) -> Recorded | None:
        identity = json.loads(json.dumps(data["identity"]))
        for path, value in change.items():
            *parents, last = path.split(".")
            place = identity
            for part in parents:
                place = place[part]
            place[last] = value
        copy.write_text(json.dumps({**data, "identity": identity}))
        return filled(root)

    assert with_identity({}) is not None
    assert with_identity({"sdk.mcp": "0.0.1"}) is None
    assert with_identity({"sources.digest": "0" * 64}) is None
    files = data["identity"]["sources"]["files"]
    assert with_identity({"sources.files": [*files, "server/gone.py"]}) is None
    copy.write_text("{not json")
    assert filled(root) is None


@pytest.mark.usefixtures("installed_sdk")
def test_answers_recorded_in_the_project_come_first(root: Path) -> None:
    recorded = Recorded("key", {"2025-06-18": {"mine": 1}}, {"tools": []})
    assert packaged.fill(recorded, root, {})
    assert recorded.initialize["2025-06-18"] == {"mine": 1}
    assert recorded.tools == {"tools": []}
    assert set(recorded.initialize) == set(shipped()["initialize"])


@pytest.mark.real
def test_the_shipped_answers_are_what_the_sdk_answers_now(root: Path) -> None:
    # Runs the real server once per protocol version, the SDK answering.
    made, ours = packaged.build(), shipped()
    if made["identity"]["sdk"] == ours["identity"]["sdk"]:
        assert made == ours, REGENERATE
    else:  # another SDK is installed than the answers were made with: unused
        assert filled(root) is None
        assert made["identity"]["sources"] == ours["identity"]["sources"], REGENERATE


def made_with_the_installed_sdk() -> None:
    if shipped()["identity"]["sdk"] != packaged._identity([])["sdk"]:
        pytest.skip("the installed SDK is not the one the shipped answers were made with")


@pytest.mark.real
def test_a_first_start_answers_as_the_sdk_would_then_serves_on(tmp_path: Path) -> None:
    made_with_the_installed_sdk()
    root = write_project(tmp_path / "p")
    by_sdk, _ = raw_session(root, tmp_path / "xdg-sdk")
    by_shipped, log = raw_session(root, tmp_path / "xdg", SIGNALINT_MCP_PACKAGED="")
    assert "shipped with Signalint" in log
    for messages in (by_sdk, by_shipped):
        assert sorted(m["id"] for m in messages if "id" in m) == [7, 8, 9]
        assert all("error" not in m for m in messages)
    sdk, ours = (
        {m["id"]: m["result"] for m in ms if m["id"] in (7, 8)} for ms in (by_sdk, by_shipped)
    )
    assert sdk == ours


@pytest.mark.real
def test_a_first_start_answers_initialize_without_the_sdk(tmp_path: Path) -> None:
    made_with_the_installed_sdk()
    root = write_project(tmp_path / "p")
    result, loaded = probe_initialize(root, tmp_path / "xdg")
    assert result == shipped()["initialize"][HELLO["protocolVersion"]]
    assert_light(loaded)
