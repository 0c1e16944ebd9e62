// SPDX-License-Identifier: MIT
// tests/viewer/bench.mjs - the viewer's figures for `make bench`: opens
// PAGE.html in Debian's headless Chromium and prints
//   open_s SECONDS     from navigation to the first full draw (the page's clock)
//   frame_ms MS        95th percentile of the frames of a scripted zoom and pan,
//                      each drawn and its pixels read back (the page's benchmark())
//   frame_max_ms MS    the slowest of them
//   node tests/viewer/bench.mjs BUILD_DIR PAGE.html
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';

// file:// needs an absolute path (make bench passes build/bench/...).
const file = resolve(process.argv[3]);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const p = await browser.newPage({ viewport: { width: 1280, height: 720 } });
p.on('pageerror', (e) => { console.error('viewer bench: ' + e.message); process.exitCode = 1; });
await p.goto('file://' + file, { timeout: 120000 });
await p.waitForFunction(() => window.rtrView && (window.rtrView.ready || window.rtrView.error), null,
	{ timeout: 120000 });
const open = await p.evaluate(() => window.rtrView.openMs);
const times = await p.evaluate(() => window.rtrView.benchmark(240));
times.sort((a, b) => a - b);
const p95 = times[Math.min(times.length - 1, Math.ceil(times.length * 0.95) - 1)];
const info = await p.evaluate(() => ({ events: rtrView.meta.events, tasks: rtrView.ntasks }));
await browser.close();
console.log('events ' + info.events);
console.log('tasks ' + info.tasks);
console.log('open_s ' + (open / 1000).toFixed(3));
console.log('frame_ms ' + p95.toFixed(3));
console.log('frame_max_ms ' + times[times.length - 1].toFixed(3));
