// SPDX-License-Identifier: MIT
// tests/viewer/story.mjs - render tests of what the viewer does to explain a
// trace (issue 12): a task's details and links, simplify_binds, sleeping
// regions, the counters' band, search over reasons and kinds, Esc, the
// zoom's limit, the fit view of 1000 requests.  run.mjs calls storyTests()
// with its helpers; the traces come from tests/viewer/make_traces.c.
export function storyTests(h) {
	const { test, open, page, trace, pixels, shot, assert, overlap, path, bin } = h;
	const basic = page('story-basic', [trace('basic')]);
	const binds = page('binds', [trace('binds')]);
	const requests = page('requests', [trace('requests')]);
	const canvasBox = (p) => p.$eval('#canvas', (c) => { const r = c.getBoundingClientRect(); return [r.left, r.top]; });

	test('hover names a task; a click shows its details, whose links jump to the tasks named', async () => {
		const p = await open(basic);
		const [bx, by] = await canvasBox(p);
		const beta = await p.evaluate(() => rtrView.task(rtrView.findTask('beta')));
		const x = bx + (beta.x0 + beta.x1) / 2, y = by + beta.y;
		await p.mouse.move(x, y);
		await p.waitForTimeout(50);
		assert.ok(await p.isVisible('#tip'), 'a tooltip over beta');
		assert.match(await p.textContent('#tip'), /^beta — request, [\d.]+ ms/);
		await p.mouse.click(x, y);
		await p.waitForTimeout(50);
		assert.ok(await p.isVisible('#details'), 'the details panel');
		const d = await p.evaluate(() => rtrView.details(rtrView.selected));
		assert.equal(d.name, 'beta');
		assert.equal(d.kind, 'request');
		assert.equal(d.state, 'resolved');
		assert.equal(d.parent.name, 'main');
		assert.deepEqual(d.resolvedBy.map((r) => r.name), ['worker']);
		assert.deepEqual(d.readBy.map((r) => r.name), ['main']);
		assert.ok(d.duration > 4e6 && d.duration < 1e9, 'beta lived about 5 ms: ' + d.duration);
		assert.ok(d.cpus.length === 0, 'beta never ran');
		const text = await p.textContent('#details');
		for (const want of ['request', 'resolved', 'created by', 'main', 'resolved by', 'worker', 'read by'])
			assert.ok(text.includes(want), 'the panel says ' + want + ': ' + text);
		const f = await p.evaluate(() => rtrView.draw());
		assert.equal(f.selected.task, d.task, 'the selection is drawn');
		assert.ok((await pixels(p, (beta.x0 + beta.x1) / 2 + 20, beta.y - 5, 1)).some(([r, g, b]) => b > 180 && r < 170),
			'blue under the selected task');
		await shot(p, 'details');
		// the link to the resolver selects it and brings it into view
		await p.click('#details a:text("worker")');
		await p.waitForTimeout(50);
		const w = await p.evaluate(() => rtrView.details(rtrView.selected));
		assert.equal(w.name, 'worker');
		assert.ok(w.resolves.some((r) => r.name === 'beta'), 'worker resolved beta');
		assert.ok(w.signals.some((r) => r.name === 'main'), 'worker woke main');
		assert.ok(w.cpus.length >= 1 && w.cpus[0].ns > 0, 'worker ran: ' + JSON.stringify(w.cpus));
		// the thread records: the program's one thread switched to it
		assert.equal(w.threads.length, 1, 'worker ran on one thread: ' + JSON.stringify(w.threads));
		assert.match(w.threads[0].thread, /^tid \d+$/);
		assert.ok((await p.textContent('#details')).includes('threads'), 'the panel names the thread');
		// gamma: failed, with its reason
		const g = await p.evaluate(() => rtrView.details(rtrView.findTask('gamma')));
		assert.equal(g.state, 'failed');
		assert.equal(g.reason, 'timeout');
		assert.deepEqual(g.resolvedBy.map((r) => r.name), ['worker']);
		const a = await p.evaluate(() => rtrView.details(rtrView.findTask('alpha')));
		assert.equal(a.state, 'never resolved (should_resolve)');
		await p.keyboard.press('Escape');
		assert.equal(await p.evaluate(() => rtrView.selected), -1);
		assert.ok(!(await p.isVisible('#details')), 'Esc closes the details');
		await p.close();
	});

	test('H: the durations of the selected task\'s kind as `stats` buckets them; a bucket clicked highlights its tasks', async () => {
		const p = await open(basic);
		const [bx, by] = await canvasBox(p);
		const gamma = await p.evaluate(() => rtrView.task(rtrView.findTask('gamma')));
		await p.mouse.click(bx + (gamma.x0 + gamma.x1) / 2, by + gamma.y);
		await p.waitForTimeout(50);
		await p.keyboard.press('H');
		await p.waitForSelector('#hist .hb');
		const rows = await p.$$eval('#hist .hb', (r) => r.map((e) => e.textContent));
		const title = await p.textContent('#hist .panel-title');
		assert.match(title, /^wait: 3 durations, p50 /);
		// `ringtrace stats` on the same trace: its wait histogram's lines, range and count
		const { execFileSync } = await import('node:child_process');
		const st = execFileSync(bin('ringtrace'), ['stats', trace('basic')], { encoding: 'utf8' });
		const part = st.slice(st.indexOf('\nwait: '));
		const want = [];
		for (const line of part.split('\n').slice(2)) {
			const m = line.match(/^\s+([\d.]+ \S+) \.\. ([\d.]+ \S+)\s+(\d+) /);
			if (!m)
				break;
			want.push([m[1], m[2], +m[3]]);
		}
		assert.equal(want.length, 3, 'stats\' wait histogram: ' + part);
		const got = rows.map((r) => r.match(/^([\d.]+ \S+) \.\. ([\d.]+ \S+)\s+(\d+)/)).map((m) => [m[1], m[2], +m[3]]);
		assert.deepEqual(got.filter((g) => g[2] > 0), want, 'the page\'s non-empty buckets are stats\'');
		// a click on the first bucket: its one task highlighted, the count said
		await p.click('#hist .hb >> nth=0');
		await p.waitForTimeout(50);
		assert.equal(await p.evaluate(() => rtrView.draw() && rtrView.highlighted), 1);
		assert.match(await p.textContent('#matches'), /^1 of wait took /);
		await shot(p, 'histogram');
		await p.keyboard.press('H');
		assert.ok(!(await p.isVisible('#hist')), 'H again closes it');
		await p.close();
	});

	test('search finds failure reasons and kinds; Esc clears the search and the highlight', async () => {
		const p = await open(basic);
		assert.equal(await p.evaluate(() => rtrView.search('timeout')), 1, 'gamma, by its reason');
		assert.equal(await p.evaluate(() => rtrView.search('request')), 1, 'beta, by its kind');
		assert.equal(await p.evaluate(() => rtrView.search('thread')), 2, 'main and worker');
		await p.fill('#search', 'timeout');
		assert.equal(await p.evaluate(() => rtrView.draw() && rtrView.highlighted), 1);
		await p.press('#search', 'Escape');
		assert.equal(await p.evaluate(() => rtrView.draw() && rtrView.highlighted), 0, 'Esc in the box clears');
		assert.equal(await p.$eval('#search', (e) => e.value), '');
		await p.fill('#search', 'gam');
		await p.$eval('#search', (e) => e.blur());
		await p.keyboard.press('Escape');
		assert.equal(await p.evaluate(() => rtrView.draw() && rtrView.highlighted), 0, 'Esc on the page clears');
		assert.equal(await p.$eval('#matches', (e) => e.textContent), '');
		await p.close();
	});

	test('zooming out stops at the whole trace, and the view stays on it', async () => {
		const p = await open(basic);
		const whole = await p.evaluate(() => rtrView.state);
		for (let i = 0; i < 12; i++)
			await p.keyboard.press('-');
		await p.waitForTimeout(50);
		let s = await p.evaluate(() => rtrView.state);
		assert.ok(Math.abs((s.t1 - s.t0) - (whole.t1 - whole.t0)) < 1, 'no wider than the whole trace');
		assert.ok(Math.abs(s.t0 - whole.t0) < 1, 'and on it');
		const [bx, by] = await canvasBox(p);
		await p.mouse.move(bx + 300, by + 300);
		for (let i = 0; i < 5; i++)
			await p.mouse.wheel(0, 300);
		await p.keyboard.press('ArrowLeft');
		await p.waitForTimeout(50);
		s = await p.evaluate(() => rtrView.state);
		assert.ok(s.t1 - s.t0 <= whole.t1 - whole.t0 + 1 && Math.abs(s.t0 - whole.t0) < 1, JSON.stringify([s, whole]));
		await p.close();
	});

	test('counters have a band of their own under the tasks, a strip per scale', async () => {
		const p = await open(basic);
		const f = await p.evaluate(() => rtrView.draw());
		assert.ok(f.band && f.band.bottom > f.band.top, 'a band');
		for (const k of f.counters)
			assert.ok(k.y >= f.band.top && k.y <= f.band.bottom, k.name + ' in the band');
		for (const t of f.tasks)
			assert.ok(t.y < f.band.top, 'task rows above the band');
		const off = await p.evaluate(() => rtrView.toggleAllCounters());
		assert.ok(!off.band, 'no band with the counters off');
		assert.ok(Math.max(...off.tasks.map((t) => t.y)) >= Math.max(...f.tasks.map((t) => t.y)), 'the rows take the room');
		await p.close();
	});

	test('simplify_binds: a bind nobody waited for is drawn from its read, under its input', async () => {
		const p = await open(binds);
		const get = (n) => p.evaluate((n) => rtrView.task(rtrView.findTask(n)), n);
		const [input, idle, awaited] = [await get('input'), await get('idle-bind'), await get('awaited-bind')];
		assert.equal(await p.evaluate(() => rtrView.simplified), 1, 'one bind simplified');
		const d = await p.evaluate((t) => rtrView.details(t), idle.task);
		assert.deepEqual(d.read.map((r) => r.name), ['input'], 'it read input');
		assert.ok(idle.start >= input.end && idle.start - input.end < 1e6, 'idle-bind starts at its read, right after input resolved: ' + (idle.start - input.end));
		assert.ok(awaited.start < input.end - 3e6, 'awaited-bind keeps its creation');
		const f = await p.evaluate(() => rtrView.draw());
		const create = f.arrows.find((a) => a.kind === 'create' && a.to === idle.task ||
			a.kind === 'create' && a.toRow === idle.row && Math.abs(a.x0 - idle.x0) < 1);
		assert.ok(create, 'a create line to idle-bind');
		assert.equal(create.fromRow, input.row, 'from the input\'s row');
		await shot(p, 'binds');
		await p.keyboard.press('b');
		await p.waitForTimeout(50);
		const plain = await get('idle-bind');
		assert.ok(plain.start < input.end - 3e6, 'b: idle-bind from its creation again');
		assert.equal(await p.evaluate(() => rtrView.binds), false);
		await p.close();
	});

	test('sleeping regions: where no task of the process runs, light grey', async () => {
		const p = await open(binds);
		const gaps = (await p.evaluate(() => rtrView.sleep))[0];
		let best = null;
		for (let i = 0; i < gaps.length; i += 2)
			if (!best || gaps[i + 1] - gaps[i] > best[1] - best[0])
				best = [gaps[i], gaps[i + 1]];
		const d = best[1] - best[0];
		assert.ok(d > 9e6 && d < 200e6, 'main slept 10 ms: ' + d);
		const f = await p.evaluate(() => rtrView.draw());
		const r = f.sleeping.find((z) => z.t0 === best[0]);
		assert.ok(r && r.x1 - r.x0 > 20, 'drawn: ' + JSON.stringify(r));
		const px = await pixels(p, (r.x0 + r.x1) / 2, r.y1 - 4);
		assert.deepEqual(px[0], [0xd2, 0xd2, 0xd2], 'sleeping grey');
		const active = await pixels(p, Math.max(2, r.x0 - 40), r.y1 - 4);
		assert.notDeepEqual(active[0], [0xd2, 0xd2, 0xd2], 'not where main ran');
		await p.close();
	});

	test('a counter change is labelled name+delta on the task that made it', async () => {
		const p = await open(basic);
		const main = await p.evaluate(() => rtrView.findTask('main'));
		const d = await p.evaluate((t) => rtrView.details(t), main);
		assert.deepEqual(d.counters.map((x) => x.text), ['queue#1+3', 'queue#2+10', 'queue#1+4', 'queue#2-10']);
		// zoomed in around a change, its label is at main's line, apart from the
		// others (the first two are where main's own name is written)
		for (const ch of d.counters.slice(2)) {
			const f = await p.evaluate((at) => rtrView.setView(rtrView.meta.start + at - 1e6,
				rtrView.meta.start + at + 2e6), ch.at);
			const l = f.labels.find((x) => x.counter && x.text === ch.text);
			assert.ok(l && l.task === main, ch.text + ' on main: ' + JSON.stringify(f.labels.map((x) => x.text)));
			for (let i = 0; i < f.labels.length; i++)
				for (let j = i + 1; j < f.labels.length; j++)
					assert.ok(!overlap(f.labels[i], f.labels[j]), f.labels[i].text + ' / ' + f.labels[j].text);
		}
		await shot(p, 'counter-labels');
		await p.close();
	});

	test('--align start: runs recorded at different times, one above the other from one origin', async () => {
		const start = async (file, name) => {
			const p = await open(file);
			const t = await p.evaluate((n) => rtrView.task(rtrView.findTask(n)), name);
			const m = await p.evaluate(() => rtrView.meta);
			await p.close();
			return { t, m };
		};
		const abs = page('absolute', [trace('basic'), trace('binds')]);
		const out = path.join(h.art, 'aligned.html');
		const r = h.view(['--align', 'start', '-o', out, trace('basic'), trace('binds')]);
		assert.equal(r.status, 0, r.stderr);
		const a0 = await start(abs, 'alpha'), b0 = await start(abs, 'input');
		assert.equal(a0.m.aligned, false);
		assert.ok(b0.t.start - a0.t.start > 20e6, 'binds was recorded later: ' + (b0.t.start - a0.t.start));
		const a1 = await start(out, 'alpha'), b1 = await start(out, 'input');
		assert.equal(a1.m.aligned, true);
		assert.ok(Math.abs(b1.t.start - a1.t.start) < 2e6, 'aligned, both begin together: ' + (b1.t.start - a1.t.start));
		assert.equal(b1.t.trace, 1);
		assert.ok(b1.t.row > a1.t.row, 'the second trace under the first');
		assert.ok(a1.m.end < a0.m.end, 'the page is as long as the longer trace');
		const bad = h.view(['--align', 'end', trace('basic')]);
		assert.equal(bad.status, 2);
		assert.match(bad.stderr, /--align takes 'clock' \(one time axis, the default\) or 'start'/);
		const p = await open(out);
		await shot(p, 'aligned');
		await p.close();
	});

	test('p: the selected task\'s critical path, carried by the page, as `ringtrace why` walks it', async () => {
		const p = await open(basic);
		const none = await p.evaluate(() => rtrView.path());
		assert.equal(none, null, 'nothing selected: no path');
		assert.match(await p.$eval('#matches', (e) => e.textContent), /select a task/);
		const carried = await p.evaluate(() => rtrView.pathTasks);
		const gamma = await p.evaluate(() => rtrView.findTask('gamma'));
		assert.ok(carried.includes(gamma), 'the failed gamma\'s path is carried: ' + JSON.stringify(carried));
		await p.evaluate((t) => rtrView.select(t), gamma);
		const got = await p.evaluate(() => rtrView.path());
		const t = await p.evaluate((x) => rtrView.task(x), gamma);
		const segs = got.segments;
		assert.ok(segs.length > 0);
		for (let i = 1; i < segs.length; i++)
			assert.equal(segs[i].t0, segs[i - 1].t1, 'segment ' + i + ' starts where the one before ended');
		// the same walk as the command line's: its length, from gamma's creation
		const id = await p.evaluate((x) => rtrView.details(x).id, gamma);
		const { execFileSync } = await import('node:child_process');
		const why = JSON.parse(execFileSync(bin('ringtrace'), ['why', '--json', trace('basic'), String(id)],
			{ encoding: 'utf8' }));
		assert.equal(segs[segs.length - 1].t1 - segs[0].t0, why.duration_ns, 'the path adds up to why\'s duration');
		assert.equal(segs[0].t0, t.start, 'from its creation');
		const f = await p.evaluate(() => rtrView.frame);
		assert.ok(f.path && f.path.task === gamma && f.path.drawn > 0, JSON.stringify(f.path));
		assert.match(await p.$eval('#matches', (e) => e.textContent), /^critical path: /);
		// drawn: the first segment's colour on its row
		const s0 = segs.find((s) => s.t1 - s.t0 > (f.t1 - f.t0) / 50) || segs[0];
		const x = await p.evaluate((tt) => rtrView.xOf(tt), (s0.t0 + s0.t1) / 2);
		const y = await p.evaluate((r) => rtrView.yOfRow(r), s0.row);
		const colors = { running: [0x2c, 0xa0, 0x2c], runnable: [0xff, 0x7f, 0x0e], 'waiting for a task': [0x1f, 0x77, 0xb4],
			'waiting for a lock': [0xd6, 0x27, 0x28], 'resolved later': [0x94, 0x67, 0xbd], 'not yet created': [0x8c, 0x56, 0x4b],
			'not running': [0x7f, 0x7f, 0x7f] };
		const px = (await pixels(p, x, y))[0];
		const want = colors[s0.what];
		// at 90 % over the row's grey or white
		assert.ok(want.every((v, i) => Math.abs(px[i] - 0.9 * v) <= 30),
			s0.what + ' at ' + x + ',' + y + ': ' + JSON.stringify(px));
		await shot(p, 'critical-path');
		// p again: away; another task selected: away too
		await p.evaluate(() => rtrView.path());
		assert.equal((await p.evaluate(() => rtrView.frame)).path, undefined);
		await p.close();
	});

	test('a request between two traces (xid labels) is an arrow of its own colour, from the sender to the receiver', async () => {
		const file = page('hosts', [trace('client'), trace('server')]);
		const p = await open(file);
		const f = await p.evaluate(() => rtrView.fit());
		const req = f.arrows.filter((a) => a.kind === 'request');
		assert.equal(req.length, 1, 'arrows: ' + JSON.stringify(f.arrows.map((a) => a.kind)));
		assert.equal(req[0].color, '#00a0a0');
		const from = await p.evaluate(() => rtrView.task(rtrView.findTask('request')));
		const to = await p.evaluate(() => rtrView.task(rtrView.findTask('handler')));
		assert.equal(from.trace, 0);
		assert.equal(to.trace, 1);
		assert.equal(req[0].fromRow, from.row);
		assert.equal(req[0].toRow, to.row);
		assert.ok(f.arrows.filter((a) => a.color === '#00a0a0').length === 1, 'only the request is teal');
		await shot(p, 'request-between-hosts');
		await p.close();
	});

	test('the fit view of 1000 requests: every row on screen, above the counters, labels apart', async () => {
		const p = await open(requests);
		const n = await p.evaluate(() => rtrView.ntasks);
		assert.ok(n >= 2000, 'the requests and their waits: ' + n);
		const f = await p.evaluate(() => rtrView.fit());
		const rows = await p.evaluate(() => rtrView.rows);
		const ys = await p.evaluate((rows) => [...Array(rows).keys()].map((r) => rtrView.yOfRow(r)), rows);
		for (let r = 0; r < rows; r++)
			assert.ok(ys[r] >= 22 && ys[r] < f.band.top, 'row ' + r + ' on screen above the band: ' + ys[r]);
		assert.equal(f.rows, ys.filter((y, i) => i === 0 || Math.abs(y - ys[i - 1]) >= 1).length, 'every row drawn');
		for (let i = 0; i < f.labels.length; i++)
			for (let j = i + 1; j < f.labels.length; j++)
				assert.ok(!overlap(f.labels[i], f.labels[j]), f.labels[i].text + ' / ' + f.labels[j].text);
		assert.ok(f.labels.some((l) => l.text === 'event loop'), 'the loop is named');
		assert.ok(f.counters.length === 1 && f.counters[0].y >= f.band.top, 'its counter in the band');
		await shot(p, 'requests-fit');
		await p.close();
	});
}
