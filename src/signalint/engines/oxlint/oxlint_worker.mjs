// Signalint's kept-warm Oxlint worker (see signalint/engines/oxlint/warm.py).
//
// Started as `node oxlint_worker.mjs <oxlint package directory>` in the
// project root. Oxlint 1.x is a Node launcher (`bin/oxlint` imports
// `dist/cli.js`) around a native module that does the linting and writes
// its report straight to file descriptor 1; starting Node is most of a
// one-file run. This worker starts Node once and, for each ask, runs the
// package's own `dist/cli.js` again (a fresh instance of that module, so
// its command line is read anew) with the cold command's arguments: the
// same launcher, the same native module, the same report. Oxlint reads its
// configuration and the files from disk on every run.
//
// The protocol is ours (no library exists for it). Requests are JSON lines
// on stdin: {"args": [...argv after the executable], "cwd": "<dir>"}.
// On stdout, where Oxlint writes its report, each answer is that report
// followed by a NUL and a JSON line: {"exit": <code>} or {"error": "..."};
// the greeting is a NUL and {"ready": true, "version": "<oxlint version>"}.
// A JSON report never holds a NUL. The worker answers ASKS requests, then
// exits (each run keeps its module instance); it exits when stdin ends.

import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const { idleCollector } = createRequire(import.meta.url)("../../warm/idle_gc.cjs");

const ASKS = 2000;
const packageDir = process.argv[2];
const node = process.argv[0];
const cli = pathToFileURL(path.join(packageDir, "dist", "cli.js")).href;
const version = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8")).version;

function answer(message) {
  fs.writeSync(1, "\u0000" + JSON.stringify(message) + "\n");
}

// The launcher makes stdin blocking when stdout is not a terminal; ours is
// the request pipe, read by the event loop.
if (process.stdin._handle) process.stdin._handle.setBlocking = () => 0;

answer({ ready: true, version });
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
const tidy = idleCollector();
lines.on("line", tidy.busy);
let asks = 0;
for await (const line of lines) {
  tidy.busy();
  if (!line.trim()) continue;
  let reply;
  try {
    const request = JSON.parse(line);
    if (!Array.isArray(request.args) || typeof request.cwd !== "string") throw new Error("not a request");
    if (process.cwd() !== request.cwd) process.chdir(request.cwd);
    process.argv = [node, path.join(packageDir, "bin", "oxlint"), ...request.args];
    process.exitCode = undefined;
    asks += 1;
    await import(`${cli}?ask=${asks}`);
    reply = { exit: Number(process.exitCode ?? 0) };
  } catch (caught) {
    reply = { error: String((caught && caught.stack) || caught) };
  }
  process.exitCode = undefined;
  answer(reply);
  if (asks >= ASKS) break;
  tidy.idle();
}
process.exit(0);
