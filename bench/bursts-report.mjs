// Scenario 11's figures (bench/bursts.mjs): its section of the report, its run details, and what the smoke checks.
import { smokeChecks } from './smoke-checks.mjs';
import { median } from './bursts.mjs';

const seconds = (ms) => (Number.isFinite(ms) ? (ms / 1000).toFixed(2) : 'n/a');
const SETUP_LABEL = { main: 'one main', webhooks: 'two webhook processes' };
const ratio = (ours, theirs) => (theirs > 0 ? `${(ours / theirs).toFixed(2)}x` : 'n/a');

/** Rows burst by burst, the set-ups side by side: n8n's Webhook node and the trigger, then what the trigger emitted. */
export function burstsSection(result) {
	const rows = [];
	// Burst by burst in the order run, each set-up and settings entry that ran it side by side.
	const bursts = [...new Map(result.topologies.flatMap((topology) => topology.bursts).map((burst) => [`${burst.size}/${burst.retries}`, burst])).values()];
	for (const { size, retries } of bursts) {
		for (const topology of result.topologies) {
			const burst = topology.bursts.find((each) => each.size === size && each.retries === retries);
			if (!burst) continue;
			const { webhook, trigger } = burst;
			rows.push([
				String(burst.size),
				burst.retries,
				SETUP_LABEL[topology.topology] ?? topology.topology,
				topology.settings ?? 'n8n defaults',
				String(webhook.answered2xx),
				String(trigger.answered2xx),
				ratio(trigger.answered2xx, webhook.answered2xx),
				seconds(webhook.slowestAnswerMs),
				seconds(trigger.slowestAnswerMs),
				String(trigger.emittedOnce),
				String(trigger.emittedTwice),
				String(trigger.missed),
				String(trigger.byPush),
				String(trigger.bySweep),
				seconds(median(trigger.latenciesMs)),
			]);
		}
	}
	const sustained = result.topologies.filter((topology) => topology.sustained);
	const notes = [
		`A burst: that many level-0 document orders made in one simulated minute with a side's production URL as Callback URL, completed by one clock move, so the sandbox POSTs that many callbacks at once (repeats off, so each delivery is a completion of its own; every API request delayed ${result.latencyMs} ms). Then the clock runs on a minute at a time through the sandbox's retry policy ("retries": three = 1, 5 and 15 minutes after a failure; once = 1 minute; none). Both sides in the same n8n, each with its own sandbox (the same program and settings, so the trigger's sweep sees only its own orders): n8n's Webhook node (POST, respond Immediately, then a No Operation node) first, then, its executions finished, the Ollang Callback Trigger (Order Completed, sweep every ${result.sweepMinutes} min, then a No Operation node).`,
		'"2xx within 10 s": the first attempts answered 2xx within the API\'s 10 s (the sandbox\'s own measure); "trigger / Webhook": the trigger\'s 2xx over the Webhook node\'s; "slowest answer": the slowest first attempt that was answered. "Emitted once / twice / missed": per completion, from the trigger\'s items in n8n\'s executions (REST API); twice over the whole run (a later sweep or retry included), missed = not emitted once the sends had settled and the first sweep that started after the completions had ended. "By push / by sweep": the `arrivedBy` of each emitted completion\'s item. "To the first node": from the sandbox sending a completion\'s first attempt to the trigger node\'s start in the execution that emitted it, for completions emitted by push before any retry.',
		...[...new Map(result.topologies.map((topology) => [topology.settings, topology.env])).entries()].map(
			([label, env]) => `n8n settings "${label ?? 'n8n defaults'}": ${Object.keys(env ?? {}).length === 0 ? "n8n's defaults (expression isolates acquired before a webhook runs, one isolate, PostgreSQL pool of 2)" : Object.entries(env).map(([name, value]) => `\`${name}=${value}\``).join(', ')}, in every n8n process of the set-up (both sides: the settings are n8n's, the same for the Webhook node and the trigger).`,
		),
		...result.topologies.map((topology) => `${SETUP_LABEL[topology.topology] ?? topology.topology}, ${topology.settings ?? 'n8n defaults'}: ${topology.describe}${topology.forwardedToWebhookProcesses ? `; requests the balancer sent to each webhook process: ${topology.forwardedToWebhookProcesses.join(' / ')}` : ''}${redactedText(topology.executionsRedacted)}.`),
		...sustained.map((topology) => {
			const { steps, sustainedRate, firstFailing, seconds: length } = topology.sustained;
			const stepText = steps.map((step) => `${step.rate}/s: ${step.answered2xx} of ${step.deliveries} 2xx, ${step.answeredOther} another status, ${step.noAnswer} no answer, answer median ${step.medianAnswerMs} ms, worst ${step.worstAnswerMs} ms`).join('; ');
			return `Sustained, the trigger, ${SETUP_LABEL[topology.topology] ?? topology.topology}, ${topology.settings ?? 'n8n defaults'}: **${sustainedRate} deliveries per second** answered 2xx within 10 s${firstFailing ? ` (${firstFailing}/s was not)` : ' (the highest rate tried)'}; deliveries sent by the bench at an even pace for ${length} s per rate, each a fresh completion (the body the sandbox made for it, which the sweep finds too): ${stepText}.`;
		}),
	];
	return {
		header: [
			'deliveries at once',
			'retries',
			'set-up',
			'n8n settings',
			'Webhook node: 2xx within 10 s',
			'trigger: 2xx within 10 s',
			'trigger / Webhook',
			'slowest answer, Webhook (s)',
			'slowest answer, trigger (s)',
			'emitted once',
			'twice',
			'missed',
			'by push',
			'by sweep',
			'to the first node, median (s)',
		],
		rows,
		goals: burstsGoals(result),
		notes,
	};
}

