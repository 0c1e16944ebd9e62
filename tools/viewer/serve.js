// SPDX-License-Identifier: MIT
// The page of `ringtrace view --serve` (Documentation/viewer.rst, "The
// server"): everything it draws comes from the server's window query
// (api/window: the scene of view/scene.h at this zoom, never more than about
// an item per pixel per lane), asked again at each zoom, pan or scroll; the
// server answers for the rows on screen at the canvas's width.
// Following a recording (--follow), the page asks api/meta again every half
// second; a new turn is drawn, and a window that reached the end stays
// pinned to it (key e pins it again, as the whole trace's w does).
// A trace too large for a model (meta.overview): where the slice the server
// holds does not cover the window, api/window answers its overview (each
// stream's events a pixel column, from the index) and loads the slice around
// a window of few enough events; a loaded slice is a new turn, as a followed
// recording's, asked for every 100 ms while one loads.
// window.rtrServe exposes the last answer and a way to set the window, for
// the tests.
'use strict';
(function () {
	const AXIS_H = 18, ROW_H = 14, LANE_H = 12, GROUP_H = 34;
	const COUNTER_COLORS = ['#e6194b', '#3cb44b', '#4363d8', '#911eb4'];
	const KIND_COLORS = ['#0000ff', '#b0b040', '#008000', '#ff9900', '#000000', '#000000'];
	// a critical path's segments by what the task did (view/render.c's path_color)
	// the page's lane colours: a lock's holder (viewer.js)
	const LANE_COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2', '#edc948',
		'#ff9da7', '#9c755f', '#bab0ac', '#8cd17d', '#86bcb6', '#d37295'];
	const PATH_COLORS = ['#2ca02c', '#ff7f0e', '#1f77b4', '#d62728', '#9467bd', '#8c564b', '#7f7f7f'];
	const canvas = document.getElementById('canvas'), g = canvas.getContext('2d', { alpha: false });
	const $ = (id) => document.getElementById(id);
	const st = window.rtrServe = { ready: false, error: null, frames: 0, last: null, setWindow: null };
	let meta = null, t0 = 0, t1 = 1, row0 = 0, W = 1, H = 1, busy = false, again = false;
	let frame = null, done = [], found = null, lastQuery = '', cpath = null;

	async function getJSON(path) {
		const r = await fetch(path, { cache: 'no-store' });
		if (!r.ok)
			throw new Error(path + ': ' + r.status + ' ' + (await r.text()).trim());
		return r.json();
	}

	// the CPU lanes at the bottom, and above them a strip per counter group
	function lanesH() {
		return (meta.cpus.length + meta.marked_threads.length) * LANE_H + 4;
	}

	function groups() {
		return [...new Set(meta.counters.map((k) => k.group))];
	}

	function bandH() {
		return groups().length * GROUP_H;
	}

	function rowsShown() {
		return Math.max(1, Math.floor((H - AXIS_H - lanesH() - bandH()) / ROW_H));
	}

	// One query at a time; changes made meanwhile are asked for once it is back.
	async function query() {
		if (busy) {
			again = true;
			return;
		}
		busy = true;
		try {
			do {
				again = false;
				const q = 'api/window?t0=' + Math.floor(t0) + '&t1=' + Math.max(Math.ceil(t1), Math.floor(t0) + 1) +
					'&row0=' + row0 + '&row1=' + (row0 + rowsShown()) + '&width=' + W;
				frame = await getJSON(q);
				draw();
				pictureLinks();
				st.frames++;
				st.last = frame;
			} while (again);
			const d = done;
			done = [];
			d.forEach((f) => f(frame));
		} catch (e) {
			st.error = String(e);
			$('status').textContent = st.error;
		}
		busy = false;
	}

	// The links that download this view drawn by the server's renderer
	// (api/picture: `view --format`'s drawing); none while the overview is drawn.
	st.pictureURL = (format) => 'api/picture?format=' + format + '&t0=' + Math.floor(t0) +
		'&t1=' + Math.max(Math.ceil(t1), Math.floor(t0) + 1) + '&row0=' + row0 + '&width=' + W +
		'&height=' + H + (st.selected ? '&selected=' + st.selected.task : '');

	function pictureLinks() {
		for (const f of ['svg', 'png']) {
			const a = $(f);
			a.style.display = frame && frame.overview ? 'none' : '';
			a.href = st.pictureURL(f);
		}
	}

	const y = (row) => AXIS_H + (row - row0) * ROW_H + ROW_H / 2;

	// The overview: a lane per stream, its events a pixel column as bars
	// (square-root scale, as view/render.c draws it), and what to do.
	function drawOverview(f) {
		const O = f.overview, lanes = meta.overview.lanes, top = AXIS_H + 6;
		const laneH = Math.max(4, Math.min(36, Math.floor((H - top - 60) / Math.max(1, lanes.length))));
		let max = 0;
		g.fillStyle = '#fff';
		g.fillRect(0, 0, W, H);
		O.lanes.forEach((col) => col.forEach((v) => { max = Math.max(max, v); }));
		const smax = Math.sqrt(max);
		O.lanes.forEach((col, l) => {
			const y0 = top + l * laneH, lh = laneH - 2;
			g.fillStyle = '#f3f3f3';
			g.fillRect(0, y0, W, lh);
			g.fillStyle = '#1f4e9a';
			for (let x = 0; x < col.length; x++) {
				if (col[x] > 0) {
					const h = Math.ceil(Math.sqrt(col[x]) / smax * lh);
					g.fillRect(x, y0 + lh - h, 1, h);
				}
			}
			if (lh >= 12) {
				const name = lanes[l].name + (lanes[l].cpu >= 0 ? ' (cpu ' + lanes[l].cpu + ')' : '');
				g.fillStyle = 'rgba(255, 255, 255, 0.85)';
				g.fillRect(2, y0 + 1, g.measureText(name).width + 4, 13);
				g.fillStyle = '#333';
				g.fillText(name, 4, y0 + 11);
			}
		});
		const y = top + lanes.length * laneH + 18;
		g.fillStyle = '#222';
		g.fillText(meta.title + ': ' + meta.overview.events + ' events, too many to load at once: ' +
			'each stream\'s events over time, from the index beside it.', 8, y);
		g.fillText(O.events_in_view + ' events in view. ' + (O.loading ? 'Loading them...' :
			O.events_in_view > meta.overview.slice_max ?
			'Zoom in (wheel) to see tasks: a window of at most ' + meta.overview.slice_max +
			' events loads them.' : ''), 8, y + 16);
		g.fillStyle = '#f8f8f8';
		g.fillRect(0, 0, W, AXIS_H);
		g.fillStyle = '#000';
		g.fillText(fmt(f.t0 - meta.start) + ' .. ' + fmt(f.t1 - meta.start), 4, 12);
		$('status').textContent = 'overview: ' + O.events_in_view + ' events in view' +
			(O.loading ? ', loading them' : '');
	}

	function draw() {
		const f = frame, flags = meta.item_flags;
		if (f.overview) {
			drawOverview(f);
			return;
		}
		g.fillStyle = '#fff';
		g.fillRect(0, 0, W, H);
		// sleeping regions behind their trace's rows
		g.fillStyle = '#eeeeee';
		for (let i = 0; i < f.sleep.x0.length; i++) {
			const tr = meta.traces[f.sleep.trace[i]];
			const ya = Math.max(AXIS_H, y(tr.row) - ROW_H / 2);
			const yb = Math.min(H - lanesH() - bandH(), y(tr.row + tr.rows) - ROW_H / 2);
			if (yb > ya)
				g.fillRect(f.sleep.x0[i], ya, f.sleep.x1[i] - f.sleep.x0[i], yb - ya);
		}
		drawPauses(f);
		drawNoteLines(f);
		// the search's matches, under their lines
		if (found) {
			g.fillStyle = 'rgba(255, 220, 0, 0.8)';
			const k = W / (f.t1 - f.t0);
			for (let i = 0; i < found.task.length; i++) {
				const r = found.row[i];
				if (r < f.row0 || r >= f.row1 || found.end[i] < f.t0 || found.start[i] >= f.t1)
					continue;
				const x0 = Math.max(0, (found.start[i] - f.t0) * k), x1 = Math.min(W, (found.end[i] - f.t0) * k);
				g.fillRect(x0 - 3, y(r) - 5, Math.max(6, x1 - x0 + 6), 10);
			}
		}
		// a lock's row: who held it while others waited, a band in the holder's colour
		const HD = f.holds;
		for (let i = 0; HD && i < HD.x0.length; i++) {
			g.fillStyle = LANE_COLORS[HD.holder[i] % LANE_COLORS.length];
			g.fillRect(HD.x0[i], y(HD.row[i]) - 2.5, Math.max(1, HD.x1[i] - HD.x0[i]), 5);
		}
		// a thread's CPU samples (record --sample): a tick under its line a pixel that has some
		const SM = f.samples;
		g.fillStyle = '#c2185b';
		for (let i = 0; SM && i < SM.x.length; i++)
			g.fillRect(SM.x[i], y(SM.row[i]) + 3, 1, 2);
		// the selected task: a light blue band on its row
		const sel = st.selected;
		if (sel && sel.row >= f.row0 && sel.row < f.row1 && sel.end >= f.t0 && sel.created < f.t1) {
			const k = W / (f.t1 - f.t0);
			const x0 = Math.max(0, (sel.created - f.t0) * k), x1 = Math.min(W, (sel.end - f.t0) * k);
			g.fillStyle = 'rgba(80, 140, 255, 0.35)';
			g.fillRect(x0 - 2, y(sel.row) - ROW_H / 2, Math.max(4, x1 - x0 + 4), ROW_H);
		}
		// tasks: lines; merged spans grey; failed and never resolved red
		const T = f.tasks;
		for (let i = 0; i < T.x0.length; i++) {
			const red = T.flags[i] & (flags.failed | flags.never), span = T.flags[i] & flags.span;
			g.fillStyle = red ? '#cc0000' : span ? '#888888' : '#333333';
			g.fillRect(T.x0[i], y(T.row[i]) - 1, Math.max(1, T.x1[i] - T.x0[i]), span ? 3 : 2);
		}
		// labels over the lines wide enough (the server's choice), cut at the row's next item
		const LB = f.labels;
		g.font = '9px sans-serif';
		for (let k = 0; LB && k < LB.item.length; k++) {
			const i = LB.item[k], x0 = Math.max(T.x0[i], 0) + 1;
			const end = i + 1 < T.x0.length && T.row[i + 1] === T.row[i] ? T.x0[i + 1] : W;
			g.save();
			g.beginPath();
			g.rect(x0, y(T.row[i]) - 10, end - x0 - 2, 9);
			g.clip();
			g.fillStyle = T.flags[i] & (flags.failed | flags.never) ? '#aa0000' : '#000000';
			g.fillText(LB.text[k], x0, y(T.row[i]) - 2);
			g.restore();
		}
		g.font = '10px sans-serif';
		// arrows, or their counts per pixel when there are too many
		const A = f.arrows;
		if (A.hist) {
			const base = H - lanesH() - bandH() - 2;
			A.hist.forEach((col, k) => {
				g.fillStyle = KIND_COLORS[k];
				g.globalAlpha = 0.5;
				for (let px = 0; px < col.length; px++)
					if (col[px])
						g.fillRect(px, base - Math.min(40, 4 * Math.log2(1 + col[px])), 1, Math.min(40, 4 * Math.log2(1 + col[px])));
			});
			g.globalAlpha = 1;
		}
		g.lineWidth = 1;
		for (let i = 0; i < A.x0.length; i++) {
			g.strokeStyle = A.failed[i] ? '#ff0000' : A.remote && A.remote[i] ? '#00a0a0' : KIND_COLORS[A.kind[i]];
			g.globalAlpha = A.count[i] > 1 ? 0.5 : 0.9;
			g.beginPath();
			g.moveTo(A.x0[i], y(A.from_row[i]));
			g.lineTo(A.x1[i], y(A.to_row[i]));
			g.stroke();
		}
		g.globalAlpha = 1;
		if (cpath)
			drawPath(f);
		drawCounters(f);
		// CPU lanes at the bottom
		const top = H - lanesH() + 4, R = f.runs;
		g.fillStyle = '#f4f4f4';
		g.fillRect(0, top - 4, W, lanesH());
		for (let i = 0; i < R.x0.length; i++) {
			g.fillStyle = R.flags[i] & flags.span ? '#7fa6cc' : '#4e79a7';
			g.fillRect(R.x0[i], top + R.cpu[i] * LANE_H, Math.max(1, R.x1[i] - R.x0[i]), LANE_H - 2);
		}
		// markers (events the task model does not read): ticks on their CPU's
		// lane and their thread's, a run of them closer than a pixel a band
		const lane = new Map(meta.marked_threads.map((t, i) => [t.thread, meta.cpus.length + i]));
		const ticks = (M, laneOf) => {
			for (let i = 0; i < M.x0.length; i++) {
				const l = laneOf(i);
				g.fillStyle = M.flags[i] & flags.span ? '#555555' : '#000000';
				g.fillRect(M.x0[i], top + l * LANE_H + 2, Math.max(1, M.x1[i] - M.x0[i]), LANE_H - 6);
			}
		};
		ticks(f.cpu_marks, (i) => f.cpu_marks.cpu[i]);
		ticks(f.thread_marks, (i) => lane.get(f.thread_marks.thread[i]));
		drawLosses(f, top);
		// the time axis
		g.fillStyle = '#f8f8f8';
		g.fillRect(0, 0, W, AXIS_H);
		g.fillStyle = '#000';
		g.fillText(fmt(f.t0 - meta.start) + ' .. ' + fmt(f.t1 - meta.start), 4, 12);
		drawNotes(f);
		$('status').textContent = f.tasks_in_view + ' tasks and ' + f.arrows_in_view + ' arrows in view, ' +
			T.x0.length + ' items, arrows ' + A.detail + '; rows ' + f.row0 + '-' + f.row1 + ' of ' + meta.nrows +
			(meta.overview ? '; a slice of ' + meta.events + ' of the trace\'s ' + meta.overview.events +
				' events (search and details in it)' : meta.sliced ? '; the recording\'s tail: its last ' +
				meta.events + ' events' : '');
	}

	// Where each stream revealed losses: a red diamond on its CPU's lane, a
	// red line across, and how many (the page's marks, viewer.js); where a
	// stream is damaged, the rest of its lane hatched: unknown from there.
	function drawLosses(f, top) {
		const L = f.losses, k = W / (f.t1 - f.t0);
		for (const d of meta.damage) {
			if (d.cpu < 0 || d.ts >= f.t1)
				continue;
			const x = Math.max(0, (d.ts - f.t0) * k), y = top + d.cpu * LANE_H;
			g.fillStyle = 'rgba(204, 0, 0, 0.25)';
			g.fillRect(x, y, W - x, LANE_H - 2);
			g.fillStyle = '#a00000';
			g.fillText('damaged', x + 3, y + LANE_H - 3);
		}
		let right = -1;
		for (let i = 0; i < L.x.length; i++) {
			const x = L.x[i], y = top + L.cpu[i] * LANE_H;
			g.fillStyle = '#d00000';
			g.beginPath();
			g.moveTo(x, y);
			g.lineTo(x + 5, y + LANE_H / 2);
			g.lineTo(x, y + LANE_H);
			g.lineTo(x - 5, y + LANE_H / 2);
			g.closePath();
			g.fill();
			g.fillRect(x - 0.5, AXIS_H, 1, top - AXIS_H - 4);
			const text = (L.events[i] ? L.events[i] + ' events' : '') + (L.events[i] && L.packets[i] ? ', ' : '') +
				(L.packets[i] ? L.packets[i] + ' packets' : '') + ' lost';
			// right of the mark, or left of it at the right edge (a loss at the trace's end)
			const tw = g.measureText(text).width, tx = x + 7 + tw <= W ? x + 7 : x - 7 - tw;
			if (tx > right && tx >= 0) {
				g.fillStyle = 'rgba(255, 255, 255, 0.85)';
				g.fillRect(tx - 1, y, tw + 2, LANE_H - 2);
				g.fillStyle = '#a00000';
				g.fillText(text, tx, y + LANE_H - 3);
				right = tx + tw + 4;
			}
		}
	}

	// The notes' faint purple lines down the rows, behind the tasks.
	function drawNoteLines(f) {
		g.fillStyle = 'rgba(123, 31, 162, 0.35)';
		for (let i = 0; i < f.notes.x.length; i++)
			g.fillRect(Math.floor(f.notes.x[i]), AXIS_H, 1, H - lanesH() - AXIS_H);
	}

	// Pauses (stalls the program reported): brown regions behind the rows,
	// their reason at the top where there is room; drawn first.
	function drawPauses(f) {
		const P = f.pauses;
		for (let i = 0; i < P.x0.length; i++) {
			g.fillStyle = 'rgba(150, 110, 60, 0.22)';
			g.fillRect(P.x0[i], AXIS_H, Math.max(1, P.x1[i] - P.x0[i]), H - AXIS_H);
			if (P.x1[i] - P.x0[i] > 30) {
				g.fillStyle = '#6b4a1e';
				g.fillText(P.reason[i] + (P.count[i] > 1 ? ' ...' : ''), P.x0[i] + 3, AXIS_H + 11);
			}
		}
	}

	// Notes: a purple mark at the foot of the axis (its line is drawn behind
	// the rows), the text (or how many a pixel column holds) where it fits.
	function drawNotes(f) {
		const N = f.notes;
		let right = -1;
		for (let i = 0; i < N.x.length; i++) {
			const x = Math.floor(N.x[i]) + 0.5;
			g.fillStyle = '#7b1fa2';
			g.fillRect(x - 3, AXIS_H - 6, 6, 6);
			const text = N.count[i] > 1 ? N.count[i] + ' notes' : N.text[i];
			const tw = g.measureText(text).width;
			if (x + 4 > right) {
				g.fillStyle = 'rgba(255, 255, 255, 0.85)';
				g.fillRect(x + 3, AXIS_H + 1, tw + 2, 13);
				g.fillStyle = '#7b1fa2';
				g.fillText(text, x + 4, AXIS_H + 11);
				right = x + 4 + tw + 6;
			}
		}
	}

	// What the trace lost and where it is damaged, in the bar (red): a
	// tracer says so, never draws less in silence.
	function sayLosses() {
		let ev = 0, pk = 0;
		for (const c of meta.cpus) {
			ev += c.events_lost;
			pk += c.packets_lost;
		}
		$('lost').textContent = (ev || pk ? 'lost: ' + ev + ' events, ' + pk + ' packets (red marks on the CPU lanes) ' : '') +
			meta.damage.map((d) => 'damaged: ' + d.message).join('; ');
	}

	// The selected task's critical path (api/path, `p`): a band on the row of
	// each segment's task coloured by what it did, a magenta line where the
	// path moves from a row to another.
	function drawPath(f) {
		const P = cpath, k = W / (f.t1 - f.t0);
		g.globalAlpha = 0.9;
		for (let i = 0; i < P.t0.length; i++) {
			const r = P.row[i];
			if (r < f.row0 || r >= f.row1 || P.t1[i] < f.t0 || P.t0[i] > f.t1)
				continue;
			const x0 = Math.max(-1, (P.t0[i] - f.t0) * k), x1 = Math.min(W + 1, (P.t1[i] - f.t0) * k);
			g.fillStyle = PATH_COLORS[P.what[i]] || '#7f7f7f';
			g.fillRect(x0, y(r) - 3, Math.max(1, x1 - x0), 6);
		}
		g.strokeStyle = '#cc00cc';
		g.lineWidth = 2;
		g.beginPath();
		for (let i = 1; i < P.t0.length; i++) {
			const x = (P.t0[i] - f.t0) * k;
			if (P.row[i] === P.row[i - 1] || x < 0 || x > W)
				continue;
			g.moveTo(x, y(P.row[i - 1]));
			g.lineTo(x, y(P.row[i]));
		}
		g.stroke();
		g.lineWidth = 1;
		g.globalAlpha = 1;
	}

	// Counters: a step plot per counter, a strip per group (one scale); a
	// column of several changes is a vertical stroke over their range.
	function drawCounters(f) {
		const gs = groups(), C = f.counters, top0 = H - lanesH() - bandH();
		if (!gs.length)
			return;
		g.fillStyle = '#fafafa';
		g.fillRect(0, top0, W, bandH());
		const scale = new Map();
		meta.counters.forEach((k) => {
			const s = scale.get(k.group) || { min: Infinity, max: -Infinity };
			s.min = Math.min(s.min, k.min);
			s.max = Math.max(s.max, k.max);
			scale.set(k.group, s);
		});
		const Y = (k, v) => {
			const gi = gs.indexOf(meta.counters[k].group), s = scale.get(meta.counters[k].group);
			const span = s.max > s.min ? s.max - s.min : 1;
			return top0 + (gi + 1) * GROUP_H - 4 - (v - s.min) / span * (GROUP_H - 10);
		};
		for (let i = 0; i < C.x0.length; i++) {
			const k = C.counter[i];
			g.fillStyle = COUNTER_COLORS[k % COUNTER_COLORS.length];
			const y0 = Y(k, C.max[i]), y1 = Y(k, C.min[i]), yv = Y(k, C.value[i]);
			if (C.count[i])
				g.fillRect(C.x0[i], y0, 1, Math.max(1, y1 - y0));
			g.fillRect(C.x0[i], yv - 0.5, Math.max(1, C.x1[i] - C.x0[i]), 1.5);
		}
		g.fillStyle = '#555';
		gs.forEach((gr, gi) => {
			const names = meta.counters.filter((k) => k.group === gr).map((k) => k.name).join(', ');
			g.fillText(names, 4, top0 + gi * GROUP_H + 10);
		});
	}

	function fmt(ns) {
		const a = Math.abs(ns);
		return a >= 1e9 ? (ns / 1e9).toFixed(6) + ' s' : a >= 1e6 ? (ns / 1e6).toFixed(3) + ' ms' :
			a >= 1e3 ? (ns / 1e3).toFixed(3) + ' us' : ns + ' ns';
	}

	function resize() {
		const r = canvas.getBoundingClientRect();
		W = Math.max(1, Math.min(meta.limits.width, Math.floor(r.width)));
		H = Math.max(1, Math.floor(r.height));
		canvas.width = W;
		canvas.height = H;
		query();
	}

	function clamp() {
		const span = Math.max(1, t1 - t0);
		t1 = t0 + span;
		row0 = Math.max(0, Math.min(row0, Math.max(0, meta.nrows - 1)));
	}

	function bind() {
		canvas.addEventListener('wheel', (e) => {
			e.preventDefault();
			if (e.shiftKey) {
				row0 += Math.sign(e.deltaY || e.deltaX) * 3;
			} else {
				const f = Math.exp(Math.sign(e.deltaY) * 0.2), x = e.offsetX / W, at = t0 + x * (t1 - t0);
				const span = Math.max(10, (t1 - t0) * f);
				t0 = at - x * span;
				t1 = t0 + span;
			}
			clamp();
			query();
		}, { passive: false });
		let drag = null;
		let down = null;
		canvas.addEventListener('mousedown', (e) => (down = drag = { x: e.offsetX, y: e.offsetY, t0, t1, row0 }));
		window.addEventListener('mouseup', () => (drag = null));
		canvas.addEventListener('mousemove', (e) => {
			if (!drag)
				return;
			const dt = (e.offsetX - drag.x) * (drag.t1 - drag.t0) / W;
			t0 = drag.t0 - dt;
			t1 = drag.t1 - dt;
			row0 = drag.row0 - Math.round((e.offsetY - drag.y) / ROW_H);
			clamp();
			query();
		});
		window.addEventListener('keydown', (e) => {
			if (e.target === $('search'))
				return;
			if (e.key === 'w') {
				t0 = meta.start;
				t1 = meta.end + 1;
				row0 = 0;
				query();
			} else if (e.key === 'p') {
				st.path();
			} else if (e.key === 'H') {
				st.hist();
			} else if (e.key === 'Escape') {
				select(null);
			} else if (e.key === 'e') {
				// the end, the same span: pinned there while a recording is followed
				const span = t1 - t0;
				t1 = meta.end + 1;
				t0 = t1 - span;
				clamp();
				query();
			}
		});
		window.addEventListener('resize', resize);
		canvas.addEventListener('click', (e) => {
			if (down && (Math.abs(e.offsetX - down.x) > 3 || Math.abs(e.offsetY - down.y) > 3))
				return;	// the end of a drag
			st.details(e.offsetX, e.offsetY);
		});
		$('search').addEventListener('keydown', async (e) => {
			if (e.key !== 'Enter')
				return;
			e.stopPropagation();
			await st.search($('search').value);
		});
	}

	// The item under (x, y) of the last answer: a task's details from the
	// server, or what a span stands for.
	st.details = async (x, y0) => {
		const f = frame, T = f.tasks, row = f.row0 + Math.floor((y0 - AXIS_H) / ROW_H);
		for (let i = 0; i < T.x0.length; i++) {
			if (T.row[i] !== row || x < T.x0[i] - 2 || x > Math.max(T.x1[i], T.x0[i] + 1) + 2)
				continue;
			const t = await getJSON('api/task?i=' + T.index[i]);
			const dur = t.end - t.created;
			select(t);	// (its drawing writes the status line: this comes after)
			$('status').textContent = (T.count[i] > 1 ? T.count[i] + ' tasks here; the longest or failed: ' : '') +
				(t.name || '#' + t.id) + ' (' + t.kind + '), ' + fmt(dur) +
				(t.flags & meta.task_flags.failed ? ', failed: ' + t.reason : '') + (T.flags[i] & meta.item_flags.never ? ', never resolved' : '');
			return t;
		}
		select(null);
		return null;
	};

	// The selected task: a blue band on its row, its details in the panel
	// (as the window's side panel: state, times, the tasks it links to, its
	// labels); a link selects that task and brings it into view.
	function select(t) {
		if (cpath && (!t || cpath.task !== t.task))
			cpath = null;
		st.selected = t;
		pictureLinks();
		const box = $('details');
		box.textContent = '';
		box.style.display = t ? 'block' : 'none';
		if (t) {
			const line = (text, color) => {
				const d = document.createElement('div');
				d.textContent = text;
				if (color)
					d.style.color = color;
				box.appendChild(d);
				return d;
			};
			const F = meta.task_flags;
			line(t.name || '#' + t.id).style.fontWeight = 'bold';
			line('id ' + t.id + ', ' + t.kind + ', trace ' + t.trace);
			if (t.flags & F.failed)
				line('failed: ' + t.reason, '#cc0000');
			else if (t.flags & F.never_resolved)
				line('never resolved', '#cc0000');
			else
				line(t.flags & F.resolved ? 'resolved' : 'not resolved in the trace');
			line('created ' + fmt(t.created - meta.start));
			if (t.resolved !== null)
				line('resolved ' + fmt(t.resolved - meta.start) + ', after ' + fmt(t.resolved - t.created));
			line('ran ' + t.runs + ' times');
			// where: by CPU, and by the thread that switched to it
			const where = (list, name) => list.map((x) => name(x) + ': ' + fmt(x.ns) + ' in ' + x.runs +
				' run' + (x.runs > 1 ? 's' : '')).join('; ');
			if (t.cpus.length)
				line('ran on: ' + where(t.cpus, (x) => 'cpu ' + (x.cpu < 0 ? '?' : x.cpu)));
			if (t.threads.length)
				line('threads: ' + where(t.threads, (x) => 'tid ' + x.tid));
			// a line a kind of link: "read by: a, b and 3 more"
			const kinds = [...new Set(t.links.map((k) => k.what))];
			for (const what of kinds) {
				const d = line(what + ': ');
				t.links.filter((k) => k.what === what).forEach((k, j) => {
					const a = document.createElement('a');
					a.href = '#';
					a.textContent = k.name;
					a.dataset.task = k.task;
					a.addEventListener('click', (e) => {
						e.preventDefault();
						st.show(k.task);
					});
					if (j)
						d.appendChild(document.createTextNode(', '));
					d.appendChild(a);
					d.appendChild(document.createTextNode(' (' + k.kind + ')'));
				});
				if (t.links_more[what])
					d.appendChild(document.createTextNode(' and ' + t.links_more[what] + ' more'));
			}
			// the counter changes it made: "queue#1+3 at 1.2 ms"
			if (t.counters.length)
				line('counters: ' + t.counters.map((k) => k.name + (k.delta >= 0 ? '+' : '') + k.delta +
					' at ' + fmt(k.at - meta.start)).join(', ') +
					(t.counters_more ? ' and ' + t.counters_more + ' more' : ''));
			if (t.labels.length) {
				line('labels').style.fontWeight = 'bold';
				t.labels.forEach((l) => line('  ' + l));
			}
		}
		draw();
	}

	// st.show(i): task i selected, its details shown, and brought into view:
	// its row among those shown, its start in the window (the span kept,
	// widened to hold it whole when it is longer).
	st.show = async (i) => {
		const t = await getJSON('api/task?i=' + i);
		const span = t1 - t0, len = t.end - t.created;
		if (t.created < t0 || t.end > t1) {
			const s = Math.max(span, len * 1.25);
			t0 = t.created - (s - len) / 2;
			t1 = t0 + s;
		}
		if (t.row < row0 || t.row >= row0 + rowsShown())
			row0 = Math.max(0, t.row - Math.floor(rowsShown() / 2));
		clamp();
		select(t);
		await new Promise((res) => {
			done.push(res);
			query();
		});
		return t;
	};

	// `H`: the durations of the selected task's kind (api/hist) as a histogram
	// in a panel, a bar per log bucket; a click on a bucket highlights its
	// tasks (the search's yellow); `H` again closes it.  The answer for the tests.
	st.hist = async () => {
		const panel = $('hist');
		if (panel.style.display === 'block') {
			panel.style.display = 'none';
			return null;
		}
		if (!st.selected) {
			$('status').textContent = 'select a task (click it), then H for the durations of its kind';
			return null;
		}
		const i = st.selected.task, h = await getJSON('api/hist?i=' + i);
		const top = Math.max(1, ...h.count), esc = (x) => x.replace(/[&<>]/g, (c) => '&#' + c.charCodeAt(0) + ';');
		let html = '<b>' + esc(h.kind) + '</b>: ' + h.n + ' durations, p50 ' + fmt(h.p50) + ', p90 ' + fmt(h.p90) +
			', p99 ' + fmt(h.p99) + ', max ' + fmt(h.max) + '\n';
		h.lo.forEach((lo, b) => {
			html += '<div class="hb" data-lo="' + lo + '" data-hi="' + h.hi[b] + '">' +
				(fmt(lo) + ' .. ' + fmt(h.hi[b])).padEnd(26) + String(h.count[b]).padStart(7) + ' ' +
				'#'.repeat(Math.ceil(30 * h.count[b] / top)) + '</div>';
		});
		if (!h.n)
			html += '(no resolved task of this kind)';
		panel.innerHTML = html;
		panel.style.display = 'block';
		panel.querySelectorAll('.hb').forEach((el) => el.addEventListener('click', async () => {
			panel.querySelectorAll('.hb.on').forEach((x) => x.classList.remove('on'));
			el.classList.add('on');
			found = await getJSON('api/hist?i=' + i + '&lo=' + el.dataset.lo + '&hi=' + el.dataset.hi);
			lastQuery = '';
			draw();
			$('status').textContent = found.count + ' tasks of ' + h.kind + ' took ' + fmt(+el.dataset.lo) +
				' to ' + fmt(+el.dataset.hi) + (found.count > found.task.length ? ' (the first ' + found.task.length + ' highlighted)' : '');
			st.histFound = found;
		}));
		return h;
	};

	// `p`: the selected task's critical path drawn, summed up in the status
	// line; `p` again takes it away.  The answer for the tests.
	st.path = async () => {
		if (cpath) {
			cpath = null;
			draw();
			return null;
		}
		if (!st.selected) {
			$('status').textContent = 'select a task (click it), then p for its critical path';
			return null;
		}
		cpath = await getJSON('api/path?i=' + st.selected.task);
		draw();
		$('status').textContent = 'critical path: ' + fmt(cpath.end - cpath.start) +
			(cpath.resolved ? '' : ' (not resolved: to the end)') + '; ' +
			cpath.top.slice(0, 6).map((s) => fmt(s.ns) + ' ' + s.what + (s.label ? ' ' + s.label : '')).join('; ') +
			(cpath.top.length > 6 || cpath.top_more ? '; ...' : '');
		return cpath;
	};

	// Search (the scene's, in C): the matches are highlighted; the answer for the tests.
	st.search = async (q) => {
		lastQuery = q;
		found = q ? await getJSON('api/search?q=' + encodeURIComponent(q)) : null;
		draw();
		if (found)
			$('status').textContent = found.count + ' tasks match' +
				(found.count > found.task.length ? ' (the first ' + found.task.length + ' highlighted)' : '');
		return found;
	};

	// A new turn of a followed recording: its meta, the window moved with
	// the origin, kept at the end if it was there, the search asked again.
	function grown(m) {
		const pinned = t1 >= meta.end, whole = pinned && t0 <= meta.start;
		const shift = m.origin_ns - meta.origin_ns, span = t1 - t0;
		t0 -= shift;
		t1 -= shift;
		meta = m;
		sayLosses();
		if (pinned) {
			// the whole trace stays whole; a zoomed window keeps its span
			t1 = meta.end + 1;
			t0 = whole ? meta.start : t1 - span;
		}
		clamp();
		st.turn = meta.turn;
		cpath = null;	// the old scene's rows
		if (lastQuery)
			st.search(lastQuery);
		query();
	}

	async function follow() {
		while (meta.live && !meta.done) {
			// a slice of a trace too large, loading: soon
			await new Promise((res) => setTimeout(res, frame && frame.overview && frame.overview.loading ? 100 : 500));
			try {
				const m = await getJSON('api/meta');
				if (m.turn !== meta.turn)
					grown(m);
			} catch (e) {
				$('status').textContent = 'the server no longer answers: ' + e;
				return;
			}
		}
	}

	// For the tests: set the window, resolve with the answer drawn.
	st.setWindow = (a, b, r) => new Promise((res) => {
		t0 = a;
		t1 = b;
		row0 = r || 0;
		clamp();
		done.push(res);
		query();
	});

	(async () => {
		try {
			meta = await getJSON('api/meta');
			document.title = 'ringtrace view: ' + meta.title;
			$('title').textContent = meta.title;
			sayLosses();
			t0 = meta.start;
			t1 = meta.end + 1;
			bind();
			resize();
			await new Promise((res) => done.push(res));
			st.ready = true;
			st.turn = meta.turn;
			follow();
		} catch (e) {
			st.error = String(e);
			$('status').textContent = st.error;
		}
	})();
})();
