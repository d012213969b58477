"""docs/architecture.md held to the code: floors, circles, writers, memos.

The floor table of docs/architecture.md ("Layers") is data:
`docs/floors.toml` lists the floors top first, each with one line per
package (`"dir/"`: every module under it) or module (`"name.py"`,
`"dir/name.py"`; the most specific line wins). The document's table is
checked against that file (same floors in the same order, each line named
in its floor's row), and every module under `src/signalint` against both:

- **On a floor.** Every module matches a line.
- **Imports go down.** A module imports only from its own floor or floors
  below. Every import statement counts, wherever it is: at the top, inside
  a function (a lazy import is still a dependency; it only loads later),
  under `if TYPE_CHECKING:`; and `importlib.import_module` of a literal
  name. A name computed at run time (the warm registry's and the CLI's
  command tables) is not seen.
- **No circles** among modules: the graph of those imports (a package's
  `__init__` is a module like any other; importing `a.b` is not counted as
  importing `a`) has no strongly connected part of more than one module.
- **Whole files are written by the storage helpers**
  (`files.write_atomic`, `files.locked`): a call that writes a file
  (`open`/`Path.open`/`os.fdopen` with a mode holding w, a, x or +,
  `write_text`, `write_bytes`, `os.replace`, `os.rename`, `shutil.move`,
  `shutil.copy*`, `os.open` with a writing flag) anywhere else must be
  listed, by module and function, in `[writers]` with its reason.
- **No memo in a module global**: module state that remembers across calls
  (a function or method decorated with `functools.lru_cache`/`cache`; a
  module-level dict, list or set, literal or made by a constructor, that
  the module's code changes: item assignment or deletion, or a mutating
  method; a `global` statement) must be listed in `[state]` with its
  reason; `docs/architecture.md` says which may stay and why.

The checks are plain functions of module sources, so the last tests feed
them planted faults and see each named.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "src" / "signalint"
FLOORS_FILE = REPO / "docs" / "floors.toml"
DOCUMENT = REPO / "docs" / "architecture.md"
PACKAGE = "signalint"

_MUTATORS = frozenset(
    {
        "append",
        "add",
        "update",
        "setdefault",
        "pop",
        "popitem",
        "clear",
        "extend",
        "insert",
        "remove",
        "discard",
        "move_to_end",
        "appendleft",
        "popleft",
    }
)
_CONTAINERS = frozenset(
    {
        "dict",
        "list",
        "set",
        "OrderedDict",
        "defaultdict",
        "deque",
        "Counter",
        "WeakValueDictionary",
        "WeakKeyDictionary",
        "WeakSet",
    }
)
_CACHES = frozenset({"lru_cache", "cache"})
_WRITE_CALLS = frozenset(
    {
        "os.replace",
        "os.rename",
        "os.renames",
        "shutil.move",
        "shutil.copy",
        "shutil.copy2",
        "shutil.copyfile",
        "shutil.copytree",
    }
)
_WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC")


@dataclass(frozen=True)
class Floors:
    """docs/floors.toml: the floors top first, their lines, and the allowed
    writers and module state (each with its reason)."""

    names: tuple[str, ...]
    lines: Mapping[str, str]  # line ("dir/", "x.py") -> floor name
    line_numbers: Mapping[str, int]  # floor name -> line of its `modules = [` in the file
    writers: Mapping[str, str]
    state: Mapping[str, str]

    def floor_of(self, rel: str) -> str | None:
        """The floor of the module at `rel` (a path under src/signalint,
        "a/b.py"): its own line, else a pattern line it matches, else the
        deepest package line above it."""
        if rel in self.lines:
            return self.lines[rel]
        segments = rel.split("/")
        for line, floor in self.lines.items():
            # A pattern line ("engines/*/warm.py"): `*` stands for one name.
            pattern = line.split("/")
            if (
                "*" in line
                and len(pattern) == len(segments)
                and all(fnmatch.fnmatchcase(s, p) for s, p in zip(segments, pattern, strict=True))
            ):
                return floor
        parts = segments[:-1]
        while parts:
            line = "/".join(parts) + "/"
            if line in self.lines:
                return self.lines[line]
            parts.pop()
        return None

    def rank(self, floor: str) -> int:
        return self.names.index(floor)


def read_floors(text: str) -> Floors:
    data = tomllib.loads(text)
    names: list[str] = []
    lines: dict[str, str] = {}
    numbers: dict[str, int] = {}
    raw_lines = text.splitlines()
    for floor in data["floor"]:
        name = floor["name"]
        names.append(name)
        named = next(i for i, line in enumerate(raw_lines) if line.strip() == f'name = "{name}"')
        numbers[name] = next(
            i + 1 for i, line in enumerate(raw_lines) if i > named and line.startswith("modules")
        )
        for line in floor["modules"]:
            assert line not in lines, f"docs/floors.toml names {line!r} on two floors"
            lines[line] = name
    return Floors(
        tuple(names), lines, numbers, dict(data.get("writers", {})), dict(data.get("state", {}))
    )


@dataclass(frozen=True)
class Import:
    source: str  # module path, "a/b.py"
    line: int
    target: str  # module path imported


@functools.lru_cache(maxsize=1024)
def _parsed(rel: str, text: str) -> ast.Module:
    """`text` parsed once per test session (four checks read every module)."""
    return ast.parse(text, rel)


@functools.lru_cache(maxsize=1024)
def _import_nodes(rel: str, text: str) -> tuple[ast.AST, ...]:
    """The nodes of `text` that may import (three checks walk the imports)."""
    kinds = (ast.Import, ast.ImportFrom, ast.Call)
    return tuple(n for _, n in _functions(_parsed(rel, text)) if isinstance(n, kinds))


def _dotted(node: ast.AST) -> str:
    """ "a.b.c" for a name or an attribute chain of names, else ""."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        owner = _dotted(node.value)
        return f"{owner}.{node.attr}" if owner else f"?.{node.attr}"
    return ""


