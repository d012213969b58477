"use strict";
/*
 * Gives a kept-warm Node worker's garbage back when it goes idle, and keeps
 * a long ask's garbage from piling up (issue 37, docs/architecture.md
 * "Memory"). Shared by the ESLint and Oxlint workers (engines/eslint/,
 * engines/oxlint/).
 *
 * V8 collects its old generation rarely and keeps the pages a check's
 * garbage filled: after linting 3,000 files an ESLint instance sits at
 * about 360 MiB resident, of which about 50 MiB is live. A worker lives on
 * between asks, so that garbage would stay resident for the whole session.
 * Once an answer is written and no request has arrived for IDLE_MS, the
 * worker runs a full collection, and a second one a moment later (the
 * first leaves pages to V8's unmapper; the second lets it give the young
 * generation back). A request that arrives first cancels what has not run
 * yet, so an idle collection is never on an answer's path unless it had
 * already started when the request came (the ones during an ask are, by
 * design: see `busy`).
 *
 * `global.gc` exists only when the driver starts Node with --expose-gc
 * (engines/eslint/warm.py, engines/oxlint/warm.py); without it this does nothing.
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
const DURING_MS = 250;
const GROWTH = 1.5;
const SLACK = 32 * 1024 * 1024;
const DURING_SLACK = 64 * 1024 * 1024;

function heapUsed() {
	return v8.getHeapStatistics().used_heap_size;
}

function idleCollector(collect = globalThis.gc, used = heapUsed) {
	let timer = null; // the idle collection to come
	let ticker = null; // the look at the heap during an ask
	let floor = 0; // the heap's used bytes after the last collection
	let collectedDuring = false; // whether the ask now ending was collected during
	function grown(slack) {
		return used() >= floor * GROWTH + slack;
	}
	function run() {
		collect();
		floor = used();
	}
	// An ask is being answered: no idle collection; and while it runs (a
	// whole project's lint takes seconds), every DURING_MS, a collection if
	// the heap grew by half again and DURING_SLACK since the last one. V8
	// lets a long lint's garbage pile up to several times what is live (an
	// ESLint worker's first lint of 3,000 files peaked at 334-392 MiB, 256
	// with this); the lint's JavaScript yields between files, so the timer
	// runs between them. What is linted and answered is unchanged.
	function busy() {
		if (timer !== null) {
			clearTimeout(timer);
			timer = null;
		}
		if (typeof collect !== "function" || ticker !== null) return;
		ticker = setInterval(() => {
			if (grown(DURING_SLACK)) {
				run();
				collectedDuring = true;
			}
		}, DURING_MS);
		ticker.unref();
	}
	function later(delay, then) {
		timer = setTimeout(() => {
			timer = null;
			run();
			if (then) then();
		}, delay);
		timer.unref();
	}
	function idle() {
		if (ticker !== null) {
			clearInterval(ticker);
			ticker = null;
		}
		if (timer !== null) {
			clearTimeout(timer);
			timer = null;
		}
		// A collection during the ask left its floor at what was live then
		// (the lint in progress): its end is collected whatever that floor.
		const during = collectedDuring;
		collectedDuring = false;
		if (typeof collect !== "function" || !(during || grown(SLACK))) return;
		later(IDLE_MS, () => later(AGAIN_MS, null));
	}
	return { busy, idle };
}

module.exports = { idleCollector, IDLE_MS, DURING_MS, SLACK, DURING_SLACK };
