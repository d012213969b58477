"""TypeScript build mode without side effects: wrapper configs outside the project.

A check of a config with `references` runs `tsc -b` on a generated copy of
the reference graph: one wrapper tsconfig per project, under
`<work>/tsc/build/<the project root's absolute path>/` (mirroring the
project's paths; `<work>` is the project's work directory, outside its
tree: `signalint.project.work_dir`), that `extends` the user's config and only moves
what tsc writes (outputs, declarations, `.tsbuildinfo`) there. Each
wrapper's `references` point at the other wrappers, so tsc builds every
project of the graph in dependency order, exactly as the project's own
`tsc -b` would, but writes nothing into the user's tree (D18), and leaves
nothing there for the project's own tools to read (the wrappers, the
declarations they emit and the links to node_modules are outside it).

Why not `tsc -b --noEmit`: a referenced project may not disable emit
(TS6310), so that flag makes tsc report errors of its own and skip checking
the projects that reference it. Referenced projects emit declarations only
(into the state directory); a root that emits no declarations gets `noEmit`.

Verified on typescript 7.0.2 and 5.9.3:
- `extends` with an absolute path works; options and `include`/`files`/
  `exclude` defined in the user's chain resolve against the config that
  defines them. What the chain leaves unset resolves against the *wrapper*:
  the default `include` (`**/*`), the default `exclude` (which also names
  the user's `outDir`), `${configDir}` templates, `typeRoots` (found upward
  from the config) and, for composite projects and for TypeScript 6+ (where
  it defaults to the config's directory), `rootDir`. The wrapper spells
  those out against the user's project directory.
- `types` entries that are paths (7.0.2, 6.0.3, 5.7.3): with no `typeRoots`
  set, tsc resolves `./x.d.ts` against the directory of the config it
  builds (not the one that lists it); with `typeRoots` set it looks every
  entry up in the roots only ("skipping lookup in 'node_modules' folder"),
  where an absolute entry is found as it is. See `_anchored_types`. Bare
  entries are then looked up in node_modules upward from the config, with
  package `exports` (only without `typeRoots`): the wrapper tree links the
  node_modules directories of the project and of every directory above it
  at their mirrored places (`BuildPlan.links`), so tsc, walking up from a
  wrapper, meets the same ones in the same order as from the user's config.
- `--verbose` names every project as `Building project '<path>'...` or
  `Project '<path>' is up to date ...` (paths relative to the cwd in 7.x,
  absolute in 5.x); `--listFiles` then prints that project's inputs.
  Since 5.6 a project whose dependency has errors is still built; older
  versions say `Skipping build of project ...` (a coverage gap).
- A project with errors is rebuilt on every run (its build info records
  that it must report errors), so an up-to-date project has no diagnostics.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from signalint.engines import adapter_paths as paths
from signalint.engines.resolve import shim_targets
from signalint.files import write_atomic

BUILD_DIR = "build"
_OUT = "__out__"
_EXT = "__ext__"
_NO_TYPES = "__types__"  # an empty type root (see `_anchored_types`)
_TEMPLATE = "${configDir}"
_DEFAULT_EXCLUDES = ("node_modules", "bower_components", "jspm_packages")
_BUILDING = re.compile(r"Building project '(?P<path>.+?)'\.\.\.")
_UP_TO_DATE = re.compile(r"Project '(?P<path>.+?)' is up to date")
_RELATIVE = re.compile(r"^\.\.?($|[\\/])")
_NAMED = re.compile(r"[Pp]roject '(?P<path>[^']+)'")
# The time stamp follows the process's locale ("12:46:16 AM", "00:46:16",
# "午前0:46:16"): anything short around h:mm:ss, then " - ".
_VERBOSE = re.compile(r"^\s*\D{0,12}\d{1,2}[:.]\d{2}[:.]\d{2}\D{0,12}? - ")


@dataclass(frozen=True, slots=True)
class Project:
    """One project of the reference graph and its wrapper.

    `config` and `wrapper` are absolute paths; `has_sources` is False for a
    solution root (`"files": []` and no `include`), which tsc need not build.
    """

    config: str
    wrapper: str
    has_sources: bool
    buildinfo: str = ""  # where tsc keeps this project's build info


@dataclass(frozen=True, slots=True)
class BuildPlan:
    """The wrapper configs for one selected tsconfig and how to map back.

    `write()` materializes the wrappers; everything else is pure.
    """

    root: str
    base: str  # <work>/tsc/build/<root's absolute path>: the root's mirror
    root_wrapper: str
    projects: tuple[Project, ...]
    contents: dict[str, str] = field(default_factory=dict)  # wrapper path -> JSON
    rel_base: str = ""  # `base` relative to `root`, as tsc prints it
    # A `types` entry the wrappers spell as an absolute path -> as the user wrote it.
    spellings: dict[str, str] = field(default_factory=dict)
    # A link in the wrapper tree -> the project's node_modules it stands for.
    links: dict[str, str] = field(default_factory=dict)
    top: str = ""  # <work>/tsc/build: everything generated is under it

    def write(self) -> None:
        """Write the wrappers that differ from what is on disk (tsc compares
        config mtimes with its build info, so unchanged wrappers stay put)."""
        os.makedirs(os.path.join(self.base, _NO_TYPES), exist_ok=True)
        for link, target in self.links.items():
            if os.path.islink(link) and os.readlink(link) == target:
                continue
            # A link that cannot be made leaves a library unresolved: tsc
            # then says so (TS2688), which is a coverage gap, not a crash.
            with contextlib.suppress(OSError):
                os.makedirs(os.path.dirname(link), exist_ok=True)
                if os.path.islink(link):
                    os.remove(link)
                os.symlink(target, link, target_is_directory=True)
        for path, text in self.contents.items():
            try:
                with open(path, encoding="utf-8") as handle:
                    if handle.read() == text:
                        continue
            except OSError:
                pass
            # Whole or not at all: another check of the project may be
            # reading the wrappers with its own tsc.
            write_atomic(Path(path), text.encode("utf-8"))

    def owns(self, absolute: str) -> bool:
        """Whether `absolute` is one of our generated files (wrapper or output)."""
        top = self.top or self.base
        return absolute == top or absolute.startswith(top + os.sep)

    def user_config(self, absolute: str) -> str | None:
        """The user's config for a wrapper path, or for a file in our outputs."""
        for project in self.projects:
            if project.wrapper == absolute:
                return project.config
        if self.owns(absolute):
            return self.projects[0].config if self.projects else None
        return None

    def user_text(self, text: str) -> str:
        """`text` with wrapper paths replaced by the user's config paths
        (and `types` entries the wrappers anchored spelled as the user did)."""
        for spelled, written in self.spellings.items():
            text = text.replace(f"'{spelled}'", f"'{written}'")
        rel_base = self.rel_base or _relative(self.base, self.root)
        if self.base not in text and rel_base not in text:
            return text
        for project in sorted(self.projects, key=lambda p: -len(p.wrapper)):
            for wrapper, config in (
                (project.wrapper, project.config),
                (os.path.dirname(project.wrapper), os.path.dirname(project.config)),
            ):
                text = text.replace(wrapper, config)
                text = text.replace(_relative(wrapper, self.root), _relative(config, self.root))
        return text

    def project(self, config: str) -> Project | None:
        """The project of the user's config `config` (absolute)."""
        return next((p for p in self.projects if p.config == config), None)

    def building(self, line: str) -> Project | None:
        """The project a `--verbose` "Building project '...'" line starts; else None."""
        if not _VERBOSE.match(line):
            return None
        built = _BUILDING.search(line)
        return self.project_for(built["path"]) if built else None

    def project_for(self, reported: str) -> Project | None:
        """The project a `--verbose` line names (a wrapper path, any form)."""
        absolute = os.path.normpath(os.path.join(self.root, reported))
        for project in self.projects:
            if absolute in (project.wrapper, os.path.dirname(project.wrapper)):
                return project
        return None