/** The share of n8n's own Webhook node's answers the trigger must give (issue 41: capacity at n8n's own). */
export const CAPACITY_SHARE = 0.9;

/**
 * Scenario 11's goals: per set-up and settings, the trigger answers 2xx within 10 s at least CAPACITY_SHARE of what
 * n8n's Webhook node answers in the same n8n, at every burst; and over every row, each completion emitted once.
 */
export function burstsGoals(result) {
	const goals = result.topologies.map((topology) => {
		const where = `${SETUP_LABEL[topology.topology] ?? topology.topology}, ${topology.settings ?? 'n8n defaults'}`;
		const short = topology.bursts.filter(({ webhook, trigger }) => trigger.answered2xx < CAPACITY_SHARE * webhook.answered2xx);
		const cell = ({ size, retries, webhook, trigger }) => `${size}/${retries}: ${trigger.answered2xx} of ${webhook.answered2xx} (${ratio(trigger.answered2xx, webhook.answered2xx)})`;
		return {
			scenario: `11. Bursts (${where})`,
			goal: `the trigger's 2xx within 10 s at least ${CAPACITY_SHARE}x n8n's Webhook node's, every burst`,
			figure: topology.bursts.map(cell).join('; '),
			met: short.length === 0,
			why: `Short at ${short.map(cell).join('; ')}. The trigger answers before n8n starts its execution, so what it answers is n8n's own work before a node runs; what differs from the Webhook node is n8n's: it acquires an expression isolate for every node's webhook but its own Webhook node's (the "lazy isolate" rows take that off), and the trigger's executions (a confirming read, the claim in n8n's store) share the processor with the answers where they run in the same process or on the same cores.`,
		};
	});
	const rows = result.topologies.flatMap((topology) => topology.bursts.map((burst) => burst.trigger));
	const twice = rows.reduce((sum, trigger) => sum + trigger.emittedTwice, 0);
	const missed = rows.reduce((sum, trigger) => sum + trigger.missed, 0);
	const once = rows.reduce((sum, trigger) => sum + trigger.emittedOnce, 0);
	goals.push({
		scenario: '11. Bursts (every row)',
		goal: 'each completion emitted once (push or sweep): twice 0, missed 0',
		figure: `${once} emitted once, ${twice} twice, ${missed} missed, over ${rows.length} bursts`,
		met: twice === 0 && missed === 0,
		why: `${twice} completions emitted twice and ${missed} not emitted by the end of the first sweep after them (or the bench's bound after the sends settled): see the rows, and the trigger's log in the n8n processes.`,
	});
	return goals;
}

