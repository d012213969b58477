// Signalint's warm worker for TypeScript 7 (the native compiler): keeps one
// project open in the compiler's own API process and answers, per request,
// what `tsc -p CONFIG --noEmit --pretty false --listFiles` prints and exits
// with. See signalint/engines/tsc/warm_native.py for the protocol and the why.
//
// Protocol (written for Signalint; one JSON object per line both ways):
//   argv: node tsc_native_worker.mjs <typescript package dir>
//   out:  {"ready": "<version>"} once the API module is loaded
//   in:   {"config": "<absolute tsconfig path>", "only": ["<absolute file>", ...]?}
//   out:  {"stdout": "...", "exit": 0|1|2, "changed": n, "scoped": [...]?} or {"error": "..."}
// With `only`, the semantic and declaration diagnostics are those files'
// alone (everything else as in the whole answer), and `scoped` names the
// files of `only` that the program holds.
// The worker exits when its stdin ends.

import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { pathToFileURL } from "node:url";

const packageDir = process.argv[2];
// Signalint's state directory (build info, wrappers): never the project's input.
const stateDir = process.argv[3] ? path.resolve(process.argv[3]) : undefined;
const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8"));
const { API } = await import(pathToFileURL(path.join(packageDir, "dist/api/sync/api.js")).href);

const cwd = process.cwd();
let api;
let snapshot;
let opened;
// Absolute path -> content hash (null: absent) of every file the last
// answer depended on: the program's files and the files the config matches.
let known = new Map();
// Directory -> listing hash, for directories whose new entries could change
// module resolution without being matched by the config (node_modules).
let listings = new Map();
// package.json files (null: absent) in the directories of the program's
// files and above: they decide module formats and package resolution.
let manifests = new Map();

// Absolute path -> {id, hash}: a file's hash, reused while its stat (size,
// mtime, ctime, inode) stays the same. Kept only for a file whose last
// change was more than RACY_NS before it was read: a write closer than that
// might not have moved its timestamps (Signalint's own file digests follow
// the same rule).
const hashes = new Map();
const RACY_NS = 2_000_000_000n;

function digest(file) {
  let st;
  try {
    st = fs.statSync(file, { bigint: true });
  } catch {
    hashes.delete(file);
    return null;
  }
  const id = `${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}`;
  const kept = hashes.get(file);
  if (kept !== undefined && kept.id === id) return kept.hash;
  const readAt = BigInt(Date.now()) * 1_000_000n;
  let hash;
  try {
    hash = createHash("sha1").update(fs.readFileSync(file)).digest("base64");
  } catch {
    hashes.delete(file);
    return null;
  }
  const newest = st.mtimeNs > st.ctimeNs ? st.mtimeNs : st.ctimeNs;
  if (newest < readAt - RACY_NS) hashes.set(file, { id, hash });
  else hashes.delete(file);
  return hash;
}

function listing(dir) {
  try {
    const names = fs.readdirSync(dir).sort();
    const scoped = names
      .filter((n) => n.startsWith("@"))
      .map((n) => {
        try {
          return n + ":" + fs.readdirSync(path.join(dir, n)).sort().join("/");
        } catch {
          return n;
        }
      });
    return names.join("/") + "|" + scoped.join("|");
  } catch {
    return null;
  }
}

function moduleDirs(config) {
  const found = [];
  let dir = path.dirname(config);
  for (;;) {
    found.push(path.join(dir, "node_modules"));
    const parent = path.dirname(dir);
    if (parent === dir) return found;
    dir = parent;
  }
}

// Files the compiler ships (its default libraries) change only with its
// version, which restarts the worker; everything else is hashed every ask.
// (The platform package beside `typescript` holds the binary and the libs.)
const shipped =
  path.join(
    path.dirname(fs.realpathSync(packageDir)),
    "@typescript",
    `typescript-${process.platform}-${process.arch}`,
  ) + path.sep;
function tracked(file) {
  return !file.startsWith(shipped);
}

function packageManifests(files) {
  const found = new Map();
  const seen = new Set();
  for (const file of files) {
    if (!tracked(file)) continue;
    let dir = path.dirname(file);
    while (!seen.has(dir)) {
      seen.add(dir);
      const manifest = path.join(dir, "package.json");
      found.set(manifest, digest(manifest));
      const parent = path.dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  return found;
}

function candidates(config) {
  const parsed = api.parseConfigFile(config);
  return parsed && Array.isArray(parsed.fileNames) ? parsed.fileNames : [];
}

// Files under the project directory a module could resolve to (extensions
// TypeScript resolves), node_modules and .git aside: a new one may be what an
// unresolved import (outside the config's `include`) was looking for.
const RESOLVABLE = /\.(d\.)?([mc]?[tj]sx?|json)$/;
let tree;

function walk(dir, found) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return found;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== ".git" && full !== stateDir) {
        walk(full, found);
      }
    } else if (RESOLVABLE.test(entry.name)) {
      found.add(full);
    }
  }
  return found;
}

