"use strict";
// Signalint's kept-warm tsc worker (see signalint/engines/tsc/warm.py).
//
// Started as `node tsc_worker.cjs <typescript/lib/typescript.js>`: the
// project's own TypeScript compiler API, the package its `tsc` comes from.
// It answers the two commands Signalint's tsc adapter runs cold:
//
//   tsc -p CONFIG --noEmit --pretty false --listFiles --incremental --tsBuildInfoFile X
//   tsc -b ROOT_WRAPPER --pretty false --listFiles --verbose
//
// with what that `tsc` would have written to stdout and its exit code, by
// running the compiler's own command-line steps (config parsing, diagnostic
// reporter, `emitFilesAndReportErrorsAndGetExitStatus`, the solution
// builder) on a System whose `write` is captured. What is kept between asks:
// each project's builder program (its state: file versions, signatures,
// semantic diagnostics) and the parsed, bound SourceFile of every file it
// read. On every ask the config is looked at again (`parsedConfig`), and
// every file a program reads: a SourceFile is reused when its text is equal
// to what it was parsed from, or without reading when the file's stat
// (size, mtime, ctime, inode) is the one it had when it was read and it was
// not written within SETTLE_MS of that read (the rule Signalint's own file
// digests follow: a write always moves ctime, and one too close to a read
// is read again).
//
// In `-p` mode the program itself is kept too, so an edit that leaves the
// program's structure alone (its files, their imports, its options) reuses
// it whole, as `tsc --watch` does. Its module resolutions are kept only
// while everything they asked of the file system answers the same: every
// existence check, directory listing, real path and JSON file read while
// resolving (a package installed, a file added or removed, a package.json
// edited) is recorded and asked again, from fresh directory listings,
// before each ask; one differing answer redoes every resolution. Build mode
// redoes them on every ask.
//
// In `-p` mode (always `--noEmit` here) the build info is not written:
// computing it costs as much as the rest of an edit, and only a cold run
// reads it. The answer is unchanged (tsc reports what writing it returns);
// a cold run after the worker starts from the build info it finds, which
// tsc checks by content.
//
// The protocol is ours (no library exists for it): one JSON object a line.
//   worker -> {"ready": true, "version": "<typescript version>"}
//   ask    -> {"args": [...argv after the executable], "cwd": "<dir>", "have": <id>,
//              "only": ["<absolute file>", ...] (optional)}
//   answer -> {"id": <id>, "stdout": "...", "exit": <code>} or {"error": "..."}
// With `only`, the answer holds the diagnostics those files would show in
// the whole answer and every diagnostic that belongs to no file
// (`scopedTo`), and `"scoped": [the files of `only` in the program]`; in
// build mode, of the projects holding them, each built after its references
// (`runBuild`); projects that merely depend on them are not built.
// or, when `have` names the worker's last answer, that answer's change:
//   answer -> {"id": <id>, "base": <have>, "head": <n>, "tail": <n>,
//              "middle": "...", "exit": <code>}
// meaning the base's first `head` and last `tail` characters (whole lines,
// counted in code points, as the asker indexes text) with `middle` between.
// The worker exits when its stdin ends.

const fs = require("fs");
const path = require("path");
const readline = require("readline");

const ts = require(process.argv[2]);
const send = process.stdout.write.bind(process.stdout);
// Anything else that writes to stdout must not corrupt the protocol.
process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);

const PARSE_FOR_TYPE_ERRORS = 2; // JSDocParsingMode, as tsc's command line sets it
// A file written this close to (or after) our read of it is read again.
const SETTLE_MS = 2000;

class Exit {
  constructor(code) {
    this.code = code;
  }
}

// Per project (config file path): the last builder program, the hash of the
// build info it wrote, and its SourceFiles by name and parse options.
const projects = new Map();

function projectState(key) {
  let state = projects.get(key);
  if (!state) {
    state = { builder: undefined, buildInfo: undefined, files: new Map(), stats: new Map(), used: new Set(), touched: false };
    projects.set(key, state);
  }
  return state;
}

function digest(text) {
  return require("crypto").createHash("sha256").update(text).digest("hex");
}