def _relative(path: str, root: str) -> str:
    return os.path.relpath(path, root)


@dataclass(frozen=True, slots=True)
class BuildReport:
    """What one `tsc -b --verbose --listFiles` run did, per project.

    `inputs` maps each built project's user config to the files tsc listed
    for it (our own outputs excluded); `up_to_date` are projects tsc did not
    need to build; `missed` are projects with sources that it neither built
    nor found up to date (skipped): a coverage gap.
    """

    inputs: dict[str, list[str]]
    up_to_date: list[str]
    missed: list[str]
    reasons: dict[str, str] = field(default_factory=dict)  # tsc's words per missed project


def read_report(plan: BuildPlan, stdout: str) -> BuildReport:
    """Parse the verbose build log of a run of `plan`."""
    inputs: dict[str, list[str]] = {}
    up_to_date: list[str] = []
    said: dict[str, str] = {}
    current: str | None = None
    for line in stdout.splitlines():
        if _VERBOSE.match(line):
            built = _BUILDING.search(line)
            fresh = _UP_TO_DATE.search(line)
            named = built or fresh or _NAMED.search(line)
            project = plan.project_for(named["path"]) if named else None
            current = None
            if built and project is not None:
                current = project.config
                inputs.setdefault(current, [])
            elif fresh and project is not None:
                up_to_date.append(project.config)
            elif project is not None:
                said.setdefault(project.config, plan.user_text(_VERBOSE.sub("", line).strip()))
            continue
        if current is not None and os.path.isabs(line) and not plan.owns(line):
            inputs[current].append(line)
    covered = set(inputs) | set(up_to_date)
    missed = [p.config for p in plan.projects if p.has_sources and p.config not in covered]
    reasons = {c: said[c] for c in missed if c in said}
    return BuildReport(inputs=inputs, up_to_date=up_to_date, missed=missed, reasons=reasons)


