// Scenario 11's figures (bench/bursts.mjs): its section of the report, its run details, and what the smoke checks.
import { smokeChecks } from './smoke-checks.mjs';
import { median } from './bursts.mjs';

const seconds = (ms) => (Number.isFinite(ms) ? (ms / 1000).toFixed(2) : 'n/a');
const SETUP_LABEL = { main: 'one main', webhooks: 'two webhook processes' };

/** Rows burst by burst, the set-ups side by side. */
export function burstsSection(result) {
	const rows = [];
	const bursts = result.topologies[0]?.bursts ?? [];
	for (const [index] of bursts.entries()) {
		for (const topology of result.topologies) {
			const burst = topology.bursts[index];
			if (!burst) continue;
			rows.push([
				String(burst.deliveries),
				burst.retries,
				SETUP_LABEL[topology.topology] ?? topology.topology,
				String(burst.answered2xx),
				String(burst.answered503),
				String(burst.noAnswer + burst.answeredOther),
				`${burst.emittedOnce}${burst.emittedTwice ? ` (+${burst.emittedTwice} twice)` : ''}`,
				String(burst.missed),
				String(burst.emittedByRetry),
				seconds(median(burst.latenciesMs)),
				seconds(Math.max(...burst.latenciesMs)),
			]);
		}
	}
	const sustained = result.topologies.filter((topology) => topology.sustained);
	const notes = [
		`A burst: that many level-0 document orders made in one simulated minute with the trigger's production URL as Callback URL, completed by one clock move, so the sandbox POSTs that many callbacks at once (repeats off, so each delivery is a completion of its own and needs its confirming read; every API request delayed ${result.latencyMs} ms). Then the clock runs on a minute at a time through the sandbox's retry policy ("retries": three = 1, 5 and 15 minutes after a failure; once = 1 minute; none).`,
		'"2xx", "503", "no answer": the first attempts\' outcomes within the API\'s 10 s ("no answer" includes a refused or reset connection and any other status). "Emitted once / missed": over the whole run, retries included, from the trigger\'s items in n8n\'s executions (REST API). "By a retry": completions emitted only after a retry was sent (what the policy saved). Median and worst: from the sandbox sending a completion\'s first attempt to the trigger node\'s start in the execution that emitted it, for completions emitted from the burst itself.',
		...result.topologies.map((topology) => `${SETUP_LABEL[topology.topology] ?? topology.topology}: ${topology.describe}${topology.forwardedToWebhookProcesses ? `; requests the balancer sent to each webhook process: ${topology.forwardedToWebhookProcesses.join(' / ')}` : ''}.`),
		...sustained.map((topology) => {
			const { steps, sustainedRate, firstFailing, seconds: length } = topology.sustained;
			const stepText = steps.map((step) => `${step.rate}/s: ${step.answered2xx} of ${step.deliveries} 2xx, ${step.answered503} 503, ${step.noAnswer} no answer, answer median ${step.medianAnswerMs} ms, worst ${step.worstAnswerMs} ms`).join('; ');
			return `Sustained, ${SETUP_LABEL[topology.topology] ?? topology.topology}: **${sustainedRate} deliveries per second** answered 2xx within 10 s${firstFailing ? ` (${firstFailing}/s was not)` : ' (the highest rate tried)'}; deliveries sent by the bench at an even pace for ${length} s per rate, each a fresh completion (the body the sandbox made for it): ${stepText}.`;
		}),
	];
	return {
		header: ['deliveries at once', 'retries', 'set-up', '2xx within 10 s', '503', 'no answer', 'emitted once', 'missed', 'by a retry', 'to the first node, median (s)', 'worst (s)'],
		rows,
		goals: [],
		notes,
	};
}

export function burstsDetails(result) {
	return result.topologies
		.flatMap((topology) =>
			topology.bursts.map(
				(burst) =>
					`- ${topology.topology}, ${burst.deliveries} (${burst.retries}): sent within ${burst.sendSpreadMs} ms; first attempts 2xx ${burst.answered2xx}, 503 ${burst.answered503}, other ${burst.answeredOther}, none ${burst.noAnswer}, slowest answer ${burst.slowestAnswerMs} ms; retries sent ${burst.retryAttempts}, given up ${burst.gaveUp}; emitted once ${burst.emittedOnce}, twice ${burst.emittedTwice}, missed ${burst.missed}, by a retry ${burst.emittedByRetry}`,
			),
		)
		.join('\n');
}

/** What the smoke fails on: a delivery without an outcome, a completion emitted twice, one lost despite the default retries. */
export function burstsSmokeProblems(result) {
	const { check, result: checked } = smokeChecks('bursts');
	for (const topology of result.topologies) {
		for (const burst of topology.bursts) {
			const where = `${topology.topology}, burst of ${burst.size} (${burst.retries})`;
			check(burst.deliveries === burst.size, `${where}: ${burst.deliveries} deliveries`);
			check(burst.answered2xx + burst.answered503 + burst.answeredOther + burst.noAnswer === burst.size, `${where}: first attempts do not add up`);
			check(burst.emittedOnce + burst.emittedTwice + burst.missed === burst.size && burst.emittedTwice === 0, `${where}: once ${burst.emittedOnce}, twice ${burst.emittedTwice}, missed ${burst.missed}`);
			// With the sandbox's default retries a small burst loses nothing, however slow the machine.
			if (burst.retries === 'three') check(burst.missed === 0, `${where}: ${burst.missed} missed with retries`);
			// Emitted only from a 2xx or from an answer that came too late: a 503 never emits.
			check(burst.emittedOnce - burst.emittedByRetry <= burst.size - burst.answered503, `${where}: more emitted from the burst than deliveries not answered 503`);
			check(burst.latenciesMs.every((ms) => Number.isFinite(ms) && ms >= 0), `${where}: latencies ${burst.latenciesMs.join(', ')}`);
		}
		if (topology.sustained) check(topology.sustained.steps.length > 0 && topology.sustained.steps.every((step) => step.deliveries > 0), `${topology.topology}: no sustained step ran`);
	}
	return checked();
}
