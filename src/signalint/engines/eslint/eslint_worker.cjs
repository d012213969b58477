"use strict";
/*
 * Signalint's warm ESLint worker (driver: warm.py beside this file).
 *
 * Usage: node eslint_worker.cjs <eslint package directory>, run in the
 * project root. It loads the project's own ESLint (the package the cold
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
 * ask (no cache). typescript-eslint's typed linting (its project service,
 * or `project` mode's watch programs) keeps TypeScript programs between
 * asks and does not notice edits to files it is not linting right now.
 * The driver digests the project's sources and sends, with an ask, the
 * files that changed since the worker last read them ("refresh"): the
 * worker lints those first and drops the answer, which makes
 * typescript-eslint take each with its content on disk (and update its
 * programs incrementally), then answers the ask. A refresh typed linting
 * would not see (a file lint ignores, or lints without type information)
 * is refused ({"refused": reason}): the driver then starts a
 * fresh worker, which reads everything from disk as a cold run does.
 */

const fs = require("node:fs");
const { createRequire } = require("node:module");
const path = require("node:path");
const readline = require("node:readline");
const vm = require("node:vm");
const { idleCollector } = require("../../warm/idle_gc.cjs");

const packageDir = process.argv[2];
const root = process.cwd();


let version = "unknown";
let createCLIOptions = null;
let translateOptions = null;
let ESLint = null;
// The ESLint instance and formatter, made on the first ask (the options
// come from that ask's arguments; the driver sends only one shape).
let engine = null;
let engineArgs = null;
let formatter = null;

function write(message) {
	return new Promise(resolve => {
		process.stdout.write(JSON.stringify(message) + "\n", resolve);
	});
}

// Whether typed linting applies to a file (its config sets
// parserOptions.project or projectService), by path; the worker restarts
// when a config changes, so what is known stays true.
const typedFiles = new Map();

/** Whether typed linting applies to `file` (an absolute path). */
async function isTyped(file) {
	let typed = typedFiles.get(file);
	if (typed === undefined) {
		let options;
		try {
			const config = await engine.calculateConfigForFile(file);
			options = config && config.languageOptions && config.languageOptions.parserOptions;
		} catch {
			options = undefined;
		}
		typed = Boolean(options && (options.project || options.projectService));
		typedFiles.set(file, typed);
	}
	return typed;
}

/** Whether typed linting applies to any file of `results`. */
async function anyTyped(results) {
	let found = false;
	for (const result of results) {
		found = (await isTyped(result.filePath)) || found;
	}
	return found;
}

/**
 * Bring typed linting up to date with `changed` (absolute paths)
 * before `files` are linted (module comment); a reason when it cannot.
 * A one-file ask whose only changed file is that file needs nothing more:
 * its own lint opens it first.
 */
async function refresh(changed, files) {
	if (changed.length === 0) return null;
	const asked = files.map(f => path.resolve(root, f));
	if (asked.length === 1 && changed.every(f => path.resolve(f) === asked[0])) return null;
	for (const file of changed) {
		if (await engine.isPathIgnored(file)) return `${file} is not linted`;
		if (!(await isTyped(path.resolve(file)))) return `${file} is not linted with type information`;
	}
	await engine.lintFiles(changed);
	return null;
}

/**
 * typescript-eslint counts the files its project service has opened in the
 * default project (`allowDefaultProject`) for as long as its module lives,
 * and fails each file past `maximumDefaultProjectFileMatchCount`; a cold
 * run counts only its own files. Every copy of typescript-estree loaded
 * (the config imports it; a project may hold more than one) starts each
 * ask from zero. Versions without the count have no such function.
 */
const ESTREE_PARSER = path.join("typescript-estree", "dist", "parser.js");

function resetDefaultProjectCount() {
	for (const [file, loaded] of Object.entries(require.cache)) {
		if (!file.endsWith(path.sep + ESTREE_PARSER)) continue;
		const clear = loaded && loaded.exports && loaded.exports.clearDefaultProjectMatchedFiles;
		if (typeof clear === "function") clear();
	}
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
	try {
		const refused = await refresh(request.refresh || [], files);
		if (refused) return { refused };
		resetDefaultProjectCount();
		const results = await engine.lintFiles(files);
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

// The CLI's own translation of its parsed options into the API's: a module
// of its own from ESLint 9.34 on; before, a function private to lib/cli.js,
// which is then evaluated once more as a module of its own (its requires
// resolved from its place) that exports that function. The loaded CLI
// module is not touched.
function cliTranslation() {
	const own = path.join(packageDir, "lib", "shared", "translate-cli-options.js");
	if (fs.existsSync(own)) return require(own);
	const file = path.join(packageDir, "lib", "cli.js");
	const source = fs.readFileSync(file, "utf8");
	if (!/^async function translateOptions\(/m.test(source)) {
		throw new Error(`${file} defines no translateOptions: this ESLint is not served warm`);
	}
	const wrapped = vm.runInThisContext(
		`(function (exports, require, module, __filename, __dirname) {${source}\n;module.exports = translateOptions;\n})`,
		{ filename: file },
	);
	const copy = { exports: {} };
	wrapped.call(copy.exports, copy.exports, createRequire(file), copy, file, path.dirname(file));
	return copy.exports;
}

async function main() {
	try {
		const api = require(require.resolve("eslint", { paths: [path.dirname(packageDir)] }));
		ESLint = typeof api.loadESLint === "function" ? await api.loadESLint({ useFlatConfig: true }) : api.ESLint;
		version = ESLint.version;
		createCLIOptions = require(path.join(packageDir, "lib", "options.js"));
		translateOptions = cliTranslation();
	} catch (error) {
		await write({ ready: false, error: String(error && error.stack ? error.stack : error) });
		process.exit(3);
	}
	await write({ ready: true, version });
	const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
	const tidy = idleCollector();
	lines.on("line", tidy.busy);
	for await (const line of lines) {
		tidy.busy();
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
		tidy.idle();
	}
	process.exit(0);
}

main();
