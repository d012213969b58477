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
 */

const IDLE_MS = 150;
const AGAIN_MS = 250;

function idleCollector(collect = globalThis.gc) {
	let timer = null;
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
			if (then) then();
		}, delay);
		timer.unref();
	}
	function idle() {
		busy();
		if (typeof collect !== "function") return;
		later(IDLE_MS, () => later(AGAIN_MS, null));
	}
	return { busy, idle };
}

module.exports = { idleCollector, IDLE_MS };
