/*
 * ui.js - the page of `ccprof convert --to html` (docs: the HTML report).
 * It reads the profile's DATA, asks model.js (ccprofModel) for the view
 * the view bar describes, and draws the tabs with the DOM only.  Security:
 * no HTML parsing anywhere; every profile string reaches the page through
 * textContent or a title, every attribute set here is a constant or a
 * number.  State (view options, tab, current function, weight, sort,
 * filter, tree depth, flame zoom and orientation) lives in location.hash.
 */
(function () {
	'use strict';

	const M = ccprofModel; // eslint-disable-line no-undef
	const SVGNS = 'http://www.w3.org/2000/svg';
	const GAP = '\u2026';
	const ROOT = '<root>';
	const MAX_ROWS = 1000; // rows of a flat table drawn
	const THREAD_ROWS = 200; // rows of each thread's table
	const OPEN_ROWS = 5000; // rows of a tree opened by the depth asked

	const data = JSON.parse(document.getElementById('ccprof-data').textContent);
	const app = document.getElementById('app');
	if (data.format !== 'ccprof-html' || data.version !== 1) {
		app.textContent = 'This page\u2019s data is not version 1 of ccprof\u2019s HTML report: ' +
			'write the page again with this version of ccprof.';
		return;
	}
	const P = M.load(data);
	const fns = P.fns;
	const hasAlloc = !!P.hasAlloc;
	const prec = data.clock === 'cycles' ? 6 : 3;

	/* ---- numbers, as `ccprof report` prints them (ob_ratio) ---- */

	/* num / den × 10^shift with prec decimals, rounded half up, exactly. */
	function ratio(num, den, shift, decimals) {
		let q = 0n;
		if (den > 0 && num > 0) {
			const d = BigInt(Math.round(den));
			q = (BigInt(Math.round(num)) * 10n ** BigInt(shift + decimals) + d / 2n) / d;
		}
		let s = q.toString();
		if (decimals === 0)
			return s;
		while (s.length <= decimals)
			s = '0' + s;
		return s.slice(0, s.length - decimals) + '.' + s.slice(s.length - decimals);
	}
	function secs(ticks) {
		return ratio(ticks, data.ticks_per_sec, 0, prec);
	}
	function pct(part, whole) {
		return ratio(part, whole, 2, 1);
	}
	/* C's %g: six significant digits, trailing zeros dropped, an exponent
	 * of two digits or more below 1e-4 and from 1e6. */
	function formatG(x) {
		if (x === 0 || !isFinite(x))
			return String(x);
		const [mant, exp] = x.toExponential(5).split('e');
		const e = Number(exp);
		const trim = (t) => (t.indexOf('.') < 0 ? t : t.replace(/\.?0+$/, ''));
		if (e < -4 || e >= 6)
			return trim(mant) + 'e' + (e < 0 ? '-' : '+') + String(Math.abs(e)).padStart(2, '0');
		return trim(x.toFixed(5 - e));
	}
	/* C's %.Nf of a double: toFixed, but an exact tie rounds to even as
	 * glibc's printf does (toFixed rounds it up).  A tie is one in the
	 * double's exact decimal value, which toFixed(100) spells out for any
	 * value a tie can have.  Looked for in x * 10 ** N, whose rounding
	 * turned 214818.85000000000582 (85,927,540 ns over 400 calls) into a
	 * tie, the page printed .8 where printf prints .9. */
	function exactTie(x, decimals) {
		const s = x.toFixed(100), rest = s.slice(s.indexOf('.') + 1 + decimals);
		return rest[0] === '5' && !/[1-9]/.test(rest.slice(1));
	}
	function fixedC(x, decimals) {
		if (!exactTie(x, decimals))
			return x.toFixed(decimals);
		const t = x * 10 ** decimals, k = Math.floor(t); /* exact for a tie */
		const s = String(k % 2 === 0 ? k : k + 1).padStart(decimals + 1, '0');
		return decimals ? s.slice(0, s.length - decimals) + '.' + s.slice(s.length - decimals) : s;
	}
	function plural(n, one, many) {
		return n + ' ' + (n === 1 ? one : many);
	}

	/* ---- DOM helpers: text only ---- */

	function el(tag, cls, text) {
		const e = document.createElement(tag);
		if (cls)
			e.className = cls;
		if (text !== undefined && text !== null)
			e.textContent = String(text);
		return e;
	}
	function add(parent, ...kids) {
		for (const k of kids)
			if (k !== null && k !== undefined)
				parent.appendChild(typeof k === 'string' ? document.createTextNode(k) : k);
		return parent;
	}
	function clear(e) {
		while (e.firstChild)
			e.removeChild(e.firstChild);
		return e;
	}
	function svg(tag) {
		return document.createElementNS(SVGNS, tag);
	}
	function button(label, cls, onclick, title) {
		const b = el('button', cls, label);
		b.type = 'button';
		if (title)
			b.title = title;
		b.addEventListener('click', onclick);
		return b;
	}

	function fnName(id) {
		if (id === null || id === undefined)
			return GAP;
		return fns[id] ? fns[id].name : '?' + id;
	}
	/*
	 * A name as the page shows it: at most max characters (NAME_MAX, or
	 * what fits a flame frame), a longer one cut in the middle with CUT,
	 * so that its end stays visible (C++ names that share a long template
	 * prefix differ at the end, ::_M_begin() from ::_M_end()).  CUT is the
	 * midline ellipsis, not GAP, which marks an elided path.  Whoever
	 * shows it puts the whole name in a title.  Counted in code points: a
	 * cut never splits one.
	 */
	const NAME_MAX = 60;
	const CUT = '\u22ef';
	function shortName(name, max = NAME_MAX) {
		const cps = Array.from(name);
		if (cps.length <= max)
			return name;
		const head = Math.ceil((max - 1) / 2), tail = max - 1 - head;
		return cps.slice(0, head).join('') + CUT + cps.slice(cps.length - tail).join('');
	}
	function basename(path) {
		const i = path.lastIndexOf('/');
		return i < 0 ? path : path.slice(i + 1);
	}
	function srcOf(id) {
		const f = fns[id];
		if (!f || !f.file)
			return '';
		return basename(f.file) + (f.line ? ':' + f.line : '');
	}

	/* ---- state in location.hash ---- */

	const TABS = [
		['functions', 'Functions'], ['graph', 'Call graph'], ['tree', 'Stack tree'], ['hot', 'Hot path'],
		['callers', 'Callers'], ['flame', 'Flame graph'], ['cycles', 'Cycles'],
		['threads', 'Threads'], ['hooks', 'Hook cost'], ['heap', 'Heap']].filter((t) => t[0] !== 'heap' || data.heap);
	const VIEW_KEYS = ['select', 'deselect', 'focus', 'module'];

	function joinList(a) {
		return (a || []).filter((s) => s !== '').join(',');
	}
	function defaults() {
		const dv = data.view || {};
		return {
			select: joinList(dv.select), deselect: joinList(dv.deselect),
			focus: joinList(dv.focus), module: joinList(dv.module),
			exported: !!dv.only_exported,
			tab: 'functions', fn: null, weight: 'time', sort: '', dir: '',
			filter: '', depth: 4, zoom: '', orient: 'icicle'};
	}
	function readHash() {
		const st = defaults();
		const h = new URLSearchParams(location.hash.replace(/^#/, ''));
		for (const k of VIEW_KEYS)
			if (h.has(k))
				st[k] = h.get(k);
		if (h.has('exported'))
			st.exported = h.get('exported') === '1';
		if (TABS.some((t) => t[0] === h.get('tab')))
			st.tab = h.get('tab');
		const fn = parseInt(h.get('fn'), 10);
		if (fn >= 0 && fn < fns.length)
			st.fn = fn;
		if (h.get('w') === 'bytes' && hasAlloc)
			st.weight = 'bytes';
		st.sort = h.get('sort') || '';
		st.dir = h.get('dir') === 'asc' ? 'asc' : h.get('dir') === 'desc' ? 'desc' : '';
		st.filter = h.get('q') || '';
		const depth = parseInt(h.get('depth'), 10);
		if (depth >= 0)
			st.depth = Math.min(depth, 1000);
		st.zoom = /^[0-9.]*$/.test(h.get('zoom') || '') ? h.get('zoom') || '' : '';
		if (h.get('orient') === 'flame')
			st.orient = 'flame';
		return st;
	}
	function hashOf(st) {
		const h = new URLSearchParams();
		for (const k of VIEW_KEYS)
			h.set(k, st[k]);
		h.set('exported', st.exported ? '1' : '0');
		h.set('tab', st.tab);
		if (st.fn !== null)
			h.set('fn', String(st.fn));
		if (st.weight !== 'time')
			h.set('w', st.weight);
		if (st.sort)
			h.set('sort', st.sort);
		if (st.dir)
			h.set('dir', st.dir);
		if (st.filter)
			h.set('q', st.filter);
		h.set('depth', String(st.depth));
		if (st.zoom)
			h.set('zoom', st.zoom);
		if (st.orient !== 'icicle')
			h.set('orient', st.orient);
		return '#' + h.toString();
	}

	let state = readHash();

	/* Change the state: a new history entry, drawn by the hashchange. */
	function go(changes) {
		const next = Object.assign({}, state, changes);
		const h = hashOf(next);
		if (h === location.hash) {
			state = next;
			render();
		} else {
			location.hash = h;
		}
	}
	window.addEventListener('hashchange', () => {
		state = readHash();
		render();
	});

	/* ---- the view, recomputed only when its options change ---- */

	function splitOpt(s) {
		return s.trim() === '' ? [] : [s.trim()];
	}
	function viewOpts(st) {
		return {select: splitOpt(st.select), deselect: splitOpt(st.deselect),
			module: splitOpt(st.module), onlyExported: st.exported,
			focus: splitOpt(st.focus)};
	}
	let cache = {key: null};
	function currentView() {
		const opts = viewOpts(state);
		const key = JSON.stringify(opts);
		if (cache.key === key)
			return cache;
		cache = {key: key, error: null, v: null};
		// What the CLI refuses is said; the page then shows the view
		// without the focus, or else the whole profile.
		const tries = [[opts, ''],
			[Object.assign({}, opts, {focus: []}), ' (shown: the view without the focus)'],
			[{}, ' (shown: the whole profile)']];
		for (const [o, shown] of tries) {
			try {
				cache.v = M.view(P, o);
				if (cache.error)
					cache.error += shown;
				break;
			} catch (e) {
				if (!cache.error)
					cache.error = e && e.message ? String(e.message) : String(e);
			}
		}
		if (cache.v)
			indexView(cache);
		return cache;
	}

	/* What the tabs share: functions by id, direct recursion by id. */
	function indexView(c) {
		const v = c.v;
		c.fnById = new Map();
		for (const f of v.functions())
			c.fnById.set(f.id, f);
		c.rec = new Map();
		for (const a of v.arcs())
			if (a.caller === a.callee && a.caller !== null)
				c.rec.set(a.caller, a.calls);
	}

	function shellQuote(s) {
		return "'" + s.replace(/'/g, "'\\''") + "'";
	}
	/* The profile's name as convert was given it, quoted only when the
	 * shell needs it. */
	function shellWord(s) {
		if (s.startsWith('-')) /* not an option */
			s = './' + s;
		return /^[A-Za-z0-9_./+,:@%=-]+$/.test(s) ? s : shellQuote(s);
	}
	function commandLine(st) {
		const parts = ['ccprof', 'report'];
		for (const k of ['select', 'deselect', 'module', 'focus'])
			if (st[k].trim() !== '')
				parts.push('--' + k, shellQuote(st[k].trim()));
		if (st.exported)
			parts.push('--only-exported');
		if (data.view && data.view.short_names) /* the names the page shows */
			parts.push('--short-names');
		parts.push(data.profile ? shellWord(data.profile) : 'FILE');
		return parts.join(' ');
	}

	/* A pattern list with one more function, named by its full name (a
	 * pattern matches its own name: `*` matches itself too). */
	function appendPattern(list, name) {
		return list.trim() === '' ? name : list.trim() + ',' + name;
	}

	/* Patterns have no escapes, as on the command line: a name with `*`
	 * (operator*) or a comma of its own (operator,) names more functions
	 * than itself, or none.  The buttons use it all the same, as a
	 * command would, and say so (shown once, by the next drawing). */
	let buttonNote = null;
	function noteIfNotExact(id) {
		const ids = M.matching(P, fns[id].name);
		const others = ids.filter((x) => x !== id).map((x) => fns[x].name);
		if (!ids.includes(id))
			buttonNote = '\u201c' + fns[id].name + '\u201d cannot be written as a pattern: ' +
				'its commas split it';
		else if (others.length)
			buttonNote = 'the pattern \u201c' + fns[id].name + '\u201d also matches ' +
				others.slice(0, 5).join(', ') + (others.length > 5 ? ', \u2026' : '') +
				' (' + plural(others.length, 'other function', 'other functions') + ')';
	}
	function byButton(id, changes) {
		noteIfNotExact(id);
		go(changes);
	}
	/* A thread root or a focused function stays selected
	 * (docs/views.md, "Selection"): its deselect button would seem to
	 * do nothing, so the bar says why. */
	let deselectAsked = null;
	function noteIfStillSelected(c) {
		const id = deselectAsked;
		deselectAsked = null;
		if (id !== null && c.v && !c.v.deselected.includes(id) && buttonNote === null)
			buttonNote = fns[id].name + ' stays selected: thread roots and focused functions ' +
				'always are';
	}

	/* ---- the page's frame ---- */

	const parts = {};

	function buildFrame() {
		clear(app);
		const header = el('header', 'head');
		parts.header = header;
		const bar = el('form', 'viewbar');
		bar.addEventListener('submit', (e) => {
			e.preventDefault();
			go({select: parts.inputs.select.value, deselect: parts.inputs.deselect.value,
			    focus: parts.inputs.focus.value, module: parts.inputs.module.value,
			    exported: parts.inputs.exported.checked, zoom: ''});
		});
		parts.inputs = {};
		const fields = el('div', 'fields');
		for (const [k, label, hint] of [
			['select', 'Select', 'show costs in terms of these functions only'],
			['deselect', 'Deselect', 'charge these functions\u2019 costs to their callers'],
			['focus', 'Focus', 'only the stacks through these functions'],
			['module', 'Module', 'select the functions of these modules']]) {
			const lab = el('label', 'field');
			const inp = el('input');
			inp.type = 'text';
			inp.name = k;
			inp.spellcheck = false;
			inp.placeholder = 'patterns, comma-separated';
			lab.title = hint;
			add(lab, el('span', 'flabel', label), inp);
			parts.inputs[k] = inp;
			fields.appendChild(lab);
		}
		const ex = el('label', 'field check');
		const cb = el('input');
		cb.type = 'checkbox';
		cb.name = 'exported';
		parts.inputs.exported = cb;
		add(ex, cb, el('span', null, 'only exported'));
		fields.appendChild(ex);
		const apply = el('button', 'primary', 'Apply');
		apply.type = 'submit';
		const reset = button('Reset', null, () => {
			const d = defaults();
			go({select: d.select, deselect: d.deselect, focus: d.focus, module: d.module,
			    exported: d.exported, zoom: ''});
		}, 'back to the view the report was written with');
		const clearAll = button('All', null, () => go({select: '', deselect: '', focus: '',
			module: '', exported: false, zoom: ''}), 'every function selected, no focus');
		add(fields, add(el('span', 'buttons'), apply, reset, clearAll));
		parts.messages = el('div', 'messages');
		parts.cmd = el('code', 'cmd');
		parts.cmd.title = 'the same view from the command line';
		const copy = button('copy', 'act', () => {
			const text = parts.cmd.textContent;
			const select = () => {
				const r = document.createRange();
				r.selectNodeContents(parts.cmd);
				const sel = window.getSelection();
				sel.removeAllRanges();
				sel.addRange(r);
			};
			if (navigator.clipboard && navigator.clipboard.writeText)
				navigator.clipboard.writeText(text).catch(select);
			else
				select();
		}, 'copy the command line');
		const cmdline = add(el('div', 'cmdline'), el('span', 'flabel', 'Command'), parts.cmd, copy);
		add(bar, fields, parts.messages, cmdline);

		/* The tabs, as WAI-ARIA's tabs pattern has them: one stop in the
		 * tab order (the selected tab), the arrow keys, Home and End move
		 * to another tab and select it; one panel, the page's main. */
		const tabs = el('div', 'tabs');
		const nav = el('nav', 'tablist');
		nav.setAttribute('role', 'tablist');
		nav.setAttribute('aria-label', 'Views');
		parts.tabs = {};
		for (const [k, label] of TABS) {
			const b = button(label, 'tab', () => go({tab: k}));
			b.id = 'tab-' + k;
			b.setAttribute('role', 'tab');
			b.setAttribute('aria-controls', 'panel');
			parts.tabs[k] = b;
			nav.appendChild(b);
		}
		nav.addEventListener('keydown', (e) => {
			const i = TABS.findIndex((t) => parts.tabs[t[0]] === e.target);
			const to = {ArrowLeft: i - 1, ArrowRight: i + 1, Home: 0, End: TABS.length - 1}[e.key];
			if (i < 0 || to === undefined || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey)
				return;
			e.preventDefault();
			const k = TABS[(to + TABS.length) % TABS.length][0];
			parts.tabs[k].focus();
			go({tab: k});
		});
		tabs.appendChild(nav);
		const weight = el('span', 'weight');
		if (hasAlloc) {
			add(weight, el('span', 'flabel', 'Weight'));
			parts.weight = {};
			for (const [k, label] of [['time', 'time'], ['bytes', 'bytes allocated']]) {
				const b = button(label, 'seg', () => go({weight: k}));
				parts.weight[k] = b;
				weight.appendChild(b);
			}
		}
		tabs.appendChild(weight);
		parts.current = el('div', 'current');
		parts.main = el('main', 'content');
		parts.main.id = 'panel';
		parts.main.setAttribute('role', 'tabpanel');
		parts.main.tabIndex = 0;
		add(app, header, bar, tabs, parts.current, parts.main);
	}

	/*
	 * The header's list of names, as report's header lists them
	 * (views_text.c): the first LIST_MAX, then "and N more"; each cut as
	 * the tables cut it, whole in its title.  Bounded so that long names
	 * never push the view bar and the tabs down the page.
	 */
	const LIST_MAX = 8;
	function nameList(ids) {
		const span = el('span', 'names');
		ids.slice(0, LIST_MAX).forEach((id, i) => {
			const name = el('span', 'lname', shortName(fnName(id)));
			name.title = fnName(id);
			add(span, i ? ', ' : null, name);
		});
		if (ids.length > LIST_MAX)
			add(span, ' and ' + (ids.length - LIST_MAX) + ' more');
		return span;
	}

	function renderHeader(c) {
		const h = clear(parts.header);
		const title = el('h1', null);
		add(title, el('span', 'brand', 'ccprof'), ' ', el('span', 'prog', data.program || '?'));
		h.appendChild(title);
		const dl = el('dl', 'facts');
		h.appendChild(dl);
		const fact = (k, ...v) => add(dl, add(el('div', 'fact'), el('dt', null, k), add(el('dd'), ...v)));
		fact('command', (data.argv || []).join(' '));
		if (data.merged_profiles) // as report's header (text_title)
			fact('merged', data.merged_profiles + ' profile' + (data.merged_profiles === 1 ? '' : 's') +
			     ' (the command of the first)');
		const clock = data.clock === 'cycles'
			? 'cycles clock @ ' + ratio(data.ticks_per_sec, 1e9, 0, 3) + ' GHz'
			: data.clock + ' clock; the sampler woke ' + data.samples +
			  (data.samples === 1 ? ' time' : ' times') + ', interval ' +
			  (data.interval_ns / 1e6) + ' ms';
		if (!c.v) {
			fact('total time', secs(P.totalTicks) + ' secs (' + clock + ')');
		} else {
			// As report's header: the view's total, then its share of the profile's.
			const v = c.v;
			fact('total time', secs(v.totalTicks) + ' secs (' + clock + ')');
			if (v.totalTicks !== P.totalTicks)
				fact('of profile', secs(v.totalTicks) + ' of ' + secs(P.totalTicks) + ' secs (' +
				     pct(v.totalTicks, P.totalTicks) + '%); percentages are of the view\u2019s total');
			// report's total alloc (text_alloc_total): with what was
			// allocated before a thread's first call, in no context
			const bb = (bytes, blocks) => plural(bytes, 'byte', 'bytes') + ' in ' +
				plural(blocks, 'block', 'blocks');
			if (hasAlloc)
				fact('total alloc', bb(v.allocBytes, v.allocBlocks) +
				     (v.outsideBytes || v.outsideBlocks
					? ' (' + bb(v.outsideBytes, v.outsideBlocks) + ' before a thread\'s ' +
					  'first call: in no context, and not in %alloc)' : ''));
			if ((v.focus || []).length)
				fact('focus', nameList(v.focus));
			if ((v.deselected || []).length)
				fact('deselected', nameList(v.deselected),
				     ' (their costs go to the nearest selected caller)');
			fact('total calls', String(v.totalCalls));
			fact('contexts', v.ncontexts + ' of ' + data.contexts.length + ' in ' +
			     plural(data.threads, 'thread', 'threads'));
			fact('outside', secs(v.rootTicks) + ' secs (' + pct(v.rootTicks, v.totalTicks) + '%)' +
			     (hasAlloc ? ' and ' + plural(v.rootBytes, 'byte', 'bytes') + ' (' +
			      pct(v.rootBytes, v.totalBytes) + '%)' : '') + ' in no cost centre');
			// report's own time line (text_own_time): the runtime's, in no total
			if (data.own_time_ticks)
				fact('own time', secs(data.own_time_ticks) + ' secs the profiler took for itself, ' +
				     'charged to no function (' +
				     (data.clock === 'cycles' ? 'measured' : 'sampled') + ')');
		}
		overflowFact(dl);
	}

	/*
	 * report's overflow line (text_overflow, Note [Saying the overflow] in
	 * src/model/overflow.c), its lines joined: the threads that reached
	 * max_contexts, the first LISTED_THREADS of them named, and what
	 * their calls past it lost; whatever the view, as the limit is the
	 * run's.  Shown as a warning, names as text.
	 */
	const LISTED_THREADS = 3;
	function overflowFact(dl) {
		const o = data.overflow;
		if (!o)
			return;
		const all = o.threads.length === data.threads;
		let who = data.threads === 1 ? 'the thread'
			: all ? 'all ' + data.threads + ' threads'
			: o.threads.length + ' of ' + data.threads + ' threads';
		who += ' reached max_contexts=' + o.max_contexts +
			(data.merged_profiles ? ' (the first run\u2019s)' : '');
		if (!all) {
			who += ': ' + o.threads.slice(0, LISTED_THREADS).map(t =>
				'thread ' + (t.index + 1) + ' ' + (t.name ? t.name + ' ' : '') +
				'(tid ' + t.tid + ')').join(', ');
			if (o.threads.length > LISTED_THREADS)
				who += ' and ' + (o.threads.length - LISTED_THREADS) + ' more';
		}
		const lost = plural(o.calls, 'call', 'calls') + ' of ' +
			plural(o.functions, 'function', 'functions') + ' (' + secs(o.ticks) + ' secs, ' +
			pct(o.ticks, P.totalTicks) + '%) lost their callers: the tree has them under ' +
			'<overflow>, and their callers\' times leave them out; record with a ' +
			'larger --max-contexts (above ' + o.max_contexts + ') keeps more of them';
		add(dl, add(el('div', 'fact overflow'), el('dt', null, 'overflow'),
			    add(el('dd'), who + ', so ' + lost)));
	}

	function renderBar(c) {
		for (const k of VIEW_KEYS)
			if (document.activeElement !== parts.inputs[k])
				parts.inputs[k].value = state[k];
		parts.inputs.exported.checked = state.exported;
		const msg = clear(parts.messages);
		if (c.error)
			add(msg, el('div', 'error', c.error));
		if (c.v)
			for (const w of c.v.warnings || [])
				add(msg, el('div', 'warning', w));
		noteIfStillSelected(c);
		if (buttonNote !== null)
			add(msg, el('div', 'warning', buttonNote));
		buttonNote = null;
		parts.cmd.textContent = commandLine(state);
	}

	/* ---- clickable names and the current function ---- */

	/* A function's name: a click makes it the current function. */
	function nameLink(id) {
		if (id === null || id === undefined || !fns[id])
			return el('span', 'fn gap', GAP);
		const b = button(shortName(fns[id].name), 'fn', () => go({fn: id}));
		b.title = fns[id].name + (srcOf(id) ? '  ' + srcOf(id) : '');
		if (id === state.fn)
			b.classList.add('cur');
		return b;
	}

	/* The current function: the one chosen, else the most self weight. */
	function currentFn(c) {
		if (state.fn !== null && c.fnById.has(state.fn))
			return state.fn;
		let best = null;
		for (const f of c.v.functions())
			if (best === null || weightOf(f, 'self') > weightOf(best, 'self'))
				best = f;
		return best ? best.id : null;
	}
	function weightOf(f, kind) {
		if (state.weight === 'bytes')
			return kind === 'self' ? f.selfBytes : f.inhBytes;
		return kind === 'self' ? f.selfTicks : f.inhTicks;
	}

	function renderCurrent(c) {
		const box = clear(parts.current);
		if (!c.v)
			return;
		const id = currentFn(c);
		if (id === null)
			return;
		const name = fns[id].name;
		const shown = el('strong', 'curname', shortName(name));
		shown.title = name;
		const f = c.fnById.get(id);
		add(box, el('span', 'flabel', 'Function'), shown);
		if (srcOf(id))
			add(box, el('span', 'src', srcOf(id)));
		if (fns[id].module)
			add(box, el('span', 'src', basename(fns[id].module)));
		if (f)
			add(box, el('span', 'num', plural(f.calls, 'call', 'calls') + ', self ' + secs(f.selfTicks) +
				     ' s, inherited ' + secs(f.inhTicks) + ' s'));
		add(box,
		    button('focus', 'act', () => byButton(id, {focus: name, fn: id, zoom: ''}),
			   'show only the stacks through this function'),
		    button('deselect', 'act',
			   () => {
				   deselectAsked = id;
				   byButton(id, {deselect: appendPattern(state.deselect, name), zoom: ''});
			   },
			   'charge this function\u2019s costs to its callers'),
		    button('select only', 'act', () => byButton(id, {select: name, deselect: '',
								      fn: id, zoom: ''}),
			   'show costs in terms of this function (and the thread roots) only'),
		    button('call graph', 'act', () => go({tab: 'graph', fn: id})),
		    button('callers', 'act', () => go({tab: 'callers', fn: id})));
	}

	/* ---- tables ---- */

	/* A table with its heading row; groups: [label, columns] spanning the
	 * headings, a row above them.  Its box (.table, what the tabs add to
	 * the page) scrolls sideways on a narrow screen, not the page. */
	function table(cls, heads, groups) {
		const t = el('table', cls);
		const thead = el('thead');
		if (groups) {
			const g = el('tr', 'groups');
			for (const [label, span] of groups) {
				const th = el('th', label ? 'group' : null, label);
				th.colSpan = span;
				g.appendChild(th);
			}
			thead.appendChild(g);
		}
		const tr = el('tr');
		for (const h of heads)
			tr.appendChild(typeof h === 'string' ? el('th', null, h) : h);
		thead.appendChild(tr);
		t.appendChild(thead);
		const body = el('tbody');
		t.appendChild(body);
		return {table: add(el('div', 'tablebox'), t), body: body};
	}
	function td(text, cls) {
		return el('td', cls === undefined ? 'num' : cls, text);
	}
	function note(text) {
		return el('p', 'note', text);
	}

	/* -- Functions -- */

	/* The columns: key, heading, value to sort by, cell, only with allocations. */
	const FN_COLS = [
		['name', 'function', (f) => fns[f.id].name, (f) => add(el('td', 'name'), nameLink(f.id)), false],
		['calls', 'calls', (f) => f.calls, (f) => td(String(f.calls)), false],
		['self', 'self s', (f) => f.selfTicks, (f) => td(secs(f.selfTicks)), false],
		['selfp', 'self %', (f) => f.selfTicks, (f, v) => td(pct(f.selfTicks, v.totalTicks), 'num pc'), false],
		['inh', 'inherited s', (f) => f.inhTicks, (f) => td(secs(f.inhTicks)), false],
		['inhp', 'inh. %', (f) => f.inhTicks, (f, v) => td(pct(f.inhTicks, v.totalTicks), 'num pc'), false],
		['sbytes', 'self bytes', (f) => f.selfBytes, (f) => td(String(f.selfBytes)), true],
		['sbytesp', '%alloc', (f) => f.selfBytes, (f, v) => td(pct(f.selfBytes, v.totalBytes), 'num pc'), true],
		['ibytes', 'inherited bytes', (f) => f.inhBytes, (f) => td(String(f.inhBytes)), true],
		['blocks', 'blocks', (f) => f.selfBlocks, (f) => td(String(f.selfBlocks)), true],
		['src', 'file:line', (f) => srcOf(f.id), (f) => td(srcOf(f.id), 'src'), false]];

	function renderFunctions(c, main) {
		const v = c.v;
		const cols = FN_COLS.filter((col) => hasAlloc || !col[4]);
		const defaultSort = state.weight === 'bytes' ? 'sbytes' : '';
		const sortKey = cols.some((col) => col[0] === state.sort) ? state.sort : defaultSort;
		const textual = (k) => k === 'name' || k === 'src';
		const dir = state.dir || (textual(sortKey) ? 'asc' : 'desc');

		const heads = cols.map((col) => {
			const th = el('th', textual(col[0]) ? 'txt' : null);
			const b = button(col[1], 'sort', () => {
				const ndir = col[0] === sortKey ? (dir === 'desc' ? 'asc' : 'desc')
					: (textual(col[0]) ? 'asc' : 'desc');
				go({sort: col[0], dir: ndir});
			}, 'sort by ' + col[1]);
			th.appendChild(b);
			if (col[0] === sortKey) {
				th.classList.add('sorted');
				b.appendChild(el('span', 'arrow', dir === 'desc' ? ' \u25be' : ' \u25b4'));
			}
			return th;
		});
		const t = table('grid fns', heads);
		// The model's order (self time), or sorted by a column, ties in that order.
		let all = v.functions().slice();
		if (sortKey) {
			const key = cols.find((x) => x[0] === sortKey)[2];
			const sgn = dir === 'desc' ? -1 : 1;
			all = all.map((f, i) => [f, i, key(f)]);
			all.sort((a, b) => (a[2] < b[2] ? -sgn : a[2] > b[2] ? sgn : a[1] - b[1]));
			all = all.map((r) => r[0]);
		} else if (dir === 'asc') {
			all.reverse();
		}
		const count = note('');
		const fill = () => {
			clear(t.body);
			const q = state.filter.toLowerCase();
			const rows = q ? all.filter((f) => fns[f.id].name.toLowerCase().includes(q)) : all;
			const shown = Math.min(rows.length, MAX_ROWS);
			for (let i = 0; i < shown; i++) {
				const f = rows[i];
				const tr = el('tr', f.id === state.fn ? 'cur' : null);
				tr.dataset.id = String(f.id);
				for (const col of cols)
					tr.appendChild(col[3](f, v));
				t.body.appendChild(tr);
			}
			count.textContent = rows.length + ' of ' + all.length + ' functions' +
				(shown < rows.length ? ', the first ' + shown + ' shown (use the filter)' : '') +
				'; percentages of the view\u2019s total ' +
				(hasAlloc ? 'time (%alloc: of its bytes)' : 'time') + '.';
		};

		// The filter works as one types; the hash follows without a redraw.
		const filter = el('input', 'filter');
		filter.type = 'search';
		filter.placeholder = 'filter by name';
		filter.value = state.filter;
		filter.addEventListener('input', () => {
			state.filter = filter.value;
			history.replaceState(null, '', hashOf(state));
			fill();
		});
		main.appendChild(add(el('div', 'tools'), filter));
		fill();
		main.appendChild(t.table);
		main.appendChild(count);
	}

	/* -- Call graph -- */

	/* gprof's [n]: a function's rank by inherited time, then self time,
	 * then name and id, as report's call graph numbers them (flat.c). */
	function graphIndex(c, id) {
		if (!c.rank) {
			c.rank = new Map();
			c.v.functions().slice()
				.sort((a, b) => b.inhTicks - a.inhTicks || b.selfTicks - a.selfTicks ||
				      P.nameRank[a.id] - P.nameRank[b.id] || a.id - b.id)
				.forEach((f, i) => c.rank.set(f.id, i + 1));
		}
		return c.rank.get(id);
	}

	function renderGraph(c, main) {
		const v = c.v;
		const id = currentFn(c);
		main.appendChild(note('The block of the current function, gprof-style, with exact arc ' +
			'times measured per calling context (not shared out by call counts). Callers above ' +
			'show the self and child time of each incoming arc, callees below those of each ' +
			'outgoing arc; calls are arc/total. Click a name to move to its block.'));
		if (id === null)
			return;
		const f = c.fnById.get(id);
		const rec = (x) => c.rec.get(x) || 0;
		const heads = ['', '%time', 'self s', 'children s'];
		if (hasAlloc)
			heads.push('self B', 'children B');
		heads.push('calls', el('th', 'txt', 'name'));
		const t = table('grid graph', heads);
		const line = (cls, pc, self, child, sb, cb, calls, nameCell) => {
			const tr = el('tr', cls);
			add(tr, td(cls === 'self' ? '[' + graphIndex(c, id) + ']' : '', 'idx'), td(pc, 'num pc'),
			    td(self), td(child));
			if (hasAlloc)
				add(tr, td(sb), td(cb));
			add(tr, td(calls), add(el('td', 'name'), nameCell));
			t.body.appendChild(tr);
		};
		// The model's list holds the arc from no caller (gprof's
		// <spontaneous>: caller null) and the recursive one, left out here.
		for (const a of v.arcsInto(id)) {
			if (a.caller === id)
				continue;
			line('caller', '', secs(a.selfIn), secs(a.childIn),
			     String(a.selfInBytes), String(a.childInBytes),
			     a.calls + '/' + (f.calls - rec(id)),
			     a.caller === null ? el('span', 'spont', '<spontaneous>') : nameLink(a.caller));
		}
		line('self', pct(f.inhTicks, v.totalTicks), secs(f.selfTicks), secs(f.inhTicks - f.selfTicks),
		     String(f.selfBytes), String(f.inhBytes - f.selfBytes),
		     rec(id) ? (f.calls - rec(id)) + '+' + rec(id) : String(f.calls),
		     add(el('strong', null), nameLink(id)));
		for (const a of v.arcsOutOf(id)) {
			if (a.callee === id)
				continue;
			const g = c.fnById.get(a.callee);
			line('callee', '', secs(a.selfOut), secs(a.childOut),
			     String(a.selfOutBytes), String(a.childOutBytes),
			     a.calls + '/' + ((g ? g.calls : 0) - rec(a.callee)), nameLink(a.callee));
		}
		main.appendChild(t.table);
	}

	/* -- trees (stack tree, callers) -- */

	function nodeWeight(n, kind) {
		if (state.weight === 'bytes')
			return kind === 'indiv' ? n.indivBytes : n.inhBytes;
		return kind === 'indiv' ? n.indivTicks : n.inhTicks;
	}
	function sortedKids(n) {
		const kids = n.children || [];
		if (state.weight !== 'bytes')
			return kids;
		return kids.map((k, i) => [k, i])
			.sort((a, b) => nodeWeight(b[0], 'inh') - nodeWeight(a[0], 'inh') || a[1] - b[1])
			.map((x) => x[0]);
	}

	/*
	 * A collapsible tree as table rows: cells(node) gives the cells after
	 * the name.  A node's children are built only when it is open: nodes
	 * above state.depth start open (as far as OPEN_ROWS rows), and what
	 * the reader opened or closed stays so while memoKey is the same (the
	 * tab, view, weight, depth and function), e.g. after a click on a name.
	 */
	let treeMemo = {key: null};
	function treeTable(heads, groups, root, rootName, cells, memoKey) {
		if (treeMemo.key !== memoKey)
			treeMemo = {key: memoKey, opened: new Set(), closed: new Set()};
		const memo = treeMemo;
		const t = table('grid tree', heads, groups);
		let rows = 1, cut = false;
		const startsOpen = (path, depth, nkids) => {
			if (memo.closed.has(path))
				return false;
			if (memo.opened.has(path))
				return true;
			if (depth >= state.depth)
				return false;
			if (rows + nkids > OPEN_ROWS) {
				cut = true;
				return false;
			}
			return true;
		};
		const addRow = (n, depth, path, after) => {
			const tr = el('tr', n.id === state.fn && n.id !== null ? 'cur' : null);
			tr.dataset.depth = String(depth);
			const name = el('td', 'name');
			// The name's cell is bounded as in the other tabs, plus its
			// indentation, so that depth never eats the name and a long
			// name never pushes the numbers off the screen.
			const indent = 0.3 + depth * 1.1;
			name.style.paddingLeft = indent + 'em';
			name.style.maxWidth = 'calc(60ch + ' + indent + 'em)';
			const kids = sortedKids(n);
			const tog = el(kids.length ? 'button' : 'span', 'tog', kids.length ? '\u25b8' : '');
			name.appendChild(tog);
			name.appendChild(n === root && (n.id === null || n.id === undefined)
				? el('span', 'root', rootName) : nameLink(n.id));
			tr.appendChild(name);
			for (const cell of cells(n))
				tr.appendChild(cell);
			after.parentNode.insertBefore(tr, after.nextSibling);
			let built = [];
			const self = {
				lastRow: () => (built.length ? built[built.length - 1].lastRow() : tr),
				remove: () => {
					closeKids();
					tr.remove();
				},
			};
			const openKids = () => {
				tog.textContent = '\u25be';
				rows += kids.length;
				let last = tr;
				kids.forEach((k, i) => {
					const r = addRow(k, depth + 1, path + '.' + i, last);
					built.push(r);
					last = r.lastRow();
				});
			};
			const closeKids = () => {
				tog.textContent = '\u25b8';
				for (const r of built)
					r.remove();
				rows -= built.length;
				built = [];
			};
			if (kids.length) {
				tog.type = 'button';
				tog.classList.add('on');
				tog.title = 'open or close';
				tog.addEventListener('click', () => {
					const opening = !built.length;
					memo[opening ? 'opened' : 'closed'].add(path);
					memo[opening ? 'closed' : 'opened'].delete(path);
					if (opening)
						openKids();
					else
						closeKids();
				});
				if (startsOpen(path, depth, kids.length))
					openKids();
			}
			return self;
		};
		const anchor = el('tr', 'anchor');
		t.body.appendChild(anchor);
		addRow(root, 0, '0', anchor);
		anchor.remove();
		if (!cut)
			return t.table;
		return add(el('div'), t.table, note('Opened as far as ' + OPEN_ROWS + ' rows allow; ' +
			'open the rest node by node.'));
	}

	function depthControl(main) {
		const box = el('div', 'tools');
		add(box, el('span', 'flabel', 'Open to depth'));
		for (const d of [1, 2, 4, 8, 1000])
			add(box, button(d === 1000 ? 'all' : String(d), 'seg' + (state.depth === d ? ' on' : ''),
					() => go({depth: d})));
		main.appendChild(box);
	}

	/*
	 * A node's cost cells as the text report has them: %time, %alloc when
	 * the run counted allocations, then the seconds, or the bytes when
	 * weighing by bytes.
	 */
	function costHeads() {
		const h = ['%time'];
		if (hasAlloc)
			h.push('%alloc');
		h.push(state.weight === 'bytes' ? 'bytes' : 'secs');
		return h;
	}
	function costCells(v, n, kind) {
		const ticks = kind === 'indiv' ? n.indivTicks : n.inhTicks;
		const b = kind === 'indiv' ? n.indivBytes : n.inhBytes;
		const out = [td(pct(ticks, v.totalTicks), 'num pc')];
		if (hasAlloc)
			out.push(td(pct(b, v.totalBytes), 'num pc'));
		out.push(td(state.weight === 'bytes' ? String(b) : secs(ticks)));
		return out;
	}

	function renderTree(c, main) {
		const v = c.v;
		main.appendChild(note('Stack tree: contexts grouped by compressed stack (the active ' +
			'functions of a context, each once, at its most recent activation), as in Morgan & ' +
			'Jarvis. A node\u2019s position says what was active, not who called whom: see the ' +
			'Call graph or Callers tabs for callers. Entries of an intermediate stack that was ' +
			'never entered are 0.'));
		depthControl(main);
		const heads = [el('th', 'txt', 'function'), 'entries'].concat(costHeads(), costHeads());
		const span = costHeads().length;
		main.appendChild(treeTable(heads, [['', 2], ['individual', span], ['inherited', span]],
			v.tree(), ROOT, (n) =>
			[td(String(n.entries))].concat(costCells(v, n, 'indiv'), costCells(v, n, 'inh')),
			['tree', c.key, state.weight, state.depth].join('\n')));
	}

	function renderCallers(c, main) {
		const v = c.v;
		const id = currentFn(c);
		main.appendChild(note('Callers: the current function\u2019s calls and self ' +
			(state.weight === 'bytes' ? 'bytes' : 'time') + ', traced back through who called ' +
			'it, their callers, and so on, along the real call chains of the histories (' + GAP +
			' marks a path the profiler elided). A line shows the calls and self cost of the ' +
			'function at the top that came that way.'));
		if (id === null)
			return;
		depthControl(main);
		const root = v.callers(id);
		const heads = [el('th', 'txt', 'called from'), 'calls'].concat(costHeads());
		main.appendChild(treeTable(heads, null, root, fns[id].name, (n) =>
			[td(String(n.calls))].concat(costCells(v, n, 'inh')),
			['callers', c.key, state.weight, state.depth, id].join('\n')));
	}

	/* -- Flame graph (an icicle, the root on top, or a flame, the root at the bottom) -- */

	const FRAME_H = 18;
	/* The keyboard's frame, by its zoom path; whether it had the focus
	 * when the page was drawn again (a zoom), to give it back. */
	let flameAt = null, flameRefocus = false;

	function hue(name) {
		let h = 0;
		for (let i = 0; i < name.length; i++)
			h = (h * 31 + name.charCodeAt(i)) >>> 0;
		return h;
	}

	function renderFlame(c, main) {
		const v = c.v;
		const bytes = state.weight === 'bytes';
		const total = bytes ? v.totalBytes : v.totalTicks;
		const up = state.orient === 'flame';
		main.appendChild(note('Flame graph of the stack tree (compressed stacks, root ' +
			(up ? 'at the bottom' : 'on top') + '), ' +
			'widths by ' + (bytes ? 'bytes allocated' : 'inherited time') + '. Click a frame to ' +
			'zoom in, a frame ' + (up ? 'below' : 'above') + ' it to zoom out; hover for name and cost. ' +
			'Keys: Tab into the graph, arrows move, Enter zooms in, Escape zooms out, ' +
			'Shift+Enter makes the frame\u2019s function the current one.'));
		const root = v.tree();
		// The zoom: child indices from the root, as "0.2.1".
		const path = state.zoom === '' ? [] : state.zoom.split('.').map((s) => parseInt(s, 10));
		const chain = [root];
		for (const i of path) {
			const kids = sortedKids(chain[chain.length - 1]);
			if (!(i >= 0 && i < kids.length))
				break;
			chain.push(kids[i]);
		}
		const focus = chain[chain.length - 1];
		const width = Math.max(320, (main.clientWidth || 960) - 2);
		const scale = nodeWeight(focus, 'inh') ? width / nodeWeight(focus, 'inh') : 0;

		const frames = [];
		const cur = currentFn(c);
		let maxDepth = 0;
		const label = (n) => n === root ? ROOT : fnName(n.id);
		const tip = (n) => {
			const w = nodeWeight(n, 'inh');
			return label(n) + '\n' + (bytes ? w + ' bytes' : secs(w) + ' s') + ' (' +
				pct(w, total) + '%), ' + n.entries + ' entries';
		};
		/* the frame pointed at: its name, cut as the tables cut it (whole
		 * in its title), and its cost */
		const info = el('div', 'flameinfo', '\u00a0');
		const showInfo = (n) => {
			const name = el('span', 'iname', shortName(label(n)));
			name.title = label(n);
			add(clear(info), name, tip(n).slice(label(n).length).replace('\n', '  '));
		};
		// A frame: its node, box, zoom path (its name here), the frame
		// of its parent (up) and those of its children drawn (kids).
		const frame = (fr, parent) => {
			fr.up = parent;
			fr.kids = [];
			if (parent)
				parent.kids.push(fr);
			frames.push(fr);
			return fr;
		};
		let zoomed = null;
		chain.forEach((n, d) => {
			zoomed = frame({n: n, x: 0, w: width, d: d, zoom: path.slice(0, d).join('.'),
				above: d < chain.length - 1}, zoomed);
		});
		const walk = (n, x, d, zpath, parent) => {
			let cx = x;
			sortedKids(n).forEach((k, i) => {
				const w = nodeWeight(k, 'inh') * scale;
				if (w >= 0.5) {
					const zp = zpath === '' ? String(i) : zpath + '.' + i;
					const fr = frame({n: k, x: cx, w: w, d: d, zoom: zp}, parent);
					maxDepth = Math.max(maxDepth, d);
					if (d < 400)
						walk(k, cx, d + 1, zp, fr);
				}
				cx += w;
			});
		};
		if (scale)
			walk(focus, 0, chain.length, path.slice(0, chain.length - 1).join('.'), zoomed);
		maxDepth = Math.max(maxDepth, chain.length - 1);

		const s = svg('svg');
		s.setAttribute('class', 'flame');
		s.setAttribute('role', 'group');
		s.setAttribute('aria-label', 'Flame graph: arrow keys move between frames, Enter zooms in, ' +
			'Escape zooms out, Shift+Enter makes the frame\u2019s function the current function');
		s.setAttribute('width', width);
		s.setAttribute('height', (maxDepth + 1) * FRAME_H);
		s.setAttribute('viewBox', '0 0 ' + width + ' ' + (maxDepth + 1) * FRAME_H);
		// The row of depth d: from the top in an icicle, from the bottom in a flame.
		const rowY = (d) => (up ? maxDepth - d : d) * FRAME_H;
		// The keyboard's frame (one stop in the tab order): the one it
		// was on, else the zoomed one.
		const stop = frames.find((fr) => fr.zoom === flameAt) || zoomed;
		for (const fr of frames) {
			const g = svg('g');
			fr.g = g;
			g.setAttribute('role', 'button');
			g.setAttribute('tabindex', fr === stop ? '0' : '-1');
			g.setAttribute('class', 'frame' + (fr.above ? ' above' : '') +
				(fr.n.id === cur && fr.n !== root ? ' cur' : ''));
			const title = svg('title');
			title.textContent = tip(fr.n);
			const r = svg('rect');
			r.setAttribute('x', fr.x.toFixed(2));
			r.setAttribute('y', rowY(fr.d));
			r.setAttribute('width', Math.max(fr.w - 0.5, 0.5).toFixed(2));
			r.setAttribute('height', FRAME_H - 1);
			const name = label(fr.n);
			r.setAttribute('fill', fr.n === root ? 'hsl(220,10%,70%)'
				: 'hsl(' + (hue(name) % 50 + 5) + ',' + (60 + hue(name) % 25) + '%,' +
				  (62 + (hue(name) >> 8) % 14) + '%)');
			add(g, title, r);
			const chars = Math.floor((fr.w - 6) / 7);
			if (chars >= 3) {
				const t = svg('text');
				t.setAttribute('x', (fr.x + 3).toFixed(2));
				t.setAttribute('y', rowY(fr.d) + FRAME_H - 5);
				t.textContent = shortName(name, chars); // as the tables cut it, to the frame
				g.appendChild(t);
			}
			g.addEventListener('click', (e) => {
				if (e.detail > 1)
					return;
				go({zoom: fr.zoom});
			});
			g.addEventListener('mouseenter', () => showInfo(fr.n));
			g.addEventListener('focus', () => {
				for (const other of s.querySelectorAll('g.frame[tabindex="0"]'))
					other.setAttribute('tabindex', '-1');
				g.setAttribute('tabindex', '0');
				flameAt = fr.zoom;
				showInfo(fr.n);
			});
			g.addEventListener('keydown', (e) => {
				if (e.altKey || e.ctrlKey || e.metaKey)
					return;
				// Up and Down follow the picture: to the parent and the
				// first child in an icicle, the other way round in a flame.
				const sib = (k) => fr.up && fr.up.kids[fr.up.kids.indexOf(fr) + k];
				const to = {ArrowLeft: sib(-1), ArrowRight: sib(1),
					ArrowUp: up ? fr.kids[0] : fr.up, ArrowDown: up ? fr.up : fr.kids[0]};
				if (e.key in to) {
					if (to[e.key])
						to[e.key].g.focus();
				} else if (e.key === 'Enter' && e.shiftKey) {
					// as a double-click: the frame's function becomes
					// the current one (the root has none)
					if (fr.n.id !== null && fr.n.id !== undefined)
						go({fn: fr.n.id});
				} else if (e.key === 'Enter' || e.key === ' ') {
					go({zoom: fr.zoom});
				} else if (e.key === 'Escape') {
					go({zoom: ''});
				} else {
					return;
				}
				e.preventDefault();
			});
			g.addEventListener('dblclick', () => {
				if (fr.n.id !== null && fr.n.id !== undefined)
					go({fn: fr.n.id});
			});
			s.appendChild(g);
		}
		const tools = el('div', 'tools');
		add(tools, button('reset zoom', 'seg', () => go({zoom: ''})));
		const orient = el('span', 'orient');
		for (const [k, lab] of [['icicle', 'icicle (root on top)'], ['flame', 'flame (root at the bottom)']]) {
			const b = button(lab, 'seg' + (state.orient === k ? ' on' : ''), () => go({orient: k}));
			b.dataset.orient = k;
			orient.appendChild(b);
		}
		add(tools, orient);
		if (focus !== root && focus.id !== null && focus.id !== undefined)
			add(tools, el('span', 'flabel', 'zoomed on'), nameLink(focus.id));
		add(tools, el('span', 'hint', 'double-click a frame (or Shift+Enter): make it the current ' +
			'function'));
		main.appendChild(tools);
		main.appendChild(info);
		main.appendChild(add(el('div', 'flamebox'), s));
		if (flameRefocus && stop)
			stop.g.focus();
	}

	/* -- Cycles -- */

	function renderCycles(c, main) {
		const v = c.v;
		main.appendChild(note('Cycles of recursion that ran (Spivey): each once, in call order ' +
			'from where it was entered, ' + GAP + ' where a path was elided. Time: while the ' +
			'recursion was in progress; entries: how often the cycle closed.'));
		const cycles = v.cycles();
		if (!cycles.length) {
			main.appendChild(note('No cycles of recursion in this view.'));
			return;
		}
		const heads = ['secs', '%time'];
		if (hasAlloc)
			heads.push('%alloc');
		heads.push('entries', el('th', 'txt', 'cycle'));
		const t = table('grid cycles', heads);
		for (const cy of cycles.slice(0, MAX_ROWS)) {
			const tr = el('tr');
			const ticks = cy.ticks;
			add(tr, td(secs(ticks)), td(pct(ticks, v.totalTicks), 'num pc'));
			if (hasAlloc)
				tr.appendChild(td(pct(cy.bytes, v.totalBytes), 'num pc'));
			tr.appendChild(td(String(cy.entries)));
			const cell = el('td', 'name cyc');
			const ids = cy.ids || [];
			ids.forEach((x, i) => {
				if (i)
					cell.appendChild(document.createTextNode(' \u2192 '));
				cell.appendChild(nameLink(x));
			});
			if (ids.length) {
				cell.appendChild(document.createTextNode(' \u2192 '));
				cell.appendChild(nameLink(ids[0]));
			}
			tr.appendChild(cell);
			t.body.appendChild(tr);
		}
		main.appendChild(t.table);
		if (cycles.length > MAX_ROWS)
			main.appendChild(note('The first ' + MAX_ROWS + ' of ' + cycles.length + ' cycles.'));
	}

	/* -- Hot path -- */

	/* report --hot: the most expensive context and the expensive arm of
	 * the stack tree, by time whatever the weight (as the command). */
	function renderHot(c, main) {
		const v = c.v;
		const hot = v.hot();
		main.appendChild(note('Hot path: the most expensive single context, and the expensive ' +
			'arm of the stack tree (from the root, the child with the most inherited time, while ' +
			'it holds at least half of its parent’s).'));
		const x = hot.context;
		if (x) {
			const p = el('p', 'hotctx', 'most expensive context  ' + secs(x.ticks) + ' secs  ' +
				pct(x.ticks, v.totalTicks) + '%  ');
			if (hasAlloc)
				p.appendChild(document.createTextNode(x.bytes + (x.bytes === 1 ? ' byte ' : ' bytes ') +
					pct(x.bytes, v.totalBytes) + '%  '));
			if (!x.hist.length)
				p.appendChild(document.createTextNode(ROOT));
			x.hist.forEach((e, i) => {
				if (i)
					p.appendChild(document.createTextNode(
						!e.marked && !x.hist[i - 1].marked ? ' ' + GAP + ' ' : ' '));
				if (e.marked)
					p.appendChild(document.createTextNode('['));
				p.appendChild(nameLink(e.id));
				if (e.marked)
					p.appendChild(document.createTextNode(']'));
			});
			main.appendChild(p);
		}
		const heads = [el('th', 'txt', 'expensive arm'), '%time'].concat(hasAlloc ? ['%alloc'] : [],
			['secs']);
		const t = table('grid hotarm', heads);
		hot.arm.forEach((n, depth) => {
			const name = add(el('td', 'name'), nameLink(n.id));
			name.style.paddingLeft = (0.3 + depth * 1.1) + 'em';
			const tr = add(el('tr'), name, td(pct(n.inhTicks, v.totalTicks), 'num pc'));
			tr.dataset.depth = String(depth);
			if (hasAlloc)
				tr.appendChild(td(pct(n.inhBytes, v.totalBytes), 'num pc'));
			t.body.appendChild(add(tr, td(secs(n.inhTicks))));
		});
		main.appendChild(t.table);
		if (!hot.arm.length)
			main.appendChild(note('(none: no stack holds half of the time)'));
	}

	/* -- Hook cost -- */

	/* report --hook-cost: what the hooks cost by function, the marks, and
	 * the gcc options that would leave the marked functions out (lines of
	 * text to copy, as the command prints them). */
	function renderHooks(c, main) {
		const h = c.v.hookCost();
		const tps = data.ticks_per_sec, tickNs = tps ? 1e9 / tps : 0, run = h.run;
		main.appendChild(note('Hook cost: what the instrumentation costs, by function.'));
		if (h.perCall <= 0 || !tps) {
			main.appendChild(el('p', 'hookfact',
				'(unknown: the profile records no estimate of the cost per call)'));
			return;
		}
		const all = h.perCall * h.calls;
		main.appendChild(el('p', 'hookfact', 'The runtime\'s estimate is ' +
			fixedC(h.perCall * tickNs, 1) + ' ns per hooked call: ' + h.calls + ' calls, ' +
			fixedC(all / tps, 3) + ' secs, ' + fixedC(run > 0 ? 100 * all / run : 0, 1) +
			' % of the run.'));
		main.appendChild(note('* marks a function whose own time per call is below twice that ' +
			'(its hooks cost at least half as much as its work), if they take 0.1 % of the run. ' +
			(data.clock === 'cycles' ? 'clock=cycles: the estimate includes reading the counter ' +
				'at every hook; take build advice from a clock=cpu profile, which marks fewer. ' +
				'Self times are taken up to 5 % of what the hooks subtracted above what they ' +
				'show (bound/call, what the marks compare): an estimate a few % high takes its ' +
				'excess from the work of whatever runs next.'
				: 'Self times are taken at their upper bound from the samples (bound/call, ' +
				'what the marks compare): a longer run or a finer --interval marks more.')));
		const t = table('grid hookcost', ['calls', 'hooks(s)', '%run', 'self/call (ns)']
			.concat(h.sampled ? ['bound/call (ns)'] : [], ['', el('th', 'txt', 'function')]));
		for (const f of h.rows.slice(0, MAX_ROWS)) {
			const hooks = h.perCall * f.calls;
			const bound = h.sampled ? [td(fixedC(f.selfBoundTicks / f.calls * tickNs, 1))] : [];
			t.body.appendChild(add(el('tr'), td(String(f.calls)), td(fixedC(hooks / tps, 3)),
				td(fixedC(run > 0 ? 100 * hooks / run : 0, 1), 'num pc'),
				td(fixedC(f.selfTicks / f.calls * tickNs, 1)), ...bound,
				td(f.candidate ? '*' : ''), add(el('td', 'name'), nameLink(f.id))));
		}
		main.appendChild(t.table);
		if (h.rows.length > MAX_ROWS)
			main.appendChild(note('The first ' + MAX_ROWS + ' of ' + h.rows.length + ' functions.'));
		const lines = [];
		if (!h.files.length && !h.names.length) {
			lines.push('No function to build without hooks by name or file.');
		} else {
			lines.push('To build the marked functions without hooks (gcc; their time then counts',
				'as their callers\', as --deselect shows it now):');
			if (h.files.length)
				lines.push('  -finstrument-functions-exclude-file-list=' + h.files.map((f) =>
					/^[A-Za-z0-9_./+,:@%=-]+$/.test(f) ? f : shellQuote(f)).join(','));
			if (h.names.length)
				lines.push('  -finstrument-functions-exclude-function-list=' + h.names.join(','));
		}
		if (h.clashing.length)
			lines.push(h.clashing.length + ' marked function(s) named by neither list: a C++ name, ' +
				'or one', 'that is part of a function\'s name that does more work; mark those',
				'__attribute__((no_instrument_function)) instead.');
		lines.push('clang has no such options: mark functions, or build with',
			'-finstrument-functions-after-inlining, which hooks no inlined copy.');
		main.appendChild(el('pre', 'hookflags', lines.join('\n')));
	}

	/* -- Threads -- */

	/* report --threads: each thread's totals (its share of the view's) and
	 * its cost centres, the view over that thread's contexts alone. */
	function renderThreads(c, main) {
		const v = c.v;
		const threads = v.threads();
		main.appendChild(note('Threads: ' + threads.length + ', each with its own totals and ' +
			'cost centres: the view over that thread\u2019s contexts alone, percentages of the ' +
			'thread\u2019s total (in the heading, of the view\u2019s).'));
		const cols = FN_COLS.filter((col) => hasAlloc || !col[4]);
		threads.forEach((t, i) => {
			let head = 'thread ' + (i + 1) + '  ' + (t.name || '(unnamed)') + '  tid ' + t.tid +
				'  total ' + secs(t.totalTicks) + ' secs (' + pct(t.totalTicks, v.totalTicks) +
				'%)  calls ' + t.totalCalls;
			if (hasAlloc)
				head += '  alloc ' + t.totalBytes + ' bytes (' + pct(t.totalBytes, v.totalBytes) + '%)';
			main.appendChild(el('h3', 'threadhead', head));
			const all = t.functions();
			if (!all.length)
				return;
			const tb = table('grid threadfns', cols.map((col) =>
				el('th', col[0] === 'name' || col[0] === 'src' ? 'txt' : null, col[1])));
			for (const f of all.slice(0, THREAD_ROWS)) {
				const tr = el('tr');
				for (const col of cols)
					tr.appendChild(col[3](f, t));
				tb.body.appendChild(tr);
			}
			main.appendChild(tb.table);
			if (all.length > THREAD_ROWS)
				main.appendChild(note('The first ' + THREAD_ROWS + ' of ' + all.length +
					' functions (report --threads --top 0 prints them all).'));
		});
	}

	/* -- Heap (a heap profile only) -- */

	/* -- the live heap over time: heap-svg's picture (export_heap_svg.c),
	 * its bands, colours, axes and peak line, from model.js's heapChart -- */

	const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

	/* The power of 1024 that shows v with 1 to 4 digits before the point. */
	function bytePower(v) {
		let k = 0;
		while (k < 4 && v >= 1024 ** (k + 1))
			k++;
		return k;
	}
	/* "12.3 MB" (KB = 1024 bytes), "512 B", as heap-svg writes them. */
	function humanBytes(v) {
		const k = bytePower(v);
		return k ? fixedC(v / 1024 ** k, 1) + ' ' + BYTE_UNITS[k] : v + ' B';
	}
	/* A tick step of 1, 2 or 5 times a power of ten, at least range / 6. */
	function niceStep(range) {
		const want = range / 6;
		let p = 1;
		while (p * 10 <= want)
			p *= 10;
		while (p > want && p > 1e-9)
			p /= 10;
		return want <= p ? p : want <= 2 * p ? 2 * p : want <= 5 * p ? 5 * p : 10 * p;
	}
	/* hue (0 to 6), saturation and value (0 to 1) as rgb(). */
	function hsvColour(hue, sat, val) {
		const i = Math.floor(hue) % 6, f = hue - Math.floor(hue);
		const p = val * (1 - sat), q = val * (1 - sat * f), t = val * (1 - sat * (1 - f));
		const rgb = [[val, t, p], [q, val, p], [p, val, t], [p, q, val], [t, p, val], [val, p, q]][i];
		return 'rgb(' + rgb.map((x) => Math.floor(x * 255 + 0.5)).join(',') + ')';
	}
	/* A band's colour, heap-svg's: from the FNV-1a hash of its stack's
	 * name (without the "(k)", which changes with the view), in UTF-8. */
	function bandColour(row) {
		if (row.kind !== 'stack')
			return row.kind === 'other' ? 'rgb(190,190,190)' : 'rgb(150,170,200)';
		let h = 2166136261;
		for (const byte of new TextEncoder().encode(row.name.slice(row.name.indexOf(')') + 1)))
			h = Math.imul(h ^ byte, 16777619) >>> 0;
		return hsvColour(h % 360 / 60, 0.35 + (h >>> 9) % 30 / 100, 0.80 + (h >>> 17) % 16 / 100);
	}

	/* The chart: the bands stacked bottom first, a y axis in bytes from 0
	 * to a round step above the peak and the samples, an x axis in ms (s
	 * from 2 s) to the last sample, the exact peak dashed; the legend, top
	 * band first, gives each band's bytes at the largest sample, or at the
	 * sample under the pointer. */
	function renderHeapChart(c, main, h) {
		const hc = c.v.heapChart();
		if (!h.samples.length) {
			main.appendChild(el('h3', 'heapsec', 'Live heap over time'));
			main.appendChild(el('p', 'heapnone', 'No heap samples in this profile: there is no live ' +
				'heap over time to draw, only the peak and the live heap at the end.'));
			return;
		}
		const nstacks = hc.rows.filter((r) => r.kind === 'stack').length;
		main.appendChild(el('h3', 'heapsec', 'Live heap over time (' + plural(h.samples.length,
			'sample', 'samples') + '): ' + (hc.rows.some((r) => r.kind === 'other')
			? 'the ' + nstacks + ' stacks with the largest area (bytes \u00d7 time) in bands of their ' +
				'own, the largest at the bottom, the rest in \u201cother\u201d'
			: 'a band for each of the ' + plural(nstacks, 'stack', 'stacks') + ' that held any, the ' +
				'largest area (bytes \u00d7 time) at the bottom') + ', as convert --to heap-svg draws it'));
		const t = hc.times, npts = t.length, W = Math.max(480, Math.min(main.clientWidth || 960, 1100));
		const H = 300, X0 = 78, X1 = W - 12, Y0 = 14, Y1 = H - 34;
		let ymax = Math.max(hc.peakBytes, 1);
		for (let i = 0; i < npts; i++)
			ymax = Math.max(ymax, hc.rows.reduce((n, r) => n + r.values[i], 0));
		const room = ymax + Math.floor(ymax / 20), yk = bytePower(room), yunit = 1024 ** yk;
		const ystep = Math.max(niceStep(room / yunit), 1 / yunit);
		const ytop = Math.max(Math.ceil(room / (ystep * yunit)) * ystep * yunit, room);
		const tend = Math.max(t[npts - 1], 1);
		const x = (ns) => X0 + ns * (X1 - X0) / tend, y = (b) => Y1 - b * (Y1 - Y0) / ytop;
		const s = svg('svg');
		s.setAttribute('class', 'heapchart');
		s.setAttribute('width', W);
		s.setAttribute('height', H);
		s.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
		/* a line from (x1, y1) to (x2, y2), as a path */
		const lineTo = (l, x1, y1, x2, y2) => l.setAttribute('d', 'M' + x1.toFixed(2) + ' ' +
			y1.toFixed(2) + 'L' + x2.toFixed(2) + ' ' + y2.toFixed(2));
		const line = (cls, x1, y1, x2, y2) => {
			const l = svg('path');
			l.setAttribute('class', cls);
			lineTo(l, x1, y1, x2, y2);
			return l;
		};
		const text = (cls, tx, ty, str) => {
			const e = svg('text');
			e.setAttribute('class', cls);
			e.setAttribute('x', tx.toFixed(2));
			e.setAttribute('y', ty.toFixed(2));
			e.textContent = str;
			return e;
		};
		const ticks = (isX) => {
			const ms = tend < 2e9, unit = isX ? (ms ? 1e6 : 1e9) : yunit;
			const step = Math.max(isX ? niceStep(tend / unit) : ystep, 1 / unit);
			const dec = Math.min(9, Math.max(0, -Math.floor(Math.log10(step) + 1e-9)));
			for (let i = 0; i * step * unit <= (isX ? tend : ytop) + 0.5; i++) {
				const v = Math.round(i * step * unit), label = (i * step).toFixed(dec) + ' ' +
					(isX ? (ms ? 'ms' : 's') : BYTE_UNITS[yk]);
				const g = svg('g');
				g.setAttribute('class', isX ? 'xtick' : 'ytick');
				if (isX)
					add(g, line('tick', x(v), Y1, x(v), Y1 + 5), text('xl', x(v), Y1 + 18, label));
				else
					add(g, line('grid', X0, y(v), X1, y(v)), text('yl', X0 - 6, y(v) + 4, label));
				s.appendChild(g);
			}
		};
		ticks(false);
		const under = new Array(npts).fill(0);
		for (const r of hc.rows) {
			const g = svg('g');
			g.setAttribute('class', 'hband');
			const title = svg('title');
			/* heap-svg's tooltip: the name, the bytes at the largest sample, the most */
			title.textContent = r.name + '\n' + r.values[hc.largest] + ' bytes at the largest sample (' +
				ratio(t[hc.largest], 1e9, 0, 6) + ' s)\nat most ' + r.values.reduce((a, v) => Math.max(a, v), 0) +
				' bytes in a sample';
			const poly = svg('polygon');
			const top = r.values.map((v, i) => x(t[i]).toFixed(2) + ',' + y(under[i] + v).toFixed(2));
			const bottom = under.map((v, i) => x(t[i]).toFixed(2) + ',' + y(v).toFixed(2)).reverse();
			poly.setAttribute('points', top.concat(bottom).join(' '));
			poly.setAttribute('fill', bandColour(r));
			s.appendChild(add(g, title, poly));
			r.values.forEach((v, i) => { under[i] += v; });
		}
		ticks(true);
		const frame = svg('rect');
		frame.setAttribute('class', 'frame');
		frame.setAttribute('x', X0);
		frame.setAttribute('y', Y0);
		frame.setAttribute('width', X1 - X0);
		frame.setAttribute('height', Y1 - Y0);
		s.appendChild(frame);
		const peak = svg('g');
		peak.setAttribute('class', 'hpeak');
		s.appendChild(add(peak, line('peak', X0, y(hc.peakBytes), X1, y(hc.peakBytes)),
			text('peak', X1 - 4, y(hc.peakBytes) - 4, 'peak ' + humanBytes(hc.peakBytes) + ' (' +
				hc.peakBytes + ' bytes, exact)')));
		const marker = line('marker', X0, Y0, X0, Y1);
		s.appendChild(marker);

		/* the legend, top band first; its bytes at one point */
		const caption = el('p', 'heapat');
		const lt = table('grid heapbands', ['', 'bytes', el('th', 'txt', 'band (innermost function first)')]);
		const cellsOf = hc.rows.slice().reverse().map((r) => {
			const sw = svg('svg'), box = svg('rect');
			sw.setAttribute('class', 'swatch');
			sw.setAttribute('width', 12);
			sw.setAttribute('height', 12);
			box.setAttribute('width', 12);
			box.setAttribute('height', 12);
			box.setAttribute('fill', bandColour(r));
			sw.appendChild(box);
			const bytes = td('');
			// heap-svg's name, each function in it cut as the tables cut
			// names, the stack wrapped at its slashes, whole in the title
			const name = el('td', 'name stack');
			name.title = r.name;
			if (r.kind !== 'stack' || r.band === 0) {
				name.textContent = r.name;
			} else {
				name.textContent = '(' + r.band + ')';
				r.ids.slice().reverse().forEach((x, i) => {
					if (i)
						add(name, '/', el('wbr'));
					add(name, shortName(fnName(x)));
				});
			}
			lt.body.appendChild(add(el('tr'), add(el('td', 'sw'), sw), bytes, name));
			return [r, bytes];
		});
		const at = (i) => {
			const k = i - hc.lead;
			caption.textContent = (i === hc.largest ? 'At the largest sample, ' : k < 0 ? 'At the start, ' +
				'before the first sample, ' : 'At sample ' + (k + 1) + ' of ' + h.samples.length + ', ') +
				ratio(t[i], 1e9, 0, 6) + ' s: ' +
				hc.rows.reduce((n, r) => n + r.values[i], 0) + ' bytes' +
				(i === hc.largest ? ' (point at the chart for another sample)' : '');
			for (const [r, cell] of cellsOf)
				cell.textContent = String(r.values[i]);
			lineTo(marker, x(t[i]), Y0, x(t[i]), Y1);
			marker.classList.toggle('on', i !== hc.largest);
		};
		/* the point nearest the pointer (the first of equal times) */
		const nearest = (px) => {
			let lo = 0, hi = npts - 1;
			while (lo < hi) {
				const mid = (lo + hi) >> 1;
				if (x(t[mid]) < px)
					lo = mid + 1;
				else
					hi = mid;
			}
			return lo > 0 && px - x(t[lo - 1]) <= x(t[lo]) - px ? lo - 1 : lo;
		};
		s.addEventListener('mousemove', (e) => {
			const box = s.getBoundingClientRect();
			at(nearest((e.clientX - box.left) * W / (box.width || W)));
		});
		s.addEventListener('mouseleave', () => at(hc.largest));
		at(hc.largest);
		main.appendChild(add(el('div', 'heapbox'), s));
		main.appendChild(caption);
		main.appendChild(lt.table);
	}

	/* report --heap: the peak, the live heap at the end by function and by
	 * stack, and the largest sample by stack; percentages of the bytes in
	 * the view's contexts (of the sample's, for the sample). */
	function renderHeap(c, main) {
		const h = c.v.heap();
		const fact = (text) => main.appendChild(el('p', 'heapfact', text));
		fact('peak  ' + h.peakBytes + ' bytes, the most the live heap held');
		if (h.untrackedAllocs)
			fact('untracked  ' + h.untrackedAllocs + ' allocations not followed (no memory ' +
				'for them, or too many before the start): the peak and the live heap may ' +
				'be short of them');
		const bb = (bytes, blocks) => bytes + (bytes === 1 ? ' byte in ' : ' bytes in ') +
			blocks + (blocks === 1 ? ' block' : ' blocks');
		fact('live at end  ' + bb(h.liveBytes + h.outsideBytes, h.liveBlocks + h.outsideBlocks) +
			(h.outsideBytes || h.outsideBlocks ? ' (' + bb(h.outsideBytes, h.outsideBlocks) +
				' allocated in no context, and not in %live)' : ''));
		const at = (ns) => ratio(ns, 1000000000, 0, 6);
		fact('samples  ' + h.samples.length + ', every ' + formatG(h.intervalNs / 1e6) + ' ms' +
			(h.sample ? '; the largest at ' + at(h.sample.timeNs) + ' s: ' +
				(h.sample.bytes + h.sample.outsideBytes) + ' bytes' : ''));
		if (h.liveBytes !== h.profileLiveBytes)
			fact('of live  ' + h.liveBytes + ' of ' + h.profileLiveBytes + ' bytes live at end ' +
				'in contexts (' + pct(h.liveBytes, h.profileLiveBytes) + '%)');
		renderHeapChart(c, main, h);

		main.appendChild(el('h3', 'heapsec', 'Live at end by function, most self bytes first (' +
			h.functions.length + ' holding any)'));
		const fnTable = (cls, list, total, rows) => {
			const ft = table('grid ' + cls, [el('th', 'txt', 'function'), 'self %live',
				'self bytes', 'self blocks', 'inh. %live', 'inherited bytes', 'inherited blocks'],
			[['', 1], ['self', 3], ['inherited', 3]]);
			for (const f of list.slice(0, rows))
				ft.body.appendChild(add(el('tr'), add(el('td', 'name'), nameLink(f.id)),
					td(pct(f.selfBytes, total), 'num pc'), td(String(f.selfBytes)),
					td(String(f.selfBlocks)), td(pct(f.inhBytes, total), 'num pc'),
					td(String(f.inhBytes)), td(String(f.inhBlocks))));
			main.appendChild(ft.table);
			if (list.length > rows)
				main.appendChild(note('The first ' + rows + ' of ' + list.length + ' functions.'));
		};
		fnTable('heapfns', h.functions, h.liveBytes, MAX_ROWS);

		/* a stack whole, wrapped between its names (each cut as
		 * shortName cuts it), as the Cycles tab shows a cycle */
		const stackCell = (ids) => {
			const cell = el('td', 'name stack');
			if (!ids.length)
				cell.textContent = ROOT;
			ids.forEach((x, i) => {
				if (i)
					cell.appendChild(document.createTextNode(' \u2192 '));
				cell.appendChild(nameLink(x));
			});
			return cell;
		};
		const stacks = (cls, list, total, withBlocks) => {
			const heads = ['bytes', '%live'].concat(withBlocks ? ['blocks'] : [],
				[el('th', 'txt', 'stack (bottom first)')]);
			const t = table('grid ' + cls, heads);
			for (const x of list.slice(0, MAX_ROWS)) {
				const tr = add(el('tr'), td(String(x.bytes)), td(pct(x.bytes, total), 'num pc'));
				if (withBlocks)
					tr.appendChild(td(String(x.blocks)));
				t.body.appendChild(add(tr, stackCell(x.ids)));
			}
			main.appendChild(t.table);
		};
		main.appendChild(el('h3', 'heapsec', 'Live at end by stack, most bytes first (' +
			h.stacks.length + ' holding any): the bytes allocated under each compressed stack ' +
			'and not freed when the profile was written.'));
		stacks('heapstacks', h.stacks, h.liveBytes, true);
		/* report --heap --threads: each thread's live heap, of the view's */
		main.appendChild(el('h3', 'heapsec', 'Threads: ' + h.threads.length +
			', each with its live heap at the end (%live of the thread\u2019s; in the heading, ' +
			'of the view\u2019s)'));
		h.threads.forEach((t, i) => {
			main.appendChild(el('h3', 'threadhead heapthread', 'thread ' + (i + 1) + '  ' +
				(t.name || '(unnamed)') + '  tid ' + t.tid + '  live ' +
				bb(t.liveBytes, t.liveBlocks) + ' (' + pct(t.liveBytes, h.liveBytes) + '%)'));
			if (t.functions.length)
				fnTable('heapthreadfns', t.functions, t.liveBytes, THREAD_ROWS);
		});
		if (h.sample) {
			main.appendChild(el('h3', 'heapsec', 'Largest sample by stack, at ' +
				at(h.sample.timeNs) + ' s (' + h.sample.stacks.length + ' holding any)' +
				(h.sample.outsideBytes ? ' (and ' + h.sample.outsideBytes +
					' bytes allocated in no context, not in %live)' : '')));
			stacks('heapsample', h.sample.stacks, h.sample.bytes, false);
		}
	}

	/* ---- drawing ---- */

	const RENDER = {functions: renderFunctions, graph: renderGraph, tree: renderTree,
			callers: renderCallers, flame: renderFlame, cycles: renderCycles, hot: renderHot,
			threads: renderThreads, hooks: renderHooks, heap: renderHeap};

	function render() {
		const c = currentView();
		renderHeader(c);
		renderBar(c);
		for (const [k] of TABS) {
			parts.tabs[k].classList.toggle('on', k === state.tab);
			parts.tabs[k].setAttribute('aria-selected', k === state.tab ? 'true' : 'false');
			parts.tabs[k].tabIndex = k === state.tab ? 0 : -1;
		}
		parts.main.setAttribute('aria-labelledby', 'tab-' + state.tab);
		if (parts.weight)
			for (const k in parts.weight)
				parts.weight[k].classList.toggle('on', k === state.weight);
		const active = document.activeElement;
		flameRefocus = !!(active && active.closest && active.closest('svg.flame') &&
			parts.main.contains(active));
		const main = clear(parts.main);
		main.dataset.tab = state.tab;
		if (!c.v) {
			clear(parts.current);
			return;
		}
		renderCurrent(c);
		RENDER[state.tab](c, main);
	}

	/* The flame graph fits the window: drawn again when its width changes. */
	let lastWidth = window.innerWidth, pending = false;
	window.addEventListener('resize', () => {
		if (state.tab !== 'flame' || pending || window.innerWidth === lastWidth)
			return;
		pending = true;
		window.requestAnimationFrame(() => {
			pending = false;
			lastWidth = window.innerWidth;
			render();
		});
	});

	buildFrame();
	render();
	document.documentElement.dataset.ready = '1';
})();