def module_name(rel: str) -> str:
    parts = [PACKAGE, *rel.removesuffix(".py").split("/")]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(sources: Mapping[str, str]) -> list[Import]:
    """Every import of one module of `sources` (path -> text) by another."""
    by_name = {module_name(rel): rel for rel in sources}

    def resolve(name: str) -> str | None:
        while name and name not in by_name:
            name = name.rpartition(".")[0]
        return by_name.get(name)

    found: list[Import] = []
    for rel, text in sources.items():
        here = module_name(rel)
        package = here if rel.endswith("__init__.py") else here.rpartition(".")[0]
        for node in _import_nodes(rel, text):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    module = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    module = node.module or ""
                targets = [
                    f"{module}.{a.name}" if f"{module}.{a.name}" in by_name else module
                    for a in node.names
                ]
            elif (
                isinstance(node, ast.Call)
                and _dotted(node.func) in ("importlib.import_module", "import_module")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                targets = [node.args[0].value]
            for target in targets:
                if target == PACKAGE or target.startswith(PACKAGE + "."):
                    resolved = resolve(target)
                    if resolved is not None and resolved != rel:
                        found.append(Import(rel, getattr(node, "lineno", 0), resolved))
    return found


def _suggest(rel: str, floors: Floors, sources: Mapping[str, str], found: list[Import]) -> str:
    """The line to add for `rel` (its package's, when no module of the
    package has a floor), on the lowest floor its imports allow."""
    top = rel.split("/")[0]
    package = "/" in rel and not any(
        floors.floor_of(other) for other in sources if other.startswith(top + "/")
    )
    line = f"{top}/" if package else rel
    members = [r for r in sources if r.startswith(top + "/")] if package else [rel]
    below = [
        floors.rank(f)
        for i in found
        if i.source in members and i.target not in members
        for f in [floors.floor_of(i.target)]
        if f is not None
    ]
    floor = floors.names[min(below)] if below else floors.names[-1]
    return (
        f'add the line `  "{line}",` to the `modules` of the floor "{floor}" in '
        f"docs/floors.toml (after line {floors.line_numbers[floor]}; the lowest floor "
        f"its imports allow), and name `{line}` in that floor's row of the table in "
        "docs/architecture.md"
    )


def floor_faults(sources: Mapping[str, str], floors: Floors) -> list[str]:
    """Modules on no floor and imports that go up."""
    found = imports(sources)
    faults: list[str] = []
    for rel in sorted(sources):
        if floors.floor_of(rel) is None:
            faults.append(f"{rel} is on no floor: {_suggest(rel, floors, sources, found)}")
    for i in found:
        low, high = floors.floor_of(i.source), floors.floor_of(i.target)
        if low is None or high is None or floors.rank(high) >= floors.rank(low):
            continue
        faults.append(
            f'{i.source}:{i.line} imports {module_name(i.target)} (floor "{high}") from '
            f'the floor "{low}" below it: imports go down only (move what it needs down, '
            "or correct the module's floor in docs/floors.toml and docs/architecture.md)"
        )
    return list(dict.fromkeys(faults))


def circles(sources: Mapping[str, str]) -> list[list[str]]:
    """The import circles: each strongly connected set of more than one module."""
    graph: dict[str, set[str]] = {rel: set() for rel in sources}
    for i in imports(sources):
        graph[i.source].add(i.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:  # Tarjan's algorithm, without recursion
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    part: list[str] = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        part.append(top)
                        if top == node:
                            break
                    if len(part) > 1:
                        found.append(sorted(part))

    for rel in sorted(graph):
        if rel not in index:
            visit(rel)
    return sorted(found)


def circle_faults(sources: Mapping[str, str]) -> list[str]:
    found = imports(sources)
    faults = []
    for part in circles(sources):
        members = set(part)
        edges = sorted(
            {
                f"{i.source}:{i.line} -> {module_name(i.target)}"
                for i in found
                if i.source in members and i.target in members
            }
        )
        faults.append(f"import circle among {', '.join(part)}: " + "; ".join(edges))
    return faults


@functools.lru_cache(maxsize=1024)
def _functions(tree: ast.Module) -> tuple[tuple[str, ast.AST], ...]:
    """(qualified name, node) of every node, named by its enclosing
    functions and classes ("" at module level); walked once per tree."""

    def walk(node: ast.AST, name: str) -> Iterable[tuple[str, ast.AST]]:
        for child in ast.iter_child_nodes(node):
            yield name, child
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                yield from walk(child, f"{name}.{child.name}" if name else child.name)
            else:
                yield from walk(child, name)

    return tuple(walk(tree, ""))


def _mode(call: ast.Call, position: int) -> str | None:
    for keyword in call.keywords:
        if keyword.arg == "mode":
            value = keyword.value
            return (
                value.value
                if isinstance(value, ast.Constant) and isinstance(value.value, str)
                else None
            )
    if len(call.args) > position:
        value = call.args[position]
        return (
            value.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str)
            else None
        )
    return None


def writes(rel: str, text: str) -> list[tuple[str, int, str]]:
    """(function, line, call) of each call in `rel` that writes a file."""
    found = []
    for name, node in _functions(_parsed(rel, text)):
        if not isinstance(node, ast.Call):
            continue
        func = _dotted(node.func)
        mode = None
        if func in ("open", "io.open", "os.fdopen"):
            mode = _mode(node, 1)
        elif func.endswith(".open") and func != "os.open":
            mode = _mode(node, 0)
        writing = mode is not None and any(c in mode for c in "wax+")
        writing = writing or func.endswith((".write_text", ".write_bytes"))
        writing = writing or func in _WRITE_CALLS
        if func == "os.open" and len(node.args) > 1:
            writing = any(flag in ast.unparse(node.args[1]) for flag in _WRITE_FLAGS)
        if writing:
            found.append((name or "<module>", node.lineno, func))
    return found


def writer_faults(sources: Mapping[str, str], floors: Floors) -> list[str]:
    faults = []
    seen: set[str] = set()
    for rel, text in sorted(sources.items()):
        for function, line, call in writes(rel, text):
            key = f"{rel}:{function}"
            seen.add(key)
            if key not in floors.writers:
                faults.append(
                    f"{rel}:{line} writes a file ({call}) outside the storage helpers: "
                    "use files.write_atomic / files.locked, or list "
                    f'"{key}" = "<why>" under [writers] in docs/floors.toml'
                )
    faults += [
        f'docs/floors.toml lists the writer "{key}", which writes no file: remove its line'
        for key in floors.writers
        if key not in seen and key.partition(":")[0] in sources
    ]
    return faults


def module_state(rel: str, text: str) -> list[tuple[str, int, str]]:
    """(name, line, what) of each memo-like piece of module state in `rel`."""
    tree = _parsed(rel, text)
    containers: dict[str, int] = {}
    for statement in tree.body:
        target, value = None, None
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign):
            target, value = statement.target, statement.value
        if not isinstance(target, ast.Name) or value is None:
            continue
        literal = isinstance(
            value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)
        )
        made = isinstance(value, ast.Call) and _dotted(value.func).rpartition(".")[2] in _CONTAINERS
        if literal or made:
            containers[target.id] = statement.lineno
    found: dict[str, tuple[str, int, str]] = {}
    for name, node in _functions(tree):
        changed = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if (
                isinstance(owner, ast.Name)
                and owner.id in containers
                and node.func.attr in _MUTATORS
            ):
                changed = owner.id
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                if (
                    isinstance(target, ast.Subscript)
                    and isinstance(target.value, ast.Name)
                    and target.value.id in containers
                ):
                    changed = target.value.id
        elif isinstance(node, ast.Global):
            for global_name in node.names:
                found.setdefault(global_name, (global_name, node.lineno, "rebound by `global`"))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                called = decorator.func if isinstance(decorator, ast.Call) else decorator
                if _dotted(called).rpartition(".")[2] in _CACHES:
                    qualified = f"{name}.{node.name}" if name else node.name
                    found[qualified] = (qualified, node.lineno, f"@{_dotted(called)}")
        if changed is not None and name:  # changed by a function: remembered across calls
            found.setdefault(
                changed,
                (changed, containers[changed], "a module-level container changed by its functions"),
            )
    return sorted(found.values(), key=lambda f: f[1])