function readBuildInfoHash(options) {
  const file = ts.getTsBuildInfoEmitOutputFilePath(options);
  if (!file) return undefined;
  try {
    return digest(fs.readFileSync(file));
  } catch {
    return undefined;
  }
}

function makeSystem(out) {
  return {
    ...ts.sys,
    write: (s) => out.push(s),
    writeOutputIsTTY: () => false,
    exit: (code) => {
      throw new Exit(code === undefined ? 0 : code);
    },
  };
}

function sourceKey(fileName, options) {
  if (typeof options !== "object" || options === null) return `${fileName}\u0000${options}`;
  return [
    fileName,
    options.languageVersion,
    options.impliedNodeFormat,
    options.jsDocParsingMode,
  ].join("\u0000");
}

// A file's stat, as compared between asks, and when it was last written.
function statOf(fileName) {
  let st;
  try {
    st = fs.statSync(fileName, { throwIfNoEntry: false });
  } catch {
    return undefined; // not a directory on the way, no permission
  }
  if (st === undefined || !st.isFile()) return undefined;
  // Milliseconds as doubles: a microsecond apart still differs.
  return { sig: `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`, written: Math.max(st.mtimeMs, st.ctimeMs) };
}

// Make `host` return the project's SourceFile of the same text, parsing
// only what is new or changed; and re-resolve every module (nothing
// watches the file system between asks).
function useSourceCache(host, state, original) {
  host.getSourceFile = (fileName, options, onError, shouldCreateNew) => {
    const key = sourceKey(fileName, options);
    const known = state.files.get(key);
    const seen = known && !shouldCreateNew ? state.stats.get(key) : undefined;
    const stat = statOf(fileName);
    if (seen !== undefined && stat !== undefined && seen === stat.sig) {
      state.used.add(key);
      return known;
    }
    const readAt = Date.now();
    let text;
    try {
      text = host.readFile(fileName);
    } catch {
      return original.call(host, fileName, options, onError, shouldCreateNew);
    }
    if (text === undefined) return original.call(host, fileName, options, onError, shouldCreateNew);
    state.used.add(key);
    let file = known;
    if (!known || shouldCreateNew || known.text !== text) {
      file = original.call(host, fileName, options, onError, shouldCreateNew);
      if (file) state.files.set(key, file);
      else state.files.delete(key);
    }
    // Trusted from its stat next time only when it was not written while we
    // read it, nor within SETTLE_MS before.
    const after = statOf(fileName);
    const settled = stat !== undefined && after !== undefined && after.sig === stat.sig;
    if (file && settled && after.written < readAt - SETTLE_MS) state.stats.set(key, after.sig);
    else state.stats.delete(key);
    return file;
  };
  // Kept only when the ask proved them current (`probesHold`).
  const invalid = host.__signalintResolutionsHold !== true;
  host.hasInvalidatedResolutions = () => invalid;
  host.hasInvalidatedLibResolutions = () => invalid;
}

// The builder program to continue from: ours, unless the build info on
// disk is not the one that was there after our last ask (another run wrote
// it since, or removed it). In `-p` mode we write none: there may be none.
function oldProgram(state, options, host) {
  if (state.builder && readBuildInfoHash(options) === state.buildInfo) {
    return state.builder;
  }
  state.builder = undefined;
  return ts.readBuilderProgram(options, host);
}

// Options, as far as they are plain values: a parsed and bound file is only
// reused under the options it was bound with.
function fingerprint(options) {
  return JSON.stringify(options, (key, value) => (key === "configFile" ? undefined : value));
}

function createProgram(rootNames, options, host, _old, configDiagnostics, references) {
  const key = options.configFilePath || "";
  const print = fingerprint(options);
  if (projects.has(key) && projects.get(key).print !== print) projects.delete(key);
  const state = projectState(key);
  state.print = print;
  if (!host.__signalintGetSourceFile) host.__signalintGetSourceFile = host.getSourceFile;
  useSourceCache(host, state, host.__signalintGetSourceFile);
  const old = oldProgram(state, options, host);
  const program = ts.createProgram({
    rootNames,
    options,
    host,
    oldProgram: old && old.getProgramOrUndefined(),
    configFileParsingDiagnostics: configDiagnostics,
    projectReferences: references,
  });
  const builder = withImportTargets(program, state, () =>
    ts.createEmitAndSemanticDiagnosticsBuilderProgram(program, host, old, configDiagnostics),
  );
  state.builder = builder;
  state.options = options;
  state.touched = true;
  return builder;
}

