// SPDX-License-Identifier: MIT
// tests/viewer/serve_bench.mjs - `ringtrace view --serve` on a large trace,
// for `make bench` (scripts/bench-index.sh): the server started on TRACE,
// its page opened in Debian's headless Chromium, then a scripted zoom from
// the whole trace to 1 us around its middle, four pans a level, each step
// the page's window set and its answer drawn (window.rtrServe.setWindow:
// the request, the JSON, the drawing); a step whose answer is the overview
// loading a slice waits for the slice (not counted as a frame).  Prints
//   open_s S           from navigation to the first answer drawn
//   frames N, overview_frames N, slices N
//   frame_ms MS        95th percentile of the steps, frame_max_ms the slowest
//   fetch_p50_ms, fetch_p95_ms  the floor, measured first: the page's round
//                      trip for api/meta (~1 kB), 100 times
//   rss_anon_bytes B   the server's private memory then (/proc/PID/status RssAnon)
//   node tests/viewer/serve_bench.mjs BUILD_DIR TRACE
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';

const build = resolve(process.argv[2]), trace = resolve(process.argv[3]);
const srv = spawn(build + '/bin/ringtrace', ['view', '--serve', trace], { stdio: ['ignore', 'pipe', 'pipe'] });
let err = '';
srv.stderr.on('data', (d) => (err += d));
const url = await new Promise((res, rej) => {
	let out = '';
	srv.stdout.on('data', (d) => {
		out += d;
		if (out.includes('\n'))
			res(out.slice(0, out.indexOf('\n')));
	});
	srv.on('exit', (c) => rej(new Error('the server exited (' + c + '): ' + err)));
	setTimeout(() => rej(new Error('no URL within 120 s: ' + err)), 120000);
});
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
	const p = await browser.newPage({ viewport: { width: 1280, height: 720 } });
	p.on('pageerror', (e) => { console.error('serve bench: ' + e.message); process.exitCode = 1; });
	const t0 = Date.now();
	await p.goto(url);
	await p.waitForFunction(() => window.rtrServe && (window.rtrServe.ready || window.rtrServe.error), null,
		{ timeout: 120000 });
	const open = (Date.now() - t0) / 1000;
	// the floor, in the same run: the browser's round trip for the smallest answer (api/meta, ~1 kB)
	const floor = await p.evaluate(async () => {
		const t = [];
		for (let i = 0; i < 100; i++) {
			const s0 = performance.now();
			await (await fetch('api/meta', { cache: 'no-store' })).text();
			t.push(performance.now() - s0);
		}
		t.sort((a, b) => a - b);
		return { p50: t[49], p95: t[94] };
	});
	const r = await p.evaluate(async () => {
		const S = window.rtrServe, meta = await fetch('api/meta').then((x) => x.json());
		const times = [];
		let overviews = 0, level = 0;
		// the page's times follow each slice's origin: keep the script in the trace's own
		let base = meta.origin_ns + meta.start;
		const all = meta.end - meta.start;
		for (;;) {
			const span = Math.floor(all / Math.pow(1.5, level++));
			if (span < 1000)
				break;
			for (const k of [0, 1, 2, -1, -2]) {
				const m = await fetch('api/meta').then((x) => x.json());
				const a = base - m.origin_ns + Math.floor(all / 2 - span / 2 + k * span / 8);
				const s0 = performance.now();
				let f = await S.setWindow(a, a + span);
				times.push(performance.now() - s0);
				overviews += !!f.overview;
				if (f.overview && f.overview.loading) {
					// the slice: wait for its turn, then the same window from it
					const turn = m.turn;
					for (let i = 0; i < 600; i++) {
						await new Promise((res) => setTimeout(res, 20));
						const n = await fetch('api/meta').then((x) => x.json());
						if (n.turn !== turn)
							break;
					}
					await new Promise((res) => setTimeout(res, 250));	// the page's own turn
				}
			}
		}
		return { times, overviews, slices: (await fetch('api/meta').then((x) => x.json())).turn,
			 events: meta.overview ? meta.overview.events : meta.events };
	});
	const rss = Number((fs.readFileSync('/proc/' + srv.pid + '/status', 'utf8').match(/RssAnon:\s+(\d+)/) || [0, 0])[1]) * 1024;
	const t = r.times.sort((a, b) => a - b);
	console.log('events ' + r.events);
	console.log('open_s ' + open.toFixed(3));
	console.log('frames ' + t.length);
	console.log('overview_frames ' + r.overviews);
	console.log('slices ' + r.slices);
	console.log('frame_ms ' + t[Math.min(t.length - 1, Math.ceil(t.length * 0.95) - 1)].toFixed(3));
	console.log('frame_max_ms ' + t[t.length - 1].toFixed(3));
	console.log('fetch_p50_ms ' + floor.p50.toFixed(3));
	console.log('fetch_p95_ms ' + floor.p95.toFixed(3));
	console.log('rss_anon_bytes ' + rss);
} finally {
	await browser.close();
	srv.kill('SIGTERM');
}