def state_faults(sources: Mapping[str, str], floors: Floors) -> list[str]:
    faults = []
    seen: set[str] = set()
    for rel, text in sorted(sources.items()):
        for name, line, what in module_state(rel, text):
            key = f"{rel}:{name}"
            seen.add(key)
            if key not in floors.state:
                faults.append(
                    f"{rel}:{line} keeps `{name}` in a module global ({what}): a process's "
                    "memos live in its `Context` (docs/architecture.md); if it is not a memo, list "
                    f'"{key}" = "<why>" under [state] in docs/floors.toml'
                )
    faults += [
        f'docs/floors.toml lists the module state "{key}", which is gone: remove its line'
        for key in floors.state
        if key not in seen and key.partition(":")[0] in sources
    ]
    return faults


def document_faults(document: str, floors: Floors) -> list[str]:
    """The document's floor table against docs/floors.toml: the same floors
    in the same order, and each line named (in backticks) in its floor's row."""
    section = document.split("## Layers", 1)[1].split("\n## ", 1)[0]
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in section.splitlines()
        if line.startswith("|") and not line.startswith("| ---")
    ][1:]
    names = tuple(row[0] for row in rows)
    if names != floors.names:
        return [
            f"the floors of docs/architecture.md's table {names} differ from "
            f"docs/floors.toml's {floors.names}"
        ]
    cells = {row[0]: row[1] for row in rows}
    faults = []
    for line, floor in sorted(floors.lines.items()):
        if f"`{line}`" not in cells[floor]:
            faults.append(
                f'docs/floors.toml puts "{line}" on the floor "{floor}": name `{line}` in '
                'that floor\'s row of the table in docs/architecture.md ("Layers")'
            )
    return faults


