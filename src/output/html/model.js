/*
 * model.js - the views of a profile, computed in the page of `ccprof
 * convert --to html` (docs/html.md; the API ui.js uses: load, view and
 * matching, described at each).  A port of the C model (src/model/*.c): every number, order and
 * tie-break is the one `ccprof report --json` gives for the same view
 * options, so the page and the command line never disagree.
 *
 * docs/semantics.md, "The views", is the definition; the C files each part
 * follows are named at its head.  Histories are kept as the C model keeps
 * them: an entry is cc * 2 + mark (CCP_ENTRY), so a history is an array of
 * integers and equal histories have equal joined keys.
 *
 * Order matters as much as sums: the C passes walk the contexts in the
 * model's order (first seen, threads merged), and report --json lists
 * arcs by first appearance and breaks ties by first-seen context or node.
 * DATA's contexts are in that order, and every pass here walks them so.
 *
 * Plain ES2017, no DOM: the same file runs in the page and under node
 * (tests/html_model.js).
 */
'use strict';

const ccprofModel = (function () {
	/* A tree node or cycle item for "…": a path A4/A5 elided.  The value
	 * of MODEL_GAP, so that the least rotation of a cycle (cycles.c)
	 * compares it above every cost centre, as the C code does. */
	const GAP = 0xfffffffe;

	const entryCc = (e) => e >>> 1;
	const entryMarked = (e) => (e & 1) === 1;
	const makeEntry = (cc, marked) => cc * 2 + (marked ? 1 : 0);

	/* strcmp on UTF-8 bytes orders by code point; JavaScript's < orders by
	 * UTF-16 unit, which differs for characters past U+FFFF. */
	function compareNames(a, b) {
		const n = Math.min(a.length, b.length);
		for (let i = 0; i < n; i++) {
			if (a.charCodeAt(i) !== b.charCodeAt(i)) {
				const x = a.codePointAt(i), y = b.codePointAt(i);
				return x < y ? -1 : 1;
			}
		}
		return a.length - b.length;
	}

	/* ---- patterns (select.c) ---------------------------------------------- */

	/* `*` is the only wildcard, so operator[] or f<int> match as written. */
	function globMatch(p, s) {
		let pi = 0, si = 0, star = -1, mark = 0;
		while (si < s.length) {
			if (pi < p.length && p[pi] === '*') {
				star = pi++;
				mark = si;
			} else if (pi < p.length && p[pi] === s[si]) {
				pi++;
				si++;
			} else if (star >= 0) {
				pi = star + 1;
				si = ++mark;
			} else {
				return false;
			}
		}
		while (pi < p.length && p[pi] === '*')
			pi++;
		return pi === p.length;
	}

	/* The length of a C++ name without its parameter list: "ns::f(int)
	 * const" -> "ns::f"; operator() keeps its parentheses. */
	function withoutParams(name) {
		const len = name.length;
		if (len === 0 || (name[len - 1] !== ')' && name.indexOf(') ') < 0))
			return len;
		let depth = 0;
		for (let i = len; i-- > 0;) {
			if (name[i] === ')') {
				depth++;
			} else if (name[i] === '(' && --depth === 0) {
				const before = name.slice(Math.max(0, i - 8), i);
				return i > 0 && before !== 'operator' ? i : len;
			}
		}
		return len;
	}

	const OPERATORS = ['<=>', '<<=', '>>=', '->*', '<<', '>>', '<=', '>=', '==', '->', '-=',
		'*=', '<', '>', '=', '-', '*'];

	/* Note [Operator names in patterns] in select.c: the characters of an
	 * operator's name right after `operator` open no list and split
	 * nothing. */
	function operatorChars(list, i) {
		if (i < 8 || list.slice(i - 8, i) !== 'operator')
			return 0;
		if (i > 8 && /[A-Za-z0-9_]/.test(list[i - 9]))
			return 0; /* the end of a longer name: my_operator<int, int> */
		if (list[i] === ',') /* strchr("(<*,", c) also finds the end */
			return i + 1 >= list.length || '(<*,'.indexOf(list[i + 1]) >= 0 ? 1 : 0;
		for (const op of OPERATORS)
			if (list.startsWith(op, i))
				return op.length;
		return 0;
	}

	/* The length of the next pattern of a comma list: commas inside () <>
	 * [] belong to the pattern. */
	function nextPattern(list, from) {
		let depth = 0, i = from;
		while (i < list.length) {
			const op = operatorChars(list, i);
			if (op) {
				i += op;
				continue;
			}
			const c = list[i];
			if (c === ',' && depth === 0)
				break;
			if ('(<['.indexOf(c) >= 0)
				depth++;
			else if (')>]'.indexOf(c) >= 0 && depth > 0)
				depth--;
			i++;
		}
		return i - from;
	}

	/* The patterns of a comma list, empty ones left out, as the C loops
	 * skip them. */
	function splitPatterns(list) {
		const out = [];
		for (let i = 0; i < list.length;) {
			const len = nextPattern(list, i);
			if (len)
				out.push(list.substr(i, len));
			i += len + (list[i + len] === ',' ? 1 : 0);
		}
		return out;
	}

	/* Whether a pattern matches cost centre cc by one of the names it
	 * goes by (p.matchNames). */
	function nameMatches(p, pattern, cc) {
		return p.matchNames[cc].some((name) => globMatch(pattern, name));
	}

	/* What a pattern may match of function f: its name, the whole name a
	 * page made with --short-names shortened (Note [Short names] in
	 * shortnames.c), and each without its parameter list. */
	function matchNames(f) {
		const names = [];
		for (const name of f.full === undefined ? [f.name] : [f.name, f.full]) {
			const short = withoutParams(name);
			names.push(name);
			if (short < name.length)
				names.push(name.slice(0, short));
		}
		return names;
	}

	/* The bracketed part of a label, "module", "module+0xoffset" or
	 * "module+0xoffset@build-id", the module a base name or, with a '/',
	 * a path, against function f (qualifier_matches in select.c). */
	function qualifierMatches(f, q) {
		const at = q.lastIndexOf('@');
		if (at >= 0 && /^[0-9a-fA-F]{1,40}$/.test(q.slice(at + 1)) &&
		    q.slice(0, at).lastIndexOf('+0x') >= 0) {
			if (!(f.build_id || '').startsWith(q.slice(at + 1).toLowerCase()))
				return false;
			q = q.slice(0, at);
		}
		const plus = q.lastIndexOf('+0x');
		if (plus >= 0) {
			const hex = q.slice(plus + 3);
			if (!/^[0-9a-fA-F]{1,16}$/.test(hex) || BigInt('0x' + hex) !== BigInt(f.offset))
				return false;
			q = q.slice(0, plus);
		}
		const path = f.module || '';
		return globMatch(q, (q.includes('/') ? path : basename(path)) || '?');
	}

	/* Whether a pattern matches cost centre cc: by its name, or by the
	 * label that names its module too, "step [twins+0x1159]" (Note
	 * [Qualified names in patterns] in select.c). */
	function ccMatches(p, pattern, cc) {
		const f = p.fns[cc];
		if (nameMatches(p, pattern, cc))
			return true;
		if (pattern.length < 4 || pattern[pattern.length - 1] !== ']' || f.offset === null ||
		    f.offset === undefined)
			return false;
		let open = pattern.length - 1;
		while (open > 1 && !(pattern[open] === '[' && pattern[open - 1] === ' '))
			open--;
		return open > 1 && nameMatches(p, pattern.slice(0, open - 1), cc) &&
			qualifierMatches(f, pattern.slice(open + 1, pattern.length - 1));
	}

	function basename(path) {
		return path.slice(path.lastIndexOf('/') + 1);
	}

	/* A module path of "" is an unknown module, which no pattern matches. */
	function moduleMatches(pattern, path) {
		return path !== '' && (globMatch(pattern, path) || globMatch(pattern, basename(path)));
	}

	/* ---- loading ------------------------------------------------------------- */

	/* A DATA history ([id] marked, -1 - id unmarked) as entries. */
	function decodeHistory(h) {
		return h.map((x) => (x >= 0 ? makeEntry(x, true) : makeEntry(-1 - x, false)));
	}

	function load(data) {
		const fns = data.functions;
		const contexts = data.contexts.map((c) => ({
			hist: decodeHistory(c[0]), entries: c[1], recursive: c[2], time: c[3],
			bytes: c[4] || 0, blocks: c[5] || 0,
		}));
		const seen = new Uint8Array(fns.length);
		let totalTicks = 0;
		for (const c of contexts) {
			for (const e of c.hist)
				seen[entryCc(e)] = 1;
			totalTicks += c.time;
		}
		const tps = data.ticks_per_sec;
		/* Each thread's own contexts (DATA.per_thread), decoded when the
		 * breakdown is first asked for: a row is [k, E, R, T, bytes,
		 * blocks], k the merged context with its history; null contexts
		 * are the profile's. */
		let threads = null;
		const threadContexts = () => threads || (threads = (data.per_thread || []).map((t) => ({
			tid: t.tid, name: t.name,
			contexts: t.contexts === null ? contexts : t.contexts.map((r) => ({
				hist: contexts[r[0]].hist, entries: r[1], recursive: r[2], time: r[3],
				bytes: r[4] || 0, blocks: r[5] || 0,
			})),
		})));
		return {
			data, fns, hasAlloc: !!data.alloc, contexts, seen, totalTicks, threadContexts,
			/* allocated before a thread's first call, in no context (a
			 * page written before them has none) */
			outsideAllocBytes: data.outside_alloc_bytes || 0,
			outsideAllocBlocks: data.outside_alloc_blocks || 0,
			seconds: (ticks) => (tps ? ticks / tps : 0),
			nameRank: nameRanks(fns),
			matchNames: fns.map(matchNames),
		};
	}

	/* Each name's place in strcmp's order, which the views' ties follow.
	 * The page's names have lost any byte that is not UTF-8 (U+FFFD), so
	 * the writer gives the places (name_rank, export_html.c); without
	 * them, they are computed from the names as they are. */
	function nameRanks(fns) {
		const rank = new Float64Array(fns.length);
		if (fns.every((f) => typeof f.name_rank === 'number')) {
			fns.forEach((f, cc) => { rank[cc] = f.name_rank; });
			return rank;
		}
		const order = fns.map((f, cc) => cc).sort((a, b) => compareNames(fns[a].name, fns[b].name));
		order.forEach((cc, i) => {
			rank[cc] = i > 0 && compareNames(fns[order[i - 1]].name, fns[cc].name) === 0
				? rank[order[i - 1]] : i;
		});
		return rank;
	}

	/* ---- resolving the options (select.c, view_opts.c) ----------------------- */

	/* An option's values as a list of strings.  "" is an option not
	 * given (an empty box in the page); a value that holds no pattern
	 * (",") is the CLI's usage error (view_opts.c add_patterns), which
	 * would otherwise select, deselect or focus on nothing without a
	 * word. */
	function optionValues(value, opt) {
		const list = (value == null ? [] : Array.isArray(value) ? value : [value]).map(String);
		for (const s of list)
			if (s !== '' && !/[^,]/.test(s))
				throw new Error('--' + opt + " needs a pattern, not '" + s + "'");
		return list.filter((s) => s !== '');
	}

	/* Apply each pattern of values to the seen cost centres: set[cc] =
	 * value where match says so.  Returns the first pattern that matched
	 * nothing, or null. */
	function applyPatterns(p, values, match, set, value) {
		let unmatched = null;
		for (const list of values) {
			for (const pat of splitPatterns(list)) {
				let any = false;
				for (let cc = 0; cc < p.fns.length; cc++) {
					if (p.seen[cc] && match(pat, cc)) {
						set[cc] = value;
						any = true;
					}
				}
				if (!any && unmatched === null)
					unmatched = pat;
			}
		}
		return unmatched;
	}

	/* The selection of resolve_selection: everything or --select, only
	 * --module's modules, only exported symbols, minus --deselect, plus
	 * thread roots and focused functions.  Regions are kept by --module
	 * and --only-exported: they were named on purpose. */
	function resolveSelection(p, o, focus, unmatched) {
		const n = p.fns.length;
		const byName = (pat, cc) => ccMatches(p, pat, cc);
		const sel = new Uint8Array(n);
		if (o.select.length)
			unmatched.select = applyPatterns(p, o.select, byName, sel, 1);
		else
			sel.fill(1);
		if (o.module.length) {
			const inModule = new Uint8Array(n);
			unmatched.module = applyPatterns(p, o.module,
				(pat, cc) => moduleMatches(pat, p.fns[cc].module || ''), inModule, 1);
			for (let cc = 0; cc < n; cc++)
				if (!p.fns[cc].region)
					sel[cc] &= inModule[cc];
		}
		if (o.onlyExported) {
			for (let cc = 0; cc < n; cc++) {
				if (!sel[cc] || p.fns[cc].region)
					continue;
				/* null: its module's symbols could not be read */
				if (p.fns[cc].exported === null && unmatched.unreadable === undefined)
					unmatched.unreadable = p.fns[cc].module || '(unknown module)';
				sel[cc] = p.fns[cc].exported === true ? 1 : 0;
			}
		}
		unmatched.deselect = applyPatterns(p, o.deselect, byName, sel, 0);
		for (const c of p.contexts) /* the first entry of a history is a thread root */
			if (c.hist.length)
				sel[entryCc(c.hist[0])] = 1;
		if (focus)
			for (let cc = 0; cc < n; cc++)
				sel[cc] |= focus[cc];
		return sel;
	}

	function warnings(unmatched) {
		const out = [];
		for (const opt of ['select', 'deselect', 'module'])
			if (unmatched[opt] !== null && unmatched[opt] !== undefined)
				out.push("warning: --" + opt + " '" + unmatched[opt] + "' matches no function");
		if (unmatched.unreadable !== undefined)
			out.push('warning: --only-exported: cannot read symbols of ' + unmatched.unreadable +
				'; its functions count as not exported');
		return out;
	}

	/* ---- the view's contexts (view.c) ---------------------------------------- */

	/* The first marked focused entry of h, or -1. */
	function focusStart(focus, h) {
		for (let i = 0; i < h.length; i++)
			if (entryMarked(h[i]) && focus[entryCc(h[i])])
				return i;
		return -1;
	}

	/* model_view_history: the view's history of h, or null if the view
	 * drops the context.
	 *
	 * Note [The thread root of a reduced stack] (view.c): a root entered
	 * again (unmarked first entry) stays in front, unmarked, so that the
	 * reduced stack still starts at it, unless the stack starts with it
	 * anyway. */
	function viewHistory(rv, h) {
		let start = 0;
		if (rv.focus) {
			start = focusStart(rv.focus, h);
			if (start < 0)
				return null;
		}
		if (!rv.selected)
			return start ? h.slice(start) : h;
		const n = h.length;
		const root = start === 0 && n > 0 && !entryMarked(h[0]) ? entryCc(h[0]) : -1;
		const out = root >= 0 ? [0] : [];
		for (let i = start; i < n; i++)
			if (entryMarked(h[i]) && rv.selected[entryCc(h[i])])
				out.push(makeEntry(entryCc(h[i]), true));
		if (root >= 0) {
			if (out.length > 1 && entryCc(out[1]) !== root)
				out[0] = makeEntry(root, false);
			else
				out.shift();
		}
		return out;
	}

	/* model_view_place: [start, the position of the entry that gets the
	 * time], or null if the view drops the context. */
	function viewPlace(rv, h) {
		const n = h.length;
		if (n === 0)
			return null;
		let start = 0;
		if (rv.focus && (start = focusStart(rv.focus, h)) < 0)
			return null;
		if (!rv.selected)
			return [start, n - 1];
		for (let i = n; i-- > start;)
			if (entryMarked(h[i]) && rv.selected[entryCc(h[i])])
				return [start, i];
		return null;
	}

	const isSelected = (rv, cc) => !rv.selected || rv.selected[cc] === 1;

	/* The view's contexts: each base context through viewHistory, equal
	 * results added up, in order of first appearance (view_contexts).
	 * out.index[k]: the view's context of base context k, or -1 (no index
	 * when the view's contexts are the base's). */
	function buildContexts(p, rv, from) {
		if (!from && !rv.focus && !rv.selected)
			return p.contexts;
		const byHistory = new Map(), out = [], base = from || p.contexts;
		out.index = new Int32Array(base.length).fill(-1);
		for (let k = 0; k < base.length; k++) {
			const c = base[k], h = viewHistory(rv, c.hist);
			if (h === null)
				continue;
			const key = h.join(',');
			let i = byHistory.get(key);
			if (i === undefined) {
				i = out.length;
				byHistory.set(key, i);
				out.push({hist: h, entries: 0, recursive: 0, time: 0, bytes: 0, blocks: 0});
			}
			out.index[k] = i;
			const x = out[i];
			const calls = c.hist.length === 0 ||
				isSelected(rv, entryCc(c.hist[c.hist.length - 1]));
			if (calls) {
				x.entries += c.entries;
				x.recursive += c.recursive;
			}
			x.time += c.time;
			x.bytes += c.bytes;
			x.blocks += c.blocks;
		}
		return out;
	}

	/* model_totals: the view's totals, of its contexts. */
	function totals(ctx) {
		const t = {totalTicks: 0, rootTicks: 0, rootBytes: 0, totalCalls: 0, totalBytes: 0,
			totalBlocks: 0};
		for (const c of ctx) {
			t.totalTicks += c.time;
			t.totalBytes += c.bytes;
			t.totalBlocks += c.blocks;
			if (c.hist.length === 0) {
				t.rootTicks += c.time;
				t.rootBytes += c.bytes;
			} else {
				t.totalCalls += c.entries + c.recursive;
			}
		}
		return t;
	}

	/* contexts.c: time descending, then entries (E) descending, then
	 * first seen. */
	const contextOrder = (ctx, a, b) =>
		ctx[b].time - ctx[a].time || ctx[b].entries - ctx[a].entries || a - b;
	const contextObject = (c) => ({
		hist: c.hist.map((e) => ({id: entryCc(e), marked: entryMarked(e)})),
		entries: c.entries, recursive: c.recursive, ticks: c.time, bytes: c.bytes, blocks: c.blocks,
	});
	function sortedContexts(ctx) {
		const order = ctx.map((c, k) => k);
		order.sort((a, b) => contextOrder(ctx, a, b));
		return order.map((k) => contextObject(ctx[k]));
	}

	/* The first of sortedContexts without sorting them (hot.c's
	 * ctx_by_time[0]), or null. */
	function costliestContext(ctx) {
		let best = -1;
		for (let k = 0; k < ctx.length; k++)
			if (best < 0 || contextOrder(ctx, k, best) < 0)
				best = k;
		return best < 0 ? null : contextObject(ctx[best]);
	}

	/* ---- the flat profile (flat.c) ------------------------------------------- */

	/* Every cost centre in some history of the view: calls and self of
	 * the contexts it runs, inherited of those where it is marked (each
	 * once), most self time first (ties: calls, name, id). */
	function flatProfile(ctx, nameRank, rootCalls) {
		const rows = new Map();
		const row = (cc) => {
			let r = rows.get(cc);
			if (!r) {
				r = {id: cc, calls: 0, rootCalls: rootCalls(cc), selfTicks: 0, inhTicks: 0,
					selfBytes: 0, selfBlocks: 0, inhBytes: 0, inhBlocks: 0};
				rows.set(cc, r);
			}
			return r;
		};
		const stamp = new Int32Array(nameRank.length); /* inherited: each context once */
		ctx.forEach((c, k) => {
			if (!c.hist.length)
				return;
			const run = row(entryCc(c.hist[c.hist.length - 1]));
			run.calls += c.entries + c.recursive;
			run.selfTicks += c.time;
			run.selfBytes += c.bytes;
			run.selfBlocks += c.blocks;
			for (const e of c.hist) {
				const cc = entryCc(e), r = row(cc); /* every CC in a history is listed */
				if (!entryMarked(e) || stamp[cc] === k + 1)
					continue;
				stamp[cc] = k + 1;
				r.inhTicks += c.time;
				r.inhBytes += c.bytes;
				r.inhBlocks += c.blocks;
			}
		});
		return Array.from(rows.values()).sort((a, b) =>
			b.selfTicks - a.selfTicks || b.calls - a.calls ||
			nameRank[a.id] - nameRank[b.id] || a.id - b.id);
	}

	/* ---- arcs (arcs.c) -------------------------------------------------------- */

	/* Every arc of the view's contexts in order of first appearance; the
	 * spontaneous ones (into a thread root) have caller null. */
	function buildArcs(ctx, nfns) {
		const list = [], index = new Map();
		const get = (caller, callee) => {
			const key = (caller === null ? 0 : caller + 1) * (nfns + 1) + callee;
			let a = index.get(key);
			if (!a) {
				a = {caller, callee, calls: 0, selfIn: 0, childIn: 0, selfOut: 0, childOut: 0,
					selfInBytes: 0, childInBytes: 0, selfOutBytes: 0, childOutBytes: 0};
				index.set(key, a);
				list.push(a);
			}
			return a;
		};
		for (const c of ctx)
			if (c.hist.length)
				arcsOfContext(c, get);
		return list;
	}

	/* Times by Spivey's rule: for each marked entry B of a context running
	 * P, the arc B→D is self_out when D = P, the arc A→B self_in when
	 * B = P; child otherwise.  A pair with neither end marked is no arc. */
	function arcsOfContext(c, get) {
		const s = c.hist, n = s.length, run = entryCc(s[n - 1]);
		const pairs = [];
		for (let i = 0; i + 1 < n; i++) /* made in this order, as arcs_find does */
			pairs.push(entryMarked(s[i]) || entryMarked(s[i + 1])
				? get(entryCc(s[i]), entryCc(s[i + 1])) : null);
		if (entryMarked(s[0])) {
			const first = entryCc(s[0]), a = get(null, first);
			addCost(a, 'In', first === run, c);
			if (n === 1)
				a.calls += c.entries;
		}
		for (let i = 0; i + 1 < n; i++) {
			const a = pairs[i];
			if (!a)
				continue;
			const self = entryCc(s[i + 1]) === run;
			if (entryMarked(s[i]))
				addCost(a, 'Out', self, c);
			if (entryMarked(s[i + 1]))
				addCost(a, 'In', self, c);
			if (i + 2 === n)
				a.calls += c.entries;
		}
		if (c.recursive)
			get(run, run).calls += c.recursive;
	}

	/* Add context c's time and bytes to arc a's self or child cost of
	 * one side ('In' or 'Out'). */
	function addCost(a, side, self, c) {
		const key = (self ? 'self' : 'child') + side;
		a[key] += c.time;
		a[key + 'Bytes'] += c.bytes;
	}

	/* One function's arcs in or out (in order of first appearance),
	 * heaviest first: the times of that side, then calls, then first
	 * appearance (arc_lists). */
	function heaviestFirst(arcs, incoming) {
		const time = incoming ? (a) => a.selfIn + a.childIn : (a) => a.selfOut + a.childOut;
		const keyed = arcs.map((a, k) => ({a, k, t: time(a)}));
		keyed.sort((x, y) => y.t - x.t || y.a.calls - x.a.calls || x.k - y.k);
		return keyed.map((x) => x.a);
	}

	/* ---- trees (tree.c) ------------------------------------------------------- */

	/* Nodes numbered parent first, each (parent, cc) child made once; the
	 * root (node 0) has cc null.  cc may be GAP (callers trees). */
	function newNodes(nfns) {
		return {
			nfns, cc: [null], parent: [-1], entries: [0], indiv: [0], indivBytes: [0],
			children: new Map(),
		};
	}

	function nodeChild(b, parent, cc) {
		const key = parent * (b.nfns + 1) + (cc === GAP ? b.nfns : cc);
		let k = b.children.get(key);
		if (k === undefined) {
			k = b.cc.length;
			b.cc.push(cc);
			b.parent.push(parent);
			b.entries.push(0);
			b.indiv.push(0);
			b.indivBytes.push(0);
			b.children.set(key, k);
		}
		return k;
	}

	/* model_tree_finish: inherited sums (children come after their
	 * parent), then each node's children most inherited time first (ties:
	 * more entries, name, node number), as nested objects. */
	function finishTree(b, nameRank, withCalls) {
		const n = b.cc.length, inh = b.indiv.slice(), inhBytes = b.indivBytes.slice();
		for (let k = n; k-- > 1;) {
			inh[b.parent[k]] += inh[k];
			inhBytes[b.parent[k]] += inhBytes[k];
		}
		const calls = b.entries.slice();
		for (let k = n; k-- > 1;)
			calls[b.parent[k]] += calls[k];
		const objs = [];
		for (let k = 0; k < n; k++) {
			const cc = b.cc[k], o = {id: cc === GAP ? null : cc};
			if (cc === GAP) {
				o.name = '\u2026';
				o.gap = true;
			}
			if (withCalls)
				o.calls = calls[k];
			Object.assign(o, {entries: b.entries[k], indivTicks: b.indiv[k], inhTicks: inh[k],
				indivBytes: b.indivBytes[k], inhBytes: inhBytes[k], children: []});
			objs.push(o);
			if (k > 0)
				objs[b.parent[k]].children.push(k);
		}
		/* A gap's name is "" in the C model: before every other. */
		const rank = (k) => (b.cc[k] === GAP ? -1 : nameRank[b.cc[k]]);
		for (const o of objs) {
			o.children.sort((x, y) => inh[y] - inh[x] || b.entries[y] - b.entries[x] ||
				rank(x) - rank(y) || x - y);
			o.children = o.children.map((k) => objs[k]);
		}
		return objs[0];
	}

	/* The nodes of the stack tree, numbered as the C model numbers them
	 * (tree.c: in the order of the contexts, parent first), and b.nodeOf[i]
	 * the node of context i: its compressed stack (its marked entries). */
	function stackNodes(ctx, nfns) {
		const b = newNodes(nfns);
		b.nodeOf = new Int32Array(ctx.length);
		ctx.forEach((c, i) => {
			let node = 0;
			for (const e of c.hist)
				if (entryMarked(e))
					node = nodeChild(b, node, entryCc(e));
			b.nodeOf[i] = node;
		});
		return b;
	}

	/* The stack tree: each context's compressed stack as a path from the
	 * root. */
	function stackTree(ctx, nameRank) {
		const b = stackNodes(ctx, nameRank.length);
		ctx.forEach((c, i) => {
			const node = b.nodeOf[i];
			b.entries[node] += c.entries + c.recursive;
			b.indiv[node] += c.time;
			b.indivBytes[node] += c.bytes;
		});
		return finishTree(b, nameRank, false);
	}

	/* ---- callers (callers.c) -------------------------------------------------- */

	/* One context's walk leftwards from pos (the entry that gets the time)
	 * to start over real arcs, stepping over deselected entries as a
	 * rerun without them would; the same function twice in a row is one
	 * step (A1). */
	function callersWalk(b, rv, c, start, pos, calls) {
		const h = c.hist;
		let node = 0, last = entryCc(h[pos]), gap = false;
		for (let j = pos; j-- > start;) {
			const cc = entryCc(h[j]);
			gap = gap || (!entryMarked(h[j]) && !entryMarked(h[j + 1]));
			if (!isSelected(rv, cc))
				continue;
			if (gap)
				node = nodeChild(b, node, GAP);
			if (gap || cc !== last)
				node = nodeChild(b, node, cc);
			last = cc;
			gap = false;
		}
		if (gap) /* an elided path below the focus cut */
			node = nodeChild(b, node, GAP);
		b.indiv[node] += c.time;
		b.indivBytes[node] += c.bytes;
		b.entries[node] += calls ? c.entries + c.recursive : 0;
	}

	/* The base contexts the view keeps, by the function that gets their
	 * time, each with where the view places it: [context, start, pos], in
	 * context order (so the nodes are numbered as in the C pass). */
	function placedByFunction(p, rv) {
		const by = new Map();
		for (const c of p.contexts) {
			const place = viewPlace(rv, c.hist);
			if (place === null)
				continue;
			const cc = entryCc(c.hist[place[1]]);
			if (!by.has(cc))
				by.set(cc, []);
			by.get(cc).push([c, place[0], place[1]]);
		}
		return by;
	}

	function callersTree(p, rv, placed, id) {
		const b = newNodes(p.fns.length);
		b.cc[0] = id;
		for (const [c, start, pos] of placed.get(id) || []) {
			const calls = isSelected(rv, entryCc(c.hist[c.hist.length - 1]));
			callersWalk(b, rv, c, start, pos, calls);
		}
		return finishTree(b, p.nameRank, true);
	}

	/* ---- cycles (cycles.c) ---------------------------------------------------- */

	/* The items of the cycle h closes (from the nearest earlier copy of its
	 * running CC, deselected entries left out, GAP where two neighbours
	 * are unmarked) and that copy's position, or null. */
	function cycleItems(rv, h) {
		const n = h.length, run = entryCc(h[n - 1]);
		if (!isSelected(rv, run))
			return null;
		let j = n - 1;
		while (j-- > 0 && entryCc(h[j]) !== run)
			;
		if (j < 0)
			return null;
		const out = [];
		let gap = false;
		for (let i = j; i < n - 1; i++) {
			const cc = entryCc(h[i]);
			gap = gap || (i > j && !entryMarked(h[i - 1]) && !entryMarked(h[i]));
			if (!isSelected(rv, cc))
				continue;
			if (gap)
				out.push(GAP);
			if (gap || out.length === 0 || out[out.length - 1] !== cc)
				out.push(cc);
			gap = false;
		}
		while (out.length > 1 && out[out.length - 1] === out[0]) /* a d a, d deselected */
			out.pop();
		const members = out.filter((x) => x !== GAP && x !== out[0]).length;
		return members ? {items: out, j} : null;
	}

	function leastRotation(a) {
		const n = a.length;
		let best = 0;
		for (let r = 1; r < n; r++) {
			for (let i = 0; i < n; i++) {
				const x = a[(r + i) % n], y = a[(best + i) % n];
				if (x !== y) {
					if (x < y)
						best = r;
					break;
				}
			}
		}
		return a.slice(best).concat(a.slice(0, best));
	}

	/* Cycles, keyed by the least rotation of their names (gaps left out),
	 * shown in the rotation of the closing context whose copy comes first,
	 * with its gaps; entries from the closing contexts. */
	function findCycles(p, rv) {
		const byKey = new Map(), list = [];
		for (const c of p.contexts) {
			if (viewPlace(rv, c.hist) === null)
				continue;
			const found = cycleItems(rv, c.hist);
			if (!found)
				continue;
			const key = leastRotation(found.items.filter((x) => x !== GAP));
			const k = key.join(',');
			let cy = byKey.get(k);
			if (!cy) {
				cy = {key, items: null, repJ: Infinity, first: list.length, entries: 0,
					ticks: 0, bytes: 0, blocks: 0};
				byKey.set(k, cy);
				list.push(cy);
			}
			cy.entries += c.entries;
			if (found.j < cy.repJ) {
				cy.repJ = found.j;
				cy.items = found.items;
			}
		}
		return list;
	}

	/* A cycle's time: contexts (the view keeps) where every member is
	 * active and one also appears unmarked (the recursion is in progress).
	 *
	 * Every member must be marked, so each cycle is tried only in the
	 * contexts where its rarest member (the one marked in fewest
	 * contexts) is marked: filed under that member, a cycle is tried once
	 * per context without a stamp, and a large profile's thousands of
	 * cycles are not each tried in most contexts.  (cycles.c files them
	 * under every member and tries those of the unmarked CCs; the sums
	 * are the same.) */
	function cycleTimes(p, rv, list) {
		const nfns = p.fns.length, kept = [];
		const markedIn = new Float64Array(nfns); /* contexts where cc is marked */
		for (const c of p.contexts) {
			if (c.hist.every(entryMarked) || viewPlace(rv, c.hist) === null)
				continue;
			kept.push(c);
			for (const e of c.hist)
				if (entryMarked(e))
					markedIn[entryCc(e)]++;
		}
		const filed = new Array(nfns); /* cc -> the cycles filed under it */
		for (const cy of list) {
			let rarest = -1;
			for (const cc of cy.key)
				if (cc !== GAP && (rarest < 0 || markedIn[cc] < markedIn[rarest]))
					rarest = cc;
			(filed[rarest] || (filed[rarest] = [])).push(cy);
		}
		const mark = new Uint8Array(nfns); /* 1 marked, 2 unmarked, 3 both */
		for (const c of kept) {
			for (const e of c.hist)
				mark[entryCc(e)] |= entryMarked(e) ? 1 : 2;
			for (const e of c.hist) {
				const cc = entryCc(e);
				if (!entryMarked(e) || !filed[cc] || (mark[cc] & 4))
					continue;
				mark[cc] |= 4; /* its cycles tried (a damaged history marks it twice) */
				for (const cy of filed[cc]) {
					if (inProgress(cy.key, mark)) {
						cy.ticks += c.time;
						cy.bytes += c.bytes;
						cy.blocks += c.blocks;
					}
				}
			}
			for (const e of c.hist)
				mark[entryCc(e)] = 0;
		}
	}

	function inProgress(key, mark) {
		let unmarked = false;
		for (const cc of key) {
			if (cc === GAP)
				continue;
			if (!(mark[cc] & 1))
				return false;
			unmarked = unmarked || (mark[cc] & 2) !== 0;
		}
		return unmarked;
	}

	function cycles(p, rv) {
		const list = findCycles(p, rv);
		cycleTimes(p, rv, list);
		list.sort((a, b) => b.ticks - a.ticks || b.entries - a.entries || a.first - b.first);
		return list.map((cy) => ({
			ids: cy.items.map((cc) => (cc === GAP ? null : cc)),
			functions: cy.items.map((cc) => (cc === GAP ? '\u2026' : p.fns[cc].name)),
			entries: cy.entries, ticks: cy.ticks, bytes: cy.bytes, blocks: cy.blocks,
		}));
	}

	/* ---- the live heap (heap.c, heap_text.c) ---------------------------------- */

	/* Note [The live heap as a cost] (heap.h): the view's contexts ctx
	 * with the bytes and blocks of byK ({base context k: [bytes, blocks]})
	 * in place of their allocations: the same histories, so the same
	 * view, each base context's costs where ctx.index puts it. */
	function withCosts(ctx, byK) {
		const out = ctx.map((c) => ({hist: c.hist, entries: c.entries, recursive: c.recursive,
			time: c.time, bytes: 0, blocks: 0}));
		for (const [k, x] of byK) {
			const i = ctx.index ? ctx.index[k] : k;
			if (i >= 0) {
				out[i].bytes += x[0];
				out[i].blocks += x[1];
			}
		}
		return out;
	}

	/* The stacks holding any bytes or blocks, most bytes first (ties:
	 * blocks, node number: heap_text.c stack_table): {ids (bottom first),
	 * bytes, blocks}; the root's ids are []. */
	function heapStacks(ctx, nfns) {
		const b = stackNodes(ctx, nfns), blocks = new Float64Array(b.cc.length);
		ctx.forEach((c, i) => {
			b.indivBytes[b.nodeOf[i]] += c.bytes;
			blocks[b.nodeOf[i]] += c.blocks;
		});
		const out = [];
		for (let k = 0; k < b.cc.length; k++) {
			if (!b.indivBytes[k] && !blocks[k])
				continue;
			const ids = [];
			for (let n = k; n > 0; n = b.parent[n])
				ids.unshift(b.cc[n]);
			out.push({ids, bytes: b.indivBytes[k], blocks: blocks[k], node: k});
		}
		return out.sort((x, y) => y.bytes - x.bytes || y.blocks - x.blocks || x.node - y.node);
	}

	/* The functions holding any live heap (inherited), most self bytes
	 * first (ties: inherited bytes, self blocks, name, id: fn_order). */
	function heapFunctions(ctx, nameRank) {
		return flatProfile(ctx, nameRank, () => 0).filter((f) => f.inhBytes || f.inhBlocks)
			.sort((a, b) => b.selfBytes - a.selfBytes || b.inhBytes - a.inhBytes ||
			      b.selfBlocks - a.selfBlocks || nameRank[a.id] - nameRank[b.id] || a.id - b.id);
	}

	const sumBytes = (ctx) => ctx.reduce((n, c) => n + c.bytes, 0);

	/* heap_largest_sample: the index of the sample with the most bytes
	 * in the view, the first of equals; null without samples. */
	function largestSample(samples) {
		let largest = null;
		samples.forEach((s, i) => {
			if (largest === null || s.bytes > samples[largest].bytes)
				largest = i;
		});
		return largest;
	}

	/* report --heap --threads of the view (threadCtx: the view's
	 * contexts of each thread): null without heap data. */
	function heapView(p, rv, vctx, threadCtx) {
		const h = p.data.heap;
		if (!h)
			return null;
		const focused = !!rv.focus;
		const live = new Map(h.live.map((x) => [x[0], [x[1], x[2]]]));
		const ctx = withCosts(vctx, live);
		const inCtx = {bytes: sumBytes(ctx), blocks: ctx.reduce((n, c) => n + c.blocks, 0)};
		const all = Array.from(live.values()).reduce((n, x) => n + x[0], 0);
		/* heap_sample_in_view: a focus keeps the records of the contexts it keeps */
		const keeps = (k) => !focused || viewPlace(rv, p.contexts[k].hist) !== null;
		const samples = h.samples.map((s) => ({
			timeNs: s.time_ns, outsideBytes: focused ? 0 : s.outside_bytes,
			bytes: (focused ? 0 : s.outside_bytes) +
				s.records.reduce((n, r) => n + (keeps(r[0]) ? r[1] : 0), 0),
		}));
		const largest = largestSample(samples);
		const out = {
			peakBytes: h.peak_bytes, intervalNs: h.interval_ns, samples, largest,
			untrackedAllocs: h.untracked_allocs || 0,
			liveBytes: inCtx.bytes, liveBlocks: inCtx.blocks,
			outsideBytes: focused ? 0 : h.outside_live_bytes,
			outsideBlocks: focused ? 0 : h.outside_live_blocks,
			profileLiveBytes: all, /* in contexts, as the view's liveBytes */
			functions: heapFunctions(ctx, p.nameRank),
			stacks: heapStacks(ctx, p.fns.length),
		};
		/* Each thread's: the live heap of its own contexts (thread_live),
		 * or the view's for a lone thread whose contexts are the merged. */
		out.threads = threadCtx().map((tc, i) => {
			const tctx = h.thread_live ? withCosts(tc, h.thread_live[i].map((x) => [x[0], [x[1], x[2]]]))
				: ctx;
			const t = p.threadContexts()[i];
			return {tid: t.tid, name: t.name, liveBytes: sumBytes(tctx),
				liveBlocks: tctx.reduce((n, c) => n + c.blocks, 0),
				functions: heapFunctions(tctx, p.nameRank)};
		});
		if (largest !== null) {
			const s = h.samples[largest];
			const byK = new Map();
			for (const r of s.records)
				byK.set(r[0], [(byK.has(r[0]) ? byK.get(r[0])[0] : 0) + r[1], 0]);
			const sctx = withCosts(vctx, byK);
			out.sample = {timeNs: s.time_ns, bytes: sumBytes(sctx),
				outsideBytes: focused ? 0 : s.outside_bytes,
				stacks: heapStacks(sctx, p.fns.length)};
		}
		return out;
	}

	/* ---- the live heap over time (heap_bands.c, export_heap_svg.c) ------------ */

	const HEAP_TOP = 20; /* HEAP_SVG_TOP: the stacks with a band of their own */

	/*
	 * The heap over time of convert --to hp and heap-svg under the view: a
	 * band is a node of the view's stack tree (threads merged), each
	 * sample's records added up by band, in band order, and the bytes live
	 * in no context, which a focus drops (heap_bands_outside).  The chart's
	 * rows are heap-svg's: the HEAP_TOP bands with the largest area (bytes
	 * x time, each point weighing half the time to each neighbour, in
	 * doubles summed sample by sample as the C code sums them; ties by band
	 * number), largest first, then "other" for the rest and "(outside)",
	 * each only when it holds bytes.  Points are the samples, after an
	 * empty one at 0 when the first is later (or there is none), as the
	 * .hp file starts.
	 */
	function heapChart(p, rv, vctx) {
		const h = p.data.heap;
		if (!h)
			return null;
		const b = stackNodes(vctx, p.fns.length);
		/* each profile context's band, or -1 where the view drops it */
		const bandOf = vctx.index ? vctx.index.map((i) => (i >= 0 ? b.nodeOf[i] : -1)) : b.nodeOf;
		/* Typed arrays, not an array a record: a long run has millions. */
		const nnodes = b.cc.length, sum = new Float64Array(nnodes), touched = new Int32Array(nnodes);
		const samples = h.samples.map((s) => {
			let nt = 0;
			for (let r = 0; r < s.records.length; r++) {
				const rec = s.records[r], band = rec[0] < bandOf.length ? bandOf[rec[0]] : -1;
				if (band < 0)
					continue;
				if (!sum[band])
					touched[nt++] = band;
				sum[band] += rec[1];
			}
			const bands = touched.slice(0, nt).sort(), sums = new Float64Array(nt);
			for (let j = 0; j < nt; j++) {
				sums[j] = sum[bands[j]];
				sum[bands[j]] = 0;
			}
			return {timeNs: s.time_ns, bands, bytes: sums, outsideBytes: rv.focus ? 0 : s.outside_bytes};
		});
		const lead = h.samples.length === 0 || h.samples[0].time_ns > 0 ? 1 : 0;
		const times = (lead ? [0] : []).concat(h.samples.map((s) => s.time_ns));
		const npts = times.length;
		const area = new Float64Array(nnodes), seen = new Uint8Array(nnodes);
		samples.forEach((s, k) => {
			const i = k + lead;
			const w = (times[Math.min(i + 1, npts - 1)] - times[Math.max(i - 1, 0)]) / 2;
			for (let j = 0; j < s.bands.length; j++) {
				area[s.bands[j]] += s.bytes[j] * w;
				seen[s.bands[j]] = 1;
			}
		});
		const order = [];
		seen.forEach((x, band) => x && order.push(band));
		order.sort((x, y) => (area[x] !== area[y] ? (area[x] > area[y] ? -1 : 1) : x - y));
		const ids = (band) => {
			const out = [];
			for (let n = band; n > 0; n = b.parent[n])
				out.unshift(b.cc[n]);
			return out;
		};
		/* heap_bands_name: "(k)" and the stack innermost first */
		const bandName = (band) => '(' + band + ')' + (band === 0 ? '<root>'
			: ids(band).reverse().map((cc) => p.fns[cc].name).join('/'));
		const row = (kind, band, name) => ({kind, band, name, ids: band === null ? null : ids(band),
			values: new Array(npts).fill(0)});
		const rows = order.slice(0, HEAP_TOP).map((band) => row('stack', band, bandName(band)));
		const other = row('other', null, 'other'), outside = row('outside', null, '(outside)');
		const rowOf = new Array(nnodes).fill(other);
		rows.forEach((r) => { rowOf[r.band] = r; });
		samples.forEach((s, k) => {
			for (let j = 0; j < s.bands.length; j++)
				rowOf[s.bands[j]].values[k + lead] += s.bytes[j];
			outside.values[k + lead] = s.outsideBytes;
		});
		for (const r of [other, outside])
			if (r.values.some((x) => x))
				rows.push(r);
		const largest = largestSample(samples.map((s) =>
			({bytes: s.bytes.reduce((n, x) => n + x, s.outsideBytes)})));
		return {peakBytes: h.peak_bytes, intervalNs: h.interval_ns, times, lead,
			largest: largest === null ? null : largest + lead, samples, rows, bandName};
	}

	/* ---- the hot path (hot.c) ------------------------------------------------- */

	/* The expensive arm of the stack tree: from the root, the child with
	 * the most inherited time (children come most inherited first) while
	 * it holds at least half of its parent's; tree nodes from the root's
	 * child. */
	function expensiveArm(root) {
		const arm = [];
		for (let k = root; k.children.length;) {
			const c = k.children[0];
			if (c.inhTicks === 0 || c.inhTicks < k.inhTicks - c.inhTicks)
				break;
			arm.push(c);
			k = c;
		}
		return arm;
	}

	/* ---- hook cost (hookcost.c) ---------------------------------------------- */

	/* Note [Hooks that outweigh] and Note [Bounded suggestions] in
	 * hookcost.c: the same doubles in the same order. */
	const HOOK_COST_MIN = 0.001, WORK_PER_HOOK = 2.0, HOOK_ROWS_MAX = 1000, HOOK_WORK_MAX = 20000;
	const ESTIMATE_HIGH = 0.05; /* Note [A debt that ate work] in src/model/hookcost.c */

	/* The name gcc would match for a C function: the symbol up to a
	 * clone's suffix, or null (not a C identifier, or mangled C++). */
	function cName(s) {
		if (s === null || /^[0-9]/.test(s) || s.startsWith('_Z'))
			return null;
		const n = /^[A-Za-z0-9_]*/.exec(s)[0].length;
		return n === 0 || (n < s.length && s[n] !== '.') ? null : s.slice(0, n);
	}

	/* report --hook-cost of the view v: {perCall (ticks; 0: unknown),
	 * calls, run (ticks), rows [{id, calls, selfTicks, selfBoundTicks (what
	 * the marks compare), candidate}] most calls first, sampled (whether
	 * the bound is above the time), files, names (to exclude), clashing
	 * (ids)}. */
	function hookCost(p, v) {
		const d = p.data, hc = d.hook_cost || {overhead_milliticks: 0, subtracted: 0, symbols: []};
		const symbol = new Map(hc.symbols.map((x) => [x[0], x[1]]));
		const raw = (id) => (symbol.has(id) ? symbol.get(id) : p.fns[id].name);
		const perCall = hc.overhead_milliticks / 1000.0;
		const rows = v.functions().filter((f) => p.fns[f.id].offset !== null && f.calls > 0)
			.sort((a, b) => b.calls - a.calls || a.id - b.id);
		let run = v.totalTicks, sampleTicks = 0, debtBound = 0;
		if (d.clock === 'cycles') { /* their cost is off the total already */
			run += hc.subtracted;
			/* Note [A debt that ate work] in src/model/hookcost.c */
			debtBound = ESTIMATE_HIGH * (hc.subtracted ||
				perCall * rows.reduce((n, f) => n + f.calls, 0));
		} else {
			sampleTicks = d.interval_ns * d.ticks_per_sec / 1e9;
		}
		const selfBound = (f) => {
			if (sampleTicks <= 0)
				return f.selfTicks + debtBound;
			const k = f.selfTicks / sampleTicks;
			return (k + 2 * Math.sqrt(k) + 3) * sampleTicks;
		};
		const nrows = Math.min(rows.length, HOOK_ROWS_MAX);
		const candidate = new Set();
		rows.slice(0, nrows).forEach((f) => {
			if (perCall > 0 && selfBound(f) / f.calls < WORK_PER_HOOK * perCall &&
			    perCall * f.calls >= HOOK_COST_MIN * run)
				candidate.add(f.id);
		});
		const work = rows.filter((f) => selfBound(f) / f.calls >= WORK_PER_HOOK * perCall &&
			selfBound(f) >= HOOK_COST_MIN * run).map((f) => f.id);
		const hides = (key, files) => work.length > HOOK_WORK_MAX ||
			work.some((id) => (files ? p.fns[id].file : raw(id) || '').includes(key));
		/* Note [Files by base name] in hookcost.c: the base name, else the
		 * parent directory and the base name, unless either hides work */
		const fileKey = (path) => {
			const slash = path.lastIndexOf('/');
			if (slash < 0)
				return hides(path, true) ? null : path;
			const base = path.slice(slash + 1);
			if (base && !hides(base, true))
				return base;
			let from = slash;
			while (from > 0 && path[from - 1] !== '/')
				from--;
			const parent = path.slice(from);
			return from > 0 && !parent.startsWith('../') && !parent.startsWith('./') &&
				!hides(parent, true) ? parent : null;
		};
		const files = [], names = [], clashing = [], covered = new Uint8Array(nrows);
		for (let i = 0; i < nrows; i++) {
			const file = p.fns[rows[i].id].file;
			const key = candidate.has(rows[i].id) && !covered[i] && file && !file.includes(',') ?
				fileKey(file) : null;
			if (key === null)
				continue;
			for (let k = i; k < nrows; k++)
				if (candidate.has(rows[k].id) && (p.fns[rows[k].id].file || '').includes(key))
					covered[k] = 1;
			files.push(key);
		}
		for (let i = 0; i < nrows; i++) {
			const id = rows[i].id;
			if (!candidate.has(id) || covered[i])
				continue;
			const name = cName(raw(id));
			if (name !== null && names.includes(name)) /* a clone of one named */
				continue;
			if (name !== null && !hides(name, false))
				names.push(name);
			else
				clashing.push(id);
		}
		return {perCall, run, calls: rows.reduce((n, f) => n + f.calls, 0),
			rows: rows.map((f) => ({id: f.id, calls: f.calls, selfTicks: f.selfTicks,
				selfBoundTicks: selfBound(f), candidate: candidate.has(f.id)})),
			sampled: sampleTicks > 0 || debtBound > 0, files, names, clashing};
	}

	/* ---- the view ------------------------------------------------------------ */

	function normalizeOptions(opts) {
		const o = opts || {};
		return {
			select: optionValues(o.select, 'select'),
			deselect: optionValues(o.deselect, 'deselect'),
			module: optionValues(o.module, 'module'), focus: optionValues(o.focus, 'focus'),
			onlyExported: !!o.onlyExported,
		};
	}

	/* model_view_resolve: the sets the options name.  A focus pattern
	 * that matches nothing is the CLI's error. */
	function resolve(p, o) {
		const n = p.fns.length, unmatched = {};
		let focus = null, selected = null;
		if (o.focus.length) {
			focus = new Uint8Array(n);
			const miss = applyPatterns(p, o.focus,
				(pat, cc) => ccMatches(p, pat, cc), focus, 1);
			if (miss !== null)
				throw new Error("--focus '" + miss + "' matches no function");
		}
		const deselected = [];
		if (o.select.length || o.deselect.length || o.module.length || o.onlyExported) {
			selected = resolveSelection(p, o, focus, unmatched);
			for (let cc = 0; cc < n; cc++)
				if (p.seen[cc] && !selected[cc])
					deselected.push(cc);
			if (!deselected.length) /* everything selected after all: the exact arcs */
				selected = null;
		}
		const focused = [];
		for (let cc = 0; focus && cc < n; cc++)
			if (focus[cc])
				focused.push(cc);
		return {focus, selected, deselected, focused, warnings: warnings(unmatched)};
	}

	/* A function that computes each result on first use and keeps it. */
	function memo() {
		const kept = new Map();
		return (key, compute) => {
			if (!kept.has(key))
				kept.set(key, compute());
			return kept.get(key);
		};
	}

	/* Each function's calls from no caller (root_calls): the calls of its
	 * arc from no caller, which only a context whose history is that one
	 * marked entry adds to (arcsOfContext), without making every arc. */
	function rootCallsOf(ctx) {
		const m = new Map();
		for (const c of ctx)
			if (c.hist.length === 1 && entryMarked(c.hist[0]))
				m.set(entryCc(c.hist[0]), (m.get(entryCc(c.hist[0])) || 0) + c.entries);
		return m;
	}

	/* Each function's arcs in and out, in order of first appearance. */
	function arcsByFunction(all) {
		const into = new Map(), out = new Map();
		const add = (m, id, a) => (m.get(id) || m.set(id, []).get(id)).push(a);
		for (const a of all) {
			add(into, a.callee, a);
			if (a.caller !== null)
				add(out, a.caller, a);
		}
		return {into, out};
	}

	/*
	 * The view of p (load's result) under opts ({select, deselect,
	 * module, focus: arrays of pattern lists as the options take them;
	 * onlyExported}), exactly as `ccprof report` computes it.  Throws the
	 * CLI's error (a --focus that matches nothing) as an Error.  Gives:
	 *
	 *   focus, deselected    ids; warnings: the CLI's, one per option (its
	 *                        first pattern that matched nothing)
	 *   totalTicks, rootTicks, rootBytes, totalCalls, totalBytes,
	 *   totalBlocks          of the view's contexts (totalBytes, totalBlocks:
	 *                        allocated in them, what %alloc is of)
	 *   outsideBytes, outsideBlocks
	 *                        allocated before a thread's first call, in no
	 *                        context; 0 under a focus (model_alloc_outside)
	 *   allocBytes, allocBlocks
	 *                        report's total alloc: the two added
	 *   ncontexts; contexts  [{hist: [{id, marked}], entries, recursive,
	 *                        ticks, bytes, blocks}], most ticks first
	 *                        (built on first read)
	 *   functions()          [{id, calls, rootCalls, selfTicks, inhTicks,
	 *                        selfBytes, selfBlocks, inhBytes, inhBlocks}]
	 *                        in report's order
	 *   arcs()               [{caller, callee, calls, selfIn, childIn,
	 *                        selfOut, childOut, and their bytes}]
	 *   arcsInto(id), arcsOutOf(id)
	 *                        most time first; arcsInto also holds the arc
	 *                        from no caller (caller null: entries as a
	 *                        thread's first function, or as the focused
	 *                        one) and the function's own recursive arc,
	 *                        as --around's lists do before they leave
	 *                        that one out
	 *   tree(), callers(id)  {id, entries, indivTicks, inhTicks,
	 *                        indivBytes, inhBytes, children} (callers
	 *                        also calls; a "…" node has id null, name "…"
	 *                        and gap true)
	 *   cycles()             [{ids (null for "…"), functions (names),
	 *                        entries, ticks, bytes, blocks}]
	 *   heap()               report --heap (null without heap data):
	 *                        {peakBytes, untrackedAllocs (allocations
	 *                        not followed), intervalNs, liveBytes, liveBlocks
	 *                        (in the view's contexts), outsideBytes,
	 *                        outsideBlocks, profileLiveBytes (in all
	 *                        contexts), functions [{id, selfBytes, ...}],
	 *                        stacks [{ids, bytes, blocks}], samples
	 *                        [{timeNs, outsideBytes, bytes in the view}],
	 *                        largest (index or null), sample {timeNs,
	 *                        bytes, outsideBytes, stacks} of the largest,
	 *                        threads [{tid, name, liveBytes, liveBlocks,
	 *                        functions}] each thread's live heap}
	 *   heapChart()          the live heap over time, as convert --to hp
	 *                        and heap-svg give it (null without heap
	 *                        data): {peakBytes, intervalNs, times (ns of
	 *                        each point: the samples, after 0 when lead
	 *                        is 1), lead, largest (point of the largest
	 *                        sample, or null), samples [{timeNs, bands
	 *                        (Int32Array, in band order: hp's), bytes
	 *                        (Float64Array, each band's), outsideBytes}],
	 *                        rows [{kind ('stack', 'other', 'outside'),
	 *                        band, name, ids (bottom first), values (bytes
	 *                        per point)}] heap-svg's bands bottom first,
	 *                        bandName(band) (hp's names, not escaped)}
	 *   hot()                report --hot: {context (the most expensive, as
	 *                        in contexts; null without any), arm (the
	 *                        expensive arm, tree() nodes below the root)}
	 *   hookCost()           report --hook-cost: {perCall, run (ticks),
	 *                        calls, rows [{id, calls, selfTicks,
	 *                        candidate}], files, names, clashing (ids)}
	 *   threads()            the per-thread breakdown (threads.c): for each
	 *                        thread {tid, name, the totals above,
	 *                        functions()}, the same view over that
	 *                        thread's contexts alone
	 *
	 * Ticks and bytes are integers; each result is computed once.
	 */
	function view(p, opts) {
		const r = resolve(p, normalizeOptions(opts));
		const rv = {focus: r.focus, selected: r.selected};
		const ctx = buildContexts(p, rv);
		const once = memo();
		const allArcs = () => once('arcs', () => buildArcs(ctx, p.fns.length));
		const byFunction = () => once('byFunction', () => arcsByFunction(allArcs()));
		const rootCalls = () => once('rootCalls', () => rootCallsOf(ctx));
		const v = Object.assign({focus: r.focused, deselected: r.deselected, warnings: r.warnings},
			totals(ctx));
		v.ncontexts = ctx.length;
		v.outsideBytes = r.focus ? 0 : p.outsideAllocBytes;
		v.outsideBlocks = r.focus ? 0 : p.outsideAllocBlocks;
		v.allocBytes = v.totalBytes + v.outsideBytes;
		v.allocBlocks = v.totalBlocks + v.outsideBlocks;
		/* Built when read: a million contexts as objects take seconds,
		 * and the page shows only their number. */
		Object.defineProperty(v, 'contexts',
			{get: () => once('contexts', () => sortedContexts(ctx)), enumerable: true});
		v.functions = () => once('functions',
			() => flatProfile(ctx, p.nameRank, (cc) => rootCalls().get(cc) || 0));
		v.arcs = () => once('realArcs', () => allArcs().filter((a) => a.caller !== null));
		v.arcsInto = (id) => once('in ' + id,
			() => heaviestFirst(byFunction().into.get(id) || [], true));
		v.arcsOutOf = (id) => once('out ' + id,
			() => heaviestFirst(byFunction().out.get(id) || [], false));
		v.tree = () => once('tree', () => stackTree(ctx, p.nameRank));
		v.callers = (id) => once('callers ' + id,
			() => callersTree(p, rv, once('placed', () => placedByFunction(p, rv)), id));
		v.cycles = () => once('cycles', () => cycles(p, rv));
		v.heap = () => once('heap', () => heapView(p, rv, ctx, threadCtx));
		v.heapChart = () => once('heapChart', () => heapChart(p, rv, ctx));
		v.hookCost = () => once('hookCost', () => hookCost(p, v));
		v.hot = () => once('hot', () => ({context: costliestContext(ctx),
			arm: expensiveArm(v.tree())}));
		/* The view's sets, one thread's contexts (model_view.thread);
		 * the only thread's contexts are the profile's, its view this one. */
		const threadCtx = () => once('threadCtx', () => p.threadContexts().map((t) =>
			(t.contexts === p.contexts ? ctx : buildContexts(p, rv, t.contexts))));
		v.threads = () => once('threads', () => p.threadContexts().map((t, i) => {
			if (t.contexts === p.contexts)
				return Object.assign({tid: t.tid, name: t.name, functions: v.functions}, totals(ctx));
			const tc = threadCtx()[i];
			const tv = Object.assign({tid: t.tid, name: t.name}, totals(tc));
			const tOnce = memo();
			tv.functions = () => tOnce('functions', () => {
				const roots = rootCallsOf(tc);
				return flatProfile(tc, p.nameRank, (cc) => roots.get(cc) || 0);
			});
			return tv;
		}));
		return v;
	}

	/* The functions that ran whose names a pattern list matches, as
	 * --select, --deselect and --focus would take them: the page asks
	 * before it uses a function's name as a pattern, since a name with
	 * `*` or a comma of its own can match others or be split. */
	function matching(p, list) {
		const ids = [];
		const pats = splitPatterns(String(list));
		for (let cc = 0; cc < p.fns.length; cc++)
			if (p.seen[cc] && pats.some((pat) => ccMatches(p, pat, cc)))
				ids.push(cc);
		return ids;
	}

	return {load, view, matching};
})();

if (typeof module === 'object' && module.exports) module.exports = ccprofModel;