// The builder finds every file's dependencies again on each ask, asking the
// checker for the module each import names (thousands of lookups). While
// the program's structure is kept whole (its files, their imports and
// resolutions, its options), an import of a file it kept names the same
// file: `run` lets the builder's lookups that found a module file answer
// from the last ask's. Only files are remembered (an ambient module can
// move without the structure changing), and a stale answer could only add
// a dependency, which re-checks more, never less. The checker's own work
// does not go through this method, and it is put back before `run` returns.
function withImportTargets(program, state, run) {
  const whole = ts.StructureIsReused && program.structureIsReused === ts.StructureIsReused.Completely;
  if (!whole || !state.importTargets) state.importTargets = new WeakMap();
  const targets = state.importTargets;
  const checker = program.getTypeChecker();
  const lookup = checker.getSymbolAtLocation;
  checker.getSymbolAtLocation = (node) => {
    let symbol = targets.get(node);
    if (symbol === undefined) {
      symbol = lookup.call(checker, node);
      const declaration = symbol && symbol.valueDeclaration;
      if (declaration && declaration.kind === ts.SyntaxKind.SourceFile) targets.set(node, symbol);
    }
    return symbol;
  };
  try {
    return run();
  } finally {
    checker.getSymbolAtLocation = lookup;
  }
}

// After an ask: what each program wrote, and which SourceFiles it used.
function settle() {
  for (const state of projects.values()) {
    if (!state.touched) continue;
    state.touched = false;
    if (state.builder) {
      // `-p` keeps its program for the next ask (`runProject`).
      if (!state.probes) state.builder.releaseProgram();
      state.buildInfo = readBuildInfoHash(state.options);
    }
    for (const key of state.files.keys()) {
      if (!state.used.has(key)) {
        state.files.delete(key);
        state.stats.delete(key);
      }
    }
    state.used = new Set();
  }
}

// An absolute name's directory and base name (null for the file system's
// root), kept for the worker's life: the same names are asked on every ask.
const places = new Map();
function place(name) {
  let where = places.get(name);
  if (where === undefined) {
    const absolute = path.resolve(name);
    const parent = path.dirname(absolute);
    where = parent === absolute ? null : [parent, path.basename(absolute)];
    if (path.isAbsolute(name)) places.set(name, where);
  }
  return where;
}

// `system` answering fileExists and directoryExists from one listing per
// directory, read at most once in this ask (module resolution asks for
// every extension of every import: thousands of stats). A name that is a
// symbolic link or of an unknown kind, or a directory that cannot be
// listed, is asked of `system` itself. Only for `-p`, which writes nothing
// while it runs; a file system that ignores case is not listed.
function listed(system) {
  if (!system.useCaseSensitiveFileNames) return system;
  const listings = new Map();
  function listing(directory) {
    let found = listings.get(directory);
    if (found === undefined) {
      try {
        found = new Map();
        for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
          found.set(entry.name, entry.isFile() ? "file" : entry.isDirectory() ? "directory" : "other");
        }
      } catch (caught) {
        found = caught && (caught.code === "ENOENT" || caught.code === "ENOTDIR") ? null : "unlisted";
      }
      listings.set(directory, found);
    }
    return found;
  }
  function exists(name, kind, asSystem) {
    const where = place(name);
    if (where === null) return asSystem(name);
    const entries = listing(where[0]);
    if (entries === null) return false;
    if (entries === "unlisted") return asSystem(name);
    const found = entries.get(where[1]);
    if (found === undefined) return false;
    return found === "other" ? asSystem(name) : found === kind;
  }
  return {
    ...system,
    fileExists: (name) => exists(name, "file", (n) => system.fileExists(n)),
    directoryExists: (name) => exists(name, "directory", (n) => system.directoryExists(n)),
  };
}