def _sources() -> dict[str, str]:
    return {
        p.relative_to(SOURCE).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(SOURCE.rglob("*.py"))
    }


def _floors() -> Floors:
    return read_floors(FLOORS_FILE.read_text(encoding="utf-8"))


def _said(faults: list[str]) -> str:
    return "\n".join(faults)


@pytest.fixture(scope="module", autouse=True)
def _forget_the_trees() -> Iterator[None]:
    """The parsed modules are kept for this file's checks only: the process
    that kept them (a quick-loop worker) paid for their 600,000 objects in
    every later full garbage collection, about 1 s at its exit alone."""
    yield
    for memo in (_parsed, _import_nodes, _functions):
        memo.cache_clear()


def test_every_module_is_on_a_floor_and_imports_only_go_down() -> None:
    faults = floor_faults(_sources(), _floors())
    assert not faults, _said(faults)


def test_no_import_circles() -> None:
    faults = circle_faults(_sources())
    assert not faults, _said(faults)


def test_files_are_written_by_the_storage_helpers() -> None:
    faults = writer_faults(_sources(), _floors())
    assert not faults, _said(faults)


def test_no_memo_in_a_module_global() -> None:
    faults = state_faults(_sources(), _floors())
    assert not faults, _said(faults)


def test_the_document_names_the_floors_of_the_data() -> None:
    faults = document_faults(DOCUMENT.read_text(encoding="utf-8"), _floors())
    assert not faults, _said(faults)


