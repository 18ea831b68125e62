/*
 * html_model.js - the HTML report's model (src/output/html/model.js) run
 * under node, printing a view in `ccprof report --json`'s shape
 * (docs/json.md) so that tests/html_model.py can compare the two member
 * by member.
 *
 * Usage: node tests/html_model.js DATA.json OPTIONS.json
 *   DATA     the page's data (the ccprof-data script element's text)
 *   OPTIONS  a list of option sets {"select": [...], "deselect": [...],
 *            "module": [...], "focus": [...], "onlyExported": bool}: one
 *            node for them all, as starting node costs more than a view
 * Prints a JSON list, for each option set one object: the report's header totals, "alloc"
 * (with allocation data: report --json's, the total with the bytes and
 * blocks before a thread's first call, and those), "view",
 * "functions", "arcs", "contexts", "tree", "callers" (the inverted tree
 * of every function of the view, as --callers '*' lists them), "cycles"
 * (as --cycles), "threads" (as --threads), "hot" (as --hot), "hook_cost" (as --hook-cost), "heap" (for a heap profile,
 * the live heap in report --json --heap's shape: its "heap" object, each
 * function's live members by id, the stacks holding any live bytes, and
 * each thread's live heap and functions as --heap --threads gives them),
 * "heap_chart" (the heap over time: each point's time, each sample's bands
 * by name as convert --to hp writes them, heap-svg's rows with their bytes
 * at each point), and
 * "warnings"; or {"error": LINE} when the view cannot
 * be made (a --focus that matches nothing).
 */
'use strict';

const fs = require('fs');
const path = require('path');
const model = require(path.join(__dirname, '..', 'src', 'output', 'html', 'model.js'));

const [dataFile, optsFile] = process.argv.slice(2);
const data = JSON.parse(fs.readFileSync(dataFile, 'utf8'));
const optionSets = JSON.parse(fs.readFileSync(optsFile, 'utf8'));
const p = model.load(data);
const secs = (ticks) => p.seconds(ticks);
const name = (id) => (id === null ? '<root>' : p.fns[id].name);

function allocMembers(out, pairs) {
	if (p.hasAlloc)
		for (const [key, value] of pairs)
			out[key] = value;
	return out;
}

function functionRow(f) {
	const fn = p.fns[f.id];
	return allocMembers({
		id: f.id, name: fn.name, ...(fn.full === undefined ? {} : {full: fn.full}), module: fn.module, build_id: fn.build_id, offset: fn.offset, file: fn.file,
		line: fn.line, calls: f.calls, root_calls: f.rootCalls, self_s: secs(f.selfTicks),
		inherited_s: secs(f.inhTicks),
	}, [['self_alloc_bytes', f.selfBytes], ['self_alloc_blocks', f.selfBlocks],
		['inherited_alloc_bytes', f.inhBytes], ['inherited_alloc_blocks', f.inhBlocks]]);
}

function arcRow(a) {
	return allocMembers({
		caller: name(a.caller), callee: name(a.callee), caller_id: a.caller,
		callee_id: a.callee, calls: a.calls, self_in_s: secs(a.selfIn),
		child_in_s: secs(a.childIn), self_out_s: secs(a.selfOut),
		child_out_s: secs(a.childOut),
	}, [['self_in_alloc_bytes', a.selfInBytes], ['child_in_alloc_bytes', a.childInBytes],
		['self_out_alloc_bytes', a.selfOutBytes], ['child_out_alloc_bytes', a.childOutBytes]]);
}

function contextRow(c) {
	return allocMembers({
		history: c.hist.map((e) => ({name: name(e.id), id: e.id, marked: e.marked})),
		entries: c.entries, recursive: c.recursive, time_s: secs(c.ticks),
	}, [['alloc_bytes', c.bytes], ['alloc_blocks', c.blocks]]);
}

/* A tree of the model as report --json writes it; without recursion,
 * since a history, so a tree, can be deep. */
function treeJson(root) {
	const convert = (node) => {
		const out = {name: node.gap ? node.name : name(node.id), id: node.id};
		if ('calls' in node)
			out.calls = node.calls;
		Object.assign(out, {entries: node.entries, individual_s: secs(node.indivTicks),
			inherited_s: secs(node.inhTicks)});
		allocMembers(out, [['individual_alloc_bytes', node.indivBytes],
			['inherited_alloc_bytes', node.inhBytes]]);
		out.children = [];
		return out;
	};
	const top = convert(root);
	const stack = [[root, top]];
	while (stack.length) {
		const [node, out] = stack.pop();
		for (const child of node.children) {
			const c = convert(child);
			out.children.push(c);
			stack.push([child, c]);
		}
	}
	return top;
}

function cycleRow(c) {
	return allocMembers({functions: c.functions, ids: c.ids, time_s: secs(c.ticks),
		entries: c.entries}, [['alloc_bytes', c.bytes], ['alloc_blocks', c.blocks]]);
}