// A directory's files and subdirectories as TypeScript's own `sys` lists
// them for `readDirectory` (symbolic links followed, others dropped, each
// list sorted; nothing when it cannot be listed).
function directoryEntries(directory) {
  const files = [];
  const directories = [];
  let entries;
  try {
    entries = fs.readdirSync(directory || ".", { withFileTypes: true });
  } catch {
    return { files, directories };
  }
  for (const entry of entries) {
    let kind = entry;
    if (entry.isSymbolicLink()) {
      try {
        kind = fs.statSync(path.join(directory, entry.name), { throwIfNoEntry: false });
      } catch {
        kind = undefined;
      }
      if (!kind) continue;
    }
    if (kind.isFile()) files.push(entry.name);
    else if (kind.isDirectory()) directories.push(entry.name);
  }
  files.sort();
  directories.sort();
  return { files, directories };
}

// The parsed config of `-p`, kept while everything parsing it read answers
// the same (`probesHold`): the config files and what their `extends` looked
// up, and every directory the include patterns listed. Listing a directory
// again costs little; matching thousands of names against the patterns is
// most of a parse. Without TypeScript's `matchFiles` it is parsed each time.
const configs = new Map();
function parsedConfig(configFileName, commandLineOptions, watchOptions, system, report) {
  const key = JSON.stringify([configFileName, commandLineOptions, watchOptions === undefined ? null : watchOptions]);
  const kept = configs.get(key);
  if (kept && probesHold(kept.probes, system)) return kept.config;
  configs.delete(key);
  const probes = new Map();
  let unrecoverable = false;
  const reporting = (diagnostic) => {
    unrecoverable = true;
    report(diagnostic);
  };
  const recording = { ...probing(system, probes, true) };
  if (typeof ts.matchFiles === "function") {
    recording.readDirectory = (directory, extensions, excludes, includes, depth) =>
      ts.matchFiles(directory, extensions, excludes, includes, system.useCaseSensitiveFileNames, system.getCurrentDirectory(), depth,
        (listed) => {
          const entries = directoryEntries(listed);
          probes.set(`e\u0000${listed}`, JSON.stringify(entries));
          return entries;
        },
        recording.realpath || ((name) => name));
  }
  const config = ts.parseConfigFileWithSystem(configFileName, commandLineOptions, new Map(), watchOptions, recording, reporting);
  if (config && !unrecoverable && recording.readDirectory !== system.readDirectory) configs.set(key, { probes, config });
  return config;
}

// What module resolution asked of `system` (each existence check, listing,
// real path and JSON file read, with its answer), recorded in `probes`.
function probing(system, probes, everyRead = false) {
  function recorded(kind, ask) {
    return (name) => {
      const answer = ask(name);
      probes.set(`${kind}\u0000${name}`, answer === undefined ? null : answer);
      return answer;
    };
  }
  return {
    ...system,
    fileExists: recorded("f", (n) => system.fileExists(n)),
    directoryExists: recorded("d", (n) => system.directoryExists(n)),
    realpath: system.realpath && recorded("r", (n) => system.realpath(n)),
    getDirectories: (name) => {
      const directories = system.getDirectories(name);
      probes.set(`l\u0000${name}`, directories.join("\u0000"));
      return directories;
    },
    readFile: (name, encoding) => {
      const text = system.readFile(name, encoding);
      if (everyRead || name.endsWith(".json")) probes.set(`j\u0000${name}`, text === undefined ? null : text);
      return text;
    },
  };
}

// Whether every recorded probe answers the same now (through `system`, which
// lists each directory afresh).
function probesHold(probes, system) {
  for (const [key, was] of probes) {
    const at = key.indexOf("\u0000");
    const kind = key.slice(0, at);
    const name = key.slice(at + 1);
    let now;
    if (kind === "f") now = system.fileExists(name);
    else if (kind === "d") now = system.directoryExists(name);
    else if (kind === "r") now = system.realpath ? system.realpath(name) : undefined;
    else if (kind === "l") now = system.getDirectories(name).join("\u0000");
    else if (kind === "e") now = JSON.stringify(directoryEntries(name));
    else now = system.readFile(name);
    if ((now === undefined ? null : now) !== was) return false;
  }
  return true;
}