# The checks fail on planted faults: synthetic sources and floors.

_PLANT_FLOORS = """
[[floor]]
name = "top"
modules = [
  "front/",
]

[[floor]]
name = "bottom"
modules = [
  "ground.py",
  "files.py",
]

[writers]
"files.py:write_atomic" = "the helper"
"""


def _plant(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    sources = {
        "front/__init__.py": "",
        "front/cli.py": "from signalint import ground\n",
        "ground.py": "import os\n",
        "files.py": "def write_atomic(p, d):\n    open(p, 'wb').write(d)\n",
    }
    sources.update(extra or {})
    return sources


def test_the_planted_clean_tree_passes() -> None:
    floors = read_floors(_PLANT_FLOORS)
    sources = _plant()
    assert floor_faults(sources, floors) == []
    assert circle_faults(sources) == []
    assert writer_faults(sources, floors) == []
    assert state_faults(sources, floors) == []


def test_a_planted_upward_import_is_named() -> None:
    sources = _plant(
        {"ground.py": "import os\n\ndef later():\n    from signalint.front import cli\n"}
    )
    faults = floor_faults(sources, read_floors(_PLANT_FLOORS))
    assert faults == [
        'ground.py:4 imports signalint.front.cli (floor "top") from the floor "bottom" '
        "below it: imports go down only (move what it needs down, or correct the module's "
        "floor in docs/floors.toml and docs/architecture.md)"
    ]


def test_a_planted_circle_is_named_with_its_imports() -> None:
    sources = _plant({"front/hook.py": "from signalint.front.cli import x\n"})
    sources["front/cli.py"] += "from . import hook\n"
    assert circle_faults(sources) == [
        "import circle among front/cli.py, front/hook.py: "
        "front/cli.py:2 -> signalint.front.hook; front/hook.py:1 -> signalint.front.cli"
    ]


def test_a_module_on_no_floor_is_told_the_line_to_add() -> None:
    sources = _plant({"lsp/server.py": "from signalint import ground\n", "lsp/__init__.py": ""})
    faults = floor_faults(sources, read_floors(_PLANT_FLOORS))
    said = (
        'add the line `  "lsp/",` to the `modules` of the floor "bottom" in docs/floors.toml '
        "(after line 10; the lowest floor its imports allow)"
    )
    assert len(faults) == 2 and all(said in f for f in faults)
    assert faults[0].startswith("lsp/__init__.py is on no floor")


def test_a_planted_writer_is_named() -> None:
    planted = "from pathlib import Path\n\ndef save(p: Path) -> None:\n    p.write_text('x')\n"
    sources = _plant(
        {"ground.py": planted, "front/log.py": "def log(p):\n    return open(p, mode='a')\n"}
    )
    faults = writer_faults(sources, read_floors(_PLANT_FLOORS))
    assert [f.split(" outside")[0] for f in faults] == [
        "front/log.py:2 writes a file (open)",
        "ground.py:4 writes a file (p.write_text)",
    ]
    assert '"ground.py:save" = "<why>"' in faults[1]


def test_a_planted_memo_is_named() -> None:
    planted = (
        "import functools\n_seen: dict[str, int] = {}\nLIMITS = {'a': 1}\n\n"
        "def size(path: str) -> int:\n    _seen[path] = 1\n    return LIMITS['a']\n\n"
        "@functools.lru_cache(maxsize=8)\ndef parsed(text: str) -> str:\n    return text\n"
    )
    faults = state_faults(_plant({"ground.py": planted}), read_floors(_PLANT_FLOORS))
    assert [f.split(" (")[0] for f in faults] == [
        "ground.py:2 keeps `_seen` in a module global",
        "ground.py:10 keeps `parsed` in a module global",
    ]


def test_a_document_row_missing_a_line_is_named() -> None:
    document = (
        "## Layers\n\n| floor | modules | what |\n| --- | --- | --- |\n"
        "| top | `front/` | x |\n| bottom | `ground.py` | y |\n\n## Next\n"
    )
    faults = document_faults(document, read_floors(_PLANT_FLOORS))
    assert faults == [
        'docs/floors.toml puts "files.py" on the floor "bottom": name `files.py` in that '
        'floor\'s row of the table in docs/architecture.md ("Layers")'
    ]
    assert re.search(
        "differ", document_faults(document.replace("| top", "| up"), read_floors(_PLANT_FLOORS))[0]
    )


# Functions stay small: at most 6 parameters (self and cls not counted) and
# at most 80 lines (from `def` to the last line of the body). Only a
# front end's option parsing may take more: a command function that mirrors
# its command's options, one parameter per option, as click hands them over.

MAX_PARAMETERS = 6
MAX_LINES = 80

SIZE_EXEMPT: Mapping[str, str] = {
    "cli/check.py:check": "click's command: one parameter per option of `signalint check`",
    "cli/check.py:_check": "the `check` options, parsed into the Selection and Report values",
    "cli/init.py:init": "click's command: one parameter per option of `signalint init`",
}


def _definitions(tree: ast.Module) -> Iterable[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(qualified name, node) of every function and method, nested ones too."""
    for name, node in _functions(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield (f"{name}.{node.name}" if name else node.name), node


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    args = node.args
    named = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    named += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return named[1:] if named[:1] in (["self"], ["cls"]) else named


def size_faults(sources: Mapping[str, str], exempt: Mapping[str, str]) -> list[str]:
    faults: list[str] = []
    for rel, text in sorted(sources.items()):
        for name, node in _definitions(_parsed(rel, text)):
            if f"{rel}:{name}" in exempt:
                continue
            count = len(_parameters(node))
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            if count > MAX_PARAMETERS:
                faults.append(
                    f"{rel}:{node.lineno} {name} takes {count} parameters (at most "
                    f"{MAX_PARAMETERS}): group those that travel together in a frozen dataclass"
                )
            if lines > MAX_LINES:
                faults.append(
                    f"{rel}:{node.lineno} {name} is {lines} lines long (at most {MAX_LINES}): "
                    "give its steps functions named for what they do"
                )
    return faults


def test_functions_are_small() -> None:
    sources = _sources()
    defined = {f"{r}:{n}" for r, t in sources.items() for n, _ in _definitions(_parsed(r, t))}
    assert set(SIZE_EXEMPT) <= defined, f"exempt but gone: {set(SIZE_EXEMPT) - defined}"
    faults = size_faults(sources, SIZE_EXEMPT)
    assert not faults, _said(faults)


def test_a_planted_long_function_and_a_wide_one_are_named() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(80))
    planted = (
        f"def long() -> None:\n{body}\n\n"
        "class Wide:\n    def many(self, a, b, c, d, e, f, *g) -> None:\n        pass\n\n"
        "def six(a, b, c, /, d, *, e, **f) -> None:\n    pass\n"
    )
    faults = size_faults(_plant({"ground.py": planted}), {})
    assert faults == [
        "ground.py:1 long is 81 lines long (at most 80): give its steps functions named "
        "for what they do",
        "ground.py:85 Wide.many takes 7 parameters (at most 6): group those that travel "
        "together in a frozen dataclass",
    ]
    assert (
        size_faults(
            _plant({"ground.py": planted}), {"ground.py:long": "x", "ground.py:Wide.many": "y"}
        )
        == []
    )