export function burstsDetails(result) {
	const answers = (side) =>
		`sent within ${side.sendSpreadMs} ms; first attempts 2xx ${side.answered2xx}, another status ${side.answeredOther}, none ${side.noAnswer}, answer median ${side.medianAnswerMs} ms, slowest ${side.slowestAnswerMs} ms; retries sent ${side.retryAttempts}, given up ${side.gaveUp}`;
	return result.topologies
		.flatMap((topology) =>
			topology.bursts.map(({ size, retries, webhook, trigger }) =>
				[
					`- ${topology.topology} (${topology.settings ?? 'n8n defaults'}), ${size} (${retries}), Webhook node: ${answers(webhook)}`,
					`- ${topology.topology} (${topology.settings ?? 'n8n defaults'}), ${size} (${retries}), trigger: ${answers(trigger)}; emitted once ${trigger.emittedOnce}, twice ${trigger.emittedTwice}, missed ${trigger.missed} (emitted later ${trigger.emittedLater}), by push ${trigger.byPush}, by sweep ${trigger.bySweep}; ${trigger.sweptAfterCompletions ? 'a sweep ran after the completions' : 'no sweep ended after the completions within the bound'}, counted ${trigger.emittedWithinMs} ms after the sends settled; to the first node median ${median(trigger.latenciesMs)} ms, worst ${Math.max(0, ...trigger.latenciesMs)} ms`,
				].join('\n'),
			),
		)
		.join('\n');
}

/**
 * What the smoke fails on: a side whose answers do not add up to the burst, a trigger whose completions were not each
 * emitted exactly once (missed or twice in any row, whatever the retry policy: the sweep finds what push missed), or
 * emissions that do not add up. Never a timing.
 */
export function burstsSmokeProblems(result) {
	const { check, result: checked } = smokeChecks('bursts');
	for (const topology of result.topologies) {
		for (const burst of topology.bursts) {
			const where = `${topology.topology} (${topology.settings ?? 'n8n defaults'}), burst of ${burst.size} (${burst.retries})`;
			for (const [name, side] of [['Webhook node', burst.webhook], ['trigger', burst.trigger]]) {
				check(side.deliveries === burst.size, `${where}, ${name}: ${side.deliveries} deliveries`);
				check(side.answered2xx + side.answeredOther + side.noAnswer === burst.size, `${where}, ${name}: first attempts do not add up (2xx ${side.answered2xx}, another status ${side.answeredOther}, none ${side.noAnswer})`);
			}
			const { trigger } = burst;
			check(trigger.emittedOnce === burst.size && trigger.missed === 0 && trigger.emittedTwice === 0, `${where}: once ${trigger.emittedOnce}, twice ${trigger.emittedTwice}, missed ${trigger.missed}`);
			check(trigger.emittedOnce + trigger.emittedTwice + trigger.missed === burst.size, `${where}: once, twice and missed do not add up`);
			check(trigger.byPush + trigger.bySweep + trigger.missed === burst.size, `${where}: by push ${trigger.byPush}, by sweep ${trigger.bySweep}, missed ${trigger.missed}`);
			check(trigger.sweptAfterCompletions, `${where}: no sweep ended after the completions`);
			check(trigger.latenciesMs.every((ms) => Number.isFinite(ms) && ms >= 0), `${where}: latencies ${trigger.latenciesMs.join(', ')}`);
		}
		if (topology.sustained) check(topology.sustained.steps.length > 0 && topology.sustained.steps.every((step) => step.deliveries > 0), `${topology.topology}: no sustained step ran`);
	}
	return checked();
}

/**
 * n8n 2.40 redacts, for every user, the items of an execution whose start could not check its credentials (its
 * database timing out under a burst); the bench reads those from n8n's database (PostgreSQL) instead.
 */
function redactedText(redacted) {
	if (redacted === undefined || redacted.readFromDatabase + redacted.unreadable === 0) return '';
	return `; executions whose items n8n's REST API redacted (its database timed out when they started): ${redacted.readFromDatabase} read from its database${redacted.unreadable > 0 ? `, ${redacted.unreadable} unreadable (counted as not emitted)` : ''}`;
}