function report(opts) {
	let v;
	try {
		v = model.view(p, opts);
	} catch (e) {
		return {error: e.message};
	}
	const out = {
		total_ticks: v.totalTicks, total_time_s: secs(v.totalTicks),
		root_time_s: secs(v.rootTicks), total_calls: v.totalCalls, ncontexts: v.contexts.length,
		alloc_in_contexts: {bytes: v.totalBytes, blocks: v.totalBlocks},
		warnings: v.warnings,
	};
	if (p.hasAlloc) /* report's total, with the bytes before a thread's first call */
		out.alloc = {bytes: v.allocBytes, blocks: v.allocBlocks, outside_bytes: v.outsideBytes,
			outside_blocks: v.outsideBlocks};
	if ((opts.focus || []).length || v.deselected.length) {
		out.view = {profile_total_time_s: secs(p.totalTicks)};
		if ((opts.focus || []).length)
			out.view.focus = v.focus.map(name);
		if (v.deselected.length)
			out.view.deselected = v.deselected.map(name);
	}
	const fns = v.functions();
	out.functions = fns.map(functionRow);
	out.arcs = v.arcs().map(arcRow);
	out.contexts = v.contexts.map(contextRow);
	out.tree = treeJson(v.tree());
	out.callers = fns.map((f) => f.id).sort((a, b) => a - b).map((id) => treeJson(v.callers(id)));
	out.cycles = v.cycles().map(cycleRow);
	out.threads = v.threads().map((t) => Object.assign(allocMembers({
		tid: t.tid, name: t.name, total_time_s: secs(t.totalTicks), total_calls: t.totalCalls,
	}, [['total_alloc_bytes', t.totalBytes]]), {functions: t.functions().map(functionRow)}));
	const hc = v.hookCost(), tickS = p.data.ticks_per_sec ? 1 / p.data.ticks_per_sec : 0;
	const g15 = (x) => Number(x.toPrecision(15)); /* report --json's %.15g */
	out.hook_cost = {ns_per_call: g15(hc.perCall * tickS * 1e9), calls: hc.calls,
		hooks_s: g15(hc.perCall * hc.calls * tickS), functions: hc.rows.map((f) => ({
			name: name(f.id), id: f.id, calls: f.calls, hooks_s: g15(hc.perCall * f.calls * tickS),
			self_per_call_ns: g15(f.selfTicks / f.calls * tickS * 1e9),
			self_bound_per_call_ns: g15(f.selfBoundTicks / f.calls * tickS * 1e9),
			hooks_outweigh: f.candidate})),
		exclude_file_list: hc.files, exclude_function_list: hc.names,
		unnamed: hc.clashing.map(name)};
	const hot = v.hot();
	out.hot = {context: hot.context && contextRow(hot.context), arm: hot.arm.map((n) => {
		const row = treeJson({id: n.id, entries: n.entries, indivTicks: n.indivTicks,
			inhTicks: n.inhTicks, indivBytes: n.indivBytes, inhBytes: n.inhBytes, children: []});
		delete row.children;
		return row;
	})};
	const h = v.heap();
	if (h) {
		out.heap = {heap: {
			interval_ns: h.intervalNs, peak_bytes: h.peakBytes,
			untracked_allocs: h.untrackedAllocs,
			live_bytes: h.liveBytes + h.outsideBytes, live_blocks: h.liveBlocks + h.outsideBlocks,
			outside_live_bytes: h.outsideBytes, outside_live_blocks: h.outsideBlocks,
			profile_live_bytes: h.profileLiveBytes + data.heap.outside_live_bytes,
			largest_sample: h.largest,
			samples: h.samples.map((x) => ({time_ns: x.timeNs, outside_bytes: x.outsideBytes,
				bytes: x.bytes})),
		}, functions: {}, stacks: h.stacks.filter((x) => x.bytes)
			.map((x) => [x.ids.map(name).join(' > '), x.bytes])};
		const byId = (list) => {
			const m = {};
			for (const f of list)
				m[f.id] = [f.selfBytes, f.selfBlocks, f.inhBytes, f.inhBlocks];
			return m;
		};
		out.heap.functions = byId(h.functions);
		out.heap.threads = h.threads.map((t) => ({tid: t.tid, total_live_bytes: t.liveBytes,
			functions: byId(t.functions)}));
	}
	const chart = v.heapChart();
	if (chart) /* the heap over time, as convert --to hp and heap-svg give it */
		out.heap_chart = {times_ns: chart.times, largest: chart.largest, peak_bytes: chart.peakBytes,
			samples: chart.samples.map((s) => ({time_ns: s.timeNs, outside_bytes: s.outsideBytes,
				bands: Array.from(s.bands, (band, j) => [chart.bandName(band), s.bytes[j]])})),
			rows: chart.rows.map((r) => ({name: r.name, values: r.values}))};
	out.arcs_into = {}; /* each function's callers and callees as --around lists them */
	out.arcs_out = {};
	for (const f of fns) {
		out.arcs_into[f.id] = v.arcsInto(f.id).map((a) => [a.caller, a.calls]);
		out.arcs_out[f.id] = v.arcsOutOf(f.id).map((a) => [a.callee, a.calls]);
	}
	return out;
}

process.stdout.write(JSON.stringify(optionSets.map(report)) + '\n');
