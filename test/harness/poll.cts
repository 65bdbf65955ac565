// Runs a polling trigger's real `poll()` through n8n-core's PollContext, keeping the node's static data the way
// n8n 2.40 does for an active workflow (read in n8n's own code: n8n-core's poll-trigger-executor.js and
// active-workflow-triggers.js, n8n's trigger-execution-context.factory.js, active-workflow-manager.js and
// poll-cursor.service.js). Two persistence modes:
// - 'default' (in-memory scheduler, durable cursors off): 'trigger' polls run through n8n-core's
//   PollTriggerExecutor on one long-lived active Workflow, so the node's static-data bucket lives on from poll to
//   poll in memory. n8n writes the workflow's static data to the database when a poll emits items (__emit saves
//   it, then creates the execution) and at the end of an activation (ActiveWorkflowManager.add saves it after the
//   activation poll). A poll that returns null changes memory only: a restart loses it, and so does publishing an
//   edit (WorkflowService.activateWorkflow: ActiveWorkflowManager.remove saves nothing, then add builds the
//   workflow from the database). Every start of n8n activates again ('init'), and the activation poll runs at once.
// - 'durable' (N8N_POLLER_DURABLE_CURSORS_ENABLED with the durable scheduler): each poll runs on a staged copy of a
//   cursor row (seeded once from the node's static data). A poll that emits commits the staged cursor with its
//   execution; a scheduled poll that returns null commits it alone; the activation poll (a "testing trigger")
//   commits nothing when it returns null. The durable scheduler runs the activation poll only when the poll job
//   is first registered, not when n8n starts again. The global static data is saved as in 'default'. A poll task in
//   flight when n8n stopped is leased again after the restart and can run beside the next one: each poll reads its
//   own copy of the cursor row when it starts, and the row takes whichever copy is committed last
//   (`pollOverlapping`).
// The first poll after activation is n8n's activation poll: its errors are thrown (activation fails); later errors
// go to __emitError (an error execution) and the workflow stays active. This runner rethrows both.
// 'manual' polls are the editor's "Fetch Test Event": WorkflowExecute builds a PollContext in manual mode on a
// Workflow loaded from the database, and the static data of manual executions is never saved. So a manual poll
// sees the saved static data and whatever it changes is discarded.
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	WorkflowActivateMode,
} from 'n8n-workflow';
import { Workflow, deepCopy } from 'n8n-workflow';
import { isDeepStrictEqual } from 'node:util';
import { PollContext, PollTriggerExecutor } from 'n8n-core';
import {
	Container,
	HARNESS_CREDENTIAL,
	OLLANG_CREDENTIAL_TYPE,
	OLLANG_TRIGGER_NODE_TYPE,
	createAdditionalData,
	createCredentialsHelper,
	getRuntime,
	latestVersion,
	nodeTypes,
	ollangCredential,
} from './runtime.cts';

export type PollMode = 'trigger' | 'manual';
/** How n8n persists a poll's state: see the header. */
export type PersistenceMode = 'default' | 'durable';
export type PollResult = INodeExecutionData[][] | null;

export interface PollRunnerOptions {
	/** Default: our Ollang Trigger. */
	nodeTypeName?: string;
	parameters: INodeParameters;
	credentials: { baseUrl: string; apiKey: string } & ICredentialDataDecryptedObject;
	mode?: PollMode;
	/**
	 * What `getPollBudgetMs()` returns. Default: PollContext's own default (5 minutes), which is what n8n gives a
	 * poll on the in-memory scheduler; the durable scheduler gives its timeout minus a margin (36 s for 45 s).
	 */
	pollBudgetMs?: number;
	/** Static data of the workflow as stored before activation (keys like `node:Ollang Trigger`). */
	savedStaticData?: IDataObject;
	typeVersion?: number;
	/** Default: the node type's display name (its static data is stored under `node:<name>`). */
	nodeName?: string;
	/** Default: 'default'. */
	persistence?: PersistenceMode;
}