function fileChanges(config) {
  // What the config matches now (it is re-read, so new files show up),
  // what the program read last time, and what appeared or went under the
  // project directory.
  const wanted = new Set(known.keys());
  for (const file of candidates(config)) wanted.add(file);
  const present = walk(cwd, new Set());
  for (const file of present) if (!tree.has(file)) wanted.add(file);
  for (const file of tree) if (!present.has(file)) wanted.add(file);
  tree = present;
  const changed = [];
  const created = [];
  const deleted = [];
  const next = new Map();
  for (const file of wanted) {
    const now = digest(file);
    next.set(file, now);
    if (!known.has(file)) {
      if (now !== null) created.push(file);
      continue;
    }
    const before = known.get(file);
    if (before === now) continue;
    if (before === null) created.push(file);
    else if (now === null) deleted.push(file);
    else changed.push(file);
  }
  let invalidate = false;
  for (const [file, before] of manifests) {
    if (digest(file) !== before) invalidate = true;
  }
  for (const dir of moduleDirs(config)) {
    const now = listing(dir);
    if (listings.has(dir) && listings.get(dir) !== now) invalidate = true;
    listings.set(dir, now);
  }
  return { changed, created, deleted, invalidate, next };
}

// How `tsc --pretty false` prints a diagnostic's message: the chain below
// it on indented lines, two spaces per level.
function flatten(diagnostic, level, out) {
  if (level > 0) out.push("\n" + "  ".repeat(level));
  out.push(diagnostic.text);
  for (const child of diagnostic.messageChain ?? []) flatten(child, level + 1, out);
}

const CATEGORY = ["warning", "error", "suggestion", "message"];
// File -> {hash, starts}: line starts of a file's text, kept while its
// content hash (this ask's, in `known`) stays the same.
const texts = new Map();
const BREAK = /\r\n?|\n|\u2028|\u2029/g;

function lineStarts(file) {
  const hash = known.get(file);
  const kept = texts.get(file);
  if (kept && hash != null && kept.hash === hash) return kept.starts;
  let text = "";
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    text = "";
  }
  const starts = [0];
  BREAK.lastIndex = 0;
  for (let m = BREAK.exec(text); m !== null; m = BREAK.exec(text)) {
    starts.push(m.index + m[0].length);
  }
  texts.set(file, { hash, starts });
  return starts;
}

function relative(file) {
  const rel = path.relative(cwd, file);
  return rel.split(path.sep).join("/");
}

function format(diagnostic) {
  const parts = [];
  flatten(diagnostic, 0, parts);
  const head = `${CATEGORY[diagnostic.category] ?? "error"} TS${diagnostic.code}: ${parts.join("")}`;
  if (!diagnostic.fileName) return head;
  const starts = lineStarts(diagnostic.fileName);
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid] <= diagnostic.pos) low = mid;
    else high = mid - 1;
  }
  return `${relative(diagnostic.fileName)}(${low + 1},${diagnostic.pos - starts[low] + 1}): ${head}`;
}

