"""Configuration loading: defaults, sources, strict validation, env overrides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from signalint.engines.registry import ENGINES
from signalint.settings.config import ConfigError, RemoteSettings, load_config, state_dir

NO_ENV: dict[str, str] = {}


def write_json(root: Path, value: object) -> Path:
    path = root / "signalint.config.json"
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def refusal(root: Path, env: dict[str, str] | None = None) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_config(root, NO_ENV if env is None else env)
    return info.value


def test_defaults_without_any_config(tmp_path: Path) -> None:
    config = load_config(tmp_path, NO_ENV)
    assert config.source is None
    assert config.enabled_engines == ("oxlint", "tsc")
    assert config.engines["biome"].options == {"includeFormatter": False}
    assert config.ignore == ("node_modules/**", "dist/**", ".signalint/**")
    assert dict(config.timeouts_ms) == {n: e.spec.timeout_ms for n, e in ENGINES.items()}
    assert {n: config.timeouts_ms[n] for n in ("oxlint", "tsc", "biome", "eslint")} == {
        "oxlint": 60000,
        "tsc": 180000,
        "biome": 60000,
        "eslint": 180000,
    }
    assert (config.mcp_payload, config.monorepo_mode, config.compact) == ("both", "off", False)
    assert (config.snapshot_max, config.snapshot_ttl_s, config.cache_max_rows) == (
        50,
        1800.0,
        200000,
    )


def test_eslint_defaults_on_when_a_root_flat_config_exists(tmp_path: Path) -> None:
    (tmp_path / "eslint.config.mjs").write_text("export default [];\n")
    assert load_config(tmp_path, NO_ENV).engines["eslint"].enabled


def test_explicit_values_and_partial_tables_merge_with_defaults(tmp_path: Path) -> None:
    write_json(
        tmp_path,
        {
            "engines": {"oxlint": False, "biome": {"includeFormatter": True}},
            "ignore": ["src/generated/**"],
            "timeoutsMs": {"tsc": 120000},
            "mcpPayload": "text",
            "monorepoMode": "auto",
            "snapshots": {"ttlMinutes": 5},
            "cache": {"maxRows": 10},
        },
    )
    config = load_config(tmp_path, NO_ENV)
    assert config.enabled_engines == ("tsc", "biome")
    assert config.engines["biome"].options == {"includeFormatter": True}
    assert config.ignore == ("src/generated/**",)  # an explicit array replaces the default
    assert config.timeouts_ms["tsc"] == 120000 and config.timeouts_ms["oxlint"] == 60000
    assert (config.mcp_payload, config.monorepo_mode) == ("text", "auto")
    assert (config.snapshot_max, config.snapshot_ttl_s, config.cache_max_rows) == (50, 300.0, 10)


def test_pyproject_table_is_read_when_there_is_no_json_file(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.signalint]\nmcpPayload = "structured"\n[tool.signalint.engines]\ntsc = false\n'
    )
    config = load_config(tmp_path, NO_ENV)
    assert config.source == tmp_path / "pyproject.toml"
    assert config.mcp_payload == "structured" and not config.engines["tsc"].enabled


def test_settings_in_two_homes_are_refused_naming_both(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.signalint]\nmcpPayload = "text"\n')
    write_json(tmp_path, {"mcpPayload": "structured"})
    err = refusal(tmp_path)
    assert "signalint.config.json and [tool.signalint] of pyproject.toml" in str(err)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (tmp_path / ".signalint.json").write_text("{}")
    assert "signalint.config.json and .signalint.json" in str(refusal(tmp_path))
    (tmp_path / "signalint.config.json").unlink()
    (tmp_path / "package.json").write_text('{"name": "x", "signalint": {}}')
    assert '.signalint.json and the "signalint" key of package.json' in str(refusal(tmp_path))


def test_dotfile_home_is_read(tmp_path: Path) -> None:
    path = tmp_path / ".signalint.json"
    path.write_text('{"mcpPayload": "text", "engines": {"eslint": true}}')
    config = load_config(tmp_path, NO_ENV)
    assert config.source == path and config.mcp_payload == "text"
    assert config.engines["eslint"].enabled


def test_package_json_key_is_read_and_its_refusals_name_the_key_path(tmp_path: Path) -> None:
    path = tmp_path / "package.json"
    path.write_text(
        '{"name": "x", "version": "1.0.0", "version": "1.0.1",\n'  # not ours: tolerated
        ' "signalint": {"mcpPayload": "structured", "ignore": ["gen/**"]}}'
    )
    config = load_config(tmp_path, NO_ENV)
    assert config.source == path and config.mcp_payload == "structured"
    assert config.ignore == ("gen/**",)
    path.write_text('{"name": "x", "signalint": {"timeoutsMs": {"tsc": 0}}}')
    err = refusal(tmp_path)
    assert err.file == path and err.location == "signalint.timeoutsMs.tsc"


def test_package_json_without_our_key_is_not_a_home(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text("{broken")  # never mentions us: not parsed
    assert load_config(tmp_path, NO_ENV).source is None
    (tmp_path / "package.json").write_text('{"name": "x", "signalint": ')
    assert "malformed JSON" in str(refusal(tmp_path))


def test_pyproject_refusals_name_the_table_path(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.signalint.timeoutsMs]\ntsc = 0\n")
    err = refusal(tmp_path)
    assert err.location == "tool.signalint.timeoutsMs.tsc"
    assert "pyproject.toml" in str(err) and "positive integer" in str(err)


def test_unknown_top_level_key_is_refused_with_the_accepted_keys(tmp_path: Path) -> None:
    path = write_json(tmp_path, {"engine": {}})
    err = refusal(tmp_path)
    assert err.file == path and err.location == "engine"
    assert str(path) in str(err) and "engines" in str(err) and "timeoutsMs" in str(err)


def test_unknown_nested_keys_are_refused(tmp_path: Path) -> None:
    write_json(tmp_path, {"engines": {"rome": True}})
    assert refusal(tmp_path).location == "engines.rome"
    write_json(tmp_path, {"engines": {"biome": {"formatter": True}}})
    err = refusal(tmp_path)
    assert err.location == "engines.biome.formatter" and "includeFormatter" in str(err)


def test_wrong_types_name_the_key_and_what_is_accepted(tmp_path: Path) -> None:
    write_json(tmp_path, {"engines": {"biome": "yes"}})
    err = refusal(tmp_path)
    assert err.location == "engines.biome"
    assert 'expected a boolean or {"includeFormatter": boolean}' in str(err)
    write_json(tmp_path, {"engines": {"biome": {"includeFormatter": "true"}}})
    err = refusal(tmp_path)
    assert err.location == "engines.biome.includeFormatter" and "boolean" in err.message
    write_json(tmp_path, {"ignore": "dist/**"})
    assert refusal(tmp_path).location == "ignore"
    write_json(tmp_path, {"ignore": ["ok/**", ""]})
    assert refusal(tmp_path).location == "ignore[1]"
    write_json(tmp_path, {"mcpPayload": "json"})
    err = refusal(tmp_path)
    assert err.location == "mcpPayload" and '"both", "text", "structured"' in err.message
    write_json(tmp_path, [])
    assert "object" in refusal(tmp_path).message


def test_booleans_are_not_integers(tmp_path: Path) -> None:
    write_json(tmp_path, {"timeoutsMs": {"oxlint": True}})
    err = refusal(tmp_path)
    assert err.location == "timeoutsMs.oxlint" and "got true" in err.message


@pytest.mark.parametrize("bad", [0, -5, 1.5, "30000"])
def test_timeouts_must_be_positive_integers(tmp_path: Path, bad: object) -> None:
    write_json(tmp_path, {"timeoutsMs": {"tsc": bad}})
    err = refusal(tmp_path)
    assert err.location == "timeoutsMs.tsc" and "positive integer" in err.message


def test_ignore_patterns_that_can_never_match_are_refused(tmp_path: Path) -> None:
    write_json(tmp_path, {"ignore": ["#generated"]})
    assert refusal(tmp_path).location == "ignore[0]"


def test_malformed_json_reports_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "signalint.config.json"
    path.write_text('{\n  "engines": {\n    "tsc": true,\n  }\n}\n')
    err = refusal(tmp_path)
    assert err.location == "4:3"
    assert str(err).startswith(f"{path}:4:3: malformed JSON")


def test_duplicate_keys_are_refused(tmp_path: Path) -> None:
    (tmp_path / "signalint.config.json").write_text('{"mcpPayload": "text", "mcpPayload": "both"}')
    assert '"mcpPayload" given twice' in refusal(tmp_path).message


def test_env_overrides_payload_monorepo_and_compact(tmp_path: Path) -> None:
    write_json(tmp_path, {"mcpPayload": "text"})
    env = {
        "SIGNALINT_MCP_PAYLOAD": "structured",
        "SIGNALINT_MONOREPO_MODE": "strict",
        "SIGNALINT_COMPACT": "1",
    }
    config = load_config(tmp_path, env)
    assert (config.mcp_payload, config.monorepo_mode, config.compact) == (
        "structured",
        "strict",
        True,
    )
    assert load_config(tmp_path, {"SIGNALINT_MCP_PAYLOAD": ""}).mcp_payload == "text"


def test_invalid_env_payload_names_the_variable_and_the_choices(tmp_path: Path) -> None:
    err = refusal(tmp_path, {"SIGNALINT_MCP_PAYLOAD": "json"})
    assert err.file is None and err.location == "SIGNALINT_MCP_PAYLOAD"
    assert "SIGNALINT_MCP_PAYLOAD" in str(err) and '"both", "text", "structured"' in str(err)
    assert (
        refusal(tmp_path, {"SIGNALINT_MONOREPO_MODE": "on"}).location == "SIGNALINT_MONOREPO_MODE"
    )
    assert refusal(tmp_path, {"SIGNALINT_COMPACT": "maybe"}).location == "SIGNALINT_COMPACT"


def test_state_dir_defaults_under_the_root_and_follows_the_override(tmp_path: Path) -> None:
    assert state_dir(tmp_path, NO_ENV) == tmp_path / ".signalint"
    assert state_dir(tmp_path, {"SIGNALINT_STATE_DIR": "/var/tmp/s"}) == Path("/var/tmp/s")
    assert state_dir(tmp_path, {"SIGNALINT_STATE_DIR": "state"}) == tmp_path / "state"


def test_timeout_setting_names_the_key_and_the_file_that_holds_the_settings(
    tmp_path: Path,
) -> None:
    from signalint.settings.config import timeout_setting

    expected_json = "timeoutsMs.eslint (milliseconds) in signalint.config.json"
    assert timeout_setting(tmp_path, "eslint") == expected_json  # no config yet: create it
    (tmp_path / "pyproject.toml").write_text("[tool.signalint]\nignore = ['x/**']\n")
    assert timeout_setting(tmp_path, "tsc") == (
        "timeoutsMs.tsc (milliseconds) in [tool.signalint] of pyproject.toml"
    )
    write_json(tmp_path, {})
    assert timeout_setting(tmp_path, "eslint") == expected_json  # the JSON file wins


def test_every_problem_of_the_file_is_named_in_one_error(tmp_path: Path) -> None:
    path = write_json(
        tmp_path,
        {
            "engines": {"rome": True, "tsc": "yes"},
            "mcpPayload": "json",
            "timeoutsMs": {"eslint": 0},
        },
    )
    err = refusal(tmp_path)
    assert [loc for loc, _ in err.problems] == [
        "engines.rome",
        "engines.tsc",
        "timeoutsMs.eslint",
        "mcpPayload",
    ]
    text = str(err)
    assert text.startswith(f"{path}: 4 problems:")
    # Each line names the key, the value given and what is accepted.
    assert "engines.rome: unknown key; accepted keys here: oxlint, tsc" in text
    assert 'engines.tsc: expected a boolean, got "yes"' in text
    assert "timeoutsMs.eslint: expected a positive integer, got 0" in text
    assert 'mcpPayload: expected one of "both", "text", "structured", got "json"' in text


def test_pyproject_problems_are_all_named_with_the_table_path(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.signalint]\nmonorepoMode = "on"\nignore = ["", "#x"]\n'
    )
    err = refusal(tmp_path)
    assert [loc for loc, _ in err.problems] == [
        "tool.signalint.ignore[0]",
        "tool.signalint.ignore[1]",
        "tool.signalint.monorepoMode",
    ]


def test_remote_cache_settings_and_their_refusals(tmp_path: Path) -> None:
    write_json(tmp_path, {"remoteCache": {"url": "redis://cache:6379", "readOnly": True}})
    remote = load_config(tmp_path, NO_ENV).remote_cache
    assert remote == RemoteSettings("redis://cache:6379", read_only=True)
    # The environment names the store; the file's other keys still apply.
    env = {"SIGNALINT_REMOTE_CACHE": "fs:///srv/shared"}
    assert load_config(tmp_path, env).remote_cache == RemoteSettings(
        "fs:///srv/shared", read_only=True
    )
    bad = {"url": "ftp://x", "namespace": "a/b", "timeoutMs": 0, "readonly": True}
    write_json(tmp_path, {"remoteCache": bad})
    err = refusal(tmp_path)
    named = [location for location, _ in err.problems]
    assert named == [
        "remoteCache.readonly",
        "remoteCache.url",
        "remoteCache.namespace",
        "remoteCache.timeoutMs",
    ]
    assert "accepted keys here: url, readOnly, namespace, timeoutMs" in str(err)
    assert "accepted: redis://, rediss://, s3://" in str(err)
    write_json(tmp_path, {})
    env = {"SIGNALINT_REMOTE_CACHE": "fs:///srv/shared", "SIGNALINT_REMOTE_CACHE_READ_ONLY": "1"}
    assert load_config(tmp_path, env).remote_cache == RemoteSettings(
        "fs:///srv/shared", read_only=True
    )
    assert load_config(tmp_path, {"SIGNALINT_REMOTE_CACHE_READ_ONLY": "1"}).remote_cache is None
    err = refusal(tmp_path, {"SIGNALINT_REMOTE_CACHE": "http://cache"})
    assert err.location == "SIGNALINT_REMOTE_CACHE" and "unsupported store" in str(err)


def test_the_workers_memory_bound_is_a_quarter_of_the_machine_at_least_4096_mib(
    tmp_path: Path,
) -> None:
    """A fixed 4,096 MiB evicted remeda's tsc worker after every whole check
    (typed ESLint held 2.7 GiB, tsc 1.8 GiB): the default follows the machine."""
    import os

    physical_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    default = load_config(tmp_path).daemon.memory_mb
    assert default >= 4096
    assert default == max(4096, physical_mb // 4)
    (tmp_path / "signalint.config.json").write_text(json.dumps({"daemon": {"memoryMb": 1024}}))
    assert load_config(tmp_path).daemon.memory_mb == 1024