// tsc's reporter for `--pretty false`, remembering each diagnostic's text:
// the builder hands back the same diagnostic objects for unchanged files.
const texts = new WeakMap();
function formatted(system) {
  const host = {
    getCurrentDirectory: () => system.getCurrentDirectory(),
    getNewLine: () => system.newLine,
    getCanonicalFileName: ts.createGetCanonicalFileName(system.useCaseSensitiveFileNames),
  };
  return (diagnostic) => {
    let text = texts.get(diagnostic);
    if (text === undefined || text.cwd !== host.getCurrentDirectory()) {
      text = { cwd: host.getCurrentDirectory(), value: ts.formatDiagnostic(diagnostic, host) };
      texts.set(diagnostic, text);
    }
    system.write(text.value);
  };
}

// `tsc -p CONFIG ...`, as tsc's executeCommandLine runs it (incremental).
function runProject(system, args, only) {
  let report = ts.createDiagnosticReporter(system);
  const commandLine = ts.parseCommandLine(args, (p) => system.readFile(p));
  const failed = ts.ExitStatus.DiagnosticsPresent_OutputsSkipped;
  if (commandLine.errors.length > 0) {
    commandLine.errors.forEach(report);
    return system.exit(failed);
  }
  const o = commandLine.options;
  if (!o.project || o.watch || o.build || o.init || o.version || o.help || o.all || o.showConfig || o.locale) {
    throw new Error("not a command this worker answers");
  }
  if (commandLine.fileNames.length !== 0) {
    report(ts.createCompilerDiagnostic(ts.Diagnostics.Option_project_cannot_be_mixed_with_source_files_on_a_command_line));
    return system.exit(failed);
  }
  let configFileName;
  const fileOrDirectory = ts.normalizePath(o.project);
  if (!fileOrDirectory || system.directoryExists(fileOrDirectory)) {
    configFileName = ts.combinePaths(fileOrDirectory, "tsconfig.json");
    if (!system.fileExists(configFileName)) {
      report(ts.createCompilerDiagnostic(ts.Diagnostics.Cannot_find_a_tsconfig_json_file_at_the_specified_directory_Colon_0, o.project));
      return system.exit(failed);
    }
  } else {
    configFileName = fileOrDirectory;
    if (!system.fileExists(configFileName)) {
      report(ts.createCompilerDiagnostic(ts.Diagnostics.The_specified_path_does_not_exist_Colon_0, o.project));
      return system.exit(failed);
    }
  }
  const cwd = system.getCurrentDirectory();
  const commandLineOptions = ts.convertToOptionsWithAbsolutePaths(o, (f) => ts.getNormalizedAbsolutePath(f, cwd));
  const config = parsedConfig(configFileName, commandLineOptions, commandLine.watchOptions, system, report);
  const options = config.options;
  if (options.pretty || ts.isWatchSet(options) || !ts.isIncrementalCompilation(options)) {
    throw new Error("not a command this worker answers");
  }
  // The kept program's resolutions hold while its probes answer the same.
  const files = listed(system);
  const kept = projects.get(options.configFilePath || "");
  const hold = !!(kept && kept.builder && kept.probes && kept.print === fingerprint(options) && probesHold(kept.probes, files));
  const probes = hold ? kept.probes : new Map();
  const host = ts.createIncrementalCompilerHost(options, probing(files, probes));
  host.__signalintResolutionsHold = hold;
  host.jsDocParsingMode = PARSE_FOR_TYPE_ERRORS;
  const builder = createProgram(
    config.fileNames,
    options,
    host,
    undefined,
    ts.getConfigFileParsingDiagnostics(config),
    config.projectReferences,
  );
  projectState(options.configFilePath || "").probes = probes;
  // What writing the build info returns when it is due, without computing
  // it (the module header); the builder's own bookkeeping is unchanged.
  const program = builder.getProgram();
  program.emitBuildInfo = () => ({ emitSkipped: false, diagnostics: [] });
  const reported = only ? scopedTo(builder, only) : builder;
  const status = ts.emitFilesAndReportErrorsAndGetExitStatus(reported, formatted(system), (s) => host.trace && host.trace(s), undefined);
  return system.exit(status);
}