function compareText(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

// tsc sorts and deduplicates what it reports: by file (none first),
// position, length, code, then message.
function sortAndDedupe(list) {
  const keyed = list.map((d) => {
    const parts = [];
    flatten(d, 0, parts);
    return { d, file: d.fileName ?? "", text: parts.join("") };
  });
  keyed.sort(
    (a, b) =>
      compareText(a.file, b.file) ||
      a.d.pos - b.d.pos ||
      a.d.end - a.d.pos - (b.d.end - b.d.pos) ||
      a.d.code - b.d.code ||
      compareText(a.text, b.text),
  );
  const out = [];
  let last;
  for (const k of keyed) {
    const key = [k.file, k.d.pos, k.d.end, k.d.code, k.text].join("\u0000");
    if (key !== last) out.push(k.d);
    last = key;
  }
  return out;
}

// What tsc collects for a program without emitting (its order of phases):
// config diagnostics and syntax errors; only without syntax errors the
// options and global ones, and only without those the semantic ones;
// declaration diagnostics when declarations would be emitted. The API's
// global diagnostics repeat the config's and the program's that have no
// file (7.0.2): only the checker's own count as global here.
function collect(program, options, files) {
  // Per file when only some are wanted (`answer`'s `only`).
  const each = (method) => (files ? files.flatMap((f) => program[method](f)) : program[method]());
  const all = [...program.getConfigFileParsingDiagnostics()];
  const configCount = all.length;
  all.push(...program.getSyntacticDiagnostics());
  if (all.length === configCount) {
    const optionsDiagnostics = program.getProgramDiagnostics();
    const seen = new Set([...all, ...optionsDiagnostics].map(identity));
    all.push(...optionsDiagnostics);
    all.push(...program.getGlobalDiagnostics().filter((d) => !seen.has(identity(d))));
    if (all.length === configCount) all.push(...each("getSemanticDiagnostics"));
    if ((options.declaration || options.composite) && all.length === configCount) {
      all.push(...each("getDeclarationDiagnostics"));
    }
  }
  return all;
}

function identity(d) {
  const parts = [];
  flatten(d, 0, parts);
  return [d.fileName ?? "", d.pos, d.end, d.code, parts.join("")].join("\u0000");
}

function answer(request) {
  const config = path.resolve(cwd, request.config);
  if (opened !== undefined && opened !== config) throw new Error("a worker serves one config");
  let params;
  let count = 0;
  const t0 = performance.now();
  if (api === undefined) {
    api = new API({ cwd });
    // Hashed before the compiler reads them: an edit in between shows next time.
    for (const file of candidates(config)) known.set(file, digest(file));
    tree = walk(cwd, new Set());
    for (const dir of moduleDirs(config)) listings.set(dir, listing(dir));
    params = { openProjects: [config] };
    opened = config;
  } else {
    const found = fileChanges(config);
    const { changed, created, deleted, next } = found;
    let invalidate = found.invalidate;
    known = next;
    count = changed.length + created.length + deleted.length;
    // 7.0.2 does not always re-resolve an import that failed before when
    // the module it looked for is created (after another snapshot came in
    // between), and `invalidateAll` alone does not add a new file the
    // config matches: a created file is reported, then everything is
    // invalidated.
    if (created.length > 0) invalidate = true;
    params = { fileChanges: { changed, created, deleted } };
    if (invalidate) {
      // The listed changes first, then everything.
      const first = api.updateSnapshot(params);
      if (snapshot) snapshot.dispose();
      snapshot = first;
      params = { fileChanges: { invalidateAll: true } };
      count = -1;
    }
  }
  const previous = snapshot;
  const t1 = performance.now();
  snapshot = api.updateSnapshot(params);
  if (previous) previous.dispose();
  const project = snapshot.getProject(config);
  if (!project) throw new Error(`the API did not open ${config}`);
  const program = project.program;
  const names = program.getSourceFileNames();
  const t2 = performance.now();
  let files;
  if (Array.isArray(request.only)) {
    const wanted = new Set(request.only);
    files = names.filter((name) => wanted.has(name));
  }
  const collected = collect(program, program.getCompilerOptions() ?? {}, files);
  const t3 = performance.now();
  const diagnostics = sortAndDedupe(collected);
  const t4 = performance.now();
  const lines = diagnostics.map(format);
  const t5 = performance.now();
  const next = new Map(known);
  for (const file of names) {
    if (tracked(file) && !next.has(file)) next.set(file, digest(file));
  }
  known = next;
  manifests = packageManifests(names);
  // No inputs at all (TS18003): tsc lists none.
  const listed = names;
  const stdout = [...lines, ...listed].map((l) => l + "\n").join("");
  const ms = (a, b) => Math.round(b - a);
  process.stderr.write(
    `answered ${config}: ${count} changed; hash ${ms(t0, t1)} ms, snapshot ${ms(t1, t2)} ms, ` +
      `diagnostics ${ms(t2, t3)} ms, sort ${ms(t3, t4)} ms, format ${ms(t4, t5)} ms, ` +
      `rest ${ms(t5, performance.now())} ms\n`,
  );
  // tsc 7 exits 1 when it reported anything and skipped emit (`--noEmit`
  // always skips it), else 0; 2 when the config found no inputs (TS18003).
  const exit = diagnostics.length === 0 ? 0 : names.length === 0 ? 2 : 1;
  return files ? { stdout, exit, changed: count, scoped: files } : { stdout, exit, changed: count };
}

function send(value) {
  process.stdout.write(JSON.stringify(value) + "\n");
}

send({ ready: manifest.version });
const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  if (!line.trim()) return;
  try {
    send(answer(JSON.parse(line)));
  } catch (error) {
    send({ error: String(error && error.stack ? error.stack : error) });
  }
});
input.on("close", () => {
  try {
    if (api) api.close();
  } finally {
    process.exit(0);
  }
});