def typescript_package(executable: Path) -> tuple[Path, str] | None:
    """The `typescript` package directory owning `executable` (a pnpm shell
    shim followed to the script it runs) and its version; None when none is
    found."""
    real = os.path.realpath(executable)
    for target in (real, *shim_targets(real)):
        directory = os.path.dirname(target)
        for _ in range(6):
            manifest = paths.load_jsonc(Path(directory) / "package.json")
            if isinstance(manifest, dict) and manifest.get("name") == "typescript":
                version = manifest.get("version")
                return (Path(directory), version) if isinstance(version, str) else None
            directory = os.path.dirname(directory)
    return None


def typescript_major(executable: Path) -> int | None:
    """The major version of the `typescript` package owning `executable`."""
    found = typescript_package(executable)
    head = found[1].split(".", 1)[0] if found else ""
    return int(head) if head.isdigit() else None


@dataclass(frozen=True, slots=True)
class _Tree:
    """Where a project's wrappers and their outputs go (`plan_build`): the
    wrapper tree `top`, the project's mirror in it `base`, the project's
    root, the TypeScript major the wrappers are written for, and the links
    out of the root (absolute) every wrapper excludes."""

    top: str
    base: str
    root: str
    major: int
    outside: tuple[str, ...]

    @property
    def empty_root(self) -> str:
        """A type root that always exists and holds nothing."""
        return os.path.join(self.base, _NO_TYPES)

    def wrapper_of(self, config_abs: str) -> str:
        rel = os.path.relpath(config_abs, self.root)
        if rel.startswith(".."):
            digest = hashlib.sha256(config_abs.encode()).hexdigest()[:12]
            return os.path.join(self.base, _EXT, digest, os.path.basename(config_abs))
        return os.path.join(self.base, rel)

    def outputs(self, wrapper: str) -> tuple[str, str]:
        """The wrapper's output directory and its build info file."""
        out_key = os.path.relpath(wrapper, self.base)
        out_dir = os.path.join(self.base, _OUT, os.path.dirname(out_key) or ".")
        return os.path.normpath(out_dir), os.path.join(self.base, _OUT, out_key + ".tsbuildinfo")


