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
import { commitState, freshState, loadState, recallBaseline, recordBaseline, recordFailedPoll } from './state';
import { accountDigest } from './account';
import { applyEdit } from './edits';

/** Polls in a row that may fail for a transient reason before the failure is reported as an error. */
export const TRANSIENT_FAILURES_BEFORE_ERROR = 3;

const KEPT_PLACE =
	'The trigger keeps its place: nothing is lost, and it resumes from where it stopped once the request succeeds again.';

/** Where this poll starts from, and what to write to n8n's log once its state is committed. */
interface Start {
	state: TriggerState;
	/** The baseline was set by this very poll: nothing can have happened since. */
	isBaselinePoll: boolean;
	note?: string;
}

const at = (time: number) => new Date(time).toISOString();

/**
 * The state this poll starts from:
 * - the stored state of this configuration and account;
 * - of another account (the credential now has another key or base URL): afresh from the last poll;
 * - of another configuration (an edit): carried over by applyEdit, what is newly watched from the last poll;
 * - no stored state, but the node's baseline in the global static data: a state n8n did not keep (every event after
 *   the baseline is still new; none can have been emitted, since emitting saves the state), whatever was edited since;
 * - neither: the first activation, a new baseline at the service's current time.
 */
async function startingState(
	this: IPollFunctions,
	config: TriggerConfig,
	key: string,
	stored: TriggerState | undefined,
	session: PollSession,
): Promise<Start> {
	const account = await accountDigest.call(this);
	if (stored !== undefined) {
		if (stored.account !== '' && stored.account !== account) {
			const state = freshState(key, stored.serviceTime, stored.serviceTime, account, stored.failedPolls);
			const note = `Ollang Trigger: the credential now reaches another account (its API key or base URL changed); starting afresh for it from the last poll (${at(stored.serviceTime)}): its events after that are emitted, the cursors of the previous account are dropped`;
			return { state, isBaselinePoll: false, note };
		}
		if (stored.config === key) return { state: { ...stored, account }, isBaselinePoll: false };
		const state = applyEdit(stored, config, key);
		state.account = account;
		const note = `Ollang Trigger: configuration changed; what it still watches goes on from its cursors, what it newly watches starts from the last poll (${at(stored.serviceTime)})`;
		return { state, isBaselinePoll: false, note };
	}
	const globalData = this.getWorkflowStaticData('global');
	const nodeId = this.getNode().id;
	const recorded = recallBaseline(globalData, nodeId);
	if (recorded !== undefined) {
		// n8n kept the activation's record but not the node's state (a restart before anything was emitted, for
		// one). Logged, so a resumption can be traced in n8n's log.
		const note = `Ollang Trigger: no stored state of this trigger; resuming from the baseline recorded at activation (${at(recorded.since)})`;
		return { state: freshState(key, recorded.since, recorded.since, account), isBaselinePoll: false, note };
	}
	const serviceTime = await fetchServiceTime.call(this, session);
	const since = config.emitExisting ? 0 : serviceTime;
	recordBaseline(globalData, nodeId, key, since);
	return { state: freshState(key, since, serviceTime, account), isBaselinePoll: true };
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

	let start: Start;
	let state: TriggerState;
	let outcome: PollOutcome;
	try {
		start = await startingState.call(this, config, key, stored, session);
		state = start.state;
		const isBaselinePoll = start.isBaselinePoll;
		outcome =
			config.event !== 'importJobFinished'
				? await pollOrderEvents.call(this, config, state, session, isBaselinePoll)
				: await pollImportJobs.call(this, config, state, session, isBaselinePoll);
	} catch (error) {
		// Before the first successful poll (activation) every error is shown; later, a transient one is
		// reported only when it persists, and the stored state stays as it was. The rest (an SSRF block among
		// them: only a setting lifts it) is reported at once.
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
	if (start.note !== undefined) this.logger.info(start.note);
	if (outcome.items.length > 0) overlap.recordEmission();
	if (outcome.items.length === 0 && session.transientError && state.failedPolls >= TRANSIENT_FAILURES_BEFORE_ERROR) {
		throw withKeptPlace(this.getNode(), session.transientError);
	}
	return toItems(outcome);
}
