"use strict";
/*
 * Signalint's warm ESLint worker (driver: eslint.py beside this file).
 *
 * Usage: node eslint_worker.cjs <eslint package directory> [<sources
 * top>], run in the project root; the sources top (default: the root) is
 * the directory whose source files are hashed (below): the workspace's
 * top when the project is a package of one. It loads the project's own ESLint (the package the cold
 * `eslint` executable belongs to) through its Node API once, with the
 * options ESLint's own CLI derives from the cold command's arguments, and
 * keeps that instance (config, plugins, parsers, typescript-eslint's
 * TypeScript programs) between asks.
 *
 * Protocol (one JSON object per line, written by us because no maintained
 * library speaks to a long-lived ESLint): the worker first prints
 * {"ready": true, "version": V} (or {"ready": false, "error": E} and exits);
 * then, for each request {"id": N, "args": [...]} (the cold command's
 * arguments after the executable), it prints {"id": N, "stdout": S,
 * "stderr": E, "exitCode": C, "fatal": F}: what the `eslint` CLI would
 * have printed and exited with. After a fatal answer (exit code 2: the
 * config cannot load, a plugin is missing) it exits, so a fresh worker
 * loads everything again next time. It exits when its stdin closes.
 *
 * Freshness (D2): `lintFiles` reads every linted file from disk on each
 * ask (no cache). typescript-eslint keeps TypeScript programs (or a
 * TypeScript project service) between asks and does not notice edits to
 * files it is not linting right now; so once typescript-eslint is loaded,
 * before each ask the worker hashes the content of every source file of the
 * project (TypeScript and JavaScript sources, JSON, tsconfig files;
 * node_modules and VCS directories left out: their changes come with
 * package.json or the lockfile, which restart the worker), and when
 * anything changed since the last ask, or no hash was kept when its
 * programs were built (the ask that loaded it), it clears typescript-eslint's
 * caches (`clearCaches` of every loaded @typescript-eslint/typescript-estree),
 * so the programs are built again from disk exactly as a cold run builds
 * them. A project without typescript-eslint is never hashed.
 */

const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");
const readline = require("node:readline");

const packageDir = process.argv[2];
const root = process.cwd();
const top = process.argv[3] || root;

const SKIP_DIRS = new Set(["node_modules", ".git", ".hg", ".svn", ".signalint"]);
const SOURCE = /\.(?:[cm]?[jt]sx?|json|jsonc|json5|vue|svelte|astro)$/i;

let version = "unknown";
let createCLIOptions = null;
let translateOptions = null;
let ESLint = null;
// The ESLint instance and formatter, made on the first ask (the options
// come from that ask's arguments; the driver sends only one shape).
let engine = null;
let engineArgs = null;
let formatter = null;
let lastFingerprint = null;

function write(message) {
	return new Promise(resolve => {
		process.stdout.write(JSON.stringify(message) + "\n", resolve);
	});
}

/** The content digest of the project's source files (module comment). */
function fingerprint() {
	const hash = crypto.createHash("sha256");
	const stack = [top];
	const files = [];
	while (stack.length > 0) {
		const dir = stack.pop();
		let entries;
		try {
			entries = fs.readdirSync(dir, { withFileTypes: true });
		} catch {
			continue;
		}
		for (const entry of entries) {
			const full = path.join(dir, entry.name);
			if (entry.isDirectory()) {
				if (!SKIP_DIRS.has(entry.name)) stack.push(full);
			} else if (SOURCE.test(entry.name)) {
				files.push(full);
			}
		}
	}
	files.sort();
	for (const file of files) {
		let content;
		try {
			content = fs.readFileSync(file);
		} catch {
			content = null;
		}
		hash.update(file + "\0");
		hash.update(content === null ? "\u0001missing" : crypto.createHash("sha256").update(content).digest("hex"));
		hash.update("\0");
	}
	return hash.digest("hex");
}

/** Every loaded copy of typescript-estree's cache clearing, by module path. */
function typescriptEstrees() {
	const found = [];
	const marker = `${path.sep}@typescript-eslint${path.sep}typescript-estree${path.sep}`;
	for (const [file, mod] of Object.entries(require.cache)) {
		if (!file.includes(marker) || !mod || !mod.exports) continue;
		if (typeof mod.exports.clearCaches === "function") found.push(mod.exports.clearCaches);
	}
	return found;
}

