/**
 * What an edit of the trigger does to its stored state. An edit is a change of configKey() (the event, its types,
 * the order filters, the look-back, the options that decide what counts); ids added to or removed from the
 * watched orders and jobs are handled poll by poll the same way (see orderEvents.ts and importJobs.ts).
 *
 * The last poll before the edit (`serviceTime` of the stored state, the last moment anything was checked) divides
 * what happened:
 * - what both configurations watch (a delivery event type of an order watched before and after, the QC
 *   evaluations of such an order, a watched import job) goes on from its cursor: whatever happened, also between
 *   that poll and the first one of the new configuration, is emitted once, and nothing already emitted again;
 * - what only the new configuration watches (an added event type, an order that now matches the filters or the
 *   window, an added id) starts from that poll: what happened after it is emitted, what happened before is history;
 * - what only the old configuration watched is no longer emitted (its cursors stay until they age out or their
 *   id is removed, and never move back).
 */
import type { TriggerConfig } from './config';
import { keyEvent } from './config';
import type { TriggerState } from './state';

/** The stored state of another configuration, carried over to `config` (see the header). */
export function applyEdit(stored: TriggerState, config: TriggerConfig, key: string): TriggerState {
	const lastPoll = stored.serviceTime;
	const before = keyEvent(stored.config);
	// Events and job ends after the last poll are new for what nothing watched before (new orders, added ids).
	const state: TriggerState = { ...stored, config: key, since: lastPoll, windowStart: 0 };
	if (config.event === 'importJobFinished') {
		state.orders = new Map();
		if (before.event !== 'importJobFinished') {
			state.finishedJobs = new Set();
			state.jobsSince = new Map();
		}
		return state;
	}
	state.finishedJobs = new Set();
	state.jobsSince = new Map();
	if (before.event === 'importJobFinished') {
		state.orders = new Map();
		return state;
	}
	const sameEvent = before.event === config.event;
	for (const cursor of state.orders.values()) {
		// Watched before the edit (as of its last listing or read), for the same event.
		const carried = sameEvent && cursor.watched;
		if (config.event === 'qcEvaluationFinished') {
			// Evaluations requested before the last poll are history for an order watched from now on.
			if (!carried) cursor.since = Math.max(cursor.since, lastPoll);
			cursor.horizons = {};
		} else {
			const typesBefore = carried ? before.eventTypes : [];
			for (const type of Object.keys(cursor.horizons)) {
				if (!config.eventTypes.includes(type as never)) delete cursor.horizons[type];
			}
			for (const type of config.eventTypes) {
				if (!typesBefore.includes(type)) cursor.horizons[type] = lastPoll;
			}
		}
		// The listing of this poll decides what is watched now; `carried` spares a detail read to what was watched.
		cursor.carried = carried;
		cursor.watched = false;
		if (!carried) {
			cursor.needsDetail = false;
			cursor.readFailed = false;
		}
	}
	return state;
}
