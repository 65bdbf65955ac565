// Editing a published Ollang Trigger in a real n8n loses nothing it keeps watching (issue: an edit right after a poll
// lost the events of a type watched before and after it). An Order Delivery Event trigger on `ai_delivered` is
// published in `n8n start`; right after one of its polls, orders get new events, and the workflow is edited through
// n8n's REST API as the editor does it (save, then publish) to watch `order_delivered` too. Counted from n8n's
// execution records, in the default mode and with durable poll cursors (one n8n each, side by side):
// - `ai_delivered` (watched before and after): every one after activation, exactly once, also those between the last
//   poll before the edit and the first poll after it;
// - `order_delivered` (added): every one after the last poll before the edit that n8n kept, once; none before it
//   (in the default mode n8n keeps a poll's state when it emits; publishing reloads the workflow from the database).
// OLLANG_E2E_ONLY_MODE=default|durable runs one mode; a wrong count prints the trigger's log lines and the executions.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { activateWorkflow, N8N_VERSION, readExecutions, readWorkflowStaticData, restRequest, signIn, type RunningN8n } from '../../scripts/n8n/runtime.mjs';
import { N8nUserFolder, pollTriggerWorkflow, PERSISTENCE_ENV, SandboxClient, tally, testCredentials, type PersistenceMode, triggerItems, waitFor } from './harness.mts';

type Json = Record<string, unknown>;
type Mode = PersistenceMode;
const NODE = 'On delivery event';
/** A poll arrives within 20 s (POLL_TIMES), plus the time the poll and its execution take on a busy machine. */
const POLL_WAIT_MS = 150_000;