def _config_graph(
    start: str,
) -> tuple[list[str], dict[str, _Merged], dict[str, list[tuple[str, dict[str, object]]]]]:
    """The configs reachable from `start` through references, breadth first
    (at most `paths.MAX_CONFIG_CHAIN`): their order, each one's merged
    options, and each one's references as listed."""
    order: list[str] = []
    graph: dict[str, list[tuple[str, dict[str, object]]]] = {}
    merged: dict[str, _Merged] = {}
    queue = [start]
    while queue and len(order) < paths.MAX_CONFIG_CHAIN:
        current = queue.pop(0)
        if current in merged:
            continue
        order.append(current)
        merged[current] = _merge(current, set())
        listed = references(current)
        graph[current] = listed
        queue += [target for target, _ in listed if os.path.isfile(target)]
    return order, merged, graph


def _modules_links(tree: _Tree, project_dir: str) -> dict[str, str]:
    """Links in the wrapper tree to each node_modules from the project's
    directory upward: tsc looks for them where the user's config would."""
    links: dict[str, str] = {}
    for directory in _ancestors(project_dir):
        modules = os.path.join(directory, "node_modules")
        if os.path.isdir(modules) and not _inside(modules, tree.top):
            mirrored = _mirror(tree.top, directory)
            links[os.path.normpath(os.path.join(mirrored, "node_modules"))] = modules
    return links


def plan_build(
    root: Path,
    config: str,
    work_dir: Path,
    ts_major: int | None,
    outside: Sequence[str] = (),
) -> BuildPlan:
    """The wrappers for project-relative `config` and its reference graph,
    under `work_dir` (module docstring).

    `ts_major` None is treated as the current major (7): its defaults are
    spelled out, which older versions accept too. `outside`: links out of
    the root (project-relative, `EngineContext.outside`) every wrapper
    excludes, so tsc's `include` globs do not follow them.
    """
    # One tree for every selected config: a project's wrapper and build info
    # are the same whichever config a check selects, so a check of one
    # package reuses what a check of the whole graph built, and vice versa.
    top = os.path.abspath(work_dir / "tsc" / BUILD_DIR)
    root_s = os.path.abspath(root)
    tree = _Tree(
        top=top,
        base=_mirror(top, root_s),
        root=root_s,
        major=ts_major if ts_major is not None else 7,
        outside=tuple(os.path.join(root_s, link.rstrip("/")) for link in outside),
    )
    start = os.path.normpath(os.path.join(root_s, config))
    order, merged, graph = _config_graph(start)
    referenced = {target for pairs in graph.values() for target, _ in pairs}
    projects: list[Project] = []
    contents: dict[str, str] = {}
    spellings: dict[str, str] = {}
    links: dict[str, str] = {}
    # From a wrapper's directory upward, tsc looks for node_modules where the
    # user's config would: the wrapper tree mirrors every directory from the
    # project's up to the file system's root, with links where they have one.
    for current in order:
        info = merged[current]
        linkable = not os.path.relpath(current, root_s).startswith("..")
        if linkable and "types" in info.options and "typeRoots" not in info.options:
            links.update(_modules_links(tree, os.path.dirname(current)))
        for spelled, written in _anchored_types(info, os.path.dirname(current)):
            if isinstance(spelled, str) and isinstance(written, str) and _RELATIVE.match(written):
                spellings[spelled] = written
        wrapper = tree.wrapper_of(current)
        wrapper_data = _wrapper(info, current, tree, current in referenced, linkable)
        refs: list[dict[str, object]] = []
        for target, extra in graph[current]:
            entry = dict(extra)
            # A missing target keeps its real path: tsc then reports it as
            # the project's own `tsc -b` would.
            entry["path"] = tree.wrapper_of(target) if target in merged else target
            refs.append(entry)
        if refs:
            wrapper_data["references"] = refs
        contents[wrapper] = json.dumps(wrapper_data, indent=2) + "\n"
        buildinfo = tree.outputs(wrapper)[1]
        projects.append(Project(current, wrapper, info.has_sources(), buildinfo))
    return BuildPlan(
        root=root_s,
        base=tree.base,
        root_wrapper=tree.wrapper_of(start),
        projects=tuple(projects),
        contents=contents,
        rel_base=_relative(tree.base, root_s),
        spellings=spellings,
        links=links,
        top=top,
    )