// Whether typed linting applies to a file (its config sets
// parserOptions.project or projectService), by path; the worker restarts
// when a config changes, so what is known stays true.
const typedFiles = new Map();

/** Whether typed linting applies to any file of `results`. */
async function anyTyped(results) {
	let found = false;
	for (const result of results) {
		let typed = typedFiles.get(result.filePath);
		if (typed === undefined) {
			let options;
			try {
				const config = await engine.calculateConfigForFile(result.filePath);
				options = config && config.languageOptions && config.languageOptions.parserOptions;
			} catch {
				options = undefined;
			}
			typed = Boolean(options && (options.project || options.projectService));
			typedFiles.set(result.filePath, typed);
		}
		found = found || typed;
	}
	return found;
}

/** What ESLint's CLI prints for a fatal error (its bin/eslint.js). */
function fatalMessage(error) {
	let text;
	if (typeof error !== "object" || error === null) {
		text = String(error);
	} else {
		if (typeof error.messageTemplate === "string") {
			try {
				const template = require(path.join(packageDir, "messages", `${error.messageTemplate}.js`));
				text = template(error.messageData || {});
			} catch {
				text = undefined;
			}
		}
		if (text === undefined) {
			text = typeof error.stack === "string" ? error.stack : require("node:util").format("%o", error);
		}
	}
	return `\nOops! Something went wrong! :(\n\nESLint: ${version}\n\n${text}\n`;
}

async function makeEngine(args) {
	// The CLI's own option parsing and translation (lib/cli.js does the same).
	// Flat-config options, as ESLint 9 parses them when it uses a flat config
	// (its default; 10 has no other and ignores the argument).
	const options = createCLIOptions(true).parse(["node", "eslint", ...args]);
	const files = options._.map(String);
	if (engineArgs === null) {
		const eslintOptions = await translateOptions(options, "flat"); // 9 defaults to eslintrc
		engine = new ESLint(eslintOptions);
		formatter = await engine.loadFormatter(options.format);
		engineArgs = JSON.stringify({ ...options, _: [] });
	} else if (engineArgs !== JSON.stringify({ ...options, _: [] })) {
		throw new Error("signalint worker: the options changed between asks");
	}
	return files;
}

async function answer(request) {
	let files;
	try {
		files = await makeEngine(request.args);
	} catch (error) {
		return { stdout: "", stderr: fatalMessage(error), exitCode: 2, fatal: true };
	}
	const typed = typescriptEstrees();
	if (typed.length > 0) {
		// No baseline (null): the programs were built while the hash was not kept.
		const current = fingerprint();
		if (current !== lastFingerprint) {
			for (const clear of typed) clear();
		}
		lastFingerprint = current;
	}
	try {
		const results = await engine.lintFiles(files);
		if (typed.length === 0 && typescriptEstrees().length > 0) lastFingerprint = null;
		const output = await formatter.format(results, {});
		let errors = 0;
		for (const result of results) errors += result.errorCount;
		return {
			stdout: output ? `${output}\n` : "",
			stderr: "",
			exitCode: errors > 0 ? 1 : 0,
			fatal: false,
			// Typed linting applies to a linted file: the driver then checks
			// the sources itself before each ask (eslint.py).
			typed: await anyTyped(results),
		};
	} catch (error) {
		return { stdout: "", stderr: fatalMessage(error), exitCode: 2, fatal: true };
	}
}

async function main() {
	try {
		const api = require(require.resolve("eslint", { paths: [path.dirname(packageDir)] }));
		ESLint = typeof api.loadESLint === "function" ? await api.loadESLint({ useFlatConfig: true }) : api.ESLint;
		version = ESLint.version;
		createCLIOptions = require(path.join(packageDir, "lib", "options.js"));
		translateOptions = require(path.join(packageDir, "lib", "shared", "translate-cli-options.js"));
	} catch (error) {
		await write({ ready: false, error: String(error && error.stack ? error.stack : error) });
		process.exit(3);
	}
	await write({ ready: true, version });
	const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
	for await (const line of lines) {
		if (!line.trim()) continue;
		let request;
		try {
			request = JSON.parse(line);
		} catch {
			await write({ error: "unreadable request" });
			continue;
		}
		const reply = await answer(request);
		await write({ id: request.id, ...reply });
		if (reply.fatal) process.exit(0);
	}
	process.exit(0);
}

main();