export interface PollRunner {
	/** One poll in the current mode: the items it emitted, or null when it emitted nothing. */
	poll(): Promise<PollResult>;
	/**
	 * 'durable' only: `count` scheduled polls of the node at once, each on its own copy of the cursor row read when it
	 * starts, as n8n's durable scheduler runs a poll task leased again after a restart beside the next one. Their
	 * results in start order.
	 */
	pollOverlapping(count: number): Promise<PollResult[]>;
	/** The node's static data as the next trigger-mode poll will see it (the active workflow's bucket). */
	readonly staticData: IDataObject;
	/** The node's state as n8n last wrote it to the database (the cursor row in 'durable' mode). */
	readonly savedStaticData: IDataObject;
	/** Polls that emitted items in trigger mode, oldest first (each one started a workflow execution in n8n). */
	readonly emissions: INodeExecutionData[][][];
	/** Publishing changed parameters re-activates the workflow from the database (memory-only state is lost); the next trigger poll activates. */
	setParameters(parameters: INodeParameters): void;
	setMode(mode: PollMode): void;
	/**
	 * n8n stopping (SIGTERM or SIGKILL: neither saves an active poller's static data) and starting again: the
	 * active workflow is rebuilt from the database; whatever was only in memory is gone.
	 */
	restart(): void;
	/**
	 * The credential edited while the workflow stays active: n8n keeps the activation (and its poll context) and
	 * reads the credential from the database whenever it is used.
	 */
	setCredentials(data: { baseUrl: string; apiKey: string } & ICredentialDataDecryptedObject): Promise<void>;
	/**
	 * Where each trigger-mode poll's state came from, as n8n persisted it: `parents[n]` is the number (1-based) of
	 * the poll whose state poll n started from (0: none kept, the node's first baseline). Polls whose state n8n
	 * lost do not appear in the chain that leads to `keptPoll()`.
	 */
	readonly parents: number[];
	/** The number of the poll whose state the next trigger-mode poll starts from (0: none kept yet). */
	keptPoll(): number;
}

/** What one poll handed to n8n: the items it emitted, or the error it reported. */
interface PollRun {
	emission?: INodeExecutionData[][];
	error?: Error;
}

interface Activation {
	workflow: Workflow;
	execute: (run: PollRun, testingTrigger?: boolean) => Promise<void>;
	activated: boolean;
	/** The poll whose state the activation's memory holds ('default'). */
	memoryPoll: number;
}

/** Each runner is its own workflow, as each workflow in n8n has its own id. */
let runnerCount = 0;