// The builder as tsc's reporting steps see it when only `only`'s files
// (absolute names) are wanted: everything as usual (the config, options,
// global and every file's syntactic diagnostics, which decide whether
// semantic ones are reported at all, and `--listFiles`), but the semantic
// and declaration diagnostics of those files alone, from the program's own
// checker (a file another edit affects is checked afresh: the builder's
// per-file diagnostics are brought up to date only by a whole ask, which the
// kept builder state still owes). What it stands for is kept in `scoped`.
function scopedTo(builder, only) {
  const program = builder.getProgram();
  const files = [];
  for (const name of only) {
    const file = program.getSourceFile(name);
    if (file) files.push(file);
  }
  scoped = (scoped || []).concat(files.map((file) => file.fileName));
  const each = (method) => () => files.flatMap((file) => program[method](file));
  return Object.assign(Object.create(builder), {
    getSemanticDiagnostics: each("getSemanticDiagnostics"),
    getDeclarationDiagnostics: each("getDeclarationDiagnostics"),
    // What emitting returns under --noEmit --incremental (`runProject`),
    // without the builder's emit, which would check every affected file.
    emit: () => ({ emitSkipped: false, diagnostics: [] }),
  });
}

// `tsc -b ROOT ...`, as tsc's performBuild runs it; every project of the
// graph is built from the kept builder programs, so what is up to date is
// decided by content, never by modification times.
function runBuild(system, args, only) {
  const parsed = ts.parseBuildCommand(args);
  const report = ts.createDiagnosticReporter(system);
  const failed = ts.ExitStatus.DiagnosticsPresent_OutputsSkipped;
  const b = parsed.buildOptions;
  if (b.pretty || b.watch || b.clean || b.dry || b.help || b.locale || parsed.projects.length === 0) {
    throw new Error("not a command this worker answers");
  }
  if (parsed.errors.length > 0) {
    parsed.errors.forEach(report);
    return system.exit(failed);
  }
  const host = ts.createSolutionBuilderHost(
    system,
    createProgram,
    report,
    ts.createBuilderStatusReporter(system, false),
    undefined,
  );
  host.jsDocParsingMode = PARSE_FOR_TYPE_ERRORS;
  // Every config looks just written: tsc's up-to-date check then finds
  // each project with sources out of date (after reading its build info as
  // usual), and builds it from the kept program, which re-reads every input.
  const modifiedTime = host.getModifiedTime;
  host.getModifiedTime = (file) => (file.endsWith(".json") ? new Date() : modifiedTime(file));
  const builder = ts.createSolutionBuilder(host, parsed.projects, b);
  // Before 5.6 a project whose dependency has errors is skipped, which only
  // the whole build reports (a coverage gap): those versions build whole.
  const [major, minor] = ts.versionMajorMinor.split(".").map(Number);
  const pastErrors = major > 5 || (major === 5 && minor >= 6);
  const owners = only && pastErrors ? ownersOf(builder, only, system) : undefined;
  if (!owners) return system.exit(builder.build());
  // Each project holding one of the files is built as far as it needs
  // (its references, whole), then reported for those files alone.
  let errors = false;
  scoped = [];
  for (const owner of owners) {
    const one = ts.createSolutionBuilder(host, [owner], b);
    let reported = false;
    for (let next = one.getNextInvalidatedProject(); next && !reported; next = one.getNextInvalidatedProject()) {
      const builderProgram = next.project === owner && next.kind === ts.InvalidatedProjectKind.Build ? next.getBuilderProgram() : undefined;
      if (!builderProgram) {
        next.done();
        continue;
      }
      const { diagnostics } = ts.emitFilesAndReportErrors(scopedTo(builderProgram, only), report);
      errors = errors || diagnostics.length > 0;
      reported = true;
    }
    // Never a partial answer passed off as a scoped one: the asker then
    // runs the command cold.
    if (!reported) throw new Error(`tsc did not build ${owner}, which holds a file asked for`);
  }
  return system.exit(errors ? failed : ts.ExitStatus.Success);
}

