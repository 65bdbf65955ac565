import type { IDataObject, INode, INodeExecutionData, IPollFunctions, NodeOperationError } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { configKey, readConfig } from './config';
import type { TriggerConfig } from './config';
import { pollImportJobs, sampleImportJob } from './importJobs';
import { pollOrderEvents, sampleOrderEvent } from './orderEvents';
import type { PollOutcome } from './pollSession';
import { asNodeError, failureKind, fetchServiceTime, PollSession } from './pollSession';
import { PollOverlapGuard } from './overlap';
import type { TriggerState } from './state';
import { commitState, loadState, recallBaseline, recordBaseline, recordFailedPoll } from './state';

/** Polls in a row that may fail for a transient reason before the failure is reported as an error. */
export const TRANSIENT_FAILURES_BEFORE_ERROR = 3;

const KEPT_PLACE =
	'The trigger keeps its place: nothing is lost, and it resumes from where it stopped once the request succeeds again.';

/**
 * A new state for this configuration: the first activation, a change of what is watched, or a state n8n did not
 * keep. Events and job ends after `since` are new. Order cursors already held are kept as floors (a cursor never
 * moves back, so nothing is emitted twice), and so are finished jobs.
 */
function baseline(
	config: TriggerConfig,
	key: string,
	since: number,
	serviceTime: number,
	previous: TriggerState | undefined,
): TriggerState {
	const orders = config.event !== 'importJobFinished' && previous ? previous.orders : new Map();
	for (const cursor of orders.values()) {
		cursor.rebase = true;
		cursor.needsDetail = false;
		cursor.readFailed = false;
		cursor.watched = false;
	}
	return {
		config: key,
		since,
		serviceTime,
		windowStart: 0,
		sweepAfter: '',
		orders,
		finishedJobs: config.event === 'importJobFinished' && previous ? previous.finishedJobs : new Set(),
		failedPolls: previous?.failedPolls ?? 0,
	};
}

/**
 * The state this poll starts from. Without a stored state of this configuration, the baseline recorded in the
 * global static data tells a lost state (resume from that baseline: every event after it is still new, and none
 * of them can have been emitted, since emitting saves the state) from a first activation or a changed
 * configuration (a new baseline at the service's current time, recorded for the next polls).
 */
async function startingState(
	this: IPollFunctions,
	config: TriggerConfig,
	key: string,
	stored: TriggerState | undefined,
	session: PollSession,
): Promise<{ state: TriggerState; isBaselinePoll: boolean }> {
	if (stored !== undefined && stored.config === key) return { state: stored, isBaselinePoll: false };
	const globalData = this.getWorkflowStaticData('global');
	const nodeId = this.getNode().id;
	const serviceTime = await fetchServiceTime.call(this, session);
	const recorded = recallBaseline(globalData, nodeId, key);
	if (recorded !== undefined) {
		// n8n kept the activation's record but not the node's state (a restart before anything was emitted, for
		// one). Logged, so a resumption can be traced in n8n's log.
		this.logger.info(
			`Ollang Trigger: no stored state of this configuration; resuming from the baseline recorded at activation (${new Date(recorded).toISOString()})`,
		);
		return { state: baseline(config, key, recorded, serviceTime, stored), isBaselinePoll: false };
	}
	const since = config.emitExisting ? 0 : serviceTime;
	recordBaseline(globalData, nodeId, key, since);
	return { state: baseline(config, key, since, serviceTime, stored), isBaselinePoll: true };
}

function withKeptPlace(node: INode, error: unknown): NodeApiError | NodeOperationError {
	const nodeError = asNodeError(node, error);
	if (nodeError instanceof NodeApiError) {
		nodeError.description = [nodeError.description, KEPT_PLACE].filter(Boolean).join(' ');
	}
	return nodeError;
}

/** An overlapping poll of this node emitted from a newer state: this one emits nothing and changes nothing. */
function standDown(this: IPollFunctions): null {
	this.logger.info(
		'Ollang Trigger: another poll of this trigger emitted meanwhile; this poll, started from an older state, stands down',
	);
	return null;
}

function toItems(outcome: PollOutcome): INodeExecutionData[][] | null {
	if (outcome.items.length === 0) return null;
	return [outcome.items.map((json) => ({ json }))];
}

async function sample(this: IPollFunctions, config: TriggerConfig, session: PollSession): Promise<IDataObject> {
	if (config.event === 'importJobFinished') return await sampleImportJob.call(this, config, session);
	return await sampleOrderEvent.call(this, config, session);
}

/**
 * One poll. The state is loaded as a working copy and committed at the end together with the items, so a poll
 * that fails part way changes nothing it cannot stand behind, and a poll run twice finds nothing new the second time.
 */
export async function pollTrigger(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const config = readConfig(this);
	const session = new PollSession(this);
	if (this.getMode() === 'manual') {
		return [[{ json: await sample.call(this, config, session) }]];
	}

	const staticData = this.getWorkflowStaticData('node');
	const loaded = loadState(staticData);
	const key = configKey(config);
	const stored = loaded.state;
	const overlap = new PollOverlapGuard(`${this.getWorkflow().id ?? ''}:${this.getNode().id}`, loaded.commits);
	if (overlap.isSuperseded()) return standDown.call(this);

	let state: TriggerState;
	let outcome: PollOutcome;
	try {
		const start = await startingState.call(this, config, key, stored, session);
		state = start.state;
		const isBaselinePoll = start.isBaselinePoll;
		outcome =
			config.event !== 'importJobFinished'
				? await pollOrderEvents.call(this, config, state, session, isBaselinePoll)
				: await pollImportJobs.call(this, config, state, session, isBaselinePoll);
	} catch (error) {
		// Before the first successful poll (activation) every error is shown; later, a transient one is
		// reported only when it persists, and the stored state stays as it was.
		if (stored === undefined) throw asNodeError(this.getNode(), error);
		if (failureKind(error) !== 'transient') throw withKeptPlace(this.getNode(), error);
		if (overlap.isSuperseded()) return standDown.call(this);
		const failedPolls = recordFailedPoll(staticData, loaded.commits);
		if (failedPolls >= TRANSIENT_FAILURES_BEFORE_ERROR) throw withKeptPlace(this.getNode(), error);
		this.logger.warn(`Ollang Trigger: poll failed, trying again at the next poll: ${(error as Error).message}`);
		return null;
	}

	state.failedPolls = session.transientError === undefined ? 0 : state.failedPolls + 1;
	// Another poll committed meanwhile (overlapping polls on the same static data, or on copies of it): its result stands.
	if (overlap.isSuperseded()) return standDown.call(this);
	if (!commitState(staticData, state, loaded.commits)) return null;
	if (outcome.items.length > 0) overlap.recordEmission();
	if (outcome.items.length === 0 && session.transientError && state.failedPolls >= TRANSIENT_FAILURES_BEFORE_ERROR) {
		throw withKeptPlace(this.getNode(), session.transientError);
	}
	return toItems(outcome);
}