export function createPollRunner(options: PollRunnerOptions): PollRunner {
	const typeName = options.nodeTypeName ?? OLLANG_TRIGGER_NODE_TYPE;
	const nodeType = nodeTypes.getByName(typeName);
	const credential = ollangCredential(options.credentials);
	const credentialsHelper = createCredentialsHelper(credential.credentialsById);
	const node: INode = {
		id: 'trigger-under-test',
		name: options.nodeName ?? nodeType.description.displayName,
		type: typeName,
		typeVersion: options.typeVersion ?? latestVersion(nodeType),
		position: [0, 0],
		parameters: options.parameters,
		credentials: credential.nodeCredentials,
	};
	const nodeKey = `node:${node.name}`;
	const WORKFLOW_ID = `harness-poll-workflow-${++runnerCount}`;
	let mode: PollMode = options.mode ?? 'trigger';
	// What n8n's database holds for this workflow's static data.
	let saved: IDataObject = deepCopy(options.savedStaticData ?? {});
	saved[nodeKey] ??= {};
	const persistence: PersistenceMode = options.persistence ?? 'default';
	// 'durable': the cursor row n8n keeps for this node (undefined until the first poll creates it).
	let cursorRow: IDataObject | undefined;
	let activation: Activation | undefined;
	let nextActivationMode: WorkflowActivateMode = 'activate';
	const emissions: INodeExecutionData[][][] = [];
	// The lineage of the node's state: which poll's state is in memory, saved, or in the cursor row.
	const parents: number[] = [0];
	let savedPoll = 0;
	let rowPoll = 0;
	/** 'default': the number of the poll running (polls of one node do not overlap there). */
	let defaultPollNumber = 0;

	function buildWorkflow(staticData: IDataObject, active: boolean): Workflow {
		return new Workflow({
			id: WORKFLOW_ID,
			name: 'Harness poll workflow',
			nodes: [deepCopy(node)],
			connections: {},
			active,
			nodeTypes,
			staticData: deepCopy(staticData),
			settings: { executionOrder: 'v1' },
		});
	}

	function additionalData() {
		return createAdditionalData({ credentialsHelper, workflowId: WORKFLOW_ID });
	}

	/** n8n's WorkflowStaticDataService.saveStaticData: writes only when something changed. */
	function saveStaticData(workflow: Workflow): void {
		if (workflow.staticData.__dataChanged !== true) return;
		const copy = deepCopy(workflow.staticData);
		delete copy.__dataChanged;
		saved = copy;
		workflow.staticData.__dataChanged = false;
		if (activation?.workflow === workflow) savedPoll = activation.memoryPoll;
	}

	function activate(): Activation {
		const workflow = buildWorkflow(saved, true);
		const workflowNode = workflow.getNode(node.name) as INode;
		const durable = persistence === 'durable';
		const isCurrent = () => activation?.workflow === workflow;
		const activationMode = nextActivationMode;
		/**
		 * A poll context as n8n builds it. 'durable': one per poll task, each with its own staged copy of the cursor
		 * row, read when the poll starts (so two overlapping polls can hold the same copy, as in n8n); 'default': one
		 * for the whole activation.
		 */
		const createExecute = (target: () => PollRun) => {
			let staged: { snapshot: IDataObject; seed: IDataObject; poll: number } | undefined;
			const takeStagedCursor = (): IDataObject | null => {
				if (staged === undefined || isDeepStrictEqual(staged.snapshot, staged.seed)) return null;
				const cursor = deepCopy(staged.snapshot);
				staged.seed = cursor;
				rowPoll = staged.poll;
				return cursor;
			};
			const context = new PollContext(
				workflow,
				workflowNode,
				additionalData(),
				'trigger',
				activationMode,
				(data) => {
					const cursor = durable ? takeStagedCursor() : null;
					// 'default': the emitting poll has committed its state to memory, which n8n saves now.
					if (!durable && activation?.workflow === workflow) activation.memoryPoll = defaultPollNumber;
					saveStaticData(workflow);
					// The execution and the cursor are committed in one transaction; n8n writes the cursor as given.
					if (cursor !== null) cursorRow = cursor;
					target().emission = data;
				},
				(error) => {
					target().error = error;
				},
				durable
					? async () => {
							const cursor = takeStagedCursor();
							if (cursor !== null) cursorRow = cursor;
						}
					: undefined,
				durable
					? async (poll) => {
							cursorRow ??= deepCopy(workflow.getStaticData('node', workflowNode));
							const number = parents.length;
							parents.push(rowPoll);
							staged = { snapshot: deepCopy(cursorRow), seed: cursorRow, poll: number };
							try {
								return await poll();
							} finally {
								staged = undefined;
							}
						}
					: undefined,
				durable
					? () => {
							if (staged === undefined) throw new Error('the node read its static data outside of a poll');
							return staged.snapshot;
						}
					: undefined,
				options.pollBudgetMs === undefined ? undefined : () => options.pollBudgetMs as number,
			);
			return Container.get(PollTriggerExecutor).create(workflow, workflowNode, context, isCurrent);
		};
		let currentRun: PollRun = {};
		const shared = durable ? undefined : createExecute(() => currentRun);
		const execute = async (run: PollRun, testingTrigger = false) => {
			if (shared) {
				currentRun = run;
				return await shared(testingTrigger);
			}
			return await createExecute(() => run)(testingTrigger);
		};
		// The durable scheduler runs no activation poll for a poll job it already holds (n8n starting again).
		const activated = durable && activationMode === 'init';
		return { workflow, execute, activated, memoryPoll: savedPoll };
	}

	async function pollTrigger(): Promise<PollResult> {
		activation ??= activate();
		const current = activation;
		const run: PollRun = {};
		// n8n polls once while activating (an error then fails the activation), then on its schedule.
		const isActivationPoll = !current.activated;
		current.activated = true;
		const number = parents.length;
		if (persistence === 'default') {
			parents.push(current.memoryPoll);
			defaultPollNumber = number;
		}
		const before = persistence === 'default' ? JSON.stringify(current.workflow.getStaticData('node', node)) : '';
		await current.execute(run, isActivationPoll);
		// The node commits its state in one step at the end of the poll: until then memory holds the previous one. A
		// poll that changed nothing (it stood down) leaves the previous one.
		if (persistence === 'default' && JSON.stringify(current.workflow.getStaticData('node', node)) !== before) {
			current.memoryPoll = number;
		}
		// ActiveWorkflowManager.add saves the static data once the activation (and its poll) succeeded.
		if (isActivationPoll && !run.error) saveStaticData(current.workflow);
		return settle(run);
	}

	function settle(run: PollRun): PollResult {
		if (run.error) throw run.error;
		if (run.emission === undefined) return null;
		emissions.push(run.emission);
		return run.emission;
	}

	async function pollOverlapping(count: number): Promise<PollResult[]> {
		if (persistence !== 'durable') throw new Error('overlapping polls of one node happen on the durable scheduler');
		activation ??= activate();
		const current = activation;
		if (!current.activated) throw new Error('activate first: overlapping polls are scheduled polls');
		const runs = Array.from({ length: count }, (): PollRun => ({}));
		await Promise.all(runs.map(async (run) => await current.execute(run)));
		return runs.map(settle);
	}

	async function pollManual(): Promise<PollResult> {
		// A manual run loads the workflow from the database: it sees what was saved, not an active workflow's memory.
		const workflow = buildWorkflow(saved, false);
		const workflowNode = workflow.getNode(node.name) as INode;
		const pollingType = workflow.nodeTypes.getByNameAndVersion(workflowNode.type, workflowNode.typeVersion);
		if (!pollingType.poll) throw new Error(`Node type "${workflowNode.type}" has no poll()`);
		const context = new PollContext(workflow, workflowNode, additionalData(), 'manual', 'manual');
		return await pollingType.poll.call(context);
	}

	return {
		async poll() {
			await getRuntime();
			return mode === 'trigger' ? await pollTrigger() : await pollManual();
		},
		async pollOverlapping(count) {
			await getRuntime();
			return await pollOverlapping(count);
		},
		get staticData() {
			if (persistence === 'durable') return cursorRow ?? (saved[nodeKey] as IDataObject);
			if (!activation) return saved[nodeKey] as IDataObject;
			return activation.workflow.getStaticData('node', node);
		},
		get savedStaticData() {
			return deepCopy(persistence === 'durable' ? (cursorRow ?? {}) : (saved[nodeKey] as IDataObject));
		},
		emissions,
		parents,
		keptPoll() {
			if (persistence === 'durable') return rowPoll;
			return activation ? activation.memoryPoll : savedPoll;
		},
		setParameters(parameters) {
			// Publishing an edit removes the active workflow without saving its static data (n8n 2.40's
			// ActiveWorkflowManager.remove) and activates the new version from the database.
			activation = undefined;
			node.parameters = parameters;
			nextActivationMode = 'update';
		},
		setMode(next) {
			mode = next;
		},
		restart() {
			activation = undefined;
			nextActivationMode = 'init';
		},
		async setCredentials(data) {
			await credentialsHelper.updateCredentials(HARNESS_CREDENTIAL, OLLANG_CREDENTIAL_TYPE, data);
		},
	};
}
