// SPDX-License-Identifier: MIT
// The page of `ringtrace view` (Documentation/viewer.rst): mirage-trace-viewer's
// picture on a 2D canvas.  tools/view.c puts the task model in the page as
// columns (typed arrays in one base64 blob, strings in a NUL-separated table);
// this script draws them.  Every frame touches only what is in view: tasks by
// row (each row's tasks are sorted and never overlap), arrows by length class
// then start time, runs by CPU, all found by binary search; what is narrower
// than a pixel is merged, and text is capped.  window.rtrView exposes what was
// drawn, for the tests (tests/viewer/) and the benchmark.
'use strict';
(function () {
	const ROW_H = 28;		// pixels between rows near the focus (mirage: 30)
	const AXIS_H = 22;		// the time ruler
	const LANE_H = 14;		// one CPU lane
	const MIN_LABEL_PX = 16;	// a task this wide on screen gets its label (mirage)
	const MAX_LABELS = 3000;	// text drawn per frame, at most
	const MAX_RECORDED = 5000;	// arrows and labels listed in rtrView.frame
	const EXACT_ARROWS = 8000;
	const DENSE_ARROWS = 2000;	// more arrows in view than this: the short ones lose their heads
	const HEADLESS_PX = 12;		// ...those shorter than this on screen (x + y)
	const NARROW_PX = 3;		// tasks narrower than this are drawn merged ("dust")	// more in view in one length class: one per pixel
	let FLAG_FAILED, FLAG_NEVER, FLAG_RESOLVED, FLAG_CREATED;	// enum rtr_task_flags: from the page's header
	const NONE = 0xffffffff;
	const ARROW = [			// by kind: read, try_read, resolve, signal, create, becomes (names from the header)
		{ name: 'read', color: '#0000ff' },
		{ name: 'try_read', color: '#cccc66' },
		{ name: 'resolve', color: '#008000' },
		{ name: 'signal', color: '#ff9900' },
		{ name: 'create', color: '#000000' },
		{ name: 'becomes', color: '#000000' },
	];
	const READ_FAILED = '#ff0000';
	const REMOTE = '#00a0a0';	// a read between traces: a request between hosts (network.rst)
	const COUNTER_COLORS = ['#e6194b', '#3cb44b', '#4363d8', '#911eb4'];
	const LANE_COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2', '#edc948',
		'#ff9da7', '#9c755f', '#bab0ac', '#8cd17d', '#86bcb6', '#d37295'];

	const $ = (id) => document.getElementById(id);
	const canvas = $('canvas');
	const ctx = canvas.getContext('2d', { alpha: false });
	const view = window.rtrView = { ready: false, error: null, frame: null };
	let D = null;			// the data
	const V = {			// the view
		t0: 0, span: 1, W: 1, H: 1, dpr: 1,
		focus: 0, fisheye: true, lanes: true, counters: true,
		highlight: null, highlightList: [], matchList: [], matchAt: -1,
		query: '', binds: true, selected: -1,
		path: -1,		// `p`: the index of the critical path drawn (path_task), or -1
	};
	// a critical path's segments by what the task did (enum rtr_cp_what; view/render.c's path_color)
	const PATH_COLORS = ['#2ca02c', '#ff7f0e', '#1f77b4', '#d62728', '#9467bd', '#8c564b', '#7f7f7f'];
	const PATH_WHAT = ['running', 'runnable', 'waiting for a task', 'waiting for a lock',
		'resolved later', 'not yet created', 'not running'];

	// ---- data --------------------------------------------------------------------

	// The data: base64 of the columns, gzipped (data-encoding, tools/view.c)
	async function blobBytes() {
		const el = $('rtr-data'), b64 = el.textContent.trim();
		let u;
		try {
			const r = await fetch('data:application/octet-stream;base64,' + b64);
			u = new Uint8Array(await r.arrayBuffer());
		} catch (e) {	// a browser that refuses data: URLs to fetch
			const s = atob(b64);
			u = new Uint8Array(s.length);
			for (let i = 0; i < s.length; i++)
				u[i] = s.charCodeAt(i);
		}
		if (el.dataset.encoding !== 'gzip')
			return u;
		if (typeof DecompressionStream === 'undefined')
			throw new Error('this browser cannot inflate the page\'s data (it needs ' +
				'DecompressionStream: Chromium 80, Firefox 113, Safari 16.4 or later)');
		const z = new Blob([u]).stream().pipeThrough(new DecompressionStream('gzip'));
		return new Uint8Array(await new Response(z).arrayBuffer());
	}

	const TYPES = { f64: Float64Array, u32: Uint32Array, u16: Uint16Array, u8: Uint8Array };

	async function load() {
		const meta = JSON.parse($('rtr-meta').textContent);
		const bytes = await blobBytes();
		const c = {};
		for (const [name, [off, n, type]] of Object.entries(meta.columns)) {
			if (type === 'utf8')
				c[name] = bytes.subarray(off, off + n);
			else
				c[name] = new TYPES[type](bytes.buffer, bytes.byteOffset + off, n);
		}
		const S = new TextDecoder().decode(c.strings).split('\0');
		FLAG_FAILED = meta.task_flags.failed;
		FLAG_NEVER = meta.task_flags.never_resolved;
		FLAG_RESOLVED = meta.task_flags.resolved;
		FLAG_CREATED = meta.task_flags.created;
		meta.arrow_kinds.forEach((name, k) => (ARROW[k].name = name));
		const d = { meta, S, c, N: meta.ntasks, nrows: meta.nrows };
		// each task's labels and runs start where the previous task's end
		d.labFirst = prefix(c.task_nlabels);
		d.runFirst = prefix(c.task_nruns);
		// each row's task ends, and each CPU lane's run ends, in their order:
		// the keys of the binary searches that find what is in view
		d.rowEnd = new Float64Array(c.row_task.length);
		for (let j = 0; j < c.row_task.length; j++)
			d.rowEnd[j] = c.task_end[c.row_task[j]];
		d.laneEnd = new Float64Array(c.cpu_runs.length);
		for (let j = 0; j < c.cpu_runs.length; j++)
			d.laneEnd[j] = c.run_end[c.cpu_runs[j]];
		// the CPU samples (record --sample) by task, each task's in time order:
		// sampleTs[sampleFirst[t] .. sampleFirst[t + 1]], sampleIdx the columns' index
		[d.sampleFirst, d.sampleIdx, d.sampleTs] = byTask(d.N, c.cpu_sample_task, c.cpu_sample_ts);
		// locks held while others waited (hold_*: the scene's, by lock, each by start): the lock's lane
		[d.holdFirst, d.holdIdx, d.holdEnd] = byTask(d.N, c.hold_lock, c.hold_end);
		d.end = meta.end;
		d.start = meta.start;
		// the critical paths the page carries (tools/view.c, page_paths()), by task
		d.pathOf = new Map();
		for (let p = 0; c.path_task && p < c.path_task.length; p++)
			d.pathOf.set(c.path_task[p], p);
		d.bucketLen = [];
		for (let b = 0; b < 66; b++)
			d.bucketLen.push(b === 0 ? 0 : Math.pow(2, b));
		// counters: a scale per group (same name before '#')
		d.groups = new Map();
		d.trees = [];		// rangeTree(), by counter
		meta.counters.forEach((k, i) => {
			k.index = i;
			k.label = (meta.traces.length > 1 ? 'T' + k.trace + ' ' : '') + S[k.name];
			k.short = S[k.name];
			k.on = true;
			const g = d.groups.get(k.group) || { min: Infinity, max: -Infinity };
			g.min = Math.min(g.min, k.min);
			g.max = Math.max(g.max, k.max);
			d.groups.set(k.group, g);
		});
		let tl = performance.now();
		simplifyBinds(d);
		view.loadMs = { binds: performance.now() - tl };
		// the sleeping regions, the scene's (view/scene.c): by trace, [start, end] pairs
		d.sleep = meta.traces.map((tr, i) => {
			const lo = c.sleep_off[i], hi = c.sleep_off[i + 1], g = new Float64Array(2 * (hi - lo));
			for (let j = lo; j < hi; j++) {
				g[2 * (j - lo)] = c.sleep_t0[j];
				g[2 * (j - lo) + 1] = c.sleep_t1[j];
			}
			return g;
		});
		// a lane per stream: 'cpu N', or its file's name where a trace has several
		// streams of one CPU (LTTng's channels)
		const seen = new Map();
		// (the kernel's records of a CPU, record --sched: 'cpu N kernel', which threads ran)
		const lk = (c2) => c2.trace + ':' + c2.cpu + (c2.kernel ? 'k' : '');
		meta.cpus.forEach((c2) => seen.set(lk(c2), (seen.get(lk(c2)) || 0) + 1));
		d.lanes = meta.cpus.map((c2, i) => ({
			index: i, cpu: c2, name: (meta.traces.length > 1 ? 'T' + c2.trace + ' ' : '') +
				(seen.get(lk(c2)) > 1 && S[c2.stream] ? S[c2.stream] + ' (cpu ' + c2.cpu + ')' :
					'cpu ' + c2.cpu + (c2.kernel ? ' kernel' : '')),
		}));
		// after the CPUs' lanes, a lane per thread that wrote markers (the trace's
		// thread records, LTTng's vtid): a program of a thousand threads whose
		// events are all tasks' gets no thousand empty lanes
		d.ncpuLanes = d.lanes.length;
		const nthr = (meta.threads || []).length, marked = new Uint8Array(nthr);
		if (c.marker_thread)
			for (let i = 0; i < c.marker_thread.length; i++)
				if (c.marker_thread[i] < nthr)
					marked[c.marker_thread[i]] = 1;
		d.threadLane = new Int32Array(nthr).fill(-1);
		(meta.threads || []).forEach((t, i) => {
			if (!marked[i])
				return;
			d.threadLane[i] = d.lanes.length;
			d.lanes.push({
				index: d.lanes.length, thread: i, name: (meta.traces.length > 1 ? 'T' + t.trace + ' ' : '') +
					(S[t.name] || 'tid') + ' ' + t.tid,
			});
		});
		d.markLast = new Float64Array(d.lanes.length);
		return d;
	}

	/*
	 * simplify_binds (mirage's, on by default, key b): a bind-like task
	 * whose first read comes before anyone waited on it or read it sat idle
	 * until its input was ready: it is drawn from that read on, created by
	 * the input it read (a vertical line from the input's row).  The scene
	 * says which (bind_*: rtr_scene_binds()); the page keeps both versions
	 * of the columns this changes and swaps them (task_start; the arrows of
	 * length 0, which hold the create lines).
	 */
	function simplifyBinds(d) {
		const c = d.c, n = c.bind_task ? c.bind_task.length : 0;
		d.plain = {};
		d.simplified = n;
		if (!n) {	// nothing to change: one set of columns
			d.simple = {};
			return;
		}
		const start = Float64Array.from(c.task_start), from = Uint32Array.from(c.arrow_from);
		const tf = Float64Array.from(c.arrow_tf), ts = Float64Array.from(c.arrow_ts);
		for (let i = 0; i < n; i++) {
			const t = c.bind_task[i], a = c.bind_arrow[i], r = c.bind_start[i];
			start[t] = r;
			from[a] = c.bind_from[i];
			tf[a] = ts[a] = r;
		}
		// the arrows of length 0 (the first bucket) are sorted by time again
		const lo = c.arrow_bucket[0], hi = c.arrow_bucket[1];
		const order = [];
		for (let i = lo; i < hi; i++)
			order.push(i);
		order.sort((a, b) => tf[a] - tf[b]);
		const perm = (src) => {
			const out = src.slice();
			for (let j = 0; j < order.length; j++)
				out[lo + j] = src[order[j]];
			return out;
		};
		d.simple = { task_start: start, arrow_from: perm(from), arrow_tf: perm(tf), arrow_ts: perm(ts),
			arrow_to: perm(c.arrow_to), arrow_kind: perm(c.arrow_kind), arrow_flags: perm(c.arrow_flags) };
		for (const k of Object.keys(d.simple))
			d.plain[k] = c[k];
	}

	function useBinds(on) {
		V.binds = on;
		Object.assign(D.c, on ? D.simple : D.plain);
		adjacency = null;
	}

	// Items grouped by task, each task's in their order (a counting sort):
	// [first, idx, keys], task t's items idx[first[t] .. first[t + 1]] (the
	// columns' indices), keys[] their @key values; tasks out of range left out.
	function byTask(n, task, key) {
		const len = task ? task.length : 0, first = new Uint32Array(n + 1);
		for (let i = 0; i < len; i++)
			if (task[i] < n)
				first[task[i] + 1]++;
		for (let t = 0; t < n; t++)
			first[t + 1] += first[t];
		const idx = new Uint32Array(first[n]), keys = new Float64Array(first[n]), at = first.slice(0, n);
		for (let i = 0; i < len; i++) {
			const t = task[i];
			if (t < n) {
				keys[at[t]] = key[i];
				idx[at[t]++] = i;
			}
		}
		return [first, idx, keys];
	}

	function prefix(counts) {
		const out = new Uint32Array(counts.length + 1);
		for (let i = 0; i < counts.length; i++)
			out[i + 1] = out[i] + counts[i];
		return out;
	}

	// First i in [lo, hi) with key(i) >= v (hi if none).
	function lowerBound(lo, hi, v, key) {
		while (lo < hi) {
			const mid = (lo + hi) >>> 1;
			if (key(mid) < v)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo;
	}

	// The same, galloping from lo: cheap when the answer is near (the next
	// pixel column's first item, a few items on).
	function gallopArr(a, lo, hi, v) {
		let step = 1, prev = lo;
		while (lo < hi && a[lo] < v) {
			prev = lo + 1;
			lo += step;
			step *= 2;
		}
		return lowerBoundArr(a, prev, Math.min(lo, hi), v);
	}

	function lowerBoundArr(a, lo, hi, v) {
		while (lo < hi) {
			const mid = (lo + hi) >>> 1;
			if (a[mid] < v)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo;
	}

	function taskName(t) {
		const s = D.S[D.c.task_name[t]];
		return s !== '' ? s : '#' + D.c.task_id[t];
	}

	// ---- geometry ----------------------------------------------------------------

	// The tasks above; the counters in a band of their own under them (so
	// that their plots never cover a task); the CPU lanes at the bottom.
	function area() {
		const lanesH = V.lanes ? D.lanes.length * LANE_H + 6 : 0;
		const top = AXIS_H, lanesTop = V.H - lanesH + 4;
		let bottom = V.H - lanesH, bandH = 0;
		const ngroups = countersShown();
		if (ngroups) {
			bandH = Math.round(Math.max(ngroups * 34, Math.min(160, (bottom - top) * 0.22)));
			bandH = Math.min(bandH, Math.max(0, (bottom - top) * 0.5));
			bottom -= bandH;
		}
		return { top, bottom, h: bottom - top, lanesTop, lanesH, bandTop: bottom, bandH };
	}

	// How many counter scales (groups) are shown: each takes a strip of the band.
	function countersShown() {
		if (!V.counters || !D.meta.counters.length)
			return 0;
		const groups = new Set();
		for (const k2 of D.meta.counters)
			if (k2.on && k2.n)
				groups.add(k2.group);
		return groups.size;
	}

	// Rows fit: top-down.  Else, with the focus on, mirage's fisheye: rows near
	// the focus ROW_H apart, all of them on screen; off: a plain scroll.
	function mapper(A) {
		const n = Math.max(D.nrows, 1);
		const top = A.top + 18;
		if (n * ROW_H <= A.h - 24) {
			return { fits: true, y: (r) => top + r * ROW_H, row: (y) => (y - top) / ROW_H };
		}
		const mid = A.top + A.h / 2, f = V.focus;
		if (V.fisheye) {
			// The focus sits as far down the area as it is down the rows:
			// at the first row, the rows fill the area from its top; the
			// rows on each side are squeezed into the room on that side.
			const y0 = top, y1 = A.bottom - 6, fy = y0 + (y1 - y0) * f / (n - 1);
			const up = fy - y0, down = y1 - fy;
			return {
				fits: false,
				y: (r) => r >= f ? fy + down * Math.tanh((r - f) * ROW_H / Math.max(down, 1)) :
					fy - up * Math.tanh((f - r) * ROW_H / Math.max(up, 1)),
				row: (y) => {
					if (y >= fy) {
						const u = Math.min(0.999999, (y - fy) / Math.max(down, 1));
						return f + Math.atanh(u) * down / ROW_H;
					}
					const u = Math.min(0.999999, (fy - y) / Math.max(up, 1));
					return f - Math.atanh(u) * up / ROW_H;
				},
			};
		}
		return { fits: false, y: (r) => mid + (r - f) * ROW_H, row: (y) => f + (y - mid) / ROW_H };
	}

	const X = (t) => (t - V.t0) * V.W / V.span;
	const T = (x) => V.t0 + x * V.span / V.W;

	// ---- drawing -----------------------------------------------------------------

	// Segments batched by style (a small integer): one path per style and frame,
	// in buffers kept from frame to frame, so drawing allocates nothing.
	class Batch {
		constructor(nstyles) {
			this.n = new Uint32Array(nstyles);
			this.buf = [];
			for (let s = 0; s < nstyles; s++)
				this.buf.push(new Float64Array(256));
		}
		reset() {
			this.n.fill(0);
			return this;
		}
		line(s, x0, y0, x1, y1) {
			let b = this.buf[s];
			const n = this.n[s];
			if (n + 4 > b.length) {
				const nb = new Float64Array(b.length * 2);
				nb.set(b);
				this.buf[s] = b = nb;
			}
			b[n] = x0;
			b[n + 1] = y0;
			b[n + 2] = x1;
			b[n + 3] = y1;
			this.n[s] = n + 4;
		}
		// Thin lines (width 1 or less: Skia's hairlines, cheap to rasterise).
		stroke(g, s, color, width, alpha) {
			const b = this.buf[s], n = this.n[s];
			if (!n)
				return;
			g.strokeStyle = color;
			g.lineWidth = width;
			g.globalAlpha = alpha;
			g.beginPath();
			for (let i = 0; i < n; i += 4) {
				g.moveTo(b[i], b[i + 1]);
				g.lineTo(b[i + 2], b[i + 3]);
				if ((i & 4095) === 4092) {	// paths of 1024 lines: bigger ones rasterise slower
					g.stroke();
					g.beginPath();
				}
			}
			g.stroke();
			g.globalAlpha = 1;
		}
		// Wide lines that are all horizontal or vertical, as opaque filled
		// rectangles: the pixels of a butt-capped stroke of that width.  One
		// fillRect() each: a wide stroke, or one path of thousands of
		// rectangles, costs Skia's software rasteriser tens of ms.
		fillRects(g, s, color, width) {
			const b = this.buf[s], n = this.n[s], h = width / 2;
			if (!n)
				return;
			g.fillStyle = color;
			if (!(g instanceof SvgContext)) {
				// the ends of horizontal ones on device pixels, so that lines
				// that meet leave no seam (a path's fill would have none)
				const dpr = V.dpr, px = 1 / dpr;
				for (let i = 0; i < n; i += 4) {
					const x0 = b[i], y0 = b[i + 1], x1 = b[i + 2], y1 = b[i + 3];
					if (y0 === y1) {
						if (x1 !== x0) {
							const a = Math.round(Math.min(x0, x1) * dpr) * px;
							const e = Math.max(Math.round(Math.max(x0, x1) * dpr) * px, a + px);
							g.fillRect(a, y0 - h, e - a, width);
						}
					} else {
						g.fillRect(x0 - h, Math.min(y0, y1), width, Math.abs(y1 - y0));
					}
				}
				return;
			}
			g.beginPath();
			for (let i = 0; i < n; i += 4) {
				const x0 = b[i], y0 = b[i + 1], x1 = b[i + 2], y1 = b[i + 3];
				if (y0 === y1)
					g.rect(Math.min(x0, x1), y0 - h, Math.abs(x1 - x0), width);
				else
					g.rect(x0 - h, Math.min(y0, y1), width, Math.abs(y1 - y0));
			}
			g.fill();
		}
	}

	// Cells of 4 x 2 pixels taken by text: a label is drawn only where it is free.
	class Occupancy {
		constructor(w, h) {
			this.cw = Math.ceil(w / 4) + 1;
			this.ch = Math.ceil(h / 2) + 1;
			this.cells = new Uint8Array(this.cw * this.ch);
			this.w = w;
			this.h = h;
		}
		take(x, y, w, h) {
			const x0 = Math.max(0, Math.floor(x / 4)), x1 = Math.min(this.cw - 1, Math.floor((x + w - 1) / 4));
			const y0 = Math.max(0, Math.floor(y / 2)), y1 = Math.min(this.ch - 1, Math.floor((y + h - 1) / 2));
			if (x1 < x0 || y1 < y0)
				return false;
			for (let j = y0; j <= y1; j++)
				for (let i = x0; i <= x1; i++)
					if (this.cells[j * this.cw + i])
						return false;
			for (let j = y0; j <= y1; j++)
				this.cells.fill(1, j * this.cw + x0, j * this.cw + x1 + 1);
			return true;
		}
	}

	function gridStep() {
		const nsPerPx = V.span / V.W;
		let step = Math.pow(10, Math.ceil(Math.log10(nsPerPx * 60)));
		if (step / nsPerPx > 300)
			step /= 2;
		return Math.max(step, 1);
	}

	function fmtTime(ns, step) {
		const units = [[1e9, 's'], [1e6, 'ms'], [1e3, 'us'], [1, 'ns']];
		for (const [u, name] of units) {
			if (step >= u || u === 1) {
				const digits = Math.max(0, Math.min(9, Math.ceil(-Math.log10(step / u) - 1e-9)));
				return (ns / u).toFixed(digits) + ' ' + name;
			}
		}
		return ns + ' ns';
	}

	function fmtValue(v) {
		return Math.abs(v) >= 1e6 ? v.toExponential(3) : String(v);
	}

	// What draw() fills, kept from frame to frame.
	const L_LINE = 0, L_DUST = 1, L_RED = 2, L_END = 3;	// task lines
	const A_RED = 5, A_REMOTE = 6, ALPHAS = 9;	// batches: kinds 0-4, failures, requests between traces
	const HEAD_C = Math.cos(0.45), HEAD_S = Math.sin(0.45);			// arrows: colour (kind, or a failed read) x 9 alphas
	const B = {
		grid: new Batch(2), lines: new Batch(4), runs: new Batch(3), arrows: new Batch(7 * ALPHAS),
		plot: new Batch(COUNTER_COLORS.length), marks: new Batch(1), segs: new Batch(LANE_COLORS.length + 1),
		ticks: new Batch(LANE_COLORS.length), holds: new Batch(LANE_COLORS.length),
		vis: [], hl: [], names: [], occ: null,
	};

	// The minimum and maximum of a counter's values over any range of its
	// samples in O(log n): a segment tree (blocks of 1, 2, 4... samples),
	// built the first time the counter has more changes than pixels in view.
	function rangeTree(k2) {
		if (D.trees[k2.index])
			return D.trees[k2.index];
		let size = 1;
		while (size < k2.n)
			size *= 2;
		const mn = new Float64Array(2 * size).fill(Infinity), mx = new Float64Array(2 * size).fill(-Infinity);
		const vs = D.c.sample_value;
		for (let j = 0; j < k2.n; j++)
			mn[size + j] = mx[size + j] = vs[k2.first + j];
		for (let j = size - 1; j >= 1; j--) {
			mn[j] = Math.min(mn[2 * j], mn[2 * j + 1]);
			mx[j] = Math.max(mx[2 * j], mx[2 * j + 1]);
		}
		D.trees[k2.index] = { size, mn, mx };
		return D.trees[k2.index];
	}

	// The rows' horizontal lines as pixels: one strip of device rows per row
	// on screen, filled in a typed array, put on a canvas and laid over with
	// one drawImage() per row.  A dense frame's 10000+ merged runs cost Skia
	// far more as as many fillRect()s.  The strips hold what fillRect() would
	// draw: the ends on device pixels, the top and bottom device rows
	// partly covered when the line's edges fall between them.
	const LINE_STYLES = [[L_LINE, 0x33, 0x33, 0x33], [L_DUST, 0x77, 0x77, 0x77], [L_RED, 0xcc, 0, 0]];
	const strips = {
		g: null, buf: null, ys: new Float64Array(0), x0: new Int32Array(0), x1: new Int32Array(0),
		cov: null, slotOf: new Map(),
		// Returns false (nothing drawn) when there are too many rows on
		// screen; the caller then draws them as rectangles.
		draw(g, batch, styles, width, nrows) {
			if (nrows > 256 || !nrows)
				return false;
			const dpr = V.dpr, Wd = canvas.width, hpx = width * dpr, hd = Math.ceil(hpx) + 1;
			const cap = Wd * hd * nrows;
			if (!this.buf || this.buf.length < cap || this.hd !== hd || this.Wd !== Wd) {
				this.buf = new Uint32Array(cap);
				this.x0 = new Int32Array(nrows);
				this.x1 = new Int32Array(nrows);
				this.ys = new Float64Array(nrows);
				this.cov = new Float64Array(nrows * hd);
				this.hd = hd;
				this.Wd = Wd;
			}
			if (!this.g)
				this.g = document.createElement('canvas').getContext('2d');
			const buf = this.buf, slotOf = this.slotOf, cov = this.cov;
			slotOf.clear();
			let n = 0;
			for (const [s, r, gr, b] of styles) {
				const seg = batch.buf[s], m = batch.n[s];
				for (let i = 0; i < m; i += 4) {
					const y = seg[i + 1];
					if (y !== seg[i + 3])
						continue;	// vertical: drawn as a rectangle
					let slot = slotOf.get(y);
					if (slot === undefined) {
						if (n === nrows)
							continue;
						slot = n++;
						slotOf.set(y, slot);
						const yd = (y - width / 2) * dpr, top = Math.floor(yd);
						this.ys[slot] = top;
						this.x0[slot] = Wd;
						this.x1[slot] = 0;
						for (let j = 0; j < hd; j++)
							cov[slot * hd + j] = Math.max(0, Math.min(top + j + 1, yd + hpx) - Math.max(top + j, yd));
					}
					const x0 = seg[i], x1 = seg[i + 2];
					if (x0 === x1)
						continue;
					const a = Math.max(0, Math.round(Math.min(x0, x1) * dpr));
					const e = Math.min(Wd, Math.max(Math.round(Math.max(x0, x1) * dpr), a + 1));
					if (e <= a)
						continue;
					if (a < this.x0[slot])
						this.x0[slot] = a;
					if (e > this.x1[slot])
						this.x1[slot] = e;
					const rgb = (b << 16) | (gr << 8) | r;
					for (let j = 0; j < hd; j++) {
						const al = Math.round(cov[slot * hd + j] * 255);
						if (al) {
							const o = (slot * hd + j) * Wd, px = ((al << 24) | rgb) >>> 0;
							if (e - a <= 8) {	// most are 1-3 pixels: cheaper than a call
								for (let q = o + a; q < o + e; q++)
									buf[q] = px;
							} else {
								buf.fill(px, o + a, o + e);
							}
						}
					}
				}
			}
			const sg = this.g;
			if (sg.canvas.width !== Wd || sg.canvas.height < hd * n) {
				sg.canvas.width = Wd;
				sg.canvas.height = hd * nrows;
			}
			if (n) {
				const img = new ImageData(new Uint8ClampedArray(buf.buffer, 0, Wd * hd * n * 4), Wd, hd * n);
				sg.putImageData(img, 0, 0);
			}
			g.setTransform(1, 0, 0, 1, 0, 0);
			for (let slot = 0; slot < n; slot++) {
				const a = this.x0[slot], e = this.x1[slot];
				if (e <= a)
					continue;
				g.drawImage(sg.canvas, a, slot * hd, e - a, hd, a, this.ys[slot], e - a, hd);
				for (let j = 0; j < hd; j++)	// cleared for the next frame
					buf.fill(0, (slot * hd + j) * Wd + a, (slot * hd + j) * Wd + e);
			}
			g.setTransform(dpr, 0, 0, dpr, 0, 0);
			// the vertical ones (failure bars)
			g.beginPath();
			for (const [s, r, gr, b] of styles) {
				const seg = batch.buf[s], m = batch.n[s];
				let any = false;
				for (let i = 0; i < m; i += 4) {
					if (seg[i + 1] === seg[i + 3])
						continue;
					if (!any)
						g.fillStyle = 'rgb(' + r + ',' + gr + ',' + b + ')';
					any = true;
					g.fillRect(seg[i] - width / 2, Math.min(seg[i + 1], seg[i + 3]), width, Math.abs(seg[i + 3] - seg[i + 1]));
				}
			}
			return true;
		},
	};

	// A transparent canvas the size of the page's, cleared between device
	// rows @y0 and @y1.
	let shadow = null;
	function shadowLayer(y0, y1) {
		if (!shadow)
			shadow = document.createElement('canvas').getContext('2d');
		if (shadow.canvas.width !== canvas.width || shadow.canvas.height !== canvas.height) {
			shadow.canvas.width = canvas.width;
			shadow.canvas.height = canvas.height;
		}
		shadow.setTransform(1, 0, 0, 1, 0, 0);
		shadow.clearRect(0, y0, canvas.width, y1 - y0);
		shadow.setTransform(V.dpr, 0, 0, V.dpr, 0, 0);
		return shadow;
	}

	/*
	 * draw() - one frame into @g (the canvas, or the SVG recorder), @W x @H
	 * CSS pixels.  Returns what was drawn (rtrView.frame).
	 */
	function draw(g, W, H) {
		const c = D.c, A = area(), M = mapper(A);
		const v0 = V.t0, v1 = V.t0 + V.span, k = W / V.span;
		const F = {
			taskLines: 0, dust: 0, tasks: [], arrows: [], arrowCount: 0, labels: [],
			labelCount: 0, highlightsDrawn: 0, counters: [], notes: 0, pauses: 0,
			lanes: 0, runs: 0, sampleTicks: 0, holdBands: 0, holdNames: [], markers: 0, losses: 0, damage: 0, rows: 0, t0: v0, t1: v1, W, H,
			fisheye: !M.fits && V.fisheye, prof: {},
		};
		let occ = B.occ;
		if (!occ || occ.w !== W || occ.h !== H)
			occ = B.occ = new Occupancy(W, H);
		else
			occ.cells.fill(0);
		g.fillStyle = '#e6e6e6';
		g.fillRect(0, 0, W, H);

		let tp = performance.now();
		const prof = (name) => { const t = performance.now(); F.prof[name] = t - tp; tp = t; };
		// sleeping: no task of the trace's process runs; behind its rows
		F.sleeping = [];
		D.sleep.forEach((gaps, i) => {
			const trs = D.meta.traces;
			let y0 = A.top, y1 = A.bottom;
			if (trs.length > 1) {
				y0 = Math.max(A.top, M.y(trs[i].row) - 10);
				y1 = i + 1 < trs.length ? Math.min(A.bottom, M.y(trs[i + 1].row) - 18) : A.bottom;
			}
			if (y1 <= y0)
				return;
			let j = lowerBound(0, gaps.length / 2, v0, (m) => gaps[2 * m + 1]);
			g.fillStyle = '#d2d2d2';
			let lastX = -2;
			for (; j < gaps.length / 2 && gaps[2 * j] <= v1; j++) {
				const x0 = Math.max(-1, X(gaps[2 * j])), x1 = Math.min(W + 1, X(gaps[2 * j + 1]));
				if (x1 - x0 < 1 && x1 <= lastX + 1)
					continue;
				g.fillRect(x0, y0, Math.max(1, x1 - x0), y1 - y0);
				lastX = x1;
				if (F.sleeping.length < MAX_RECORDED)
					F.sleeping.push({ trace: i, x0, x1, y0, y1, t0: gaps[2 * j], t1: gaps[2 * j + 1] });
			}
		});
		// pauses: shaded regions behind everything
		for (let i = 0; i < c.pause_start.length; i++) {
			if (c.pause_end[i] < v0 || c.pause_start[i] > v1)
				continue;
			const x0 = Math.max(-1, X(c.pause_start[i])), x1 = Math.min(W + 1, X(c.pause_end[i]));
			g.fillStyle = 'rgba(150, 110, 60, 0.22)';
			g.fillRect(x0, A.top, Math.max(1, x1 - x0), H - A.top);
			F.pauses++;
			const text = D.S[c.pause_str[i]];
			if (x1 - x0 > 30 && occ.take(x0 + 2, A.top + 1, text.length * 6.5 + 4, 12)) {
				g.fillStyle = '#6b4a1e';
				g.font = '11px sans-serif';
				g.textAlign = 'left';
				g.textBaseline = 'top';
				g.fillText(text, x0 + 3, A.top + 2);
			}
		}

		prof('pauses');
		// the grid
		const step = gridStep();
		const first = Math.ceil(v0 / step) * step;
		const grid = B.grid.reset();
		g.font = '11px sans-serif';
		g.textBaseline = 'middle';
		g.textAlign = 'left';
		g.fillStyle = '#f6f6f6';
		g.fillRect(0, 0, W, AXIS_H);
		g.fillStyle = '#333';
		for (let t = first, n = 0; t <= v1 && n < 1000; t += step, n++) {
			const x = Math.round(X(t)) + 0.5;
			grid.line(0, x, AXIS_H, x, H);
			grid.line(1, x, AXIS_H - 6, x, AXIS_H);
			g.fillText(fmtTime(t - D.start, step), x + 3, AXIS_H / 2);
		}
		grid.stroke(g, 0, '#d0d0d0', 1, 1);
		grid.stroke(g, 1, '#555', 1, 1);
		F.grid = 'Each grid division: ' + fmtTime(step, step);

		// trace titles, when there are several
		if (D.meta.traces.length > 1) {
			D.meta.traces.forEach((tr, i) => {
				const y = M.y(tr.row) - 16;
				if (y < A.top || y > A.bottom)
					return;
				g.fillStyle = '#444';
				g.font = 'bold 11px sans-serif';
				g.textBaseline = 'middle';
				const text = 'trace ' + i + ': ' + D.S[tr.dir] + (D.S[tr.host] ? ' (' + D.S[tr.host] + ')' : '') +
					(D.meta.aligned ? ', from its own start' : '');
				g.fillText(text, 4, y);
				occ.take(0, y - 6, text.length * 7 + 8, 12);
				g.fillStyle = '#bbb';
				g.fillRect(0, y - 9, W, 1);
			});
		}

		prof('grid');
		// task rows: lines, runs and highlights
		const lines = B.lines.reset(), runs = B.runs.reset(), vis = B.vis, rowEnd = D.rowEnd;
		const holds = B.holds.reset(), holdNames = [];
		vis.length = 0;
		let lastY = -1e9;
		const hl = V.highlight;
		const hlBoxes = B.hl;
		hlBoxes.length = 0;
		let r = 0;
		if (M.fits || !V.fisheye) {
			r = Math.max(0, Math.floor(M.row(A.top - ROW_H)));
		}
		const cw = 6.6;		// 11px monospace
		for (; r < D.nrows;) {
			const y = M.y(r);
			if (y > A.bottom + ROW_H)
				break;
			if (y >= A.top - 4 && y <= A.bottom + 4 && Math.abs(y - lastY) >= 1) {
				lastY = y;
				F.rows++;
				drawRow(r, y);
			}
			let next = r + 1;
			if (!M.fits && V.fisheye) {
				const jump = Math.ceil(M.row(y + 1) - 1e-9);
				if (jump > next)
					next = jump;
			}
			r = next;
		}

		function drawRow(row, y) {
			const a = c.row_off[row], b = c.row_off[row + 1];
			let i = lowerBoundArr(rowEnd, a, b, v0);
			let dust0 = 0, dust1 = 0, inDust = false, lastVis = -1;
			while (i < b) {
				const t = c.row_task[i];
				const s = c.task_start[t];
				if (s > v1)
					break;
				const e = c.task_end[t], fl = c.task_flags[t];
				let x0 = (s - v0) * k, x1 = (e - v0) * k;
				if (fl & FLAG_NEVER)
					x1 = Math.max(x1, W);
				// the row's previous label may run up to here
				if (lastVis >= 0) {
					vis[lastVis + 4] = Math.max(vis[lastVis + 2], x0 - 4);
					lastVis = -1;
				}
				if (x1 - x0 < NARROW_PX && !(fl & (FLAG_NEVER | FLAG_FAILED))) {
					// a few pixels or less: merge into a run of dust, skip to the next pixel
					const px = Math.floor(x0);
					if (inDust && px > dust1)
						flushDust();
					if (!inDust) {
						inDust = true;
						dust0 = px;
					}
					dust1 = px + 1;
					if (hl && hl[t])
						hlBoxes.push(t, x0, x1, y);
					i = gallopArr(rowEnd, i + 1, b, T(px + 1));
					continue;
				}
				x0 = Math.max(x0, -2);
				x1 = Math.min(x1, W + 2);
				const red = (fl & (FLAG_FAILED | FLAG_NEVER)) !== 0;
				if (inDust && x0 > dust1)
					flushDust();
				lines.line(red ? L_RED : L_LINE, x0, y, x1, y);
				F.taskLines++;
				if (F.tasks.length < MAX_RECORDED)
					F.tasks.push({ task: t, row, x0, x1, y, color: red ? '#cc0000' : '#333333' });
				// a label, on its line or (a short task) after it, up to the
				// row's next task: vis holds task, x0, x1, y, how far it may go
				lastVis = vis.length;
				vis.push(t, x0, x1, y, W);
				if (hl && hl[t])
					hlBoxes.push(t, x0, x1, y);
				if (fl & FLAG_FAILED)
					lines.line(L_RED, x1, y - 5, x1, y + 5);	// the failure bar
				else if (!(fl & (FLAG_RESOLVED | FLAG_NEVER)) && x1 - x0 > 4 && x1 < W)
					lines.line(L_END, x1, y, x1, y);	// a triangle, drawn below
				// where it ran: white
				if (x1 - x0 >= 6) {
					const rf = D.runFirst[t], rl = D.runFirst[t + 1];
					let j = lowerBoundArr(c.run_end, rf, rl, v0), rx0 = 0, rx1 = -2;
					while (j < rl && c.run_start[j] <= v1) {
						const a0 = Math.max(x0, (c.run_start[j] - v0) * k);
						const a1 = Math.max(Math.min(x1, (c.run_end[j] - v0) * k), a0 + 1);
						if (a0 > rx1 + 1) {	// runs closer than a pixel are one
							if (rx1 > rx0)
								runs.line(0, rx0, y, rx1, y);
							rx0 = a0;
						}
						rx1 = Math.max(rx1, a1);
						// the runs that end within the white drawn so far add
						// nothing: skip them (a long task may have 100k runs)
						j = gallopArr(c.run_end, j + 1, rl, v0 + rx1 / k);
					}
					if (rx1 > rx0)
						runs.line(0, rx0, y, rx1, y);
					// the kernel's records (record --sched): runnable, from a run
					// that ended preempted to the next, amber; blocked stays dark
					if (c.run_why) {
						let g0 = lowerBoundArr(c.run_end, rf, rl, v0);
						for (let n = 0; g0 + 1 < rl && c.run_end[g0] <= v1 && n < 4096; g0++, n++) {
							if (c.run_why[g0] !== 2)
								continue;
							const b0 = Math.max(x0, (c.run_end[g0] - v0) * k);
							const b1 = Math.min(x1, (c.run_start[g0 + 1] - v0) * k);
							if (b1 - b0 >= 1)
								runs.line(1, b0, y, b1, y);
						}
					}
					// a lock's lane: held by whom while others waited, a band in
					// the holder's colour (its name under it, drawn with the labels)
					const hf = D.holdFirst[t + 1];
					for (let q = lowerBoundArr(D.holdEnd, D.holdFirst[t], hf, v0), n = 0;
						q < hf && n < 4096; q++, n++) {
						const h = D.holdIdx[q];
						if (c.hold_start[h] > v1)
							break;
						const h0 = Math.max(x0, (c.hold_start[h] - v0) * k);
						const h1 = Math.max(Math.min(x1, (c.hold_end[h] - v0) * k), h0 + 1);
						const holder = c.hold_holder[h];
						holds.line(holder % LANE_COLORS.length, h0, y, h1, y);
						F.holdBands++;
						if (h1 - h0 >= 40)
							holdNames.push(holder, h0, h1, y, row);
					}
					// its CPU samples (record --sample): a tick under the line per
					// pixel that has some
					const sf = D.sampleFirst[t + 1];
					let q = lowerBoundArr(D.sampleTs, D.sampleFirst[t], sf, v0);
					while (q < sf && D.sampleTs[q] <= v1) {
						const px = Math.floor((D.sampleTs[q] - v0) * k);
						if (px >= x0 - 1 && px <= x1 + 1)
							runs.line(2, px + 0.5, y + 4, px + 0.5, y + 6);
						F.sampleTicks++;
						q = lowerBoundArr(D.sampleTs, q + 1, sf, v0 + (px + 1) / k);
					}
				}
				i++;
			}
			flushDust();
			function flushDust() {
				if (inDust) {
					lines.line(L_DUST, dust0, y, dust1, y);
					F.dust++;
				}
				inDust = false;
			}
		}

		prof('rows');
		// highlights under the lines
		for (let i = 0; i < hlBoxes.length; i += 4) {
			const x0 = hlBoxes[i + 1], x1 = hlBoxes[i + 2], y = hlBoxes[i + 3];
			g.fillStyle = 'rgba(255, 230, 0, 0.85)';
			if (x1 - x0 < 32) {
				const cx = (x0 + x1) / 2, w = Math.max(12, x1 - x0 + 8);
				g.fillRect(cx - w / 2, y - 7, w, 14);
			} else {
				g.fillRect(x0, y - 5, x1 - x0, 10);
			}
			F.highlightsDrawn++;
		}
		// the selected task (its details in the panel): a blue band under it
		if (V.selected >= 0) {
			const t = V.selected, y = M.y(c.task_row[t]);
			let x0 = X(c.task_start[t]), x1 = (c.task_flags[t] & FLAG_NEVER) ? W : X(c.task_end[t]);
			if (y >= A.top - 6 && y <= A.bottom + 6 && x1 >= 0 && x0 <= W) {
				x0 = Math.max(x0, -4);
				x1 = Math.min(x1, W + 4);
				const w = Math.max(x1 - x0, 10), cx = (x0 + x1) / 2;
				g.fillStyle = 'rgba(40, 120, 255, 0.45)';
				g.fillRect(cx - w / 2 - 3, y - 7, w + 6, 14);
				F.selected = { task: t, x0, x1, y };
			}
		}
		runs.fillRects(g, 0, '#ffffff', 7);
		runs.fillRects(g, 1, '#e8a33c', 3);
		runs.fillRects(g, 2, '#c2185b', 1);
		for (let s = 0; s < LANE_COLORS.length; s++)
			holds.fillRects(g, s, LANE_COLORS[s], 5);

		prof('highlights');
		// create and becomes lines, then the arrows, by length class
		const arrows = B.arrows.reset();
		const tr = c.task_row;
		const AB = c.arrow_bucket;
		// Level of detail: with more than DENSE_ARROWS in view, the arrows
		// shorter than HEADLESS_PX on screen are drawn without their heads
		// (a head is 6 pixels long: it would hide such an arrow anyway)
		let inView = 0;
		for (let b = 0; b < 66; b++) {
			const lo = AB[b], hi = AB[b + 1];
			if (lo !== hi)
				inView += lowerBoundArr(c.arrow_tf, lo, hi, v1 + 1e-9) - lowerBoundArr(c.arrow_tf, lo, hi, v0 - D.bucketLen[b]);
		}
		const headMin = inView > DENSE_ARROWS ? HEADLESS_PX : 6;
		const squeezed = !M.fits && V.fisheye;
		F.arrowsInView = inView;
		for (let b = 0; b < 66; b++) {
			const lo = AB[b], hi = AB[b + 1];
			if (lo === hi)
				continue;
			let i = lowerBoundArr(c.arrow_tf, lo, hi, v0 - D.bucketLen[b]);
			const end = lowerBoundArr(c.arrow_tf, i, hi, v1 + 1e-9);
			const sparse = end - i > EXACT_ARROWS;
			while (i < end) {
				const kind = c.arrow_kind[i], ts = c.arrow_ts[i];
				if (ts < v0 || ((kind === 1 || kind === 3) && (c.arrow_flags[i] & 1))) {
					i++;
					continue;
				}
				const from = c.arrow_from[i], to = c.arrow_to[i];
				const x0 = (c.arrow_tf[i] - v0) * k, x1 = (ts - v0) * k;
				const y0 = M.y(tr[from]), y1 = M.y(tr[to]);
				const len = Math.abs(x1 - x0);
				let alpha = kind >= 4 ? 1 : 1 - Math.min(1, len / 1500);
				if (squeezed && alpha > 0.01) {
					// an end among rows squeezed under 3 pixels apart: faint,
					// or thousands of them hide the rows near the focus
					const sp = Math.min(Math.abs(M.y(tr[to] + 1) - y1), Math.abs(M.y(tr[from] + 1) - y0));
					if (sp < 3)
						alpha *= Math.max(0.12, sp / 3);
				}
				if (alpha > 0.01) {
					const failed = kind === 0 && (c.task_flags[from] & FLAG_FAILED) !== 0;
					// a read joining two traces (enum rtr_arrow_flags: RTR_ARROW_REMOTE)
					const remote = !failed && kind === 0 && (c.arrow_flags[i] & 4) !== 0;
					const color = failed ? READ_FAILED : remote ? REMOTE : ARROW[kind].color;
					const key = (failed ? A_RED : remote ? A_REMOTE : Math.min(kind, 4)) * ALPHAS + Math.round(alpha * 8);
					arrows.line(key, x0, y0, x1, y1);
					if (kind < 4 && Math.abs(y1 - y0) + len > headMin) {
						// the head: the unit vector turned by +-0.45 rad, 6 pixels long
						const d = Math.hypot(x1 - x0, y1 - y0), ux = (x1 - x0) / d, uy = (y1 - y0) / d;
						arrows.line(key, x1, y1, x1 - 6 * (ux * HEAD_C + uy * HEAD_S), y1 - 6 * (uy * HEAD_C - ux * HEAD_S));
						arrows.line(key, x1, y1, x1 - 6 * (ux * HEAD_C - uy * HEAD_S), y1 - 6 * (uy * HEAD_C + ux * HEAD_S));
					}
					F.arrowCount++;
					if (F.arrows.length < MAX_RECORDED)
						F.arrows.push({ kind: remote ? 'request' : ARROW[kind].name, color, from, to, fromRow: tr[from],
							toRow: tr[to], x0, y0, x1, y1, alpha });
				}
				if (sparse)
					i = gallopArr(c.arrow_tf, i + 1, end, T(Math.floor(x0) + 1));
				else
					i++;
			}
		}
		// one width for all: 1 pixel lines are Skia's hairlines, and a path of
		// thousands of wider ones that cross costs ~100 ms to rasterise
		for (let key = 0; key < 7 * ALPHAS; key++) {
			const ci = Math.floor(key / ALPHAS);
			arrows.stroke(g, key, ci === A_RED ? READ_FAILED : ci === A_REMOTE ? REMOTE : ARROW[ci].color, 1,
				Math.max(0.05, (key % ALPHAS) / 8));
		}
		if (!(g === ctx && strips.draw(g, lines, LINE_STYLES, 2, F.rows))) {
			lines.fillRects(g, L_LINE, '#333333', 2);
			lines.fillRects(g, L_DUST, '#777', 2);
			lines.fillRects(g, L_RED, '#cc0000', 2);
		}
		// triangles at the ends of unresolved tasks
		if (lines.n[L_END]) {
			const ends = lines.buf[L_END], nends = lines.n[L_END];
			g.fillStyle = '#333';
			g.beginPath();
			for (let i = 0; i < nends; i += 4) {
				g.moveTo(ends[i], ends[i + 1] - 4);
				g.lineTo(ends[i] + 6, ends[i + 1]);
				g.lineTo(ends[i], ends[i + 1] + 4);
				g.closePath();
			}
			g.fill();
		}
		if (V.path >= 0)
			drawPath(g, M, A, X, W, F);

		prof('arrows');
		// labels: the task's name over its line, its kind under, a failure's reason
		// room between a row and its neighbours (the first and last rows have one)
		const rowGap = (y, row) => Math.min(row + 1 < D.nrows ? Math.abs(M.y(row + 1) - y) : ROW_H,
			row > 0 ? Math.abs(y - M.y(row - 1)) : ROW_H);
		g.font = '11px monospace';
		g.textBaseline = 'alphabetic';
		g.textAlign = 'left';
		for (let i = 0; i < vis.length && F.labelCount < MAX_LABELS; i += 5) {
			// a task gets its label once it is MIN_LABEL_PX wide (mirage); the
			// text may run on after its end, up to the row's next task
			const t = vis[i], x0 = vis[i + 1], y = vis[i + 3];
			if (Math.min(vis[i + 2], W) - Math.max(x0, 0) <= MIN_LABEL_PX)
				continue;
			const x1 = Math.max(vis[i + 2], vis[i + 4]);
			const gap = rowGap(y, tr[t]);
			if (gap < 13)
				continue;
			const lx = Math.max(x0, 0) + 3;
			const room = Math.min(x1, W) - lx - 2;
			const fl = c.task_flags[t];
			let name = taskName(t);
			const reason = (fl & FLAG_FAILED) ? D.S[c.task_reason[t]] : '';
			let chars = Math.floor(room / cw);
			if (chars >= 2) {
				if (name.length > chars)
					name = name.slice(0, Math.max(1, chars - 1)) + '\u2026';
				const tw = name.length * cw;
				if (occ.take(lx, y - 13, tw, 11)) {
					g.fillStyle = (fl & (FLAG_FAILED | FLAG_NEVER)) ? '#aa0000' : '#000';
					g.fillText(name, lx, y - 4);
					F.labelCount++;
					if (F.labels.length < MAX_RECORDED)
						F.labels.push({ text: name, task: t, x: lx, y: y - 13, w: tw, h: 11 });
					// the reason after the name, if it fits
					if (reason) {
						const rx = lx + tw + cw;
						const rchars = Math.floor((Math.min(x1, W) - rx) / cw);
						if (rchars >= 3) {
							const rt = reason.length > rchars ? reason.slice(0, rchars - 1) + '\u2026' : reason;
							if (occ.take(rx, y - 13, rt.length * cw, 11)) {
								g.fillStyle = '#cc0000';
								g.fillText(rt, rx, y - 4);
								F.labelCount++;
								if (F.labels.length < MAX_RECORDED)
									F.labels.push({ text: rt, task: t, x: rx, y: y - 13, w: rt.length * cw, h: 11, reason: true });
							}
						}
					}
				}
			}
			if (gap >= 24 && chars >= 2) {
				let kind = D.S[c.task_kind[t]];
				if (kind.length > chars)
					kind = kind.slice(0, Math.max(1, chars - 1)) + '\u2026';
				if (occ.take(lx, y + 3, kind.length * cw, 10)) {
					g.fillStyle = '#777';
					g.fillText(kind, lx, y + 12);
				}
			}
		}

		// a lock's holders: the name under its band, where it fits
		g.font = '10px monospace';
		for (let i = 0; i < holdNames.length && F.labelCount < MAX_LABELS; i += 5) {
			const x0 = Math.max(holdNames[i + 1], 0) + 2, y = holdNames[i + 3];
			const chars = Math.floor((Math.min(holdNames[i + 2], W) - x0) / 6);
			let name = 'held by ' + taskName(holdNames[i]);
			if (chars < 4 || rowGap(y, holdNames[i + 4]) < 13)
				continue;
			if (name.length > chars)
				name = name.slice(0, chars - 1) + '\u2026';
			if (!occ.take(x0, y + 4, name.length * 6, 10))
				continue;
			g.fillStyle = LANE_COLORS[holdNames[i] % LANE_COLORS.length];
			g.fillText(name, x0, y + 12);
			F.labelCount++;
			if (F.holdNames.length < MAX_RECORDED)
				F.holdNames.push({ text: name, holder: holdNames[i], x: x0, y: y + 4 });
		}

		// counters' changes: name+delta over the task that made them (mirage),
		// once zoomed in enough that a counter has few changes in view
		if (V.counters && c.sample_task) {
			const ts = c.sample_ts, vs = c.sample_value, st = c.sample_task;
			g.font = '10px monospace';
			g.textBaseline = 'alphabetic';
			g.textAlign = 'left';
			for (const k2 of D.meta.counters) {
				if (!k2.on || !k2.n)
					continue;
				const a = k2.first, b = k2.first + k2.n;
				const i0 = lowerBoundArr(ts, a, b, v0), i1 = lowerBoundArr(ts, i0, b, v1 + 1e-9);
				if (i1 - i0 > 400)
					continue;
				for (let i = i0; i < i1 && F.labelCount < MAX_LABELS; i++) {
					const t = st[i];
					if (t === NONE || t >= D.N)
						continue;
					const y = M.y(tr[t]);
					if (y < A.top || y > A.bottom || rowGap(y, tr[t]) < 13)
						continue;
					const x = X(ts[i]), dv = vs[i] - (i > a ? vs[i - 1] : 0);
					const text = k2.short + (dv >= 0 ? '+' : '') + fmtValue(dv);
					// over the line, else under it
					const tw = text.length * 6 + 2;
					let ly = y - 12;
					if (!occ.take(x - 1, ly, tw, 10)) {
						ly = y + 3;
						if (!occ.take(x - 1, ly, tw, 10))
							continue;
					}
					g.fillStyle = COUNTER_COLORS[k2.index % COUNTER_COLORS.length];
					g.fillRect(x - 0.5, ly < y ? y - 4 : y, 1, 4);
					g.fillText(text, x + 1, ly + 8);
					F.labelCount++;
					if (F.labels.length < MAX_RECORDED)
						F.labels.push({ text, task: t, x: x - 1, y: ly, w: tw, h: 10, counter: true });
				}
			}
		}

		prof('labels');
		// counters: step plots in their band, a strip and a scale per group
		if (A.bandH) {
			const plot = B.plot.reset(), tags = [];
			const strips2 = [...new Set(D.meta.counters.filter((k2) => k2.on && k2.n).map((k2) => k2.group))];
			const sh = A.bandH / strips2.length;
			g.fillStyle = '#fbfbfb';
			g.fillRect(0, A.bandTop, W, A.bandH);
			g.fillStyle = '#999';
			g.fillRect(0, A.bandTop, W, 1);
			F.band = { top: A.bandTop, bottom: A.bandTop + A.bandH };
			D.meta.counters.forEach((k2, n) => {
				if (!k2.on || !k2.n)
					return;
				const gr = D.groups.get(k2.group);
				const span = gr.max - gr.min || 1;
				const si = strips2.indexOf(k2.group);
				const ytop = A.bandTop + si * sh + 8, ybot = A.bandTop + (si + 1) * sh - 4;
				const Y = (v) => ybot - (v - gr.min) / span * (ybot - ytop);
				const ts = c.sample_ts, vs = c.sample_value, a = k2.first, b = k2.first + k2.n;
				let i = lowerBoundArr(ts, a, b, v0);
				if (i > a)
					i--;
				const key = n % COUNTER_COLORS.length;
				let px = ts[i] > v0 ? (ts[i] - v0) * k : -1, py = Y(vs[i]), last = vs[i];
				i++;
				while (i < b && ts[i] <= v1) {
					const x = (ts[i] - v0) * k;
					if (x - px < 1) {
						// many changes in one pixel column: their range as one vertical
						let lo = vs[i], hi2 = vs[i];
						const col = Math.floor(x) + 1, stop = Math.max(i + 1, gallopArr(ts, i, b, T(col)));
						if (stop - i <= 32) {
							for (let j = i + 1; j < stop; j++) {
								lo = Math.min(lo, vs[j]);
								hi2 = Math.max(hi2, vs[j]);
							}
						} else {	// a summary of power-of-two blocks
							const tree = rangeTree(k2);
							for (let l = i - a + tree.size, r = stop - a + tree.size; l < r; l >>>= 1, r >>>= 1) {
								if (l & 1) {
									lo = Math.min(lo, tree.mn[l]);
									hi2 = Math.max(hi2, tree.mx[l++]);
								}
								if (r & 1) {
									lo = Math.min(lo, tree.mn[--r]);
									hi2 = Math.max(hi2, tree.mx[r]);
								}
							}
						}
						plot.line(key, px, py, x, py);
						plot.line(key, x, Y(lo), x, Y(hi2));
						last = vs[stop - 1];
						px = x;
						py = Y(last);
						i = stop;
						continue;
					}
					plot.line(key, px, py, x, py);
					const ny = Y(vs[i]);
					plot.line(key, x, py, x, ny);
					px = x;
					py = ny;
					last = vs[i];
					i++;
				}
				plot.line(key, px, py, W, py);
				tags.push({ y: py, text: k2.label + ' ' + fmtValue(last), color: COUNTER_COLORS[n % 4],
					top: A.bandTop + si * sh + 7 });
				F.counters.push({ name: k2.label, value: last, y: py, group: k2.group });
			});
			// a dark shadow first, as mirage draws them: drawn opaque on a layer
			// laid over at 30 %, so that where it overlaps itself it is no darker
			// (only the band of rows the plots cross is cleared and laid over)
			let sy0 = Infinity, sy1 = -Infinity;
			for (let key = 0; key < COUNTER_COLORS.length; key++) {
				const pb = plot.buf[key];
				for (let i = 0; i < plot.n[key]; i += 2) {
					sy0 = Math.min(sy0, pb[i + 1]);
					sy1 = Math.max(sy1, pb[i + 1]);
				}
			}
			const band0 = Math.max(0, Math.floor((sy0 - 3) * V.dpr));
			const band1 = Math.min(canvas.height, Math.ceil((sy1 + 3) * V.dpr));
			const sg = g instanceof SvgContext ? g : band1 > band0 ? shadowLayer(band0, band1) : null;
			if (sg) {
				for (let key = 0; key < COUNTER_COLORS.length; key++)
					plot.fillRects(sg, key, sg === g ? 'rgba(0, 0, 0, 0.3)' : '#000', 4);
			}
			if (sg && sg !== g) {
				g.globalAlpha = 0.3;
				g.setTransform(1, 0, 0, 1, 0, 0);
				g.drawImage(sg.canvas, 0, band0, canvas.width, band1 - band0, 0, band0, canvas.width, band1 - band0);
				g.setTransform(V.dpr, 0, 0, V.dpr, 0, 0);
				g.globalAlpha = 1;
			}
			for (let key = 0; key < COUNTER_COLORS.length; key++)
				plot.fillRects(g, key, COUNTER_COLORS[key], 2);
			// their names and values, stacked at the right edge
			tags.sort((p, q) => p.y - q.y);
			let floor = A.bandTop - 10;
			g.font = 'bold 11px sans-serif';
			g.textAlign = 'right';
			g.textBaseline = 'middle';
			for (const tag of tags) {
				const y = Math.max(tag.y - 8, floor + 16, tag.top);
				floor = y;
				const tw = g.measureText(tag.text).width;
				g.fillStyle = 'rgba(255, 255, 255, 0.8)';
				g.fillRect(W - tw - 10, y - 7, tw + 8, 14);
				g.fillStyle = tag.color;
				g.fillText(tag.text, W - 6, y);
				occ.take(W - tw - 10, y - 7, tw + 8, 14);
			}
		}

		prof('counters');
		// notes: markers on the ruler, their text when there is room
		{
			const a = lowerBoundArr(c.note_ts, 0, c.note_ts.length, v0);
			const b = lowerBoundArr(c.note_ts, a, c.note_ts.length, v1 + 1e-9);
			const marks = B.marks.reset();
			g.font = '11px sans-serif';
			g.textAlign = 'left';
			g.textBaseline = 'top';
			let lastPx = -10;
			for (let i = a; i < b; i++) {
				const x = Math.round(X(c.note_ts[i])) + 0.5;
				if (x - lastPx < 1)
					continue;
				lastPx = x;
				marks.line(0, x, AXIS_H, x, A.bottom);
				g.fillStyle = '#7b1fa2';
				g.fillRect(x - 3, AXIS_H - 6, 6, 6);
				F.notes++;
				const text = D.S[c.note_str[i]];
				const tw = text.length * 6;
				if (occ.take(x + 3, AXIS_H + 2, tw, 12))
					g.fillText(text, x + 4, AXIS_H + 2);
			}
			marks.stroke(g, 0, 'rgba(123, 31, 162, 0.35)', 1, 1);
		}

		prof('notes');
		// CPU lanes: what ran where, the losses, the damage
		if (V.lanes && D.lanes.length) {
			const top = A.lanesTop;
			g.fillStyle = '#f3f3f3';
			g.fillRect(0, top - 4, W, H - top + 4);
			g.fillStyle = '#999';
			g.fillRect(0, top - 4, W, 1);
			const segs = B.segs.reset(), laneEnd = D.laneEnd, DUST = LANE_COLORS.length;
			const names = B.names;
			names.length = 0;
			D.lanes.forEach((lane, li) => {
				const y = top + li * LANE_H + LANE_H / 2;
				const cpu = lane.cpu;
				if (!cpu)
					return;
				const a = cpu.run_first, b = cpu.run_first + cpu.nruns, idx = c.cpu_runs;
				let i = lowerBoundArr(laneEnd, a, b, v0);
				F.lanes++;
				while (i < b) {
					const ru = idx[i];
					const s = c.run_start[ru];
					if (s > v1)
						break;
					const x0 = Math.max(-1, (s - v0) * k), x1 = Math.min(W + 1, (c.run_end[ru] - v0) * k);
					const t = c.run_task[ru];
					F.runs++;
					if (x1 - x0 < 1) {
						segs.line(DUST, Math.floor(x0), y, Math.floor(x0) + 1, y);
						i = gallopArr(laneEnd, i + 1, b, T(Math.floor(x0) + 1));
						continue;
					}
					segs.line(t % LANE_COLORS.length, x0, y, x1, y);
					if (x1 - x0 > 40)
						names.push(t, x0, x1, y);
					i++;
				}
			});
			for (let key = 0; key <= DUST; key++)
				segs.fillRects(g, key, key === DUST ? '#888' : LANE_COLORS[key], LANE_H - 3);
			g.font = '10px monospace';
			g.textBaseline = 'middle';
			g.textAlign = 'left';
			g.fillStyle = '#fff';
			for (let i = 0; i < names.length && i < 4 * MAX_LABELS; i += 4) {
				const room = Math.floor((names[i + 2] - Math.max(0, names[i + 1]) - 6) / 6);
				if (room < 2)
					continue;
				let s = taskName(names[i]);
				if (s.length > room)
					s = s.slice(0, room - 1) + '\u2026';
				g.fillText(s, Math.max(0, names[i + 1]) + 3, names[i + 3]);
			}
			// markers: the events the task model does not read (typed events, LTTng's),
			// a tick on their CPU's lane and on their thread's, a colour per class
			if (c.marker_ts && c.marker_ts.length) {
				const a = lowerBoundArr(c.marker_ts, 0, c.marker_ts.length, v0);
				const b = lowerBoundArr(c.marker_ts, a, c.marker_ts.length, v1 + 1e-9);
				const ticks = B.ticks.reset(), last = D.markLast, NC = LANE_COLORS.length;
				last.fill(-10);
				for (let i = a; i < b; i++) {
					const x = Math.floor(X(c.marker_ts[i]));
					const key = c.marker_name[i] % NC;
					let li = c.marker_cpu[i];
					if (x !== last[li]) {
						last[li] = x;
						ticks.line(key, x, top + li * LANE_H + LANE_H / 2, x + 1,
							top + li * LANE_H + LANE_H / 2);
						F.markers++;
					}
					if (c.marker_thread[i] === NONE || (li = D.threadLane[c.marker_thread[i]]) < 0)
						continue;
					if (x !== last[li]) {
						last[li] = x;
						ticks.line(key, x, top + li * LANE_H + LANE_H / 2, x + 1,
							top + li * LANE_H + LANE_H / 2);
						F.markers++;
					}
				}
				for (let key = 0; key < NC; key++)
					ticks.fillRects(g, key, LANE_COLORS[key], LANE_H - 5);
			}
			// lane names at the left
			g.font = '10px sans-serif';
			D.lanes.forEach((lane, li) => {
				const y = top + li * LANE_H + LANE_H / 2;
				g.fillStyle = 'rgba(243, 243, 243, 0.85)';
				g.fillRect(0, y - 6, lane.name.length * 6 + 6, 12);
				g.fillStyle = '#333';
				g.fillText(lane.name, 2, y);
			});
			// losses: a red mark where each packet revealed them
			for (const loss of D.meta.losses) {
				if (loss.ts < v0 || loss.ts > v1)
					continue;
				const li = loss.cpu, x = X(loss.ts);
				const y = top + li * LANE_H;
				g.fillStyle = '#d00000';
				g.beginPath();
				g.moveTo(x, y);
				g.lineTo(x + 5, y + LANE_H / 2);
				g.lineTo(x, y + LANE_H);
				g.lineTo(x - 5, y + LANE_H / 2);
				g.closePath();
				g.fill();
				g.fillRect(x - 0.5, A.top, 1, A.h);
				const text = loss.count + (loss.packets ? ' packets' : ' events') + ' lost';
				if (occ.take(x + 6, y, text.length * 6, LANE_H)) {
					g.fillStyle = '#a00000';
					g.fillText(text, x + 7, y + LANE_H / 2);
				}
				F.losses++;
			}
			// damage: the rest of the lane is unknown
			for (const dmg of D.meta.damage) {
				if (dmg.cpu < 0)
					continue;
				const x = Math.max(0, X(dmg.ts)), y = top + dmg.cpu * LANE_H;
				if (x > W)
					continue;
				g.fillStyle = 'rgba(200, 0, 0, 0.25)';
				g.fillRect(x, y, W - x, LANE_H);
				g.fillStyle = '#a00000';
				g.fillText('damaged from here', x + 4, y + LANE_H / 2);
				F.damage++;
			}
		}
		prof('lanes');
		return F;
	}

	// ---- the SVG recorder: the same draw() into an SVG document ---------------------------

	// XML escapes, and what XML 1.0 cannot hold at all (control bytes, U+FFFE/U+FFFF,
	// lone surrogates: a trace's text is anything its program wrote) as U+FFFD.
	const esc = (s) => String(s)
		.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
		.replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]);
	const num = (v) => Math.round(v * 100) / 100;

	class SvgContext {
		constructor(W, H) {
			this.out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">`];
			this.fillStyle = '#000';
			this.strokeStyle = '#000';
			this.lineWidth = 1;
			this.globalAlpha = 1;
			this.font = '11px sans-serif';
			this.textAlign = 'left';
			this.textBaseline = 'alphabetic';
			this.d = [];
		}
		op() { return this.globalAlpha < 1 ? ` opacity="${num(this.globalAlpha)}"` : ''; }
		fillRect(x, y, w, h) {
			this.out.push(`<rect x="${num(x)}" y="${num(y)}" width="${num(w)}" height="${num(h)}" fill="${this.fillStyle}"${this.op()}/>`);
		}
		beginPath() { this.d = []; }
		moveTo(x, y) { this.d.push('M' + num(x) + ' ' + num(y)); }
		lineTo(x, y) { this.d.push('L' + num(x) + ' ' + num(y)); }
		closePath() { this.d.push('Z'); }
		rect(x, y, w, h) { this.d.push('M' + num(x) + ' ' + num(y) + 'h' + num(w) + 'v' + num(h) + 'h' + num(-w) + 'Z'); }
		stroke() {
			if (this.d.length && this.lineWidth > 0)
				this.out.push(`<path d="${this.d.join('')}" fill="none" stroke="${this.strokeStyle}" stroke-width="${num(this.lineWidth)}"${this.op()}/>`);
		}
		fill() {
			if (this.d.length)
				this.out.push(`<path d="${this.d.join('')}" fill="${this.fillStyle}"${this.op()}/>`);
		}
		measureText(s) { ctx.font = this.font; return ctx.measureText(s); }
		fillText(s, x, y) {
			const anchor = { left: 'start', right: 'end', center: 'middle' }[this.textAlign] || 'start';
			const base = { top: 'hanging', middle: 'central' }[this.textBaseline] || 'auto';
			const m = /(bold )?(\d+)px (.*)/.exec(this.font) || [];
			this.out.push(`<text x="${num(x)}" y="${num(y)}" fill="${this.fillStyle}" font-size="${m[2] || 11}" font-family="${m[3] || 'sans-serif'}"${m[1] ? ' font-weight="bold"' : ''} text-anchor="${anchor}" dominant-baseline="${base}"${this.op()}>${esc(s)}</text>`);
		}
		result() { return this.out.join('\n') + '\n</svg>\n'; }
	}

	function exportSVG() {
		const s = new SvgContext(V.W, V.H);
		draw(s, V.W, V.H);
		return s.result();
	}

	function saveSVG() {
		const url = URL.createObjectURL(new Blob([exportSVG()], { type: 'image/svg+xml' }));
		const a = document.createElement('a');
		a.href = url;
		a.download = (document.title || 'ringtrace').replace(/[^\w.-]+/g, '_') + '.svg';
		document.body.appendChild(a);
		a.click();
		a.remove();
		setTimeout(() => URL.revokeObjectURL(url), 1000);
	}

	// ---- frames ------------------------------------------------------------------

	let pending = false;
	const status = { grid: null, pos: null, gridEl: $('grid'), posEl: $('position') };
	function frame() {
		const t = performance.now();
		const F = draw(ctx, V.W, V.H);
		F.ms = performance.now() - t;
		view.frame = F;
		// the status line, touched only when it changes (each change is a layout)
		const pos = fmtTime(V.t0 - D.start, V.span / 10) + ' \u2013 ' + fmtTime(V.t0 + V.span - D.start, V.span / 10);
		if (F.grid !== status.grid)
			status.gridEl.textContent = status.grid = F.grid;
		if (pos !== status.pos)
			status.posEl.textContent = status.pos = pos;
		return F;
	}
	function redraw() {
		if (pending || !D)
			return;
		pending = true;
		requestAnimationFrame(() => {
			pending = false;
			frame();
		});
	}

	function resize() {
		const r = $('main').getBoundingClientRect();
		V.dpr = window.devicePixelRatio || 1;
		V.W = Math.max(50, Math.floor(r.width));
		V.H = Math.max(50, Math.floor(r.height));
		canvas.width = Math.round(V.W * V.dpr);
		canvas.height = Math.round(V.H * V.dpr);
		ctx.setTransform(V.dpr, 0, 0, V.dpr, 0, 0);
	}

	function setRange(t0, t1) {
		const span = Math.max(t1 - t0, 10);	// 10 ns across the screen, at most zoom
		V.t0 = t0;
		V.span = span;
	}

	function fit() {
		const w = whole();
		setRange(w.t0, w.t1);
		V.focus = 0;
	}

	// What fit() shows: zooming out stops there, and the view stays on the trace.
	function whole() {
		const len = Math.max(D.end - D.start, 1000);
		return { t0: D.start - len * 0.02, t1: D.end + len * 0.04 };
	}
	// Zoomed out to the whole trace, the view is the whole trace; zoomed in,
	// it may go past the trace's ends by a little (less as it widens).
	function clampView() {
		const w = whole(), full = w.t1 - w.t0;
		V.span = Math.max(10, Math.min(V.span, full));
		const slack = Math.min(V.span / 2, full - V.span);
		V.t0 = Math.max(w.t0 - slack, Math.min(V.t0, w.t1 - V.span + slack));
	}

	function zoomAt(x, factor) {
		const t = T(x);
		const span = Math.max(10, V.span / factor);
		V.t0 = t - x / V.W * span;
		V.span = span;
		clampView();
		redraw();
	}

	function moveFocus(rows) {
		V.focus = Math.max(0, Math.min(Math.max(D.nrows - 1, 0), V.focus + rows));
		redraw();
	}

	// ---- search and highlight ------------------------------------------------------

	function parseQuery(q) {
		const m = /^\/(.*)\/([a-z]*)$/.exec(q);
		if (m)
			return new RegExp(m[1], m[2].includes('i') ? m[2] : m[2] + '');
		const low = q.toLowerCase();
		return { test: (s) => s.toLowerCase().includes(low) };
	}

	function search(q) {
		V.query = q;
		V.matchList = [];
		V.matchAt = -1;
		$('search').classList.remove('bad');
		if (!q) {
			V.highlight = null;
			$('matches').textContent = '';
			redraw();
			return 0;
		}
		let re;
		try {
			re = parseQuery(q);
		} catch (e) {
			$('search').classList.add('bad');
			$('matches').textContent = 'bad regex';
			return -1;
		}
		// each distinct string is tested once; a task matches by any of its labels
		const S = D.S, hit = new Uint8Array(S.length);
		for (let i = 1; i < S.length; i++)
			hit[i] = re.test(S[i]) ? 1 : 0;
		const c = D.c, hl = new Uint8Array(D.N);
		for (let t = 0; t < D.N; t++) {
			// its labels, its failure's reason, its kind
			let h = hit[c.task_name[t]] || hit[c.task_reason[t]] || hit[c.task_kind[t]];
			for (let j = D.labFirst[t]; !h && j < D.labFirst[t + 1]; j++)
				h = hit[c.label_str[j]];
			if (!h && c.task_name[t] === 0)
				h = re.test('#' + c.task_id[t]) ? 1 : 0;
			if (h) {
				hl[t] = 1;
				V.matchList.push(t);
			}
		}
		V.highlight = hl;
		$('matches').textContent = V.matchList.length + ' match' + (V.matchList.length === 1 ? '' : 'es');
		redraw();
		return V.matchList.length;
	}

	function showTask(t) {
		const s = D.c.task_start[t], e = Math.min(D.c.task_end[t], D.end);
		if (s < V.t0 || s > V.t0 + V.span)
			V.t0 = s - Math.max(V.span, (e - s) * 1.5) * 0.2;
		clampView();
		V.focus = D.c.task_row[t];
		redraw();
	}

	function nextMatch(dir) {
		if (!V.matchList.length)
			return;
		V.matchAt = (V.matchAt + dir + V.matchList.length) % V.matchList.length;
		showTask(V.matchList[V.matchAt]);
	}

	// The task and the chain it became part of, both ways (mirage's highlight_related).
	let becameFrom = null;
	function chain(t) {
		const c = D.c;
		if (!becameFrom) {
			becameFrom = new Map();
			for (let i = 0; i < D.N; i++) {
				const b = c.task_becomes[i];
				if (b !== NONE) {
					if (!becameFrom.has(b))
						becameFrom.set(b, []);
					becameFrom.get(b).push(i);
				}
			}
		}
		const seen = new Set([t]), todo = [t];
		while (todo.length) {
			const u = todo.pop();
			const next = (c.task_becomes[u] !== NONE ? [c.task_becomes[u]] : []).concat(becameFrom.get(u) || []);
			for (const w of next)
				if (!seen.has(w)) {
					seen.add(w);
					todo.push(w);
				}
		}
		return [...seen];
	}

	function highlightChain(t) {
		const hl = new Uint8Array(D.N);
		const list = chain(t);
		for (const u of list)
			hl[u] = 1;
		V.highlight = hl;
		V.matchList = list;
		V.matchAt = -1;
		$('matches').textContent = list.length + ' related';
		redraw();
		return list;
	}

	// The task drawn nearest to (x, y), within a few pixels; -1 if none.
	function taskAt(x, y) {
		const A = area(), M = mapper(A), c = D.c;
		const r0 = Math.round(M.row(y));
		let best = -1, bestD = 8;
		for (let r = Math.max(0, r0 - 1); r <= Math.min(D.nrows - 1, r0 + 1); r++) {
			const dy = Math.abs(M.y(r) - y);
			if (dy > 8)
				continue;
			const a = c.row_off[r], b = c.row_off[r + 1];
			const t = T(x), slack = 4 * V.span / V.W;
			const i = lowerBound(a, b, t - slack, (j) => c.task_end[c.row_task[j]]);
			if (i < b) {
				const u = c.row_task[i];
				const end = (c.task_flags[u] & FLAG_NEVER) ? Infinity : c.task_end[u];
				if (c.task_start[u] - slack <= t && t <= end + slack && dy < bestD) {
					best = u;
					bestD = dy;
				}
			}
		}
		return best;
	}

	// ---- a task's details: hover, click, links -----------------------------------------

	// The arrows by task, both ways (CSR), and each run's lane: built on
	// the first click, and again when simplify_binds changes the arrows.
	let adjacency = null;
	function adj() {
		if (adjacency)
			return adjacency;
		const c = D.c, N = D.N, na = c.arrow_kind.length;
		const csr = (key) => {
			const off = new Uint32Array(N + 1), idx = new Uint32Array(na);
			for (let i = 0; i < na; i++)
				off[key[i] + 1]++;
			for (let t = 0; t < N; t++)
				off[t + 1] += off[t];
			const at = off.slice(0, N);
			for (let i = 0; i < na; i++)
				idx[at[key[i]]++] = i;
			return { off, idx };
		};
		const runLane = new Uint16Array(c.run_task.length);
		D.lanes.forEach((lane, li) => {
			if (!lane.cpu)
				return;	// a thread's lane: markers only
			for (let j = lane.cpu.run_first; j < lane.cpu.run_first + lane.cpu.nruns; j++)
				runLane[c.cpu_runs[j]] = li;
		});
		const kids = new Uint32Array(N);
		for (let t = 0; t < N; t++)
			if (c.task_parent[t] !== NONE && c.task_parent[t] < N)
				kids[c.task_parent[t]]++;
		adjacency = { out: csr(c.arrow_from), in: csr(c.arrow_to), runLane, kids };
		return adjacency;
	}

	function fmtDur(ns) {
		if (!isFinite(ns))
			return '-';
		const a = Math.abs(ns);
		const u = a >= 1e9 ? [1e9, 's'] : a >= 1e6 ? [1e6, 'ms'] : a >= 1e3 ? [1e3, 'us'] : [1, 'ns'];
		return (ns / u[0]).toFixed(u[0] === 1 ? 0 : 3) + ' ' + u[1];
	}

	/*
	 * details() - what the panel shows of task @t, as data (the tests read
	 * it): who it is, when, its state, and the tasks it is linked to.
	 */
	function details(t) {
		const c = D.c, a = adj(), fl = c.task_flags[t], ref = (u) => ({ task: u, name: taskName(u) });
		const list = (csr, kind, end) => {
			const out = [], seen = new Set();
			for (let j = csr.off[t]; j < csr.off[t + 1]; j++) {
				const i = csr.idx[j];
				if (c.arrow_kind[i] !== kind)
					continue;
				const u = end === 'to' ? c.arrow_to[i] : c.arrow_from[i];
				if (!seen.has(u)) {
					seen.add(u);
					out.push(Object.assign(ref(u), { at: c.arrow_ts[i] - D.start }));
				}
			}
			return out;
		};
		// a wait for x ended with a read of x, or of what x became
		const read = list(a.in, 0, 'from'), tried = list(a.in, 1, 'from');
		const readOf = (x) => {
			for (let u = x, n = 0; u !== NONE && u < D.N && n < 64; u = c.task_becomes[u], n++)
				if (read.some((y) => y.task === u))
					return true;
			return false;
		};
		const pending = tried.filter((x) => !readOf(x.task));
		let state = 'unresolved';
		if (fl & FLAG_FAILED)
			state = 'failed';
		else if (fl & FLAG_RESOLVED)
			state = 'resolved';
		else if (fl & FLAG_NEVER)
			state = 'never resolved (should_resolve)';
		else if (c.task_becomes[t] !== NONE)
			state = 'became ' + taskName(c.task_becomes[t]);
		const cpus = new Map(), threads = new Map();
		for (let j = D.runFirst[t]; j < D.runFirst[t + 1]; j++) {
			const name = D.lanes[a.runLane[j]] ? D.lanes[a.runLane[j]].name : '?';
			const e = cpus.get(name) || { cpu: name, runs: 0, ns: 0 };
			e.runs++;
			e.ns += c.run_end[j] - c.run_start[j];
			cpus.set(name, e);
			// the thread that switched to it (the trace's thread records)
			const th = c.run_thread ? c.run_thread[j] : NONE;
			if (th !== NONE && D.meta.threads && th < D.meta.threads.length) {
				const tn = 'tid ' + D.meta.threads[th].tid;
				const f = threads.get(tn) || { thread: tn, runs: 0, ns: 0 };
				f.runs++;
				f.ns += c.run_end[j] - c.run_start[j];
				threads.set(tn, f);
			}
		}
		const labels = [];
		for (let j = D.labFirst[t]; j < D.labFirst[t + 1]; j++)
			labels.push({ at: c.label_ts[j] - D.start, text: D.S[c.label_str[j]] });
		const parent = c.task_parent[t];
		const created = (D.plain.task_start || c.task_start)[t], resolved = (fl & FLAG_RESOLVED) ? c.task_end[t] : NaN;
		return {
			task: t, id: String(c.task_id[t]), name: taskName(t), kind: D.S[c.task_kind[t]],
			trace: D.S[D.meta.traces[c.task_trace[t]].dir], state,
			reason: (fl & FLAG_FAILED) ? D.S[c.task_reason[t]] : '',
			created: created - D.start, resolved: resolved - D.start, duration: resolved - created,
			parent: parent !== NONE && parent < D.N ? ref(parent) : null, children: a.kids[t], labels,
			read, waitingFor: pending, readBy: list(a.out, 0, 'to'), resolvedBy: list(a.in, 2, 'from'),
			resolves: list(a.out, 2, 'to'), signalledBy: list(a.in, 3, 'from'), signals: list(a.out, 3, 'to'),
			became: c.task_becomes[t] !== NONE ? ref(c.task_becomes[t]) : null,
			becameFrom: chain(t).filter((u) => c.task_becomes[u] === t).map(ref),
			cpus: [...cpus.values()], threads: [...threads.values()], counters: counterChanges(t),
		};
	}

	// The counter changes task @t made (name+delta), at most 50.
	function counterChanges(t) {
		const c = D.c, out = [];
		if (!c.sample_task)
			return out;
		for (const k2 of D.meta.counters) {
			for (let i = k2.first; i < k2.first + k2.n && out.length < 50; i++) {
				if (c.sample_task[i] !== t)
					continue;
				const dv = c.sample_value[i] - (i > k2.first ? c.sample_value[i - 1] : 0);
				out.push({ text: k2.label + (dv >= 0 ? '+' : '') + fmtValue(dv), at: c.sample_ts[i] - D.start });
			}
		}
		return out.sort((p, q) => p.at - q.at);
	}

	// The panel, built with text nodes only: everything in it comes from the trace.
	function showDetails(t) {
		const box = $('details');
		box.textContent = '';
		if (t < 0) {
			box.hidden = true;
			return;
		}
		const d = details(t);
		const el = (tag, text, cls) => {
			const e = document.createElement(tag);
			if (text !== undefined)
				e.textContent = text;
			if (cls)
				e.className = cls;
			return e;
		};
		const link = (r) => {
			const a = el('a', r.name);
			a.href = '#';
			a.dataset.task = r.task;
			a.title = 'task ' + D.c.task_id[r.task];
			return a;
		};
		const title = el('div', '', 'panel-title');
		title.appendChild(el('span', d.name));
		const close = el('button', '\u00d7');
		close.title = 'close (Esc)';
		close.onclick = () => select(-1);
		title.appendChild(close);
		box.appendChild(title);
		const table = el('table');
		const row = (k, v) => {
			const tr = el('tr');
			tr.appendChild(el('td', k, 'key'));
			const td = el('td');
			if (Array.isArray(v)) {
				v.slice(0, 50).forEach((r, i) => {
					if (i)
						td.appendChild(document.createTextNode(', '));
					td.appendChild(link(r));
					if (r.at !== undefined)
						td.appendChild(el('span', ' at ' + fmtDur(r.at), 'at'));
				});
				if (v.length > 50)
					td.appendChild(document.createTextNode(' and ' + (v.length - 50) + ' more'));
			} else if (v && v.task !== undefined) {
				td.appendChild(link(v));
			} else {
				td.textContent = v;
			}
			tr.appendChild(td);
			table.appendChild(tr);
		};
		row('id', d.id + (D.meta.traces.length > 1 ? ' (' + d.trace + ')' : ''));
		row('kind', d.kind);
		row('state', d.state + (d.reason ? ': ' + d.reason : ''));
		row('created', fmtDur(d.created));
		if (isFinite(d.resolved)) {
			row('resolved', fmtDur(d.resolved));
			row('duration', fmtDur(d.duration));
		}
		if (d.parent)
			row('created by', d.parent);
		if (d.children)
			row('created', d.children + ' task' + (d.children > 1 ? 's' : ''));
		if (d.labels.length > 1)
			row('labels', d.labels.map((l) => l.text + ' (' + fmtDur(l.at) + ')').join('; '));
		const lists = [['read', d.read], ['waits for', d.waitingFor], ['read by', d.readBy],
			['resolved by', d.resolvedBy], ['resolved', d.resolves], ['woken by', d.signalledBy],
			['woke', d.signals], ['became from', d.becameFrom]];
		for (const [k, v] of lists)
			if (v.length)
				row(k, v);
		if (d.became)
			row('became', d.became);
		if (d.counters.length)
			row('counters', d.counters.map((x) => x.text + ' (' + fmtDur(x.at) + ')').join('; '));
		if (d.cpus.length)
			row('ran on', d.cpus.map((x) => x.cpu + ': ' + fmtDur(x.ns) + ' in ' + x.runs +
				' run' + (x.runs > 1 ? 's' : '')).join('; '));
		if (d.threads.length)
			row('threads', d.threads.map((x) => x.thread + ': ' + fmtDur(x.ns) + ' in ' + x.runs +
				' run' + (x.runs > 1 ? 's' : '')).join('; '));
		box.appendChild(table);
		box.hidden = false;
	}

	/*
	 * `p`: the selected task's critical path (view/path.h, as `ringtrace why`
	 * walks it, carried by the page for the tasks one asks why about), a band
	 * on the row of each segment's task coloured by what it did, a magenta
	 * line where the path moves from a row to another.
	 */
	function drawPath(g, M, A, X, W, F) {
		const c = D.c, p = V.path, a = c.path_first[p], b = c.path_first[p + 1];
		let drawn = 0;
		g.globalAlpha = 0.9;
		for (let i = a; i < b; i++) {
			const y = M.y(c.task_row[c.path_seg_task[i]]);
			const x0 = Math.max(-1, X(c.path_t0[i])), x1 = Math.min(W + 1, X(c.path_t1[i]));
			if (y < A.top - 6 || y > A.bottom + 6 || x1 < 0 || x0 > W)
				continue;
			g.fillStyle = PATH_COLORS[c.path_what[i]] || '#7f7f7f';
			g.fillRect(x0, y - 3, Math.max(1, x1 - x0), 6);
			drawn++;
		}
		g.strokeStyle = '#cc00cc';
		g.lineWidth = 2;
		g.beginPath();
		for (let i = a + 1; i < b; i++) {
			const r0 = c.task_row[c.path_seg_task[i - 1]], r1 = c.task_row[c.path_seg_task[i]];
			const x = X(c.path_t0[i]);
			if (r0 === r1 || x < 0 || x > W)
				continue;
			g.moveTo(x, M.y(r0));
			g.lineTo(x, M.y(r1));
		}
		g.stroke();
		g.lineWidth = 1;
		g.globalAlpha = 1;
		F.path = { task: c.path_task[p], segments: b - a, drawn };
	}
	// The path's segments, for the status line and the tests.
	function pathOf(t) {
		const c = D.c, p = D.pathOf.get(t);
		if (p === undefined)
			return null;
		const segs = [];
		for (let i = c.path_first[p]; i < c.path_first[p + 1]; i++)
			segs.push({ t0: c.path_t0[i], t1: c.path_t1[i], task: c.path_seg_task[i],
				row: c.task_row[c.path_seg_task[i]], what: PATH_WHAT[c.path_what[i]] });
		return { task: t, segments: segs };
	}
	function togglePath() {
		const t = V.selected;
		if (V.path >= 0 || t < 0) {
			if (t < 0 && V.path < 0)
				$('matches').textContent = 'select a task (click it), then p for its critical path';
			V.path = -1;
			redraw();
			return null;
		}
		const p = pathOf(t);
		if (!p) {
			$('matches').textContent = 'this page carries the critical paths of the failed, never ' +
				'resolved and ' + 8 + ' slowest tasks of each kind: `ringtrace why TRACE ' +
				D.c.task_id[t] + '` or `ringtrace view --serve` for this one';
			return null;
		}
		V.path = D.pathOf.get(t);
		const by = new Map();
		for (const s of p.segments)
			by.set(s.what, (by.get(s.what) || 0) + s.t1 - s.t0);
		$('matches').textContent = 'critical path: ' + fmtDur(c_end(p) - p.segments[0].t0) + '; ' +
			[...by].sort((x, y) => y[1] - x[1]).map(([w, ns]) => fmtDur(ns) + ' ' + w).join(', ');
		redraw();
		return p;
	}
	const c_end = (p) => p.segments[p.segments.length - 1].t1;

	function select(t) {
		if (t !== V.selected)
			V.path = -1;	/* the path is the selected task's */
		V.selected = t;
		showDetails(t);
		redraw();
		return t >= 0 ? details(t) : null;
	}

	/*
	 * H: the durations of task @t's kind, as `ringtrace stats` takes them
	 * (creation to resolution of its resolved tasks), in the log buckets of
	 * tools/analysis.h (2 significant bits: below 8 ns a bucket a value, then
	 * each power of two cut in 4), with exact percentiles; a click on a
	 * bucket highlights its tasks as a search does.  Returns what it shows
	 * (the tests read it); H again closes it.
	 */
	const histBucket = (v) => {
		if (v < 8)
			return Math.max(0, Math.floor(v));
		let e = Math.floor(Math.log2(v));
		while (2 ** e > v)
			e--;
		while (2 ** (e + 1) <= v)
			e++;
		return 8 + (e - 3) * 4 + (Math.floor(v / 2 ** (e - 2)) & 3);
	};
	const histLow = (b) => b < 8 ? b : (4 + (b - 8) % 4) * 2 ** (Math.floor((b - 8) / 4) + 1);
	function histogram(t) {
		const box = $('hist');
		if (!box.hidden || t < 0) {
			box.hidden = true;
			if (t < 0)
				$('matches').textContent = 'select a task, then H';
			return null;
		}
		const c = D.c, kind = c.task_kind[t], start = D.plain.task_start || c.task_start;
		const tasks = [], durs = [];
		for (let i = 0; i < D.N; i++) {
			const fl = c.task_flags[i];
			if (c.task_kind[i] === kind && (fl & FLAG_RESOLVED) && (fl & FLAG_CREATED)) {
				tasks.push(i);
				durs.push(c.task_end[i] - start[i]);
			}
		}
		const sorted = durs.slice().sort((a, b) => a - b), n = sorted.length;
		const q = (p) => n ? sorted[Math.max(0, Math.ceil(p * n) - 1)] : 0;
		const h = { kind: D.S[kind], n, p50: q(0.5), p90: q(0.9), p99: q(0.99), max: n ? sorted[n - 1] : 0,
			lo: [], hi: [], count: [] };
		if (n) {
			const b0 = histBucket(sorted[0]), b1 = histBucket(sorted[n - 1]);
			for (let b = b0; b <= b1; b++) {
				h.lo.push(histLow(b));
				h.hi.push(histLow(b + 1));
				h.count.push(0);
			}
			for (const d of sorted)
				h.count[histBucket(d) - b0]++;
		}
		closePanels();
		box.textContent = '';
		const title = document.createElement('div');
		title.className = 'panel-title';
		title.textContent = h.kind + ': ' + n + ' durations, p50 ' + fmtDur(h.p50) + ', p90 ' +
			fmtDur(h.p90) + ', p99 ' + fmtDur(h.p99) + ', max ' + fmtDur(h.max);
		box.appendChild(title);
		const most = Math.max(1, ...h.count);
		h.lo.forEach((lo, b) => {
			const row = document.createElement('div');
			row.className = 'hb';
			row.textContent = (fmtDur(lo) + ' .. ' + fmtDur(h.hi[b])).padEnd(26) +
				String(h.count[b]).padStart(7) + ' ' + '#'.repeat(Math.ceil(30 * h.count[b] / most));
			row.onclick = () => {
				box.querySelectorAll('.hb.on').forEach((x) => x.classList.remove('on'));
				row.classList.add('on');
				const hl = new Uint8Array(D.N);
				V.matchList = [];
				tasks.forEach((i, j) => {
					if (durs[j] >= lo && durs[j] < h.hi[b]) {
						hl[i] = 1;
						V.matchList.push(i);
					}
				});
				V.highlight = hl;
				V.matchAt = -1;
				$('matches').textContent = V.matchList.length + ' of ' + h.kind + ' took ' +
					fmtDur(lo) + ' to ' + fmtDur(h.hi[b]);
				redraw();
			};
			box.appendChild(row);
		});
		if (!n)
			box.appendChild(document.createTextNode('(no resolved task of this kind)'));
		box.hidden = false;
		return h;
	}

	// F: a flame graph of the CPU samples in view (record --sample), the
	// callers above their callees (an icicle): the selected thread's, else
	// every thread's.  A frame's width is its samples; a click on one makes
	// it the top, a click on the top goes back up.  Returns what it drew.
	const FLAME_H = 17, FLAME_MAX = 4000;
	function flame(root, toggle) {
		const box = $('flame');
		if (toggle && !box.hidden) {
			box.hidden = true;
			return null;
		}
		const c = D.c, n = c.cpu_sample_ts ? c.cpu_sample_ts.length : 0, nf = c.frame_parent.length;
		const v0 = V.t0, v1 = V.t0 + V.span, sel = V.selected;
		const thread = sel >= 0 && D.sampleFirst[sel + 1] > D.sampleFirst[sel] ? sel : -1;
		// samples in each frame, then under it: a parent comes before its callees
		const count = new Float64Array(nf);
		const i1 = lowerBoundArr(c.cpu_sample_ts, 0, n, v1 + 1e-9);
		let all = 0;
		for (let i = lowerBoundArr(c.cpu_sample_ts, 0, n, v0); i < i1; i++) {
			if (thread >= 0 && c.cpu_sample_task[i] !== thread)
				continue;
			count[c.cpu_sample_frame[i]]++;
			all++;
		}
		for (let f = nf - 1; f >= 0; f--)
			if (count[f] && c.frame_parent[f] !== NONE)
				count[c.frame_parent[f]] += count[f];
		const kids = new Map();
		for (let f = 0; f < nf; f++) {
			if (!count[f])
				continue;
			const p = c.frame_parent[f] === NONE ? -1 : c.frame_parent[f];
			if (!kids.has(p))
				kids.set(p, []);
			kids.get(p).push(f);
		}
		for (const l of kids.values())
			l.sort((a, b) => count[b] - count[a] || (D.S[c.frame_name[a]] < D.S[c.frame_name[b]] ? -1 : 1));
		if (root === undefined || root < 0 || root >= nf || !count[root])
			root = -1;
		const total = root < 0 ? all : count[root];
		const who = thread >= 0 ? taskName(thread) : 'every thread';
		const out = { thread: thread >= 0 ? who : null, samples: total, root: root < 0 ? null : D.S[c.frame_name[root]],
			t0: v0, t1: v1, frames: [] };
		closePanels();
		box.textContent = '';
		const title = document.createElement('div');
		title.className = 'panel-title';
		title.textContent = 'CPU samples of ' + who + ', ' + fmtDur(v0 - D.start) + ' to ' + fmtDur(v1 - D.start) +
			': ' + total + (root >= 0 ? ' under ' + D.S[c.frame_name[root]] : '') +
			(n ? '' : ' (the trace has none: ringtrace record --sample takes them)');
		box.appendChild(title);
		const area2 = document.createElement('div');
		area2.className = 'flame-area';
		box.appendChild(area2);
		const bar = (f, x, w, depth, label, cnt) => {
			const el = document.createElement('div');
			el.className = 'fl';
			el.style.left = (100 * x) + '%';
			el.style.width = 'calc(' + (100 * w) + '% - 1px)';
			el.style.top = (depth * FLAME_H) + 'px';
			let h = 0;
			for (let i = 0; i < label.length; i++)
				h = (h * 31 + label.charCodeAt(i)) >>> 0;
			el.style.background = f < 0 ? '#ccc' : 'hsl(' + (10 + h % 45) + ', 85%, ' + (58 + (h >>> 8) % 14) + '%)';
			el.textContent = label;
			el.title = label + ': ' + cnt + ' samples, ' + (100 * cnt / Math.max(1, total)).toFixed(1) + ' %';
			el.onclick = () => {
				flame(f === root ? (f < 0 || c.frame_parent[f] === NONE ? -1 : c.frame_parent[f]) : f);
			};
			area2.appendChild(el);
			out.frames.push({ name: label, samples: cnt, depth, x, w });
		};
		// the top: everything, or the frame zoomed into
		bar(root, 0, 1, 0, root < 0 ? 'all (' + who + ')' : D.S[c.frame_name[root]], total);
		let depthMax = 0;
		const walk = (p, x0, depth) => {
			let x = x0;
			for (const f of kids.get(p) || []) {
				const w = count[f] / Math.max(1, total);
				if (w < 0.002 || out.frames.length >= FLAME_MAX)
					break;	// sorted by count: the rest are narrower still
				bar(f, x, w, depth, D.S[c.frame_name[f]], count[f]);
				depthMax = Math.max(depthMax, depth);
				walk(f, x, depth + 1);
				x += w;
			}
		};
		walk(root, 0, 1);
		area2.style.height = ((depthMax + 1) * FLAME_H + 2) + 'px';
		box.hidden = false;
		view.flame = out;
		return out;
	}

	// The tooltip: the hovered task's name, kind and duration.
	let tipTask = -1;
	function hover(x, y) {
		const tip = $('tip'), t = taskAt(x, y);
		const place = () => {
			tip.style.left = Math.min(x + 14, V.W - tip.offsetWidth - 4) + 'px';
			tip.style.top = (y + 16) + 'px';
		};
		if (t >= 0 && t === tipTask && !tip.hidden) {
			place();
			return;
		}
		tipTask = t;
		if (t < 0) {
			// no task: an event drawn as a marker on a lane, its class and fields
			const mk = markerAt(x, y);
			tip.hidden = mk < 0;
			tip.classList.toggle('fields', mk >= 0);
			if (mk >= 0) {
				tip.textContent = markerText(mk);
				place();
			}
			return;
		}
		const c = D.c, fl = c.task_flags[t];
		const dur = (fl & FLAG_RESOLVED) ? fmtDur(c.task_end[t] - (D.plain.task_start || c.task_start)[t]) :
			(fl & FLAG_NEVER) ? 'never resolved' : 'unresolved';
		tip.classList.remove('fields');
		tip.textContent = taskName(t) + ' \u2014 ' + D.S[c.task_kind[t]] + ', ' + dur +
			((fl & FLAG_FAILED) ? ', failed: ' + D.S[c.task_reason[t]] : '') + ' (click: details)';
		tip.hidden = false;
		tip.style.left = Math.min(x + 14, V.W - tip.offsetWidth - 4) + 'px';
		tip.style.top = (y + 16) + 'px';
	}

	// The marker (typed or LTTng event) drawn within a few pixels of (x, y) on a lane, or -1.
	function markerAt(x, y) {
		const c = D.c;
		if (!V.lanes || !c.marker_ts || !c.marker_ts.length)
			return -1;
		const A = area(), li = Math.floor((y - A.lanesTop) / LANE_H);
		if (li < 0 || li >= D.lanes.length)
			return -1;
		const lane = D.lanes[li], slack = 3 * V.span / V.W, t = T(x);
		const a = lowerBoundArr(c.marker_ts, 0, c.marker_ts.length, t - slack);
		let best = -1, bestD = Infinity;
		for (let i = a; i < c.marker_ts.length && c.marker_ts[i] <= t + slack; i++) {
			const on = lane.cpu ? c.marker_cpu[i] === lane.index : c.marker_thread[i] === lane.thread;
			const d = Math.abs(c.marker_ts[i] - t);
			if (on && d < bestD) {
				best = i;
				bestD = d;
			}
		}
		return best;
	}

	// A marker's text for its tooltip: its class, its lane, its fields.
	function markerText(i) {
		const c = D.c, fields = D.S[c.marker_fields[i]];
		return D.S[c.marker_name[i]] + ' at ' + fmtTime(c.marker_ts[i] - D.start, 1) +
			(fields ? '\n' + fields : '');
	}

	// ---- input ----------------------------------------------------------------------

	function bindInput() {
		canvas.addEventListener('wheel', (ev) => {
			ev.preventDefault();
			const r = canvas.getBoundingClientRect();
			if (ev.shiftKey && !ev.ctrlKey) {
				moveFocus(Math.sign(ev.deltaY || ev.deltaX) * 2);
				return;
			}
			if (Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
				V.t0 += ev.deltaX * V.span / V.W;
				clampView();
				redraw();
				return;
			}
			const steps = Math.max(-5, Math.min(5, -ev.deltaY / (ev.deltaMode ? 3 : 100)));
			zoomAt(ev.clientX - r.left, Math.pow(1.2, steps || -Math.sign(ev.deltaY)));
		}, { passive: false });

		const pointers = new Map();
		let drag = null, pinch = null;
		canvas.addEventListener('pointerdown', (ev) => {
			canvas.setPointerCapture(ev.pointerId);
			pointers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY });
			if (pointers.size === 1) {
				drag = { x: ev.clientX, y: ev.clientY, t0: V.t0, focus: V.focus, at: performance.now() };
				canvas.classList.add('dragging');
			} else if (pointers.size === 2) {
				const [p, q] = [...pointers.values()];
				pinch = { d: Math.hypot(p.x - q.x, p.y - q.y) || 1, span: V.span, mid: (p.x + q.x) / 2,
					t: T((p.x + q.x) / 2 - canvas.getBoundingClientRect().left) };
				drag = null;
			}
		});
		canvas.addEventListener('pointermove', (ev) => {
			if (!pointers.has(ev.pointerId)) {
				const r = canvas.getBoundingClientRect();
				$('position').title = fmtTime(T(ev.clientX - r.left) - D.start, V.span / V.W);
				hover(ev.clientX - r.left, ev.clientY - r.top);
				return;
			}
			$('tip').hidden = true;
			pointers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY });
			if (pinch && pointers.size >= 2) {
				const [p, q] = [...pointers.values()];
				const d = Math.hypot(p.x - q.x, p.y - q.y) || 1;
				const r = canvas.getBoundingClientRect();
				const mid = (p.x + q.x) / 2 - r.left;
				V.span = Math.max(10, pinch.span * pinch.d / d);
				V.t0 = pinch.t - mid / V.W * V.span;
				clampView();
				redraw();
			} else if (drag) {
				V.t0 = drag.t0 - (ev.clientX - drag.x) * V.span / V.W;
				clampView();
				const M = mapper(area());
				if (!M.fits)
					V.focus = Math.max(0, Math.min(D.nrows - 1, drag.focus - (ev.clientY - drag.y) / ROW_H));
				redraw();
			}
		});
		const up = (ev) => {
			// a click (no drag): the task under the pointer is selected, or none
			if (drag && ev.type === 'pointerup' && pointers.size === 1 &&
			    Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) < 4) {
				const r = canvas.getBoundingClientRect();
				select(taskAt(ev.clientX - r.left, ev.clientY - r.top));
			}
			pointers.delete(ev.pointerId);
			if (pointers.size < 2)
				pinch = null;
			if (!pointers.size) {
				drag = null;
				canvas.classList.remove('dragging');
			}
		};
		canvas.addEventListener('pointerup', up);
		canvas.addEventListener('pointercancel', up);
		canvas.addEventListener('pointerleave', () => {
			$('tip').hidden = true;
			tipTask = -1;
		});
		$('details').addEventListener('click', (ev) => {
			const a = ev.target.closest('a[data-task]');
			if (!a)
				return;
			ev.preventDefault();
			const t = Number(a.dataset.task);
			select(t);
			showTask(t);
		});
		canvas.addEventListener('dblclick', (ev) => {
			const r = canvas.getBoundingClientRect();
			const t = taskAt(ev.clientX - r.left, ev.clientY - r.top);
			if (t >= 0)
				highlightChain(t);
		});

		const W2 = () => V.W / 2;
		document.addEventListener('keydown', (ev) => {
			if (ev.target === $('search')) {
				if (ev.key === 'Escape' || ev.key === 'Enter') {
					$('search').blur();
					if (ev.key === 'Enter')
						nextMatch(1);
					else
						clearAll();
				}
				return;
			}
			if (ev.ctrlKey || ev.metaKey || ev.altKey)
				return;
			const keys = {
				'+': () => zoomAt(W2(), 1.5), '=': () => zoomAt(W2(), 1.5), '-': () => zoomAt(W2(), 1 / 1.5),
				'ArrowLeft': () => pan(-0.2), 'h': () => pan(-0.2), 'ArrowRight': () => pan(0.2), 'l': () => pan(0.2),
				'ArrowUp': () => moveFocus(-1), 'k': () => moveFocus(-1), 'ArrowDown': () => moveFocus(1),
				'j': () => moveFocus(1), 'PageUp': () => moveFocus(-10), 'PageDown': () => moveFocus(10),
				'0': () => { fit(); redraw(); }, 'Home': () => { fit(); redraw(); },
				'/': () => $('search').focus(), 'n': () => nextMatch(1), 'N': () => nextMatch(-1),
				'Escape': () => clearAll(), 'b': () => toggleBinds(),
				' ': () => toggleAllCounters(), 'c': () => togglePanel('counter-menu'),
				'f': () => toggleFisheye(), 'u': () => toggleLanes(), 'e': () => saveSVG(),
				'H': () => histogram(V.selected), 'p': () => togglePath(), 'F': () => flame(-1, true),
				'?': () => togglePanel('help'),
			};
			const fn = keys[ev.key];
			if (fn) {
				ev.preventDefault();
				fn();
			}
		});
		const pan = (f) => {
			V.t0 += f * V.span;
			clampView();
			redraw();
		};
		$('search').addEventListener('input', () => search($('search').value));
		$('zoom-in').onclick = () => zoomAt(W2(), 1.5);
		$('zoom-out').onclick = () => zoomAt(W2(), 1 / 1.5);
		$('zoom-fit').onclick = () => { fit(); redraw(); };
		$('fisheye').onclick = toggleFisheye;
		$('binds').onclick = toggleBinds;
		$('lanes').onclick = toggleLanes;
		$('counters').onclick = () => togglePanel('counter-menu');
		$('export-svg').onclick = saveSVG;
		$('help-button').onclick = () => togglePanel('help');
		window.addEventListener('resize', () => {
			resize();
			redraw();
		});
	}

	// Esc: the panels closed, the search and the highlight cleared, nothing selected.
	function clearAll() {
		closePanels();
		$('search').value = '';
		search('');
		select(-1);
	}
	function toggleBinds() {
		useBinds(!V.binds);
		$('binds').classList.toggle('off', !V.binds);
		redraw();
	}

	function togglePanel(id) {
		const p = $(id), show = p.hidden;
		closePanels();
		p.hidden = !show;
	}
	function closePanels() {
		$('help').hidden = true;
		$('hist').hidden = true;
		$('flame').hidden = true;
		$('counter-menu').hidden = true;
	}
	function toggleFisheye() {
		V.fisheye = !V.fisheye;
		$('fisheye').classList.toggle('off', !V.fisheye);
		redraw();
	}
	function toggleLanes() {
		V.lanes = !V.lanes;
		$('lanes').classList.toggle('off', !V.lanes);
		redraw();
	}
	function toggleAllCounters() {
		V.counters = !V.counters;
		$('counter-all').checked = V.counters;
		$('counters').classList.toggle('off', !V.counters);
		redraw();
	}

	function counterMenu() {
		const list = $('counter-list');
		D.meta.counters.forEach((k2) => {
			const l = document.createElement('label'), box = document.createElement('input');
			box.type = 'checkbox';
			box.checked = true;
			box.onchange = () => {
				k2.on = box.checked;
				redraw();
			};
			l.appendChild(box);
			l.appendChild(document.createTextNode(' ' + k2.label + ' (' + k2.n + ' changes, ' +
				k2.min + ' to ' + k2.max + ')'));
			list.appendChild(l);
		});
		if (!D.meta.counters.length)
			list.textContent = 'no counters in this trace';
		$('counter-all').onchange = () => {
			V.counters = $('counter-all').checked;
			$('counters').classList.toggle('off', !V.counters);
			redraw();
		};
	}

	function messages() {
		const box = $('messages'), m = D.meta;
		for (const d of m.damage) {
			const div = document.createElement('div');
			const tr = m.traces[d.trace];
			div.textContent = 'damaged: ' + D.S[d.message] + ' \u2014 ' +
				(d.cpu >= 0 ? 'cpu ' + m.cpus[d.cpu].cpu + ' is drawn up to ' +
					fmtTime(d.ts - D.start, 1000) + ', the rest of ' + D.S[tr.dir] + ' in full' :
					'that stream could not be read; the rest of ' + D.S[tr.dir] + ' is drawn');
			box.appendChild(div);
		}
		let lostE = 0, lostP = 0;
		for (const l of m.losses)
			if (l.packets)
				lostP += l.count;
			else
				lostE += l.count;
		if (lostE || lostP) {
			const div = document.createElement('div');
			div.textContent = 'lost: ' + lostE + ' events, ' + lostP + ' packets (red marks on the CPU lanes)';
			box.appendChild(div);
		}
	}

	// ---- start -------------------------------------------------------------------

	async function start() {
		try {
			D = await load();
		} catch (e) {
			view.error = String(e);
			$('loading').textContent = 'could not read the trace data: ' + e;
			throw e;
		}
		const m = D.meta;
		document.title = D.S[m.title] || 'ringtrace view';
		$('title').textContent = m.traces.map((t) => D.S[t.dir]).join(', ');
		$('summary').textContent = m.events + ' events, ' + D.N + ' tasks, ' + m.cpus.length +
			' CPU streams' + (m.traces.length > 1 ? ', ' + m.traces.length + ' traces' : '');
		$('loading').remove();
		useBinds(true);
		messages();
		counterMenu();
		bindInput();
		resize();
		fit();
		frame();
		view.openMs = performance.now();
		warmUp();
		view.warmMs = performance.now() - view.openMs;
		view.ready = true;
	}

	// Right after the first frame, before the page takes input: frames at
	// a few zooms, so that the engine compiles the drawing code now and not
	// during the first zoom (cold, a dense frame takes 2-3 times as long).
	// Nothing of them is shown: the whole trace is drawn again last.
	function warmUp() {
		const s0 = V.t0, span = V.span;
		for (let i = 0; i < 12; i++) {
			const f = Math.pow(0.6, i);
			setRange(s0 + span * (1 - f) / 2, s0 + span * (1 + f) / 2);
			draw(ctx, V.W, V.H);
		}
		fit();
		frame();
	}

	// what the tests and the benchmark use (getters kept as getters)
	Object.defineProperties(view, Object.getOwnPropertyDescriptors({
		get meta() { return D && D.meta; },
		get rows() { return D.nrows; },
		get ntasks() { return D.N; },
		get highlighted() { return V.highlight ? V.matchList.length : 0; },
		get state() { return { t0: V.t0, t1: V.t0 + V.span, focus: V.focus, fisheye: V.fisheye,
			lanes: V.lanes, counters: V.counters, W: V.W, H: V.H }; },
		draw: () => frame(),
		setView(t0, t1, focus) {
			setRange(t0, t1);
			if (focus !== undefined)
				V.focus = focus;
			return frame();
		},
		fit() {
			fit();
			return frame();
		},
		findTask(name) {
			for (let t = 0; t < D.N; t++)
				if (taskName(t) === name)
					return t;
			return -1;
		},
		task(t) {
			const c = D.c, A = area(), M = mapper(A);
			return { task: t, name: taskName(t), kind: D.S[c.task_kind[t]], row: c.task_row[t], start: c.task_start[t],
				end: c.task_end[t], flags: c.task_flags[t], reason: D.S[c.task_reason[t]], y: M.y(c.task_row[t]),
				x0: X(c.task_start[t]), x1: X(c.task_end[t]), trace: c.task_trace[t] };
		},
		xOf: (t) => X(t),
		yOfRow: (r) => mapper(area()).y(r),
		search: (q) => { const n = search(q); frame(); return n; },
		highlightChain: (t) => { const l = highlightChain(t); frame(); return l; },
		taskAt: (x, y) => taskAt(x, y),
		details: (t) => details(t),
		histogram: (t) => histogram(t),
		flame: (root) => flame(root === undefined ? -1 : root),
		get holds() {
			const c = D.c, n = c.hold_start ? c.hold_start.length : 0, out = [];
			for (let i = 0; i < n; i++)
				out.push({ lock: taskName(c.hold_lock[i]), holder: taskName(c.hold_holder[i]),
					start: c.hold_start[i], end: c.hold_end[i], exact: c.hold_exact[i] === 1 });
			return out;
		},
		path: () => { const p = togglePath(); frame(); return p; },
		pathOf: (t) => pathOf(t),
		get pathTasks() { return D.c.path_task ? Array.from(D.c.path_task) : []; },
		select(t) { const d = select(t); frame(); return d; },
		get selected() { return V.selected; },
		get binds() { return V.binds; },
		get simplified() { return D.simplified; },
		toggleBinds() { toggleBinds(); return frame(); },
		get sleep() { return D.sleep.map((a) => Array.from(a)); },
		markerAt: (x, y) => markerAt(x, y),
		markerText: (i) => markerText(i),
		marker: (i) => ({ ts: D.c.marker_ts[i], cpu: D.c.marker_cpu[i], thread: D.c.marker_thread[i],
			name: D.S[D.c.marker_name[i]], fields: D.S[D.c.marker_fields[i]] }),
		get nmarkers() { return D.c.marker_ts ? D.c.marker_ts.length : 0; },
		laneY: (li) => area().lanesTop + li * LANE_H + LANE_H / 2,
		get lanes() { return D.lanes.map((l) => l.name); },
		exportSVG,
		setCounter(name, on) {
			for (const k2 of D.meta.counters)
				if (k2.label === name)
					k2.on = on;
			return frame();
		},
		toggleAllCounters() { toggleAllCounters(); return frame(); },
		toggleFisheye() { toggleFisheye(); return frame(); },
		// frame times (ms) of a scripted zoom and pan: each frame is drawn and
		// its pixels read back (which waits for the canvas to be painted)
		benchmark(frames) {
			const times = [];
			fit();
			frame();
			const mid = (D.start + D.end) / 2;
			for (let i = 0; i < frames; i++) {
				const phase = Math.floor(i / (frames / 4));
				if (phase === 0)
					zoomTo(mid, 0.85);
				else if (phase === 1)
					V.t0 += V.span * 0.05;
				else if (phase === 2)
					zoomTo(V.t0 + V.span / 3, 1 / 0.85);
				else
					V.t0 -= V.span * 0.05;
				const t = performance.now();
				frame();
				ctx.getImageData(0, 0, 1, 1);
				times.push(performance.now() - t);
			}
			return times;
			function zoomTo(t, f) {
				const span = V.span * f;
				V.t0 = t - (t - V.t0) * f;
				V.span = span;
			}
		},
	}));

	start();
})();
