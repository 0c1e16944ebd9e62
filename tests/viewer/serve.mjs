// SPDX-License-Identifier: MIT
// tests/viewer/serve.mjs - render tests of `ringtrace view --serve` in
// headless Chromium: the server started on a trace of rtr-viewer-traces, its
// page opened at the URL it prints first; each test asserts on the window
// query's answers the page drew (window.rtrServe.last) and on pixels, then
// stops the server with SIGTERM (exit status 0).  Called by run.mjs.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function serveTests({ test, trace, pixels, shot, assert, browser, bin, errors }) {
	const AXIS_H = 18, ROW_H = 14;	// tools/viewer/serve.js
	const isRed = ([r, g, b]) => r > 150 && g < 90 && b < 90;

	// a test that fails before its stop() leaves no server behind
	const servers = new Set();
	process.on('exit', () => servers.forEach((p) => p.kill('SIGKILL')));

	async function serve(traces, opts = [], env = {}) {
		const p = spawn(bin('ringtrace'), ['view', '--serve', ...opts, ...traces],
			{ stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
		servers.add(p);
		p.on('exit', () => servers.delete(p));
		let err = '';
		p.stderr.on('data', (d) => (err += d));
		const url = await new Promise((resolve, reject) => {
			let out = '';
			p.stdout.on('data', (d) => {
				out += d;
				if (out.includes('\n'))
					resolve(out.slice(0, out.indexOf('\n')));
			});
			p.on('exit', (code) => reject(new Error('the server exited (' + code + '): ' + err)));
			setTimeout(() => reject(new Error('no URL within 30 s: ' + err)), 30000);
		});
		const stop = () => new Promise((resolve) => {
			p.on('exit', (code, sig) => resolve(code === null ? sig : code));
			p.kill('SIGTERM');
		});
		return { url, stop, log: () => err };
	}

	async function open(url) {
		const p = await browser.newPage({ viewport: { width: 1280, height: 720 } });
		p.on('pageerror', (e) => errors.push(url + ': ' + e.message));
		p.on('console', (m) => m.type() === 'error' && errors.push(url + ': ' + m.text()));
		await p.goto(url);
		await p.waitForFunction(() => window.rtrServe && (window.rtrServe.ready || window.rtrServe.error), null,
			{ timeout: 60000 });
		assert.equal(await p.evaluate(() => window.rtrServe.error), null);
		return p;
	}

	const y = (f, row) => AXIS_H + (row - f.row0) * ROW_H + ROW_H / 2;

	test('--serve: the SVG and PNG links download this view, drawn by the server\'s renderer', async () => {
		const s = await serve([trace('basic')]);
		const p = await open(s.url);
		const got = await p.evaluate(async () => {
			const a = document.getElementById('png'), v = document.getElementById('svg');
			const r = await fetch(a.href), blob = await r.blob(), img = await createImageBitmap(blob);
			const c = new OffscreenCanvas(img.width, img.height), g = c.getContext('2d');
			g.drawImage(img, 0, 0);
			const d = g.getImageData(0, 0, img.width, img.height).data;
			let red = 0;
			for (let i = 0; i < d.length; i += 4)
				red += d[i] > 150 && d[i + 1] < 90 && d[i + 2] < 90;
			const sv = await fetch(v.href);
			return { status: r.status, type: r.headers.get('content-type'), w: img.width, h: img.height,
				red, shown: a.style.display !== 'none', canvas: [document.getElementById('canvas').width,
					document.getElementById('canvas').height],
				svg: sv.status, svgText: (await sv.text()).slice(0, 400), href: a.href };
		});
		assert.equal(got.status, 200, got.href);
		assert.equal(got.type, 'image/png');
		assert.ok(got.shown);
		assert.deepEqual([got.w, got.h], got.canvas, 'the picture is the view\'s size');
		assert.ok(got.red > 50, 'the failed and never-resolved tasks in red: ' + got.red + ' pixels');
		assert.equal(got.svg, 200);
		assert.match(got.svgText, /<svg[^>]*width="\d+pt"/);
		assert.equal(await s.stop(), 0);
	});

	test('--serve: the page draws the window query; the never-resolved task red to the edge at each zoom', async () => {
		const s = await serve([trace('basic')]);
		assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/$/);
		const p = await open(s.url);
		let f = await p.evaluate(() => window.rtrServe.last);
		assert.equal(f.tasks_in_view, 8);
		assert.equal(f.tasks.count.reduce((a, b) => a + b, 0), 8);
		const i = f.tasks.flags.findIndex((x) => x & 4);
		assert.ok(i >= 0, 'a never-resolved task: ' + JSON.stringify(f.tasks));
		assert.equal(f.tasks.x1[i], f.width);
		// labels over the lines wide enough, a failed task's with its reason, drawn
		assert.ok(f.labels.text.includes('gamma: timeout') && f.labels.text.includes('worker'),
			JSON.stringify(f.labels));
		f.labels.item.forEach((it) => assert.ok(f.tasks.x1[it] - f.tasks.x0[it] >= 16 && f.tasks.count[it] === 1));
		const wi = f.labels.item[f.labels.text.indexOf('worker')];
		const ink = await pixels(p, Math.max(0, f.tasks.x0[wi]) + 8, y(f, f.tasks.row[wi]) - 6, 3);
		assert.ok(ink.some(([r, g, b]) => r < 110 && g < 110 && b < 110), 'the label drawn: ' + JSON.stringify(ink));
		const row = f.tasks.row[i];
		// (an arrow may cross the line near the edge, where the trace's timing puts it)
		const redEdge = async () => (await pixels(p, f.width - 6, y(f, row), 3)).some(isRed);
		assert.ok(await redEdge(), 'red at the right edge');
		await shot(p, 'serve-basic');
		// the counters queue#1 and queue#2 share a scale: one strip; their steps
		assert.deepEqual(f.counters.count.length > 0, true);
		const cm = await p.evaluate(() => fetch('api/meta').then((r) => r.json()));
		assert.deepEqual(cm.counters.map((k) => k.name), ['queue#1', 'queue#2']);
		assert.equal(cm.counters[0].group, cm.counters[1].group);
		const vals = (k) => f.counters.value.filter((v, i) => f.counters.counter[i] === k);
		assert.deepEqual(vals(0), [3, 7]);
		assert.deepEqual(vals(1), [10, 0]);
		// the search box asks the scene's search: gamma by its failure's reason, highlighted
		await p.fill('#search', 'timeout');
		await p.press('#search', 'Enter');
		await p.waitForFunction(() => /1 tasks match/.test(document.getElementById('status').textContent));
		const hit = await p.evaluate(() => window.rtrServe.search('timeout'));
		assert.equal(hit.count, 1);
		const gy = y(f, hit.row[0]) - 4;
		const gx = Math.max(1, (hit.start[0] - f.t0) * f.width / (f.t1 - f.t0) + 1);
		const yellow = ([r, g, b]) => r > 200 && g > 180 && b < 80;
		assert.ok((await pixels(p, gx, gy, 1)).some(yellow), 'gamma highlighted');
		// a click on gamma's line: its details from api/task, in the status line
		const box = await p.evaluate(() => { const r = document.getElementById('canvas').getBoundingClientRect();
			return [r.left, r.top]; });
		await p.mouse.click(box[0] + gx + 2, box[1] + y(f, hit.row[0]));
		await p.waitForFunction(() => /gamma/.test(document.getElementById('status').textContent));
		assert.match(await p.textContent('#status'), /gamma \(wait\), .*failed: timeout/);
		// p: gamma's critical path (api/path) drawn over the rows, summed up in the status line
		await p.keyboard.press('p');
		await p.waitForFunction(() => /critical path: /.test(document.getElementById('status').textContent));
		{
			const cp = await p.evaluate(() => fetch('api/path?i=' + window.rtrServe.selected.task).then((r) => r.json()));
			const k = f.width / (f.t1 - f.t0), colours = ['#2ca02c', '#ff7f0e', '#1f77b4', '#d62728', '#9467bd', '#8c564b', '#7f7f7f'];
			let looked = 0;
			assert.equal(cp.t0[0], cp.start);
			assert.equal(cp.t1[cp.t1.length - 1], cp.end);
			for (let i = 0; i < cp.t0.length; i++) {
				const x0 = (cp.t0[i] - f.t0) * k, x1 = (cp.t1[i] - f.t0) * k;
				if (x1 - x0 < 4 || cp.row[i] < f.row0 || cp.row[i] >= f.row1)
					continue;
				const want = colours[cp.what[i]], rgb = [1, 3, 5].map((o) => parseInt(want.substr(o, 2), 16));
				const [got] = await pixels(p, Math.floor((x0 + x1) / 2), y(f, cp.row[i]));
				assert.ok(got.every((v, c) => Math.abs(v - (0.9 * rgb[c] + 0.1 * 255)) < 30),
					`segment ${i} (${cp.whats[cp.what[i]]}): ${got} at its middle, not ${want} at 90 %`);
				looked++;
			}
			assert.ok(looked > 0, 'no segment of the path wide enough: ' + JSON.stringify(cp));
		}
		await shot(p, 'serve-path');
		await p.keyboard.press('p');	// away again
		// H: the durations of gamma's kind (wait) as a histogram; a click on a bucket highlights its tasks
		await p.keyboard.press('H');
		await p.waitForSelector('#hist .hb');
		{
			const h = await p.evaluate(() => fetch('api/hist?i=' + window.rtrServe.selected.task).then((r) => r.json()));
			assert.equal(h.kind, 'wait');
			assert.equal(h.count.reduce((a, b) => a + b, 0), h.n);
			assert.equal(await p.locator('#hist .hb').count(), h.lo.length);
			const b = h.count.findIndex((c) => c > 0);
			await p.locator('#hist .hb').nth(b).click();
			await p.waitForFunction(() => / tasks of wait took /.test(document.getElementById('status').textContent));
			const got = await p.evaluate(() => window.rtrServe.histFound);
			assert.equal(got.count, h.count[b]);
			const k = f.width / (f.t1 - f.t0), x = Math.max(1, (got.start[0] - f.t0) * k + 1);
			assert.ok((await pixels(p, x, y(f, got.row[0]) - 4, 1)).some(yellow), 'the bucket\'s task highlighted');
			await shot(p, 'serve-hist');
			await p.keyboard.press('H');
			assert.equal(await p.evaluate(() => document.getElementById('hist').style.display), 'none');
		}
		const meta = await p.evaluate(() => fetch('api/meta').then((r) => r.json()));
		for (const [a, b] of [[0.4, 0.5], [0.45, 0.4501], [0.9, 3]]) {
			f = await p.evaluate(([t0, t1]) => window.rtrServe.setWindow(t0, t1, 0),
				[Math.floor(meta.end * a), Math.floor(meta.end * b)]);
			const j = f.tasks.flags.findIndex((x) => x & 4);
			assert.ok(j >= 0 && f.tasks.row[j] === row, 'zoomed to ' + a + '-' + b + ': ' + JSON.stringify(f.tasks));
			assert.equal(f.tasks.x1[j], f.width);
			assert.ok(await redEdge(), 'red at the right edge, zoomed');
		}
		// a click on gamma: its details in the panel, with a link to the task that created
		// it; the link selects main (a blue band on its row) and Esc closes the panel
		f = await p.evaluate((e) => window.rtrServe.setWindow(0, e + 1, 0), meta.end);
		const gi = f.tasks.index.indexOf(4);
		assert.ok(gi >= 0, JSON.stringify(f.tasks));
		const cb = await p.evaluate(() => { const r = document.getElementById('canvas').getBoundingClientRect();
			return [r.left, r.top]; });
		await p.mouse.click(cb[0] + f.tasks.x0[gi] + 3, cb[1] + y(f, f.tasks.row[gi]));
		await p.waitForFunction(() => /gamma/.test(document.getElementById('details').textContent));
		const det = await p.textContent('#details');
		assert.match(det, /failed: timeout/);
		assert.match(det, /created by: main \(thread\)/);
		await p.click('#details a');
		await p.waitForFunction(() => window.rtrServe.selected && window.rtrServe.selected.name === 'main');
		{
			// main's links by its arrows (view/links.h), a line a kind
			const d2 = await p.textContent('#details');
			assert.match(d2, /^main/);
			assert.match(d2, /read: beta \(request\)/);
			assert.match(d2, /resolved: delta-short \(wait\), zeta \(wait\), worker \(thread\)/);
			assert.match(d2, /woken by: worker \(thread\)/);
			// where it ran: main's two runs on the trace's one CPU, switched to by its thread
			const api = await p.evaluate(() => fetch('api/task?i=0').then((r) => r.json()));
			assert.equal(api.cpus.reduce((a, c) => a + c.runs, 0), api.runs, JSON.stringify(api.cpus));
			assert.match(d2, new RegExp('ran on: cpu ' + api.cpus[0].cpu + ': .* in ' + api.cpus[0].runs + ' run'));
			if (api.threads.length)
				assert.match(d2, new RegExp('threads: tid ' + api.threads[0].tid + ': '));
			// the counter changes main made, as the self-contained page lists them
			assert.deepEqual(api.counters.map((k) => k.name + (k.delta >= 0 ? '+' : '') + k.delta),
				['queue#1+3', 'queue#2+10', 'queue#1+4', 'queue#2-10']);
			assert.match(d2, /counters: queue#1\+3 at .*, queue#2\+10 at .*, queue#1\+4 at .*, queue#2-10 at /);
		}
		f = await p.evaluate(() => window.rtrServe.last);
		const blue = ([r, g, b]) => b > r + 40 && b > 150;
		assert.ok((await pixels(p, f.width / 3, y(f, 0) - 5)).some(blue), 'main selected: a blue band on its row');
		await shot(p, 'serve-details');
		await p.keyboard.press('Escape');
		assert.equal(await p.evaluate(() => document.getElementById('details').style.display), 'none');
		await p.close();
		assert.equal(await s.stop(), 0);
	});

	test('--serve: LTTng events: counted ticks on the CPU lanes and on the lanes of the threads', async () => {
		const lttng = new URL('../data/lttng-kernel/contexts', import.meta.url).pathname;
		const s = await serve([lttng]);
		const p = await open(s.url);
		const f = await p.evaluate(() => window.rtrServe.last);
		const meta = await p.evaluate(() => fetch('api/meta').then((r) => r.json()));
		const sum = (a) => a.reduce((x, y) => x + y, 0);
		assert.equal(sum(f.cpu_marks.count), 216 - 2 * 24, 'every event a marker but sched_switch and _fork');
		assert.equal(meta.marked_threads.length, 21, '7 pids x 3 names');
		assert.equal(sum(f.thread_marks.count), 216 - 2 * 24, 'each named by its thread');
		// a tick is drawn on its CPU's lane
		const i = f.cpu_marks.flags.findIndex((x) => !(x & meta.item_flags.span));
		assert.ok(i >= 0, JSON.stringify(f.cpu_marks));
		const H = await p.evaluate(() => document.getElementById('canvas').height);
		const lanes = meta.cpus.length + meta.marked_threads.length;
		const yy = H - (lanes * 12 + 4) + 4 + f.cpu_marks.cpu[i] * 12 + 5;
		const dark = ([r, g, b]) => r < 120 && g < 120 && b < 120;
		assert.ok((await pixels(p, f.cpu_marks.x0[i] + 0.5, yy, 1)).some(dark), 'a tick');
		await shot(p, 'serve-lttng');
		await p.close();
		assert.equal(await s.stop(), 0);
	});

	test('--serve: what the trace lost is said in the bar and marked on its CPU\'s lane', async () => {
		const s = await serve([trace('lossy')]);
		const p = await open(s.url);
		const f = await p.evaluate(() => window.rtrServe.last);
		const meta = await p.evaluate(() => fetch('api/meta').then((r) => r.json()));
		const sum = (a) => a.reduce((x, y) => x + y, 0);
		const lost = sum(meta.cpus.map((c) => c.events_lost));
		assert.ok(lost > 0, 'the flood lost events: ' + JSON.stringify(meta.cpus));
		// the whole trace in view: every loss in the answer, summed
		assert.equal(sum(f.losses.events), lost, JSON.stringify(f.losses));
		assert.match(await p.evaluate(() => document.getElementById('lost').textContent),
			new RegExp('lost: ' + lost + ' events, 0 packets'));
		// a red diamond on the lane, where the answer puts the loss
		const H = await p.evaluate(() => document.getElementById('canvas').height);
		const lanes = meta.cpus.length + meta.marked_threads.length;
		const yy = H - (lanes * 12 + 4) + 4 + f.losses.cpu[0] * 12 + 5;
		assert.ok((await pixels(p, Math.min(f.losses.x[0], f.width - 2), yy, 1)).some(isRed),
			'the loss marked on its lane');
		await shot(p, 'serve-lossy');
		await p.close();
		assert.equal(await s.stop(), 0);
	});

	test('--serve: notes are purple marks on the axis with their text, pauses brown regions with their reason', async () => {
		const s = await serve([trace('basic')]);
		const p = await open(s.url);
		const f = await p.evaluate(() => window.rtrServe.last);
		assert.deepEqual(f.notes.text, ['hello note', 'ctl\x01\x1f <&> "q"'], JSON.stringify(f.notes));
		assert.deepEqual(f.notes.count, [1, 1]);
		assert.deepEqual(f.pauses.reason, ['gc']);
		// the note's mark at the foot of the axis; the pause shaded low in the rows
		const mark = await pixels(p, Math.floor(f.notes.x[0]) + 0.5, AXIS_H - 3);
		assert.ok(mark.some(([r, g, b]) => r > 100 && r < 150 && g < 60 && b > 140), 'purple: ' + JSON.stringify(mark));
		const H = await p.evaluate(() => document.getElementById('canvas').height);
		const mid = (f.pauses.x0[0] + f.pauses.x1[0]) / 2;
		const shade = await pixels(p, mid, H / 2);
		assert.ok(shade.some(([r, g, b]) => r > b + 15), 'brownish: ' + JSON.stringify(shade));
		await shot(p, 'serve-notes');
		await p.close();
		assert.equal(await s.stop(), 0);
	});

	// a lock's row: rtr-sched-prog contend has "holder" hold queue_lock 30 ms while
	// "waiter" waits, 4 times: each hold in the answer a band in the holder's colour
	test('--serve: a lock\'s holds are bands in their holder\'s colour', async () => {
		const LANE_COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2', '#edc948',
			'#ff9da7', '#9c755f', '#bab0ac', '#8cd17d', '#86bcb6', '#d37295'];
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtr-serve-holds-'));
		const r = spawnSync(bin('ringtrace'), ['record', '-q', '--pthread', '--hold-times', '-o',
			path.join(dir, 't'), '--', bin('rtr-sched-prog'), 'contend', '4'], { encoding: 'utf8' });
		assert.equal(r.status, 0, r.stderr);
		const s = await serve([path.join(dir, 't')]);
		const p = await open(s.url);
		const f = await p.evaluate(() => window.rtrServe.last);
		assert.ok(f.holds && f.holds.x0.length >= 4, 'holds in the answer: ' + JSON.stringify(f.holds));
		let checked = 0;
		for (let i = 0; i < f.holds.x0.length; i++) {
			if (f.holds.x1[i] - f.holds.x0[i] < 4 || f.holds.row[i] < f.row0 || f.holds.row[i] >= f.row1)
				continue;
			const want = LANE_COLORS[f.holds.holder[i] % LANE_COLORS.length];
			const rgb = [1, 3, 5].map((k) => parseInt(want.slice(k, k + 2), 16));
			const [got] = await pixels(p, Math.floor((f.holds.x0[i] + f.holds.x1[i]) / 2), y(f, f.holds.row[i]) - 2);
			assert.ok(got.every((v, k) => Math.abs(v - rgb[k]) <= 8), `hold ${i}: ${got}, not ${want}`);
			checked++;
		}
		assert.ok(checked >= 4, checked + ' bands checked');
		await shot(p, 'serve-holds');
		await p.close();
		assert.equal(await s.stop(), 0);
		fs.rmSync(dir, { recursive: true, force: true });
	});

	test('--serve: 1000 requests at every zoom: at most about an item per pixel a row, counts adding up', async () => {
		const s = await serve([trace('requests')]);
		const p = await open(s.url);
		const meta = await p.evaluate(() => fetch('api/meta').then((r) => r.json()));
		for (let span = meta.end + 1; span > 1000; span = Math.floor(span / 8)) {
			const t0 = Math.floor((meta.end - span) / 3);
			const f = await p.evaluate(([a, b]) => window.rtrServe.setWindow(a, b, 0), [t0, t0 + span]);
			const perRow = new Map();
			f.tasks.row.forEach((r) => perRow.set(r, (perRow.get(r) || 0) + 1));
			for (const [r, n] of perRow)
				assert.ok(n <= f.width + 2, `row ${r}: ${n} items at ${f.width} px`);
			assert.equal(f.tasks.count.reduce((a, b) => a + b, 0), f.tasks_in_view);
			assert.ok(f.arrows.x0.length <= 4000);
			if (span === meta.end + 1)
				await shot(p, 'serve-requests');
		}
		// the same origin without the token: refused
		assert.equal((await fetch(new URL(s.url).origin + '/api/meta')).status, 403);
		await p.close();
		assert.equal(await s.stop(), 0);
	});
	test('--serve --follow: a recording in progress; the page pinned to the end draws the events written later', async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtr-follow-'));
		const live = path.join(dir, 'live');
		// 2 threads x 2400 events, 50 ms after every 10 events: about 12 s of recording
		// (a loaded machine takes seconds to start the server and the page)
		const rec = spawn(bin('ringtrace'), ['record', '-q', '-o', live, '--flush-interval', '100ms', '--',
			bin('ringtrace-test-emit'), '--threads', '2', '--events', '2400', '--pace', '10:50000'],
		{ stdio: 'ignore' });
		const recDone = new Promise((res) => rec.on('exit', (code) => res(code)));
		let s = null;
		try {
			for (let i = 0; i < 400 && !fs.existsSync(path.join(live, '.ringtrace-state')); i++)
				await new Promise((res) => setTimeout(res, 50));
			s = await serve([live], ['--follow']);
			const p = await open(s.url);
			const first = await p.evaluate(() => fetch('api/meta').then((r) => r.json()));
			assert.equal(first.live, true);
			assert.equal(first.done, false, 'the page opened before the recording ended');
			const sum = (a) => a.reduce((x, y) => x + y, 0);
			const f0 = await p.evaluate(() => window.rtrServe.last);
			// a later turn, still recording: the page moved with it
			await p.waitForFunction((t) => window.rtrServe.turn > t, first.turn, { timeout: 60000 });
			const code = await recDone;
			assert.equal(code, 0, 'the recorder');
			// the server's last turn, and the page on it (evaluated here: waitForFunction
			// would take the fetch's promise itself for a true value, and not wait)
			for (const until = Date.now() + 60000; ;) {
				const at = await p.evaluate(async () => {
					const m = await fetch('api/meta').then((r) => r.json());
					return !!window.rtrServe.last && window.rtrServe.turn > 0 && m.done &&
						window.rtrServe.turn === m.turn;
				});
				if (at)
					break;
				assert.ok(Date.now() < until, 'the page was not on the finished recording\'s last ' +
					'turn within 60 s; the server said: ' + s.log());
				await new Promise((res) => setTimeout(res, 250));
			}
			const meta = await p.evaluate(() => fetch('api/meta').then((r) => r.json()));
			// the last turn's window query answered and drawn (on a loaded machine it
			// comes a while after the turn itself): pinned to the end, the whole recording
			await p.waitForFunction((end) => window.rtrServe.last &&
				window.rtrServe.last.t1 === end + 1, meta.end, { timeout: 30000, polling: 100 })
				.catch(async () => assert.fail('the page did not draw the finished recording ' +
					`to its end ${meta.end + 1} in 30 s: its window ends at ` +
					`${await p.evaluate(() => window.rtrServe.last && window.rtrServe.last.t1)}; ` +
					`the server said: ${s.log()}`));
			const f = await p.evaluate(() => window.rtrServe.last);
			assert.ok(meta.turn > first.turn, `turns ${first.turn} -> ${meta.turn}`);
			assert.equal(meta.events, 4800, 'every event of the two threads; the server said: ' +
				s.log());
			assert.ok(first.events < meta.events, `${first.events} -> ${meta.events}`);
			// pinned to the end: the page's window is the whole of the finished recording
			assert.equal(f.t1, meta.end + 1);
			assert.ok(f.t1 > f0.t1, `the window grew: ${f0.t1} -> ${f.t1}`);
			// the events written after the first turn are drawn: their marks after its end
			const late = f.cpu_marks.x0.map((x, i) => [x, f.cpu_marks.count[i]])
				.filter(([x]) => x > (first.end - f.t0) / (f.t1 - f.t0) * f.width + 1);
			assert.ok(sum(late.map(([, n]) => n)) > 0, 'marks after the first turn\'s end');
			assert.equal(sum(f.cpu_marks.count), 4800, 'each event a mark on its CPU\'s lane');
			await shot(p, 'serve-follow');
			await p.close();
			assert.equal(await s.stop(), 0);
			s = null;
		} finally {
			if (s)
				await s.stop();	// a failed test leaves no server behind
			rec.kill('SIGKILL');
			fs.rmSync(dir, { recursive: true, force: true });
		}
	});

	// A trace over the cap (here RINGTRACE_VIEW_MAX_EVENTS, half the trace's
	// events): the whole of it is its overview, every event counted in its
	// lane; a window of few enough events is loaded as a slice, a new turn,
	// drawn at the same place in time with its tasks.
	test('--serve: a trace too large draws its overview, then the slice of a narrow window', async () => {
		const s = await serve([trace('requests')], [], { RINGTRACE_VIEW_MAX_EVENTS: '7000' });
		try {
			const p = await open(s.url);
			const meta = await p.evaluate(() => fetch('api/meta').then((r) => r.json()));
			assert.equal(meta.overview.events, 14006, 'the index counts every event');
			assert.equal(meta.overview.slice_max, 3500);
			assert.equal(meta.overview.lanes.length, 1);
			let f = await p.evaluate(() => window.rtrServe.last);
			assert.ok(f.overview, 'the whole trace: the overview');
			assert.equal(f.tasks.x0.length, 0);
			const total = f.overview.lanes[0].reduce((a, b) => a + b, 0);
			// (each column sent to 0.01: the sum within half that a column)
			assert.ok(Math.abs(total - 14006) <= 0.005 * f.width + 1e-6, 'every event in a column: ' + total);
			assert.equal(f.overview.events_in_view, 14006);
			const bar = f.overview.lanes[0].findIndex((v) => v > 0);
			const blue = ([r, g, b]) => r === 31 && g === 78 && b === 154;
			assert.ok((await pixels(p, bar + 0.5, AXIS_H + 6 + 20, 1)).some(blue), 'the bars drawn');
			await shot(p, 'serve-overview');
			// an eighth of the trace from a quarter in: loaded, then drawn with its tasks
			const span = meta.end - meta.start, a = meta.start + Math.floor(span / 4);
			const abs = meta.origin_ns + a;
			f = await p.evaluate(([x, y]) => window.rtrServe.setWindow(x, y), [a, a + Math.floor(span / 8)]);
			assert.ok(f.overview && f.overview.loading, 'the slice asked for: ' + JSON.stringify(f.overview));
			await p.waitForFunction(() => window.rtrServe.last && !window.rtrServe.last.overview, null,
				{ timeout: 30000, polling: 100 }).catch(() => assert.fail('no slice drawn in 30 s: ' + s.log()));
			f = await p.evaluate(() => window.rtrServe.last);
			const m2 = await p.evaluate(() => fetch('api/meta').then((r) => r.json()));
			assert.ok(m2.turn >= 1, 'a slice is a turn');
			assert.ok(m2.events > 0 && m2.events <= 7000, 'the slice: ' + m2.events + ' events');
			assert.ok(f.tasks_in_view > 0, 'its tasks drawn');
			// (epoch ns are beyond a double's 53 bits: equal to its 256 ns step at 2^60)
			assert.ok(Math.abs(m2.origin_ns + f.t0 - abs) <= 512, `the same place in time: ${m2.origin_ns + f.t0} vs ${abs}`);
			assert.ok(Math.abs(m2.start + m2.origin_ns - meta.origin_ns) <= 512, 'the whole trace\'s span kept');
			assert.equal(m2.end - m2.start, meta.end - meta.start, 'the whole trace\'s span kept');
			assert.ok(!(await pixels(p, 10, AXIS_H + 6 + 20, 2)).some(blue), 'no bars over the slice');
			await shot(p, 'serve-slice');
			await p.close();
		} finally {
			assert.equal(await s.stop(), 0);
		}
	});
}