async function runMode(mode: Mode) {
	const sandbox = await SandboxClient.start();
	const n8n = N8nUserFolder.create(`edits-${mode}`);
	let server: RunningN8n | undefined;
	try {
		const workflow = pollTriggerWorkflow(`TriggerEdits${mode === 'default' ? 'Dflt' : 'Drbl'}`, `Edits ${mode}`, NODE, {
			event: 'orderDeliveryEvent',
			eventTypes: ['ai_delivered'],
			watch: 'recentOrders',
			lookbackDays: 30,
			// Every watched order is read on every poll: a re-delivery is found by the next poll.
			options: { recheckPerPoll: 200 },
		});
		await n8n.install();
		await n8n.importCredentials(testCredentials(sandbox));
		await n8n.importWorkflows([workflow]);
		await n8n.publish(workflow.id);
		const activatedAt = Math.floor((await sandbox.now()).getTime() / 1000) * 1000;
		server = await n8n.start(PERSISTENCE_ENV[mode]);
		const cookie = await signIn(server.url);
		await waitFor(
			'n8n to save the baseline',
			async () => JSON.stringify((await readWorkflowStaticData(server!.url, cookie, workflow.id)).global ?? {}).includes('ollangTriggerBaseline:'),
			{ timeoutMs: 180_000, intervalMs: 500 },
		);

		const emitted = async () =>
			(await readExecutions(server!.url, cookie, workflow.id, { limit: 200 })).flatMap((execution) => triggerItems(execution, NODE).map((item) => String(item.eventId)));
		const listings = async () => (await sandbox.requests()).filter((request) => request.path === '/integration/orders').length;
		/** Waits for the next poll to begin, then for it to be over (its detail reads done). */
		const nextPoll = async () => {
			const before = await listings();
			await waitFor('a poll', async () => (await listings()) > before, { timeoutMs: POLL_WAIT_MS, intervalMs: 200 });
			await sleep(3_000);
		};
		// Delivered orders, their ai_delivered and order_delivered events stamped now: the ai_delivered ones are new,
		// the order_delivered ones history for the type added later.
		await sandbox.advanceClock(1);
		const orderIds = (await sandbox.admin<Array<{ orderId: string }>>('POST', 'orders', { count: 3, type: 'document', level: 0, status: 'delivered', progress: false })).map(
			(order) => order.orderId,
		);
		await sandbox.advanceClock(1);
		await nextPoll();
		// The edit comes right after that poll, once its execution is recorded (an edit published while a poll is
		// still running is n8n's to order: with durable cursors that poll's commit loses its lease).
		const firstEvents = orderIds.map((orderId) => `${orderId}:0`);
		await waitFor('the poll before the edit to be recorded', async () => {
			const ids = await emitted();
			return firstEvents.every((id) => ids.includes(id));
		}, {
			timeoutMs: POLL_WAIT_MS,
			intervalMs: 1_000,
		}).catch(() => undefined);
		// The last poll before the edit; then, before the next one, events of both types (two orders AI-delivered again).
		const lastPollBeforeEdit = (await sandbox.now()).getTime();
		const pollsAtEdit = await listings();
		await sandbox.advanceClock(1);
		for (const orderId of orderIds.slice(0, 2)) await sandbox.admin('POST', `orders/${orderId}/events`, { type: 'ai_delivered' });
		await sandbox.admin('POST', `orders/${orderIds[2]}/events`, { type: 'order_delivered' });

		// The edit, as the editor makes it: the workflow saved with order_delivered added, then published.
		const stored = (await restRequest(server.url, cookie, 'GET', `/rest/workflows/${workflow.id}`)) as Json;
		// The last poll n8n kept: publishing reloads the workflow from the database, and in the default mode n8n saved
		// the node's state last when a poll emitted (ActiveWorkflowManager.remove saves nothing); durable cursors are
		// committed by every poll.
		let lastKeptPoll = lastPollBeforeEdit;
		if (mode === 'default') {
			const nodeState = (await readWorkflowStaticData(server.url, cookie, workflow.id))[`node:${NODE}`] as Json | undefined;
			assert.equal(typeof nodeState?.serviceTime, 'number', `n8n holds no state of the trigger before the edit: ${JSON.stringify(nodeState)}`);
			lastKeptPoll = Math.min(lastPollBeforeEdit, nodeState!.serviceTime as number);
		}
		const nodes = (stored.nodes as Json[]).map((node) =>
			node.name === NODE ? { ...node, parameters: { ...(node.parameters as Json), eventTypes: ['ai_delivered', 'order_delivered'] } } : node,
		);
		const saved = (await restRequest(server.url, cookie, 'PATCH', `/rest/workflows/${workflow.id}`, {
			name: stored.name,
			nodes,
			connections: stored.connections,
			settings: stored.settings,
			versionId: stored.versionId,
		})) as Json;
		await activateWorkflow(server.url, cookie, workflow.id, saved.versionId as string);
		// No poll of the old configuration ran after the one taken as the last before the edit.
		const pollsAfterEdit = await listings();
		assert.ok(pollsAfterEdit - pollsAtEdit <= 1, `${pollsAfterEdit - pollsAtEdit} polls ran while the edit was made`);

		// After the edit, events of both types again.
		await sleep(2_000);
		await sandbox.advanceClock(1);
		await sandbox.admin('POST', `orders/${orderIds[0]}/events`, { type: 'order_delivered' });
		await sandbox.admin('POST', `orders/${orderIds[1]}/events`, { type: 'ai_delivered' });

		const expectedIds = async () => {
			const ids: string[] = [];
			for (const row of await sandbox.getAllPages<Json>('/integration/orders')) {
				const order = await sandbox.get<{ id: string; deliveryEvents: Array<{ type: string; occurredAt: string }> }>(`/integration/orders/${String(row.id)}`);
				order.deliveryEvents.forEach((event, index) => {
					const at = Date.parse(event.occurredAt);
					if ((event.type === 'ai_delivered' && at > activatedAt) || (event.type === 'order_delivered' && at > lastKeptPoll)) ids.push(`${order.id}:${index}`);
				});
			}
			return ids.sort();
		};
		const expected = await expectedIds();
		await waitFor('executions for every expected event', async () => tally(expected, await emitted()).missed.length === 0, { timeoutMs: 200_000, intervalMs: 3_000 }).catch(
			() => undefined,
		);
		// One more poll: anything emitted twice would show now.
		await nextPoll();
		await sleep(3_000);
		const counted = tally(expected, await emitted());
		const editLogged = n8n.serverLog.some((line) => line.includes('configuration changed; what it still watches goes on from its cursors'));
		// What the trigger said in n8n's log, and when each execution ran: shown when the counts are wrong.
		const executions = await readExecutions(server.url, cookie, workflow.id, { limit: 200 });
		const trace = [
			...n8n.serverLog.filter((line) => line.includes('Ollang Trigger')),
			...executions.map((execution) => `execution ${String(execution.id)} ${String(execution.startedAt)}: ${triggerItems(execution, NODE).map((item) => String(item.eventId)).join(' ')}`),
		];
		return { counted, editLogged, trace };
	} finally {
		if (server) await server.stop();
		await sandbox.stop();
		n8n.remove();
	}
}

describe('editing a published Ollang Trigger in a real n8n (save, then publish)', { timeout: 15 * 60_000, concurrency: true }, () => {
	const outcomes: string[] = [];
	after(() => {
		for (const line of outcomes) console.log(line);
	});
	const modes: Mode[] = N8N_VERSION.startsWith('1.') ? ['default'] : ['default', 'durable'];
	const only = process.env.OLLANG_E2E_ONLY_MODE as Mode | undefined;
	for (const mode of only ? modes.filter((m) => m === only) : modes) {
		it(`${mode} persistence: the watched type goes on, the added type starts from the last poll, nothing twice`, async () => {
			const { counted, editLogged, trace } = await runMode(mode);
			const line =
				`trigger edits e2e (n8n ${N8N_VERSION}, ${mode} persistence): 1 edit (ai_delivered -> ai_delivered + order_delivered) right after a poll, ` +
				`events expected ${counted.expected}, emitted ${counted.emitted}, missed ${counted.missed.length}, duplicated ${counted.duplicated.length}, ` +
				`unexpected ${counted.unexpected.length}`;
			outcomes.push(line);
			console.log(line);
			assert.deepEqual(
				{ missed: counted.missed, duplicated: counted.duplicated, unexpected: counted.unexpected },
				{ missed: [], duplicated: [], unexpected: [] },
				`events wrong; the trigger's log and the executions:\n${trace.join('\n')}`,
			);
			assert.ok(counted.expected >= 8, `only ${counted.expected} events expected`);
			assert.ok(editLogged, "n8n's log does not say the configuration changed");
		});
	}
});