def _mirror(top: str, directory: str) -> str:
    """Where the absolute `directory` is mirrored in the wrapper tree `top`."""
    drive, rest = os.path.splitdrive(directory)
    parts = [drive.strip(":\\/")] if drive else []
    return os.path.normpath(os.path.join(top, *parts, rest.lstrip(os.sep)))


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory + os.sep)


class _Merged:
    """A config's effective settings along its `extends` chain.

    Each value keeps the directory of the config that defined it, since
    relative paths resolve against their own config.
    """

    def __init__(self) -> None:
        self.options: dict[str, tuple[object, str]] = {}
        self.lists: dict[str, tuple[object, str]] = {}  # include, files, exclude
        self.complete = True  # False when a config or base could not be read

    def flag(self, name: str) -> bool:
        value = self.options.get(name)
        return value is not None and value[0] is True

    def has_sources(self) -> bool:
        files = self.lists.get("files")
        return "include" in self.lists or not (isinstance(files, tuple) and files[0] == [])


def _merge(config: str, seen: set[str]) -> _Merged:
    merged = _Merged()
    data = paths.load_jsonc(Path(config))
    if not isinstance(data, dict) or config in seen or len(seen) > paths.MAX_CONFIG_CHAIN:
        merged.complete = False
        return merged
    seen.add(config)
    bases = data.get("extends")
    for spec in [bases] if isinstance(bases, str) else bases or []:
        target = resolve_extends(spec, os.path.dirname(config)) if isinstance(spec, str) else None
        if target is None:
            merged.complete = False
            continue
        inherited = _merge(target, set(seen))
        merged.options.update(inherited.options)
        merged.lists.update(inherited.lists)
        merged.complete = merged.complete and inherited.complete
    directory = os.path.dirname(config)
    options = data.get("compilerOptions")
    if isinstance(options, dict):
        merged.options.update({k: (v, directory) for k, v in options.items()})
    for key in ("include", "files", "exclude"):
        if key in data:
            merged.lists[key] = (data[key], directory)
    return merged


def effective_options(config: str) -> dict[str, object] | None:
    """The effective `compilerOptions` of `config` (absolute) along its
    `extends` chain, as written (paths unresolved); None when a config of
    the chain cannot be found or read."""
    merged = _merge(config, set())
    if not merged.complete:
        return None
    return {name: value for name, (value, _) in merged.options.items()}


def resolve_extends(spec: str, directory: str) -> str | None:
    """The config file an `extends` entry names: a path or an npm package."""
    if spec.startswith(".") or os.path.isabs(spec):
        candidate = os.path.normpath(os.path.join(directory, spec))
        for option in (candidate, candidate + ".json", os.path.join(candidate, "tsconfig.json")):
            if os.path.isfile(option):
                return option
        return None
    current = directory
    while True:
        package = os.path.join(current, "node_modules", spec)
        for option in (package, package + ".json"):
            if os.path.isfile(option):
                return option
        if os.path.isdir(package):
            manifest = paths.load_jsonc(Path(package) / "package.json")
            named = manifest.get("tsconfig") if isinstance(manifest, dict) else None
            option = os.path.join(package, named if isinstance(named, str) else "tsconfig.json")
            if os.path.isfile(option):
                return option
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def references(config: str) -> list[tuple[str, dict[str, object]]]:
    """Absolute referenced config paths (not inherited through `extends`)."""
    data = paths.load_jsonc(Path(config))
    found: list[tuple[str, dict[str, object]]] = []
    for ref in data.get("references") or [] if isinstance(data, dict) else []:
        target = ref.get("path") if isinstance(ref, dict) else None
        if not isinstance(target, str):
            continue
        joined = os.path.normpath(os.path.join(os.path.dirname(config), target))
        if not os.path.isfile(joined):
            joined = os.path.join(joined, "tsconfig.json")
        found.append((joined, {k: v for k, v in ref.items() if k != "path"}))
    return found


