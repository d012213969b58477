"use strict";
/*
 * Gives a kept-warm Node worker's garbage back when it goes idle (issue 37,
 * docs/architecture.md "Memory"). Shared by the tsc, ESLint and Oxlint
 * workers beside this file.
 *
 * V8 collects its old generation rarely and keeps the pages a check's
 * garbage filled: after linting 3,000 files an ESLint instance sits at
 * about 360 MiB resident, of which about 50 MiB is live. A worker lives on
 * between asks, so that garbage would stay resident for the whole session.
 * Once an answer is written and no request has arrived for IDLE_MS, the
 * worker runs a full collection, and a second one a moment later (the
 * first leaves pages to V8's unmapper; the second lets it give the young
 * generation back). A request that arrives first cancels what has not run
 * yet, so a collection is never on an answer's path unless it had already
 * started when the request came.
 *
 * `global.gc` exists only when the driver starts Node with --expose-gc
 * (warm/tsc.py, warm/eslint.py, warm/oxlint.py); without it this does nothing.
 * Nothing a worker answers depends on when its garbage is collected.
 *
 * A collection costs time in proportion to what is live: typed linting
 * keeps TypeScript programs (a worker of 600 MiB, nearly all live), where
 * collecting after every small edit would free little and could delay the
 * next ask. So the worker collects only when its heap has grown since the
 * last collection by half of what that left live, and by SLACK bytes at least.
 */

const v8 = require("node:v8");

const IDLE_MS = 150;
const AGAIN_MS = 250;
const GROWTH = 1.5;
const SLACK = 32 * 1024 * 1024;

function heapUsed() {
	return v8.getHeapStatistics().used_heap_size;
}

function idleCollector(collect = globalThis.gc, used = heapUsed) {
	let timer = null;
	let floor = 0; // the heap's used bytes after the last collection
	function grown() {
		return used() >= floor * GROWTH + SLACK;
	}
	function busy() {
		if (timer !== null) {
			clearTimeout(timer);
			timer = null;
		}
	}
	function later(delay, then) {
		timer = setTimeout(() => {
			timer = null;
			collect();
			floor = used();
			if (then) then();
		}, delay);
		timer.unref();
	}
	function idle() {
		busy();
		if (typeof collect !== "function" || !grown()) return;
		later(IDLE_MS, () => later(AGAIN_MS, null));
	}
	return { busy, idle };
}

module.exports = { idleCollector, IDLE_MS, SLACK };
