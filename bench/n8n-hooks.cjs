// n8n backend hooks (EXTERNAL_HOOK_FILES) that the bench loads into each `n8n execute` process. They report
// what the bench measures from inside the process that runs the workflow, without touching n8n or the node:
// - workflow.preExecute: resets the process's peak resident set size (VmHWM, by writing 5 to
//   /proc/self/clear_refs) and reads the resident size, so the later peak belongs to this execution and not to
//   n8n's own start-up (loading every node type, database migrations), and the process's CPU time so far;
// - workflow.postExecute: reads the peak and the CPU time again and writes a summary of the run (per node: start time,
//   execution time, items out, error) as JSON to $OLLANG_BENCH_REPORT_FILE.
// n8n `require`s this file itself, so it is CommonJS with builtins only.
'use strict';

const { readFileSync, writeFileSync } = require('node:fs');

/** VmRSS and VmHWM of this process, in KiB, from /proc/self/status. */
function residentKiB() {
	const status = readFileSync('/proc/self/status', 'utf8');
	const field = (name) => {
		const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
		return match ? Number(match[1]) : null;
	};
	return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

function resetPeak() {
	try {
		writeFileSync('/proc/self/clear_refs', '5');
		return true;
	} catch {
		// Kernels before 4.0 or a locked-down /proc: the peak then includes n8n's start-up, which the report says.
		return false;
	}
}

/** The monotonic clock V8's CPU profiles stamp their samples with, in microseconds: to find the run in a profile. */
function monotonicMicros() {
	return Number(process.hrtime.bigint() / 1000n);
}

let atStart;

function summarizeNodes(runData) {
	const nodes = {};
	for (const [name, runs] of Object.entries(runData ?? {})) {
		nodes[name] = runs.map((run) => ({
			startTime: run.startTime,
			executionTime: run.executionTime,
			status: run.executionStatus ?? null,
			itemsOut: (run.data?.main ?? []).reduce((sum, output) => sum + (output?.length ?? 0), 0),
			firstItem: (() => {
				const json = run.data?.main?.[0]?.[0]?.json;
				if (json === undefined) return null;
				const text = JSON.stringify(json);
				// Enough to check what a node returned (a file size, a job id) without writing 10,000 lines.
				return text.length > 2000 ? `${text.slice(0, 2000)}...` : json;
			})(),
			binary: (() => {
				const binary = run.data?.main?.[0]?.[0]?.binary;
				if (!binary) return null;
				const files = {};
				for (const [key, file] of Object.entries(binary)) {
					files[key] = { fileName: file.fileName ?? null, mimeType: file.mimeType ?? null, fileSize: file.fileSize ?? null, bytes: file.bytes ?? null };
				}
				return files;
			})(),
			error: run.error ? { message: run.error.message, description: run.error.description ?? null } : null,
		}));
	}
	return nodes;
}

module.exports = {
	workflow: {
		preExecute: [
			async function benchPreExecute() {
				const peakReset = resetPeak();
				atStart = { at: Date.now(), peakReset, ...residentKiB(), memoryUsage: process.memoryUsage(), cpu: process.cpuUsage(), monotonicMicros: monotonicMicros() };
			},
		],
		postExecute: [
			async function benchPostExecute(fullRunData) {
				const reportFile = process.env.OLLANG_BENCH_REPORT_FILE;
				if (!reportFile) return;
				const atEnd = { at: Date.now(), ...residentKiB(), memoryUsage: process.memoryUsage(), cpu: process.cpuUsage(), monotonicMicros: monotonicMicros() };
				const resultData = fullRunData?.data?.resultData ?? {};
				const report = {
					pid: process.pid,
					status: fullRunData?.status ?? null,
					startedAt: fullRunData?.startedAt ?? null,
					stoppedAt: fullRunData?.stoppedAt ?? null,
					error: resultData.error ? { message: resultData.error.message, description: resultData.error.description ?? null } : null,
					nodes: summarizeNodes(resultData.runData),
					memory: { atStart, atEnd },
				};
				writeFileSync(reportFile, JSON.stringify(report));
			},
		],
	},
};
