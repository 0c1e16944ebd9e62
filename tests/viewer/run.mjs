// SPDX-License-Identifier: MIT
// tests/viewer/run.mjs - render tests of `ringtrace view` in Debian's headless
// Chromium (playwright-core, no browser download): traces made for the test
// by rtr-viewer-traces (tests/viewer/make_traces.c) with known tasks, opened
// from disk; each test asserts on the page's own model (window.rtrView) and
// on pixels.  Screenshots stay in BUILD/viewer-tests/.  Prints a
// Criterion-like synthesis line, which scripts/run-tests.sh tallies.
//   node tests/viewer/run.mjs BUILD_DIR
import { chromium } from 'playwright-core';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { storyTests } from './story.mjs';
import { serveTests } from './serve.mjs';

const build = path.resolve(process.argv[2] || 'build');
const bin = (name) => path.join(build, 'bin', name);
const art = path.join(build, 'viewer-tests');
fs.rmSync(art, { recursive: true, force: true });
fs.mkdirSync(art, { recursive: true });
execFileSync(bin('rtr-viewer-traces'), [path.join(art, 'traces')]);
const trace = (name) => path.join(art, 'traces', name);

function view(args) {
	return spawnSync(bin('ringtrace'), ['view', ...args], { encoding: 'utf8' });
}
function page(name, traces) {
	const out = path.join(art, name + '.html');
	const r = view(['-o', out, ...traces]);
	assert.equal(r.status, 0, r.stderr);
	return out;
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const errors = [];
async function open(file) {
	const p = await browser.newPage({ viewport: { width: 1280, height: 720 } });
	p.on('pageerror', (e) => errors.push(file + ': ' + e.message));
	p.on('console', (m) => m.type() === 'error' && errors.push(file + ': ' + m.text()));
	await p.goto('file://' + file);
	await p.waitForFunction(() => window.rtrView && (window.rtrView.ready || window.rtrView.error), null,
		{ timeout: 60000 });
	assert.equal(await p.evaluate(() => window.rtrView.error), null);
	return p;
}
async function shot(p, name) {
	await p.screenshot({ path: path.join(art, name + '.png') });
}
// The canvas's pixel at CSS (x, y), or the most saturated in a small window.
async function pixels(p, x, y, r = 0) {
	return p.evaluate(([x, y, r]) => {
		const c = document.getElementById('canvas'), dpr = c.width / c.clientWidth;
		const g = c.getContext('2d');
		const out = [];
		for (let dy = -r; dy <= r; dy++)
			for (let dx = -r; dx <= r; dx++) {
				const d = g.getImageData(Math.round((x + dx) * dpr), Math.round((y + dy) * dpr), 1, 1).data;
				out.push([d[0], d[1], d[2]]);
			}
		return out;
	}, [x, y, r]);
}
const isRed = ([r, g, b]) => r > 150 && g < 90 && b < 90;
const isGreen = ([r, g, b]) => g > 90 && g > r + 40 && g > b + 40;
const isYellow = ([r, g, b]) => r > 200 && g > 190 && b < 110;
const overlap = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

const basic = page('basic', [trace('basic')]);
const tests = [];
const test = (name, fn) => tests.push({ name, fn });

test('cli: writes one page, prints its path, never overwrites without --force', async () => {
	const out = path.join(art, 'cli.html');
	let r = view(['-o', out, trace('basic')]);
	assert.equal(r.status, 0, r.stderr);
	assert.equal(r.stdout.trim(), out);
	r = view(['-o', out, trace('basic')]);
	assert.equal(r.status, 1);
	assert.match(r.stderr, /exists/);
	r = view(['--force', '-o', out, trace('basic')]);
	assert.equal(r.status, 0, r.stderr);
	r = view([trace('basic')]);	// default name: beside the trace
	assert.equal(r.stdout.trim(), trace('basic') + '.html');
	const html = fs.readFileSync(out, 'utf8');
	assert.doesNotMatch(html, /<script[^>]* src=|<link |@import|url\(\s*['"]?https?:|fetch\(['"]https?:/, 'the page loads nothing');
	r = view(['-o', path.join(art, 'none.html'), path.join(art, 'no-such-trace')]);
	assert.equal(r.status, 2);
	assert.match(r.stderr, /no such trace: /);
});

test('one line per task, and the arrows of the right colours between the right rows', async () => {
	const p = await open(basic);
	const f = await p.evaluate(() => window.rtrView.frame);
	assert.equal(await p.evaluate(() => window.rtrView.ntasks), 8);
	assert.equal(f.taskLines, 8);
	const row = async (n) => p.evaluate((n) => rtrView.task(rtrView.findTask(n)).row, n);
	const [main, beta, worker] = [await row('main'), await row('beta'), await row('worker')];
	const find = (kind) => f.arrows.filter((a) => a.kind === kind);
	const res = find('resolve').find((a) => a.fromRow === worker && a.toRow === beta);
	assert.ok(res, 'a resolve arrow from worker to beta');
	assert.equal(res.color, '#008000');
	const read = find('read').find((a) => a.fromRow === beta && a.toRow === main);
	assert.ok(read, 'a read arrow from beta to main');
	assert.equal(read.color, '#0000ff');
	const sig = find('signal').find((a) => a.fromRow === worker && a.toRow === main);
	assert.ok(sig, 'a signal arrow from worker to main');
	assert.equal(sig.color, '#ff9900');
	assert.equal(find('try_read').length, 0, 'the try_read followed by a read is hidden');
	// the green arrow is on the canvas, between the two rows
	const px = await pixels(p, res.x1, (res.y0 + res.y1) / 2, 2);
	assert.ok(px.some(isGreen), 'green pixels on the resolve arrow: ' + JSON.stringify(px));
	await shot(p, 'basic');
	await p.close();
});

test('a should_resolve task that never resolved is red to the right edge', async () => {
	const p = await open(basic);
	const t = await p.evaluate(() => rtrView.task(rtrView.findTask('alpha')));
	assert.ok(t.flags & 32, 'flagged never resolved');
	const f = await p.evaluate(() => window.rtrView.frame);
	const line = f.tasks.find((x) => x.row === t.row && x.x0 < 100);
	assert.ok(line.x1 >= f.W, 'reaches the right edge');
	assert.equal(line.color, '#cc0000');
	assert.ok(isRed((await pixels(p, f.W - 3, t.y))[0]), 'red at the right edge');
	// zoomed into the middle, still red to the edge
	await p.evaluate(() => rtrView.setView(rtrView.meta.end * 0.4, rtrView.meta.end * 0.5));
	assert.ok(isRed((await pixels(p, f.W - 3, t.y))[0]), 'red at the right edge, zoomed');
	await p.close();
});

test('a label appears only once its task is wide enough, and labels never overlap', async () => {
	const p = await open(basic);
	let f = await p.evaluate(() => window.rtrView.frame);
	assert.ok(f.labels.some((l) => l.text === 'alpha'));
	// The views are placed from delta's recorded length (200 us asked for,
	// more when the machine is loaded): 8 px wide, then a third of the page.
	const d = await p.evaluate(() => rtrView.task(rtrView.findTask('delta-short')));
	const around = (px) => {
		const half = (d.end - d.start) * f.W / px / 2, mid = (d.start + d.end) / 2;
		return [mid - half, mid + half];
	};
	f = await p.evaluate(([s, e]) => rtrView.setView(s, e), around(8));
	const narrow = await p.evaluate(() => rtrView.task(rtrView.findTask('delta-short')));
	assert.ok(narrow.x1 - narrow.x0 < 16, 'delta is narrow before zooming: ' + (narrow.x1 - narrow.x0));
	assert.ok(!f.labels.some((l) => l.text.startsWith('delta')), 'no label on delta while it is 8 px wide');
	f = await p.evaluate(([s, e]) => rtrView.setView(s, e), around(f.W / 3));
	assert.ok(f.labels.some((l) => l.text === 'delta-short'), JSON.stringify(f.labels.map((l) => l.text)));
	await shot(p, 'zoomed-delta');
	for (const v of [[0, 1], [0.2, 0.6]]) {
		f = await p.evaluate(([a, b]) => rtrView.setView(rtrView.meta.end * a, rtrView.meta.end * b), v);
		for (let i = 0; i < f.labels.length; i++)
			for (let j = i + 1; j < f.labels.length; j++)
				assert.ok(!overlap(f.labels[i], f.labels[j]), f.labels[i].text + ' / ' + f.labels[j].text);
	}
	await p.close();
});

test('a failed task is red, with its reason as a label', async () => {
	const p = await open(basic);
	const f = await p.evaluate(() => window.rtrView.frame);
	const g = await p.evaluate(() => rtrView.task(rtrView.findTask('gamma')));
	assert.equal(g.reason, 'timeout');
	assert.ok(f.tasks.find((x) => x.task === g.task || x.row === g.row && x.x0 < 100).color === '#cc0000');
	assert.ok(f.labels.some((l) => l.reason && l.text === 'timeout'));
	await p.close();
});

test('search highlights the matching tasks, by substring or /regex/', async () => {
	const p = await open(basic);
	await p.fill('#search', 'GAM');
	let n = await p.evaluate(() => rtrView.draw() && rtrView.highlighted);
	assert.equal(n, 1);
	const g = await p.evaluate(() => rtrView.task(rtrView.findTask('gamma')));
	assert.ok((await pixels(p, g.x0 + 60, g.y + 4, 1)).some(isYellow), 'yellow under gamma');
	const a = await p.evaluate(() => rtrView.task(rtrView.findTask('alpha')));
	assert.ok(!(await pixels(p, a.x0 + 60, a.y + 4, 1)).some(isYellow), 'no yellow under alpha');
	assert.equal(await p.$eval('#matches', (e) => e.textContent), '1 match');
	await shot(p, 'search');
	await p.fill('#search', '/^(alpha|beta)$/');
	n = await p.evaluate(() => rtrView.draw() && rtrView.highlighted);
	assert.equal(n, 2);
	await p.fill('#search', '/(/');
	assert.ok(await p.$eval('#search', (e) => e.classList.contains('bad')));
	await p.close();
});

test('double-click highlights a task and the chain it became part of', async () => {
	const p = await open(basic);
	const e = await p.evaluate(() => rtrView.task(rtrView.findTask('epsilon')));
	const box = await p.$eval('#canvas', (c) => { const r = c.getBoundingClientRect(); return [r.left, r.top]; });
	await p.mouse.dblclick(box[0] + (e.x0 + e.x1) / 2, box[1] + e.y);
	const names = await p.evaluate(() => { rtrView.draw(); return rtrView.frame.highlightsDrawn; });
	assert.equal(await p.evaluate(() => rtrView.highlighted), 2);
	assert.equal(names, 2);
	await p.close();
});

test('the wheel zooms around the pointer, drag pans, keys and the help overlay', async () => {
	const p = await open(basic);
	const box = await p.$eval('#canvas', (c) => { const r = c.getBoundingClientRect(); return [r.left, r.top]; });
	const before = await p.evaluate(() => rtrView.state);
	const tAt = (s, x) => s.t0 + x * (s.t1 - s.t0) / s.W;
	await p.mouse.move(box[0] + 400, box[1] + 300);
	await p.mouse.wheel(0, -100);
	await p.waitForTimeout(100);
	const after = await p.evaluate(() => rtrView.state);
	assert.ok(after.t1 - after.t0 < (before.t1 - before.t0) * 0.9, 'zoomed in');
	assert.ok(Math.abs(tAt(after, 400) - tAt(before, 400)) < (after.t1 - after.t0) / after.W, 'same time under the pointer');
	await p.mouse.down();
	await p.mouse.move(box[0] + 500, box[1] + 300, { steps: 4 });
	await p.mouse.up();
	await p.waitForTimeout(50);
	const dragged = await p.evaluate(() => rtrView.state);
	assert.ok(Math.abs((after.t0 - dragged.t0) - 100 * (after.t1 - after.t0) / after.W) < 1e3, 'dragged 100 px');
	await p.keyboard.press('0');
	await p.waitForTimeout(50);
	assert.ok(Math.abs((await p.evaluate(() => rtrView.state)).t0 - before.t0) < 1, '0 fits the whole trace');
	await p.keyboard.press('?');
	assert.ok(await p.isVisible('#help'));
	assert.match(await p.textContent('#help'), /double-click/);
	await shot(p, 'help');
	await p.keyboard.press('Escape');
	assert.ok(!(await p.isVisible('#help')));
	await p.close();
});

test('counters: step plots with names and values, a shared scale per prefix, toggles', async () => {
	const p = await open(basic);
	let f = await p.evaluate(() => window.rtrView.frame);
	assert.deepEqual(f.counters.map((c) => c.name).sort(), ['queue#1', 'queue#2']);
	assert.equal(f.counters[0].group, f.counters[1].group, 'one scale for queue#*');
	const q1 = f.counters.find((c) => c.name === 'queue#1');
	const q2 = f.counters.find((c) => c.name === 'queue#2');
	assert.equal(q1.value, 7);
	assert.equal(q2.value, 0);
	assert.ok(q1.y < q2.y, '7 is drawn above 0 on the shared scale');
	f = await p.evaluate(() => rtrView.setCounter('queue#1', false));
	assert.deepEqual(f.counters.map((c) => c.name), ['queue#2']);
	await p.keyboard.press(' ');
	f = await p.evaluate(() => rtrView.draw());
	assert.equal(f.counters.length, 0);
	await p.close();
});

test('notes, pauses and a lane per CPU with what ran there', async () => {
	const p = await open(basic);
	const f = await p.evaluate(() => window.rtrView.frame);
	assert.equal(f.notes, 2);
	assert.equal(f.pauses, 1);
	assert.equal(f.lanes, await p.evaluate(() => rtrView.meta.cpus.length));
	assert.ok(f.runs >= 3, 'main, worker, main ran');
	await p.close();
});

test('lost events are marked where they were lost', async () => {
	const p = await open(page('lossy', [trace('lossy')]));
	const f = await p.evaluate(() => window.rtrView.frame);
	assert.ok(f.losses >= 1, 'a loss mark');
	assert.match(await p.textContent('#messages'), /lost: \d+ events/);
	await shot(p, 'lossy');
	await p.close();
});

test('LTTng events: marks on CPU and thread lanes, their fields on hover', async () => {
	// a kernel trace in lttng-modules' shapes, with pid, tid and procname contexts
	const lttng = new URL('../data/lttng-kernel/contexts', import.meta.url).pathname;
	const p = await open(page('lttng', [lttng]));
	const v = await p.evaluate(() => ({ n: rtrView.nmarkers, lanes: rtrView.lanes,
		f: rtrView.frame, threads: rtrView.meta.threads.length }));
	assert.equal(v.n, 216 - 2 * 24, 'every event a marker but sched_switch and _fork (thread tasks)');
	assert.equal(v.threads, 21, '7 pids x 3 names');
	assert.equal(v.lanes.length, 4 + 21, 'a lane per stream, then one per thread');
	assert.ok(v.lanes.includes('bash 1001'), v.lanes.join(', '));
	assert.ok(v.f.markers > 0, 'marks drawn');
	// hovering a mark shows its class and fields
	const m = await p.evaluate(() => rtrView.marker(0));
	const [x, y] = await p.evaluate((m) => [rtrView.xOf(m.ts), rtrView.laneY(m.cpu)], m);
	const at = await p.evaluate(([x, y]) => rtrView.markerAt(x, y), [x, y]);
	assert.ok(at >= 0, 'a marker under its tick');
	const text = await p.evaluate((i) => rtrView.markerText(i), at);
	assert.match(text, /^\w+ at /);
	assert.match(text, /procname = "/);
	const box = await p.evaluate(() => { const r = document.getElementById('canvas').getBoundingClientRect();
		return [r.left, r.top]; });
	await p.mouse.move(box[0] + x, box[1] + y);
	const tip = await p.evaluate(() => { const t = document.getElementById('tip');
		return { hidden: t.hidden, text: t.textContent }; });
	assert.ok(!tip.hidden, 'the tooltip shows');
	assert.match(tip.text, /^\w+ at [^\n]*\n.*procname = "/, 'the tooltip: class, time, fields');
	// off the marks, no tooltip
	await p.mouse.move(box[0] + 2, box[1] + 2);
	assert.ok(await p.evaluate(() => document.getElementById('tip').hidden), 'no tooltip off the marks');
	// the same event on its thread's lane
	const tl = await p.evaluate((m) => rtrView.laneY(4 + m.thread), m);
	assert.ok(await p.evaluate(([x, y]) => rtrView.markerAt(x, y), [x, tl]) >= 0);
	await shot(p, 'lttng');
	await p.close();
});

test('LTTng kernel scheduler events: thread tasks, their runs on the CPU lanes, a wake-up', async () => {
	// make-traces.py's SCHED_STORY: bash forks a child that runs on CPU 1; a kworker and sshd ran
	const sched = new URL('../data/lttng-kernel/sched', import.meta.url).pathname;
	const p = await open(page('sched', [sched]));
	const v = await p.evaluate(() => ({ n: rtrView.ntasks, f: rtrView.frame, lanes: rtrView.lanes,
		markers: rtrView.nmarkers }));
	assert.equal(v.n, 5, 'bash, its two children (one thread id, reused), sshd and a kworker');
	assert.equal(v.f.lanes, 2, 'a lane per CPU');
	assert.equal(v.f.runs, 5, 'their five runs drawn on the CPU lanes');
	assert.equal(v.markers, 3, 'the events the task model does not read');
	const k = await p.evaluate(() => rtrView.task(rtrView.findTask('kworker/0:1')));
	assert.equal(k.kind, 'thread');
	const d = await p.evaluate((t) => rtrView.details(t), k.task);
	assert.deepEqual(d.cpus.map((x) => [x.runs, x.ns]), [[1, 1000]], 'ran 1 us on one CPU');
	assert.equal(d.cpus[0].cpu, v.lanes[0], 'on CPU 0');
	const sshd = await p.evaluate(() => rtrView.details(rtrView.findTask('sshd')));
	assert.equal(sshd.cpus[0].cpu, v.lanes[1], 'sshd on CPU 1');
	const sig = v.f.arrows.filter((a) => a.kind === 'signal');
	assert.equal(sig.length, 1, 'bash woke its child');
	// a run's pixels on its lane: kworker's, on CPU 0, 2 to 3 us after the start
	const [x, y] = await p.evaluate((kt) => [(rtrView.xOf(kt.start) + rtrView.xOf(kt.end)) / 2,
		rtrView.laneY(0)], k);
	const px = await pixels(p, x, y);
	assert.ok(px[0].some((c) => c < 200), 'a run drawn there: ' + px[0]);
	await shot(p, 'sched');
	await p.close();
});

test('a damaged trace: a clear message for the damaged part, the rest drawn', async () => {
	const dir = path.join(art, 'traces', 'damaged');
	fs.cpSync(trace('basic'), dir, { recursive: true });
	const stream = fs.readdirSync(dir).filter((n) => n !== 'metadata' && !n.startsWith('.'))
		.map((n) => path.join(dir, n)).sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
	// 64 bytes of 0xff from byte 200 on, or later: a label string can take them all in (its
	// text is any bytes), so the first place where they damage a record
	const orig = fs.readFileSync(stream);
	const out = path.join(art, 'damaged.html');
	let r;
	for (let at = 200; at + 64 <= orig.length; at += 40) {
		const bad = Buffer.from(orig);
		bad.fill(0xff, at, at + 64);
		fs.writeFileSync(stream, bad);
		r = view(['--force', '-o', out, dir]);
		if (r.status !== 0)
			break;
	}
	assert.equal(r.status, 1, 'a damaged trace is drawn, and exit 1 says it is not all');
	assert.match(r.stderr, /damaged: .*\(drawn up to there\)/);
	assert.equal(r.stdout.trim(), out);
	const p = await open(out);
	const msg = await p.textContent('#messages');
	assert.match(msg, /damaged: .*offset/);
	const f = await p.evaluate(() => window.rtrView.frame);
	assert.ok(f.taskLines >= 1, 'what came before the damage is drawn');
	await shot(p, 'damaged');
	await p.close();
});

test('several traces on one time axis', async () => {
	const p = await open(page('two', [trace('basic'), trace('many')]));
	const m = await p.evaluate(() => rtrView.meta);
	assert.equal(m.traces.length, 2);
	assert.equal(await p.evaluate(() => rtrView.ntasks), 8 + 2001);
	assert.ok(m.traces[1].row > m.traces[0].row + m.traces[0].rows - 1, 'the second trace below the first');
	const a = await p.evaluate(() => rtrView.task(rtrView.findTask('alpha')));
	assert.equal(a.trace, 0);
	await shot(p, 'two');
	await p.close();
});

test('the vertical focus keeps 2000 rows on screen, readable near the focus', async () => {
	const p = await open(page('many', [trace('many')]));
	const n = await p.evaluate(() => rtrView.rows);
	assert.ok(n >= 2000);
	let f = await p.evaluate(() => rtrView.setView(rtrView.meta.start, rtrView.meta.end, 1000));
	assert.ok(f.fisheye);
	const ys = await p.evaluate((n) => [rtrView.yOfRow(0), rtrView.yOfRow(n - 1), rtrView.yOfRow(1000), rtrView.yOfRow(1001)], n);
	assert.ok(ys[0] >= 22 && ys[1] <= f.H, 'first and last rows on screen: ' + ys);
	assert.ok(ys[3] - ys[2] >= 20, 'rows near the focus stay apart: ' + (ys[3] - ys[2]));
	assert.ok(f.labels.some((l) => l.text === 'task 999'), 'labels near the focus');
	await shot(p, 'many-fisheye');
	f = await p.evaluate(() => rtrView.toggleFisheye());
	assert.ok(!f.fisheye);
	await p.close();
});

test('the view exports as SVG', async () => {
	const p = await open(basic);
	const svg = await p.evaluate(() => rtrView.exportSVG());
	assert.match(svg, /^<svg /);
	assert.match(svg, />alpha</);
	assert.match(svg, /stroke="#008000"/);
	assert.equal(await p.evaluate((s) => new DOMParser().parseFromString(s, 'image/svg+xml')
		.getElementsByTagName('parsererror').length, svg), 0);
	fs.writeFileSync(path.join(art, 'basic.svg'), svg);
	await p.close();
});

// record --sample: a thread that spends 3/4 of its CPU time in burn_three and
// 1/4 in burn_one (tests/sched/sched_prog.c, which measures it); the page's
// flame graph (F) says so, the thread's line has its samples as ticks, and a
// click on a frame makes it the top
test('CPU samples: ticks on the thread\'s line and a flame graph of the view', async () => {
	const dir = path.join(art, 'burn');
	const r = spawnSync(bin('ringtrace'), ['record', '-q', '--sample=1999', '-o', dir, '--',
		bin('rtr-sched-prog'), 'burn', '400'], { encoding: 'utf8' });
	assert.equal(r.status, 0, r.stderr);
	const m = /burn burn_three (\d+) burn_one (\d+)/.exec(r.stdout);
	assert.ok(m, r.stdout);
	const want = Number(m[1]) / (Number(m[1]) + Number(m[2]));
	const p = await open(page('burn', [dir]));
	const f0 = await p.evaluate(() => rtrView.frame);
	assert.ok(f0.sampleTicks > 100, 'sample ticks drawn: ' + f0.sampleTicks);
	await p.keyboard.press('F');
	const fl = await p.evaluate(() => rtrView.flame);
	assert.equal(await p.evaluate(() => document.getElementById('flame').hidden), false);
	assert.equal(fl.thread, null, 'no thread selected: every thread\'s');
	assert.ok(fl.samples > 400, 'samples: ' + fl.samples);
	const get = (name) => fl.frames.filter((x) => x.name === name).reduce((a, x) => a + x.samples, 0);
	const three = get('burn_three'), one = get('burn_one');
	assert.ok(Math.abs(three / (three + one) - want) < 0.05,
		`burn_three: ${three} of ${three + one} samples, ${(100 * want).toFixed(1)} % of the CPU time`);
	// every burn_three frame lies under a burn_loop frame, as wide or narrower
	const b3 = fl.frames.find((x) => x.name === 'burn_three');
	const loop = fl.frames.find((x) => x.name.startsWith('burn_loop') && x.depth === b3.depth - 1);
	assert.ok(loop && loop.x <= b3.x + 1e-9 && b3.x + b3.w <= loop.x + loop.w + 1e-9, JSON.stringify([loop, b3]));
	await shot(p, 'flame');
	// a click on burn_three: it is the top, its callee spin_for under it
	await p.locator('#flame .fl', { hasText: /^burn_three$/ }).first().click();
	const top = await p.evaluate(() => rtrView.flame);
	assert.equal(top.root, 'burn_three');
	assert.equal(top.samples, b3.samples);
	assert.ok(top.frames.some((x) => x.name === 'spin_for' && x.depth === 1), JSON.stringify(top.frames));
	await p.keyboard.press('F');
	assert.equal(await p.evaluate(() => document.getElementById('flame').hidden), true);
	await p.close();
	// a trace without samples: the panel says how to get them
	const q = await open(basic);
	await q.keyboard.press('F');
	const none = await q.evaluate(() => rtrView.flame);
	assert.equal(none.samples, 0);
	assert.match(await q.evaluate(() => document.querySelector('#flame .panel-title').textContent), /record --sample/);
	await q.close();
});

// a lock's lane: rtr-sched-prog contend has "holder" hold queue_lock 30 ms while
// "waiter" waits, 4 times; with --hold-times each band is the whole hold, without
// it from the wait's start (5 ms after the lock) to the release
test('a lock\'s lane: held by whom while others waited', async () => {
	for (const exact of [true, false]) {
		const dir = path.join(art, exact ? 'holds' : 'holds-waits');
		const r = spawnSync(bin('ringtrace'), ['record', '-q', '--pthread', ...(exact ? ['--hold-times'] : []),
			'-o', dir, '--', bin('rtr-sched-prog'), 'contend', '4'], { encoding: 'utf8' });
		assert.equal(r.status, 0, r.stderr);
		// "hold NS preempted N": the holds during which the holder was preempted may be longer
		const lines = r.stdout.split('\n').filter((l) => l.startsWith('hold ')).map((l) => l.split(' '));
		const held = lines.map((w) => Number(w[1]));
		const preempted = lines.map((w) => Number(w[3]) > 0);
		assert.equal(held.length, 4, r.stdout);
		const p = await open(page(exact ? 'holds' : 'holds-waits', [dir]));
		const hs = (await p.evaluate(() => rtrView.holds)).filter((h) => h.lock === 'mutex queue_lock');
		assert.equal(hs.length, 4, JSON.stringify(hs));
		hs.forEach((h, i) => {
			assert.equal(h.holder, 'holder');
			assert.equal(h.exact, exact);
			const d = h.end - h.start;
			// the wrapper's clock reads are around the program's; its TSC is
			// converted at a rate measured since the start (ppm: 0.1 % allowed under)
			if (exact)
				assert.ok(d >= held[i] * 0.999 && d <= held[i] * (preempted[i] ? 1.5 : 1.01),
					  `hold ${i}: ${d} ns, the program's ${held[i]}`);
			else
				assert.ok(d > 20e6 && d < held[i], `hold ${i} from the wait: ${d} ns, the program's ${held[i]}`);
		});
		const f = await p.evaluate(() => rtrView.frame);
		assert.ok(f.holdBands >= 4, 'bands drawn: ' + f.holdBands);
		assert.ok(f.holdNames.some((x) => x.text.startsWith('held by holder')), JSON.stringify(f.holdNames));
		if (exact)
			await shot(p, 'holds');
		await p.close();
	}
});

storyTests({ test, open, page, trace, pixels, shot, assert, overlap, view, art, path, bin });
serveTests({ test, trace, pixels, shot, assert, browser, bin, errors });

test('no script errors on any page', async () => {
	assert.deepEqual(errors, [], JSON.stringify(errors));
});

// RTR_VIEWER_ONLY=TEXT runs only the tests whose name contains TEXT (while iterating)
const only = process.env.RTR_VIEWER_ONLY || '';
let pass = 0, fail = 0;
for (const t of tests) {
	if (only && !t.name.includes(only) && t.name !== 'no script errors on any page')
		continue;
	try {
		await t.fn();
		pass++;
		console.log('[PASS] viewer: ' + t.name);
	} catch (e) {
		fail++;
		console.log('[FAIL] viewer: ' + t.name + '\n  ' + String(e.stack || e).split('\n').slice(0, 4).join('\n  '));
	}
}
await browser.close();
console.log(`[====] Synthesis: Tested: ${pass + fail} | Passing: ${pass} | Failing: ${fail} | Crashing: 0`);
console.log('viewer: screenshots in ' + art);
process.exit(fail ? 1 : 0);
