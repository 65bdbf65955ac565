// Turns the bench's measurements into the Markdown it prints and writes to bench/RESULTS.md: the machine, how
// each figure is measured, a summary of the goals, and one table per scenario.

import { burstsDetails, burstsSection } from './bursts-report.mjs';
import { pushDetails, pushSection } from './push-report.mjs';
import { writeOnceDetails, writeOnceSection } from './write-once.mjs';

export function median(values) {
	const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
	if (sorted.length === 0) return NaN;
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const thousands = (value) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a');
const ms = (value) => (Number.isFinite(value) ? `${thousands(value)} ms` : 'n/a');
const ratio = (value) => (Number.isFinite(value) ? `${value >= 10 ? value.toFixed(0) : value.toFixed(2)}x` : 'n/a');
/** n8n's CPU time per request of a side (undefined for sides without n8n). */
const cpuPerRequest = (figures) => (Number.isFinite(figures.cpuMs) ? `${(figures.cpuMs / figures.requests).toFixed(2)} ms` : 'no n8n');
const percent = (value) => (Number.isFinite(value) ? `${Math.round(value * 100)}%` : 'n/a');
const mib = (kib) => (Number.isFinite(kib) ? `${(kib / 1024).toFixed(1)} MiB` : 'n/a');
/** n8n's CPU time per request of a side, in ms (NaN for sides without n8n). */
const cpuMsPerRequest = (figures) => figures.cpuMs / figures.requests;
/**
 * Where n8n's time per request went, from the CPU profile of R10 (bench/README.md, 2026-11-25, taken after the
 * credential's authenticate became a function): a profile is not part of a plain run, so this is stated with its date.
 */
const R10_PROFILE =
	"From the CPU profile of R10 (bench/README.md, 2026-11-25, after the credential change): what is left per request is n8n's, not the node's: n8n's HTTP client opening a connection for every request (its request helper keeps none alive), garbage collection of the pages' items, and n8n's own SQLite writes during the run (about 3 of 6.4 ms per Order > Get item); the node's own code was 8-13% of the samples, the credential's authenticate about 0-1%.";
const verdict = (met) => (met === undefined ? 'n/a' : met ? '**met**' : '**missed**');

function table(header, rows) {
	const line = (cells) => `| ${cells.join(' | ')} |`;
	return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Medians and spread of one side's successful runs. */
function sideFigures(side) {
	const good = side.runs.filter((run) => run.ok);
	const times = good.map((run) => run.ms);
	return {
		label: side.label,
		runs: side.runs.length,
		failed: side.runs.length - good.length,
		problem: side.runs.find((run) => !run.ok)?.problem,
		ms: median(times),
		minMs: Math.min(...times),
		maxMs: Math.max(...times),
		requests: median(good.map((run) => run.requests.total)),
		failedRequests: median(good.map((run) => run.requests.failed)),
		itemsOut: median(good.map((run) => run.itemsOut)),
		growthKiB: median(good.map((run) => run.memory?.growthKiB)),
		cpuMs: median(good.map((run) => run.cpuMs)),
		peakReset: good.every((run) => run.memory?.peakReset !== false),
		fileBytes: good.map((run) => Object.values(run.binary ?? {})[0]?.bytes).find((bytes) => Number.isFinite(bytes)),
		/** The most requests open at once in any run (the sandbox's count). */
		maxInFlight: Math.max(...good.map((run) => run.requests.maxInFlight ?? NaN)),
		runsDetail: side.runs,
	};
}

function sidesOf(result) {
	return Object.fromEntries(result.sides.map((side) => [side.key, sideFigures(side)]));
}

/** Requests in flight on average: requests x added latency / wall time (1 = one after another). */
function effectiveParallelOf(figures, latencyMs) {
	return figures.requests * latencyMs / figures.ms;
}

function timeCell(figures) {
	if (!Number.isFinite(figures.ms)) return `failed: ${figures.problem ?? 'no run'}`;
	const spread = figures.runs > 1 && figures.failed < figures.runs ? ` (${thousands(figures.minMs)}-${thousands(figures.maxMs)})` : '';
	return `${ms(figures.ms)}${spread}`;
}

function runsCell(figures) {
	return figures.failed > 0 ? `${figures.runs} (${figures.failed} failed)` : String(figures.runs);
}

function requestsCell(figures) {
	return figures.failedRequests > 0 ? `${thousands(figures.requests)} (${thousands(figures.failedRequests)} failed)` : thousands(figures.requests);
}

// ---------------------------------------------------------------------------------------------------------------
// One section per scenario: its table, its goals (for the summary) and notes.

function consumptionSection(result, context) {
	const sides = sidesOf(result);
	const pages = context.consumptionMeta?.pageCount ?? NaN;
	const lines = context.consumptionMeta?.itemCount ?? NaN;
	const latency = context.latencyMs;
	const concurrency = context.limits.pageConcurrency;
	const limit = (parallel) => Math.ceil(pages / parallel) * latency;
	const parallelOf = { ours: concurrency, oursMax: 10, codePeer: concurrency, peer: 1, bareParallel: concurrency, bareSequential: 1 };
	const withMax = sides.oursMax ? `; with 10 parallel pages ${ratio(sides.peer.ms / sides.oursMax.ms)}` : '';
	const rows = result.sides.map((side) => {
		const figures = sides[side.key];
		const sideLimit = limit(parallelOf[side.key]);
		return [
			figures.label,
			runsCell(figures),
			timeCell(figures),
			requestsCell(figures),
			thousands(figures.itemsOut),
			ratio(sides.peer.ms / figures.ms),
			`${ratio(figures.ms / sideLimit)} of ${ms(sideLimit)}${parallelOf[side.key] === 1 ? ' (one at a time)' : ` (${parallelOf[side.key]} at a time)`}`,
			cpuPerRequest(figures),
		];
	});
	const oursLimit = limit(concurrency);
	const speedup = sides.peer.ms / sides.ours.ms;
	const roundTrips = 1 + Math.ceil((pages - 1) / concurrency);
	const effectiveParallel = (figures) => effectiveParallelOf(figures, latency).toFixed(1);

	const toCode = sides.ours.ms / sides.codePeer.ms;
	const toBare = sides.ours.ms / sides.bareParallel.ms;
	const perRequest = (figures) => `${ms((figures.ms - sides.bareParallel.ms) / roundTrips)} more per round trip than the plain client`;
	const goals = [
		{
			scenario: '1. Consumption export',
			goal: `Return All within 1.3x the Code-node peer (n8n's request helper, ${concurrency} pages at a time)`,
			figure: `${ratio(toCode)} (${ms(sides.ours.ms)} vs ${ms(sides.codePeer.ms)}); ${ratio(speedup)} faster than the HTTP Request node${withMax}`,
			met: Number.isFinite(toCode) ? toCode <= 1.3 : undefined,
			why: `Both send the same ${thousands(pages)} requests ${concurrency} at a time through n8n's request helper. In this run n8n's process spent ${cpuPerRequest(sides.ours)} of CPU per request for ours and ${cpuPerRequest(sides.codePeer)} for the Code node (its own JavaScript runs in the task runner, outside that figure); in wall time ${perRequest(sides.ours)} for ours, ${perRequest(sides.codePeer)} for the Code node. What ours adds is the credential path of \`httpRequestWithAuthentication\` and the node's handling of each answer and item. ${R10_PROFILE} Reaching 1.3x needs n8n to spend less per request (keeping connections alive in its request helper, fewer writes while a run is in progress): outside what the node controls.`,
		},
		{
			scenario: '1. Consumption export',
			goal: `Return All within 1.5x a plain client (no n8n, ${concurrency} pages at a time)`,
			figure: `${ratio(toBare)} (${ms(sides.ours.ms)} vs ${ms(sides.bareParallel.ms)}); the limit ceil(${pages} / ${concurrency}) x ${latency} ms = ${ms(oursLimit)}: ours ${ratio(sides.ours.ms / oursLimit)}, the plain client ${ratio(sides.bareParallel.ms / oursLimit)}`,
			met: Number.isFinite(toBare) ? toBare <= 1.5 : undefined,
			why: `Ours keeps ${effectiveParallel(sides.ours)} requests in flight on average where ${concurrency} would be the latency-bound figure: every request costs n8n ${cpuPerRequest(sides.ours)} of CPU in this run (${perRequest(sides.ours)} in wall time), on 2 shared cores where the sandbox and the driver run too. The Code-node row shows how much of it any n8n node pays (${ratio(sides.codePeer.ms / sides.bareParallel.ms)} the plain client). ${R10_PROFILE}`,
		},
	];
	const notes = [
		`${thousands(lines)} lines in ${thousands(pages)} pages of ${context.limits.maxPageSize}. Our transport reads page 1 (for the page count), then the other ${thousands(pages - 1)} pages ${concurrency} at a time: ${thousands(roundTrips)} round trips, ${ms(sides.ours.ms / roundTrips)} each here, of which ${latency} ms is the added latency.`,
		`The HTTP Request node reads pages one after another (its pagination has no parallel option), so with ${concurrency} parallel pages ours can be at most about ${ratio(pages / roundTrips)} faster when latency dominates. Its time includes Split Out, which turns its one item per page into one item per line as ours returns them.`,
		'The two reference rows are plain `fetch` from the bench driver, without n8n, against the same sandbox in the same rounds: what the sandbox allows any client (its own work per page on one thread, which the limit formula leaves out). The gap between ours and the parallel reference is what n8n and the node add.',
		`The Code-node row is the same paging written by hand in n8n's Code node with \`this.helpers.httpRequest\` (the key in a header, no credential): the fastest any n8n node could be, in the same n8n. It runs in n8n's task runner; a Code node before it starts the runner, so its time holds no runner start-up.`,
	];
	notes.push(
		'n8n CPU per request: the n8n process\'s CPU time (user + system, `process.cpuUsage()` read by the bench hook when the workflow starts and ends) over the requests. It covers everything the process does for the run; the Code node\'s own JavaScript runs in the task runner\'s process and is not in it.',
	);
	return { rows, header: ['side', 'runs', 'wall time, median (min-max)', 'requests', 'items out', 'faster than HTTP Request', 'against the limit', 'n8n CPU per request'], goals, notes };
}

function importSection(result, context, kind) {
	const sides = sidesOf(result);
	const units = context.unitCount;
	const limitRequests = kind === 'memory' ? Math.ceil(units / context.limits.memoryUnitsPerRequest) : Math.ceil(units / context.limits.contentMaxBatch);
	const rows = result.sides.map((side) => {
		const figures = sides[side.key];
		return [figures.label, runsCell(figures), timeCell(figures), requestsCell(figures), thousands(figures.itemsOut), ratio(sides.peer.ms / figures.ms), `${thousands(figures.requests)} / ${limitRequests}`];
	});
	const speedup = sides.peer.ms / sides.ours.ms;
	const name = kind === 'memory' ? '2. Memory import' : '3. Content import';
	const limitText =
		kind === 'memory'
			? `ceil(${thousands(units)} / ${context.limits.memoryUnitsPerRequest}) = ${limitRequests} (the API takes at most ${context.limits.memoryUnitsPerRequest} units per request)`
			: `ceil(${thousands(units)} / ${context.limits.contentMaxBatch}) = ${limitRequests} (the node's largest Batch Size; the API documents no maximum)`;
	const goals = [
		{
			scenario: name,
			goal: `requests at the limit, ${limitText}`,
			figure: `${thousands(sides.ours.requests)} requests${kind === 'content' ? ` with the default Batch Size (${context.limits.contentDefaultBatch})${sides.oursMax ? `; ${thousands(sides.oursMax.requests)} with Batch Size ${context.limits.contentMaxBatch}` : ''}` : ''}`,
			met: Number.isFinite(sides.ours.requests) ? sides.ours.requests <= limitRequests : undefined,
			why:
				kind === 'content'
					? `The default Batch Size is ${context.limits.contentDefaultBatch} units, so ${thousands(units)} units take ${Math.ceil(units / context.limits.contentDefaultBatch)} requests; at Batch Size ${context.limits.contentMaxBatch} they take ${limitRequests}. A default at the maximum, or batches cut by body size (the sandbox takes up to 10 MB), reaches it (request R3).`
					: 'The node sends more requests than the API needs; check the batching in Import Items.',
		},
		{
			scenario: name,
			goal: 'wall time at least 50x faster than per-item requests',
			figure: `${ratio(speedup)} (${ms(sides.ours.ms)} vs ${ms(sides.peer.ms)})`,
			met: Number.isFinite(speedup) ? speedup >= 50 : undefined,
			why: `The requests are few; the time goes into reading the unit fields of each item. Every field is a node parameter holding an expression (\`={{ $json.sourceText }}\`), evaluated per item through n8n 2.40's isolated expression engine at about half a millisecond each: ${kind === 'memory' ? 4 : 3} fields x ${thousands(units)} items. A profile (\`--profile\`) puts over 90% of the node's time in getNodeParameter.${sides.oursFromField ? ` The diagnostic row (one item holding the list: one expression) takes ${ms(sides.oursFromField.ms)} for the same requests.` : ''} Reading plain \`$json.field\` mappings straight from the item, and constant parameters once, reaches the goal (request R1${kind === 'memory' ? ', with R2: import requests 4 at a time' : ', with R3'}).`,
		},
	];
	const notes = [
		'Input: an Edit Fields node builds the units with one expression and Split Out makes one item per unit; both sides get the same items. Times are the measured node(s) only.',
		"The HTTP Request node sends every item's request at once (it starts all of them, then waits for all): its time is the sandbox and n8n working through that many requests in parallel, not that many round trips one after another.",
	];
	if (kind === 'memory') {
		notes.push(
			sides.peerBatched.ms < sides.ours.ms
				? `The batched HTTP Request workflow (${ms(sides.peerBatched.ms)}) beats our node (${ms(sides.ours.ms)}) with the same ${thousands(sides.ours.requests)} requests: the difference is how the node reads each item, not the requests.`
				: `Our node (${ms(sides.ours.ms)}) is ${ratio(sides.peerBatched.ms / sides.ours.ms)} faster than the batched HTTP Request workflow (${ms(sides.peerBatched.ms)}) with the same ${thousands(sides.ours.requests)} requests, and needs one node instead of three and a loop.`,
		);
		notes.push(
			'Batched without code: Loop Over Items in batches of 1000, Aggregate (All Item Data) into `items`, one HTTP Request per batch with the body `{{ { items: $json.items } }}`, back into the loop. Its time is the loop from its first start to the last request.',
		);
	}
	return { rows, header: ['side', 'runs', 'wall time, median (min-max)', 'requests', 'items out', 'faster than per-item HTTP Request', 'requests / limit'], goals, notes };
}

function xlsxSection(result) {
	const sides = sidesOf(result);
	const fileBytes = sides.ours.fileBytes ?? sides.peer.fileBytes;
	const fileKiB = fileBytes / 1024;
	const extra = (side, baseline) => side.growthKiB - baseline.growthKiB;
	const oursExtra = extra(sides.ours, sides.oursBaseline);
	const peerExtra = extra(sides.peer, sides.peerBaseline);
	/** The spread of extra / file size: every export run against the median baseline. */
	const spread = (side, baseline) => {
		const ratios = side.runsDetail.filter((run) => run.ok).map((run) => (run.memory.growthKiB - baseline.growthKiB) / fileKiB);
		return ratios.length > 1 ? ` (runs ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}x)` : '';
	};
	const growthRange = (side) => {
		const values = side.runsDetail.filter((run) => run.ok).map((run) => run.memory.growthKiB);
		return values.length > 1 ? ` (${(Math.min(...values) / 1024).toFixed(1)}-${(Math.max(...values) / 1024).toFixed(1)})` : '';
	};
	const rows = [
		[sides.oursBaseline.label, runsCell(sides.oursBaseline), timeCell(sides.oursBaseline), `${mib(sides.oursBaseline.growthKiB)}${growthRange(sides.oursBaseline)}`, '', ''],
		[sides.ours.label, runsCell(sides.ours), timeCell(sides.ours), `${mib(sides.ours.growthKiB)}${growthRange(sides.ours)}`, mib(oursExtra), `${ratio(oursExtra / fileKiB)}${spread(sides.ours, sides.oursBaseline)}`],
		[sides.peerBaseline.label, runsCell(sides.peerBaseline), timeCell(sides.peerBaseline), `${mib(sides.peerBaseline.growthKiB)}${growthRange(sides.peerBaseline)}`, '', ''],
		[sides.peer.label, runsCell(sides.peer), timeCell(sides.peer), `${mib(sides.peer.growthKiB)}${growthRange(sides.peer)}`, mib(peerExtra), `${ratio(peerExtra / fileKiB)}${spread(sides.peer, sides.peerBaseline)}`],
	];
	const goals = [
		{
			scenario: '4. XLSX export',
			goal: 'peak memory under 3x the file size',
			figure: `${ratio(oursExtra / fileKiB)}${spread(sides.ours, sides.oursBaseline)}: ${mib(oursExtra)} for a ${mib(fileKiB)} file; HTTP Request node ${ratio(peerExtra / fileKiB)}`,
			met: Number.isFinite(oursExtra) && fileKiB > 0 ? oursExtra < 3 * fileKiB : undefined,
			why:
				'Peak growth counts everything the process allocates during the export, garbage included, until the garbage collector runs. ' +
				'The two causes the bench found in the node are fixed (bench/README.md, R7: the answer is streamed into the store, not held whole; R11: the API-key check runs on the way, without a second pass copying chunks). ' +
				`What is left is what moving the bytes allocates before a collection: in this run the HTTP Request node, which only downloads, measured ${ratio(peerExtra / fileKiB)}${spread(sides.peer, sides.peerBaseline)}, ` +
				`and ours ranged ${spread(sides.ours, sides.oursBaseline).replace(/^ \(runs |\)$/g, '') || ratio(oursExtra / fileKiB)}. A heap profile of a run over 3x (not taken) would show whether any of it is still the node's.`,
		},
	];
	const notes = [
		`File: ${thousands(fileBytes)} bytes (${mib(fileKiB)}), 100,000 rows, streamed by the sandbox as it is generated. Wall time is mostly the sandbox writing the spreadsheet (exceljs), the same for both sides.`,
		'Memory: inside the n8n process that runs the workflow, the bench hook resets the peak resident set size (VmHWM, `echo 5 > /proc/self/clear_refs`) when the workflow starts and reads it when it ends. "Peak growth" is that peak minus the resident size at the start. "Export extra" is the export run\'s growth minus the baseline run\'s growth (the same node reading the same order as JSON), both medians.' +
			(sides.ours.peakReset ? '' : ' The kernel refused the reset here, so the peaks include n8n\'s start-up.'),
	];
	notes.push(
		'A baseline run allocates 15-25 MiB on its own (loading the node\'s code and n8n\'s expression isolate), and where in that range it lands depends on the garbage collector: the spreads show how far one run can be from the median.',
	);
	return { rows, header: ['side', 'runs', 'wall time, median (min-max)', 'peak growth during the run, MiB median (min-max)', 'export extra (minus baseline)', 'extra / file size'], goals, notes };
}

function perItemSection(result, context) {
	const sides = sidesOf(result);
	const count = context.perItemCount;
	const latency = context.latencyMs;
	const peer = sides.peer;
	// The read concurrencies ours ran at (the default, and Read Concurrency raised), each beside a plain client at the same.
	const levels = result.sides.filter((side) => !side.bare && side.concurrency !== undefined).map((side) => side.concurrency);
	const ours = (level) => sides[`ours${level}`];
	const bare = (level) => sides[`bare${level}`];
	const inFlight = (figures) => effectiveParallelOf(figures, latency).toFixed(1);
	const cpuToPeer = (figures) => cpuMsPerRequest(figures) / cpuMsPerRequest(peer);
	const rows = result.sides.map((side) => {
		const figures = sides[side.key];
		const oursAt = !side.bare && side.concurrency !== undefined;
		return [
			figures.label,
			runsCell(figures),
			timeCell(figures),
			requestsCell(figures),
			`${(figures.ms / count).toFixed(2)} ms`,
			inFlight(figures),
			thousands(figures.maxInFlight),
			ratio(peer.ms / figures.ms),
			oursAt ? ratio(figures.ms / bare(side.concurrency).ms) : '',
			cpuPerRequest(figures),
			oursAt ? ratio(cpuToPeer(figures)) : '',
		];
	});
	const goals = [];
	for (const level of levels) {
		const figures = ours(level);
		const reference = bare(level);
		const toBare = figures.ms / reference.ms;
		const gap = figures.ms - reference.ms;
		// n8n's CPU over the execution per ms of the node's wall time: near 1 or more, n8n's CPU set the pace.
		const busy = figures.cpuMs / figures.ms;
		// Below that, each item's work still sits between its answer and its slot's next request: count / level cycles
		// per slot, each carrying one item's CPU time.
		const cycles = count / level;
		const inSlots = cycles * cpuMsPerRequest(figures);
		const head = `At ${level} at a time the plain client kept ${inFlight(reference)} requests in flight on average and ours ${inFlight(figures)} (at most ${thousands(figures.maxInFlight)} open at once): ours took ${ms(gap)} longer, ${(gap / count).toFixed(2)} ms per item.`;
		const cpu = `n8n's process used ${ms(figures.cpuMs)} of CPU in the execution (${cpuPerRequest(figures)} per request), ${percent(busy)} of the ${ms(figures.ms)} the Ollang node ran`;
		const attributed =
			inSlots >= 0.8 * gap
				? `, most of the gap.`
				: ` of the ${ms(gap)} gap; the other ${ms(gap - inSlots)} this run's figures do not attribute (slots waiting on each other's work, or the cores shared with the sandbox and the driver: a \`--profile\` run would show which).`;
		goals.push({
			scenario: '6. Order > Get per item',
			goal: `within 1.2x a plain client at the same concurrency (${level} at a time)`,
			figure: `${ratio(toBare)} (${ms(figures.ms)} vs ${ms(reference.ms)})`,
			met: Number.isFinite(toBare) ? toBare <= 1.2 : undefined,
			why:
				busy >= 0.8
					? `${head} ${cpu}: n8n's CPU set the pace, not the round trips (its work for the ${thousands(count)} items took about as long as the node ran), on ${context.cores} cores shared with the sandbox and the driver. ${R10_PROFILE}`
					: `${head} ${cpu}: not saturated, but each item's work sits between its answer and its slot's next request, about ${thousands(cycles)} cycles per slot x ${cpuPerRequest(figures)} = ${ms(inSlots)}${attributed} ${R10_PROFILE}`,
		});
	}
	const everyLevel = levels.map((level) => `${ratio(cpuToPeer(ours(level)))} at ${level} at a time`).join(', ');
	for (const level of levels) {
		const figures = ours(level);
		const share = cpuToPeer(figures);
		goals.push({
			scenario: '6. Order > Get per item',
			goal: `n8n CPU per request at most 0.7x the HTTP Request node's (ours at ${level} at a time)`,
			figure: `${ratio(share)} (${cpuPerRequest(figures)} vs ${cpuPerRequest(peer)})`,
			met: Number.isFinite(share) ? share <= 0.7 : undefined,
			why: `In this run n8n's process spent ${cpuPerRequest(figures)} of CPU per request with ours at ${level} at a time and ${cpuPerRequest(peer)} with the HTTP Request node, ${ratio(share)} (${everyLevel}). The figure is the whole execution's (the two input nodes, the same on both sides, included); where ours spends it is not in this run's figures but in a profile (\`npm run bench -- --only perItem --rounds 1 --profile\`). ${R10_PROFILE}`,
		});
	}
	const notes = [
		`Requests in flight on average = requests x ${latency} ms / wall time (1 means one after another). Most open at once: the sandbox's count of requests open at the same time (\`maxInFlight\` of \`GET /__sandbox/requests\`), the largest over the rounds. Ours runs Read Concurrency items at a time (${levels.join(' and ')} here), each plain client as many as its row says; the HTTP Request node had at most ${thousands(peer.maxInFlight)} of its ${thousands(count)} requests open at once.`,
		"n8n CPU per request: the n8n process's CPU time (user + system, `process.cpuUsage()` read by the bench hook when the workflow starts and ends) over the requests. It covers the whole execution, the two input nodes (Edit Fields and Split Out, the same on every side) included.",
	];
	if (levels.length > 1) {
		const [low, high] = [levels[0], levels[levels.length - 1]];
		const versusPeer =
			peer.ms < ours(high).ms
				? `The HTTP Request node (${ms(peer.ms)}) was ${ratio(ours(high).ms / peer.ms)} faster than ours at ${high}.`
				: `Ours at ${high} was ${ratio(peer.ms / ours(high).ms)} faster than the HTTP Request node (${ms(peer.ms)}).`;
		notes.push(
			`From ${low} to ${high} at a time, ours went from ${ms(ours(low).ms)} to ${ms(ours(high).ms)} (${ratio(ours(high).ms / ours(low).ms)} the time) and the plain client from ${ms(bare(low).ms)} to ${ms(bare(high).ms)} (${ratio(bare(high).ms / bare(low).ms)}). ${versusPeer}`,
		);
	}
	return {
		rows,
		header: [
			'side',
			'runs',
			'wall time, median (min-max)',
			'requests',
			'per item',
			'requests in flight (average)',
			'most open at once',
			'faster than HTTP Request',
			'against the plain client at the same concurrency',
			'n8n CPU per request',
			"CPU per request / HTTP Request node's",
		],
		goals,
		notes,
	};
}

function triggerSection(result) {
	const rows = [];
	for (const account of result.accounts) {
		for (const figures of account.medians) {
			rows.push([
				account.account,
				thousands(account.watchedOrders),
				String(figures.changed),
				String(figures.polls),
				thousands(figures.requests),
				`${thousands(figures.listRequests)} + ${thousands(figures.detailRequests)}`,
				ms(figures.ms),
				thousands(figures.itemsEmitted),
				figures === account.medians[0] && Number.isFinite(account.staticDataBytes) ? `${thousands(account.staticDataBytes)} B (${(account.staticDataBytes / account.watchedOrders).toFixed(0)} B per order)` : '',
			]);
		}
	}
	const find = (prefix, changed) => result.accounts.find((account) => account.account.startsWith(prefix))?.medians.find((figures) => figures.changed === changed);
	const small = find('1,000 orders, all', 0);
	const large = find('2,000 orders, all', 0);
	const huge = find('10,000 orders, all', 0);
	const small50 = find('1,000 orders, all', 50);
	const followsChanges = small50 && small ? small50.requests - small.requests : NaN;
	const goals = [
		{
			scenario: '5. Trigger poll',
			goal: 'requests per poll follow what changed, never the account size',
			figure: `0 changed: ${thousands(small?.requests)} requests watching 1,000 orders, ${thousands(large?.requests)} watching 2,000, ${thousands(huge?.requests)} (${ms(huge?.ms)} a poll) watching 10,000; 50 changed adds ${thousands(followsChanges)}`,
			met: small && large ? large.requests === small.requests : undefined,
			why: `Each poll lists every watched order, ${thousands(small?.listRequests)} pages for 1,000 and ${thousands(large?.listRequests)} for 2,000, and re-reads unchanged ones in rotation (${thousands(small?.detailRequests)} and ${thousands(large?.detailRequests)}${small?.detailRequests === large?.detailRequests ? ', a fixed number per poll' : ''}); what changed costs one detail read per order on top. The listing is there because the API offers no way to ask what changed: list rows carry no update time or events, nothing filters or sorts on changes, its callbacks cover completions only (the Ollang Callback Trigger, scenario 9), not delivery events, and a re-delivery changes no listed field. Only the API can make it independent of the account (an update time on list rows with a filter on it, or an events feed); in the node the watch window (default 14 days) bounds it (request R8), and for completions push costs one read each (scenario 9).`,
		},
	];
	const notes = [
		'In-process: the trigger\'s real `poll()` (from source, through tsx) run by n8n-core\'s PollContext and PollTriggerExecutor (test/harness/poll.cts), keeping static data as an active workflow does, against an in-process sandbox with the same latency. `n8n execute` does not poll triggers, and an active workflow polls at most once a minute.',
		'"Changed": orders moved to delivered (their listed status changes and they gain ai_delivered and order_delivered events). The clock stands still during the measured polls so that nothing else changes. A poll lists every watched order (pages of 50) and reads in detail the changed ones plus some unchanged ones in rotation (a re-delivery changes no listed field, so only a detail read finds it).',
	];
	notes.push(
		'Static data: the node\'s bucket as n8n saves it to its database after a poll that emits (the median over the emitting polls, serialized as JSON). n8n writes it with every emitting poll; a poll that emits nothing changes it in memory only.',
	);
	return { rows, header: ['account', 'watched orders', 'changed', 'polls', 'requests per poll', 'list + detail', 'time per poll', 'events emitted', 'static data saved per emitting poll'], goals, notes };
}

function scaleSection(result) {
	const good = result.points.filter((point) => point.ok);
	const rows = result.points.map((point) =>
		point.ok
			? [thousands(point.lines), thousands(point.requests), ms(point.ms), `${(point.ms / (point.lines / 1000)).toFixed(1)} ms`, mib(point.peakKiB), `${((point.peakKiB * 1024) / point.lines).toFixed(0)} B`]
			: [thousands(point.lines), 'failed', point.problem ?? '', '', '', ''],
	);
	// Linear: from the second point to the last (the first is mostly fixed cost), the cost per line stays within 1.5x.
	const [from, to] = [good[good.length - 2], good[good.length - 1]];
	const perLine = (point, key) => point[key] / point.lines;
	const growth = (key) => (from && to ? perLine(to, key) / perLine(from, key) : NaN);
	const span = from && to ? `${thousands(from.lines)} to ${thousands(to.lines)} lines` : 'two points needed';
	const goals = [
		{
			scenario: '7. Scale',
			goal: 'time linear in the lines (per line within 1.5x from the middle point to the largest)',
			figure: `${span}: ${ratio(growth('ms'))} the time per line`,
			met: Number.isFinite(growth('ms')) ? growth('ms') <= 1.5 : undefined,
			why: 'Time per line grows with the account: something in a page\'s handling costs more as the lines grow (the sandbox listing, or n8n holding more items), read it from a profile.',
		},
		{
			scenario: '7. Scale',
			goal: 'n8n peak memory linear in the lines (per line within 1.5x from the middle point to the largest)',
			figure: `${span}: ${ratio(growth('peakKiB'))} the peak per line; ${to ? `${((to.peakKiB * 1024) / to.lines).toFixed(0)} B per line at ${thousands(to.lines)}` : 'n/a'}`,
			met: Number.isFinite(growth('peakKiB')) ? growth('peakKiB') <= 1.5 : undefined,
			why: 'The peak per line grows with the account: pages are held more than once (answers and items at the same time) until the node returns.',
		},
	];
	const notes = [
		'Each point is its own sandbox (`bench/sandbox-volume.cts`: the small volume with that many consumption lines), the same latency, one run of Consumption > Get Many with Return All in a fresh `n8n execute`. Peak growth: the n8n process\'s peak resident size during the run minus its resident size at the start (as in scenario 4). Every line is an output item n8n holds in memory until the execution ends.',
	];
	return { rows, header: ['lines', 'requests', 'wall time', 'per 1,000 lines', 'n8n peak growth', 'peak growth per line'], goals, notes };
}

function queueSection(result) {
	const [regular, queue] = result.modes;
	const spread = (mode) => (mode.perWorker ? `${mode.perWorker.join(' / ')}${mode.onNoWorker ? ` (${mode.onNoWorker} by no worker)` : ''}` : 'the main runs them');
	const failuresCell = (mode) => (mode.failures > 0 ? `${mode.failures} (${mode.firstProblem})` : '0');
	const rows = result.modes.map((mode) => [
		mode.mode === 'regular' ? 'regular mode: one main process' : `queue mode: main + ${result.workers} workers (Redis)`,
		`${thousands(mode.finished)} of ${thousands(mode.executions)}`,
		String(mode.concurrency),
		ms(mode.wallMs),
		mode.perSecond.toFixed(2),
		failuresCell(mode),
		thousands(mode.requests),
		spread(mode),
	]);
	const failures = regular.failures + queue.failures;
	const goals = [
		{
			scenario: '8. Queue mode',
			goal: `${thousands(result.executions)} executions in each mode, failures 0`,
			figure: `regular ${regular.perSecond.toFixed(2)}/s, queue mode over ${result.workers} workers ${queue.perSecond.toFixed(2)}/s (${ratio(queue.perSecond / regular.perSecond)}); failures ${regular.failures} and ${queue.failures}; per worker ${spread(queue)}`,
			met: failures === 0,
			why: `Failed executions: regular mode ${failuresCell(regular)}, queue mode ${failuresCell(queue)}. Read the n8n processes' output for the cause.`,
		},
	];
	const notes = [
		`Each execution is one POST to a production webhook (Webhook > Ollang Order > Get of the order in the body), ${result.concurrency} requests at a time; the Webhook answers when the workflow has finished ("When Last Node Finishes"), and the answer must be the order asked for. Wall time: first request to the last execution finished (the later of the last answer and the latest stop time n8n recorded); executions per second = executions recorded / wall time.`,
		`Both modes use the same private PostgreSQL (n8n's executions are saved, as by default); queue mode adds Redis and ${result.workers} \`n8n worker\` processes (concurrency 10 each) beside the main, all started and stopped by process id (scripts/n8n/queue-mode.mjs, as the queue-mode e2e suite). "Failures": executions not recorded as success, or answers that were not the order.`,
		'Spread: executions per worker, from each worker\'s "Worker started execution" log lines. On this 2-core machine the main, the workers, PostgreSQL, Redis, the sandbox and the driver share the same cores, so queue mode shows how the work is spread and that nothing is lost, not the throughput of workers on machines of their own.',
	];
	return { rows, header: ['mode', 'executions finished', 'at a time', 'wall time', 'executions per second', 'failures', 'API requests', 'executions per worker'], goals, notes };
}

/** The large deliverable: time and peak memory of our download beside the HTTP Request node's, over their baselines. */
function downloadSection(result) {
	const sides = sidesOf(result);
	const fileKiB = (sides.ours.fileBytes ?? sides.peer.fileBytes) / 1024;
	const row = (side, baseline) => [side.label, runsCell(side), timeCell(side), mib(side.growthKiB), baseline ? mib(side.growthKiB - baseline.growthKiB) : ''];
	const rows = [row(sides.oursBaseline), row(sides.ours, sides.oursBaseline), row(sides.peerBaseline), row(sides.peer, sides.peerBaseline)];
	const timeRatio = sides.ours.ms / sides.peer.ms;
	const goals = [
		{
			scenario: '10. Large deliverable',
			goal: 'peak memory at most 64 MiB above the idle process',
			figure: `${mib(sides.ours.growthKiB)} for a ${mib(fileKiB)} file; HTTP Request node ${mib(sides.peer.growthKiB)}`,
			met: Number.isFinite(sides.ours.growthKiB) ? sides.ours.growthKiB <= 64 * 1024 : undefined,
			why: 'The file streams from the storage host into the filesystem store (prepareBinaryData with the response stream); the growth is what moving the bytes allocates before a collection, as for the HTTP Request node.',
		},
		{
			scenario: '10. Large deliverable',
			goal: "time within 1.2x of the HTTP Request node's",
			figure: `${ms(sides.ours.ms)} against ${ms(sides.peer.ms)} (${timeRatio.toFixed(2)}x)`,
			met: Number.isFinite(timeRatio) ? timeRatio <= 1.2 : undefined,
			why: 'Both read the order (one API request) and fetch the signed link with n8n\'s own HTTP helper into the same store.',
		},
	];
	const notes = [
		`File: ${thousands(Math.round(fileKiB * 1024))} bytes, an MP4 the sandbox's storage host generates as it sends it (sandbox/README.md, "Files"), on a second port, fetched without the API key by both sides. n8n runs with N8N_DEFAULT_BINARY_DATA_MODE=filesystem (in the default memory mode any downloader holds the whole file).`,
		'Peak growth: the peak resident set size during the run minus the resident size at its start (the bench hook resets the peak when the workflow starts). Time: our node; the HTTP Request side is both its nodes (GET the order for the link, then the link).',
	];
	return { rows, header: ['side', 'runs', 'wall time, median (min-max)', 'peak growth during the run, MiB (median)', 'minus baseline'], goals, notes };
}

const SECTION_BUILDERS = {
	consumption: consumptionSection,
	memory: (result, context) => importSection(result, context, 'memory'),
	content: (result, context) => importSection(result, context, 'content'),
	xlsx: xlsxSection,
	trigger: triggerSection,
	perItem: perItemSection,
	scale: scaleSection,
	queue: queueSection,
	push: pushSection,
	download: downloadSection,
	bursts: burstsSection,
	writeOnce: writeOnceSection,
};

function runDetails(result) {
	if (result.perOrder) return pushDetails(result);
	if (result.key === 'bursts') return burstsDetails(result);
	if (result.key === 'writeOnce') return writeOnceDetails(result);
	if (result.modes) {
		return result.modes.map((mode) => `- ${mode.mode}: ${Math.round(mode.wallMs)} ms, ${JSON.stringify(mode.byStatus)}, ${mode.requests} req${mode.perWorker ? `, per worker ${mode.perWorker.join('/')}` : ''}`).join('\n');
	}
	if (result.points) {
		return result.points.map((point) => `- ${point.lines} lines: ${point.ok ? `${Math.round(point.ms)} ms/${point.requests} req/+${(point.peakKiB / 1024).toFixed(0)} MiB` : `failed: ${point.problem}`}`).join('\n');
	}
	if (result.inProcess) {
		return result.accounts
			.map((account) => `- ${account.account}: ${account.byChange.map(({ changed, polls }) => `${changed} changed: ${polls.map((poll) => `${Math.round(poll.ms)} ms/${poll.requests} req`).join(', ')}`).join('; ')}`)
			.join('\n');
	}
	return result.sides
		.map((side) => {
			const runs = side.runs.map((run) =>
				run.ok
					? `${Math.round(run.ms)} ms/${run.requests.total} req${Number.isFinite(run.requests.maxInFlight) ? ` (${run.requests.maxInFlight} at once)` : ''}${run.memory ? `/+${(run.memory.growthKiB / 1024).toFixed(0)} MiB` : ''}`
					: 'failed',
			);
			return `- ${side.key}: ${runs.join(', ')}`;
		})
		.join('\n');
}

export function formatReport({ results, machine, latencyMs, limits, consumptionMeta, unitCount, perItemCount, elapsedMs, command }) {
	const context = { latencyMs, limits, consumptionMeta, unitCount, perItemCount, cores: machine.nproc };
	const sections = results.map((result) => ({ result, ...SECTION_BUILDERS[result.key](result, context) }));
	const goals = sections.flatMap((section) => section.goals);
	const minutes = (elapsedMs / 60_000).toFixed(1);
	const out = [];
	out.push('# Benchmarks: the Ollang node beside the HTTP Request node, and against the limits');
	out.push('');
	out.push(
		`Written by \`${command}\` (${minutes} min). Every figure comes from this one run on this machine: medians of alternating rounds, each side in a fresh \`n8n execute\` process (scenarios 8 and 9: n8n servers started for them), all against the same sandbox. Read them as ratios, not as absolute claims.`,
	);
	out.push('');
	out.push('## Machine');
	out.push('');
	out.push(
		table(
			['', ''],
			[
				['CPU', `${machine.cpuModel}, nproc ${machine.nproc}`],
				['memory', `${machine.memoryGiB.toFixed(1)} GiB`],
				['system', machine.kernel],
				['n8n', `${machine.n8nVersion} (n8n-nodes-base ${machine.n8nNodesBaseVersion}) on Node ${machine.n8nNodeVersion}`],
				['bench driver, sandbox', `Node ${machine.driverNodeVersion} (sandbox via tsx, in its own process)`],
				['trigger scenario', `Node ${machine.n8nNodeVersion}, n8n-core ${machine.harnessN8nCoreVersion} in-process`],
				['package', `${machine.packageName} ${machine.packageVersion}, packed from sources ${machine.sourceHash} (git ${machine.commit}${machine.packageSourcesDirty ? ', with uncommitted changes to the package sources' : ''})`],
				['load average (1/5/15 min)', `${machine.loadAverageAtStart} at start, ${machine.loadAverageAtEnd} at end`],
			],
		),
	);
	out.push('');
	out.push('## How it is measured');
	out.push('');
	out.push(`- Sandbox: \`npm run sandbox -- --volume large --seed 42\` in its own process, every API request delayed by ${latencyMs} ms (\`PUT /__sandbox/latency\`), so round trips dominate as they do against the real service.`);
	out.push('- Each side is a workflow imported into a real n8n (the packed package installed as a community package, n8n\'s own HTTP Request node with a Header Auth credential `X-Api-Key`) and run with `n8n execute`. n8n start-up is not measured.');
	out.push('- Wall time: from the run data, the measured node\'s `executionTime` (for a chain of nodes: first start to last end). A bench hook file (`bench/n8n-hooks.cjs`, loaded through n8n\'s `EXTERNAL_HOOK_FILES`) reads it in `workflow.postExecute`.');
	out.push('- Requests: the sandbox\'s request log (`DELETE` then `GET /__sandbox/requests`) around each execution.');
	const exitCrashes = results.flatMap((result) => result.sides ?? []).flatMap((side) => side.runs).filter((run) => run.crashedAtExit).length;
	const processes = results.flatMap((result) => result.sides ?? []).flatMap((side) => side.runs).filter((run) => run.processMs !== undefined).length;
	if (exitCrashes > 0) {
		out.push(`- ${exitCrashes} of the ${processes} \`n8n execute\` processes died of SIGSEGV while exiting, after their run had succeeded and the hook had reported it (n8n 2.40 on Node 24, under load; HTTP Request and Code node sides alike): their figures are kept.`);
	}
	out.push('- Sides run one after another and their order rotates each round, so that other load on the machine (other engineers\' tests run on the same 2 cores) falls on every side alike. Spread is shown as (min-max).');
	out.push('');
	out.push('## Goals');
	out.push('');
	out.push(table(['scenario', 'goal', 'measured', 'verdict'], goals.map((goal) => [goal.scenario, goal.goal, goal.figure, verdict(goal.met)])));
	const misses = goals.filter((goal) => goal.met === false);
	if (misses.length > 0) {
		out.push('');
		out.push('Why each miss, and what would reach it (the requests R1-R11 are in bench/README.md):');
		out.push('');
		for (const goal of misses) out.push(`- **${goal.scenario}, ${goal.goal}.** ${goal.why}`);
	}
	for (const section of sections) {
		out.push('');
		out.push(`## ${section.result.title}`);
		out.push('');
		if (section.result.rounds !== undefined) out.push(`Rounds: ${section.result.rounds}.`), out.push('');
		out.push(table(section.header, section.rows));
		out.push('');
		for (const note of section.notes) out.push(`- ${note}`);
		out.push('');
		out.push('<details><summary>every run</summary>');
		out.push('');
		out.push(runDetails(section.result));
		out.push('');
		out.push('</details>');
	}
	out.push('');
	out.push('See bench/README.md for the bench itself and the requests it led to.');
	return out.join('\n');
}