// The projects of a build that hold any of `only`'s files and that no other
// such project references (a referenced one is built whole on the way), in
// build order; undefined when the build order cannot be read (a cycle).
function ownersOf(builder, only, system) {
  const order = builder.getBuildOrder();
  if (!Array.isArray(order)) return undefined;
  const parseHost = { ...system, onUnRecoverableConfigFileDiagnostic: () => {} };
  const wanted = new Set(only);
  const references = new Map();
  const owning = [];
  for (const config of order) {
    const parsed = ts.getParsedCommandLineOfConfigFile(config, undefined, parseHost);
    if (!parsed) return undefined;
    references.set(config, (parsed.projectReferences || []).map((r) => ts.resolveProjectReferencePath(r)));
    if (parsed.fileNames.some((f) => wanted.has(f))) owning.push(config);
  }
  const upstream = new Set();
  const visit = (config) => {
    for (const ref of references.get(config) || []) {
      if (!upstream.has(ref)) {
        upstream.add(ref);
        visit(ref);
      }
    }
  };
  owning.forEach(visit);
  return owning.filter((config) => !upstream.has(config));
}

// The files a scoped ask's answer covers (`scopedTo`); undefined: all.
let scoped;

function answer(request) {
  scoped = undefined;
  const out = [];
  const system = makeSystem(out);
  if (process.cwd() !== request.cwd) process.chdir(request.cwd);
  const args = request.args;
  let exit;
  try {
    const only = Array.isArray(request.only) ? request.only : undefined;
    if (args.length > 0 && (args[0] === "-b" || args[0] === "--build")) runBuild(system, args, only);
    else runProject(system, args, only);
    throw new Error("tsc did not exit");
  } catch (caught) {
    if (!(caught instanceof Exit)) {
      projects.clear();
      throw caught;
    }
    exit = caught.code;
  }
  settle();
  const reply = changes(request, out.join(""), exit);
  if (scoped) reply.scoped = scoped;
  return reply;
}

// The last answer, for answering the next one as its difference.
let last = { id: 0, stdout: "" };
// Characters compared at once while looking for where two answers differ.
const BLOCK = 4096;

// An answer as the change from the last one when the asker holds it
// (`request.have`): the text between what both share at the start and at
// the end. A warm edit re-prints the whole program's diagnostics, mostly
// as they were.
function changes(request, stdout, exit) {
  const base = last;
  last = { id: base.id + 1, stdout };
  if (request.have !== base.id || base.id === 0) return { id: last.id, stdout, exit };
  const before = base.stdout;
  const limit = Math.min(before.length, stdout.length);
  // Shared runs are found a block at a time (a native comparison), then
  // to the character within the block that differs.
  let head = 0;
  while (head + BLOCK <= limit && before.slice(head, head + BLOCK) === stdout.slice(head, head + BLOCK)) head += BLOCK;
  while (head < limit && before.charCodeAt(head) === stdout.charCodeAt(head)) head++;
  let tail = 0;
  const room = limit - head;
  while (tail + BLOCK <= room && before.slice(before.length - tail - BLOCK, before.length - tail) === stdout.slice(stdout.length - tail - BLOCK, stdout.length - tail)) tail += BLOCK;
  while (tail < room && before.charCodeAt(before.length - 1 - tail) === stdout.charCodeAt(stdout.length - 1 - tail)) tail++;
  // Whole lines only, so no character's two halves are parted.
  const same = head === stdout.length && head === before.length;
  if (!same && head > 0) head = stdout.lastIndexOf("\n", head - 1) + 1;
  if (tail > 0) {
    const start = stdout.indexOf("\n", stdout.length - tail - 1);
    tail = start < 0 ? 0 : stdout.length - start - 1;
  }
  const middle = stdout.slice(head, stdout.length - tail);
  // Counted in characters (code points), as the asker indexes text.
  return { id: last.id, base: base.id, head: head - pairs(stdout, 0, head), tail: tail - pairs(stdout, stdout.length - tail, stdout.length), middle, exit };
}

// How many surrogate pairs (characters of two UTF-16 units) text[from:to] holds.
const LEADING = /[\ud800-\udbff]/g;
function pairs(text, from, to) {
  const found = text.slice(from, to).match(LEADING);
  return found === null ? 0 : found.length;
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (!line.trim()) return;
  let reply;
  try {
    reply = answer(JSON.parse(line));
  } catch (caught) {
    reply = { error: String((caught && caught.stack) || caught) };
  }
  send(JSON.stringify(reply) + "\n");
});
lines.on("close", () => process.exit(0));
send(JSON.stringify({ ready: true, version: ts.version }) + "\n");