def _substitute(value: object, project_dir: str) -> object:
    if isinstance(value, str):
        return value.replace(_TEMPLATE, project_dir)
    if isinstance(value, list):
        return [_substitute(v, project_dir) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, project_dir) for k, v in value.items()}
    return value


def _templated(value: object) -> bool:
    return _TEMPLATE in json.dumps(value)


def _absolute(value: object, directory: str, project_dir: str) -> str | None:
    if not isinstance(value, str):
        return None
    value = value.replace(_TEMPLATE, project_dir)
    return os.path.normpath(os.path.join(directory, value))


def _wrapper(
    info: _Merged, config: str, tree: _Tree, referenced: bool, linked: bool
) -> dict[str, object]:
    """The wrapper of `config` (absolute) in `tree`: the user's config
    extended with where its outputs go and its paths spelled absolute;
    `referenced`: another config of the graph references it; `linked`: it
    is inside the root, so the tree mirrors its node_modules."""
    project_dir = os.path.dirname(config)
    out_dir, buildinfo = tree.outputs(tree.wrapper_of(config))
    options: dict[str, object] = {
        name: _substitute(value, project_dir)
        for name, (value, _) in info.options.items()
        if _templated(value)
    }
    options.update(_emit_options(info, out_dir, buildinfo, referenced))
    if "rootDir" not in info.options and (info.flag("composite") or tree.major >= 6):
        # Both default to the config's directory, which is now the wrapper's.
        options["rootDir"] = project_dir
    if "typeRoots" not in info.options:
        options.update(_type_options(info, project_dir, tree.empty_root, linked))
    wrapper: dict[str, object] = {"extends": config, "compilerOptions": options}
    wrapper.update(_file_lists(info, project_dir, tree.outside))
    return wrapper


def _emit_options(
    info: _Merged, out_dir: str, buildinfo: str, referenced: bool
) -> dict[str, object]:
    """Where the build writes: outputs and build info in the wrapper tree,
    declarations only where dependents read them, nothing else."""
    options: dict[str, object] = {"outDir": out_dir, "tsBuildInfoFile": buildinfo}
    out_file = info.options.get("outFile")
    if out_file is not None and isinstance(out_file[0], str):
        options["outFile"] = os.path.join(out_dir, os.path.basename(out_file[0]))
    declarations = info.flag("composite") or info.flag("declaration")
    if declarations:
        # Only then: elsewhere tsc rejects the option (TS5069).
        options["declarationDir"] = out_dir
    if referenced or declarations:
        if declarations and not info.flag("noEmit"):
            # Dependents read these declarations; JavaScript is never needed.
            options["emitDeclarationOnly"] = True
    else:
        options["noEmit"] = True
    return options


def _type_options(
    info: _Merged, project_dir: str, empty_root: str, linked: bool
) -> dict[str, object]:
    """`types` and `typeRoots` as the user's config means them, read from
    the wrapper's directory (a config without typeRoots of its own)."""
    options: dict[str, object] = {}
    anchored = _anchored_types(info, project_dir)
    if anchored:
        options["types"] = [spelled for spelled, _ in anchored]
    # With `types` in a linked tree the wrapper sets no typeRoots: tsc
    # looks the listed libraries up as natively (type roots, then
    # node_modules with package `exports`), from the wrapper's directory,
    # which sees the project's node_modules through `BuildPlan.links`.
    if "types" in info.options and linked:
        return options
    roots = _type_roots(project_dir)
    if "types" in info.options:
        # Listed libraries may be packages (`vitest/globals`): tsc
        # finds them in node_modules upward from the config, and an
        # explicit typeRoots stops that search, so those directories
        # are roots too (package `exports` are not read there). Only
        # with `types`: it turns off including every root's
        # subfolders, which would take in every package.
        roots += _node_modules_upward(project_dir)
    if anchored:
        # tsc joins an entry to each existing type root, and joining
        # an absolute path gives that path: one root that always
        # exists and holds nothing else.
        roots.append(empty_root)
    options["typeRoots"] = roots
    return options


def _file_lists(info: _Merged, project_dir: str, outside: Sequence[str]) -> dict[str, object]:
    """The wrapper's `include`, `files` and `exclude`: the user's, spelled
    absolute, or tsc's defaults against the user's directory; and the links
    out of the root (`outside`, absolute) excluded."""
    lists: dict[str, object] = {}
    for key in ("include", "files", "exclude"):
        entry = info.lists.get(key)
        if entry is not None and _templated(entry[0]):
            lists[key] = _substitute(entry[0], project_dir)
    if "include" not in info.lists and "files" not in info.lists:
        lists["include"] = [os.path.join(project_dir, "**", "*")]
    if "exclude" not in info.lists:
        excluded = [os.path.join(project_dir, name) for name in _DEFAULT_EXCLUDES]
        for name in ("outDir", "declarationDir"):
            entry = info.options.get(name)
            if entry is not None:
                found = _absolute(entry[0], entry[1], project_dir)
                if found is not None and found not in excluded:
                    excluded.append(found)
        lists["exclude"] = excluded
    if outside:
        # Links out of the root (absolute): the user's own `exclude`, each
        # pattern against the config that wrote it, and those links.
        entry = info.lists.get("exclude")
        if "exclude" in lists or entry is None:
            kept = list(lists.get("exclude") or [])  # type: ignore[call-overload]
        else:
            written = entry[0] if isinstance(entry[0], list) else []
            kept = [_absolute(p, entry[1], project_dir) for p in written]
        lists["exclude"] = [p for p in kept if isinstance(p, str)] + list(outside)
    return lists


def _anchored_types(info: _Merged, project_dir: str) -> list[tuple[object, object]]:
    """The `types` list as the wrapper spells it, beside each entry as written.

    Empty when nothing needs a new spelling. Without typeRoots of the
    user's, tsc resolves an entry that is a path (`./x`, `../x`, `.`, `..`)
    against the directory of the config it builds, which for us is the
    wrapper's; and an explicit typeRoots (which the wrapper may write)
    makes it look every entry up in the roots only. So those entries become
    absolute paths against the user's config (`project_dir`), which tsc
    finds as they are. Bare names (packages) and absolute paths stay; with
    the user's own typeRoots every entry is looked up in them, natively as
    in the wrapper, and nothing changes.
    """
    listed = info.options.get("types")
    if "typeRoots" in info.options or listed is None or not isinstance(listed[0], list):
        return []
    pairs: list[tuple[object, object]] = []
    for entry in listed[0]:
        spelled = _substitute(entry, project_dir)
        if isinstance(spelled, str) and _RELATIVE.match(spelled):
            spelled = os.path.normpath(os.path.join(project_dir, spelled))
        pairs.append((spelled, entry))
    return pairs if any(spelled != entry for spelled, entry in pairs) else []


def _ancestors(directory: str) -> list[str]:
    """`directory` and its parents up to the file system's root, nearest first."""
    found = [directory]
    while os.path.dirname(directory) != directory:
        directory = os.path.dirname(directory)
        found.append(directory)
    return found


def _type_roots(project_dir: str) -> list[str]:
    """`node_modules/@types` from the project's directory upward, as tsc finds them."""
    return _upward(project_dir, os.path.join("node_modules", "@types"))


def _node_modules_upward(project_dir: str) -> list[str]:
    return _upward(project_dir, "node_modules")


def _upward(start: str, name: str) -> list[str]:
    """Existing directories `<dir>/<name>` from `start` up to the file system root."""
    found = []
    current = start
    while True:
        candidate = os.path.join(current, name)
        if os.path.isdir(candidate):
            found.append(candidate)
        parent = os.path.dirname(current)
        if parent == current:
            return found
        current = parent
