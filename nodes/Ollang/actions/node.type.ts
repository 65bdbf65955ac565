import type { IBinaryKeyData, IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

/** Every resource and its operations. The router's map is typed from this, so a missing operation does not compile. */
export interface OllangResourceMap {
	order:
		| 'get'
		| 'getMany'
		| 'create'
		| 'createAndWait'
		| 'requestHumanReview'
		| 'cancelHumanReview'
		| 'exportXlsx'
		| 'downloadFiles'
		| 'requestSubtitleEmbedding'
		| 'getReviewInfo'
		| 'cancel'
		| 'rerun'
		| 'runQcEvaluation';
	revision: 'create' | 'getMany' | 'delete';
	consumption: 'getMany';
	creditWallet: 'get';
	content: 'import' | 'export';
	memory: 'create' | 'get' | 'getMany' | 'rename' | 'delete' | 'importItems' | 'getImportJob';
	folder:
		| 'getMany'
		| 'getOrderLanguagePairs'
		| 'assignTranslator'
		| 'unassignTranslator'
		| 'exportXlsx'
		| 'attachDocument'
		| 'listDocuments'
		| 'uploadDocument'
		| 'removeDocument';
	project: 'get' | 'getMany' | 'createFromUrl';
	upload: 'uploadFile' | 'uploadFromUrl' | 'uploadVtt';
	customInstruction: 'getSuggestions' | 'create' | 'getMany' | 'get' | 'update' | 'delete';
	locale: 'getLanguages' | 'search' | 'validateTag';
	figmaOrder: 'create' | 'getManyByFile' | 'getStatus';
	health: 'check';
}

export type OllangResource = keyof OllangResourceMap;

/** One output item before the router adds pairedItem. */
export interface OperationResult {
	json: IDataObject;
	binary?: IBinaryKeyData;
}

/**
 * What an item operation's requests do; the transport checks it before each request. 'read': GETs only, so
 * repeating one or running it beside another changes nothing, and the router runs a few items at once. 'write':
 * changes something the same way however often it is sent (safe to repeat). 'paidWrite': spends credits or creates
 * something, so it is sent through the write-once protocol (common/writeOnce) and described with forPaidWrite.
 * Writes of both kinds run one item after another, in order, and none starts after a failure that stops the node.
 */
export type OperationKind = 'read' | 'write' | 'paidWrite';

/** Runs once per input item; the router loops, pairs and handles continueOnFail. */
export interface ItemOperation {
	description: INodeProperties[];
	kind: OperationKind;
	execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]>;
	/** Runs before any item; items returned are the node's output and no item runs (Create and Wait's re-check). */
	takeOver?(this: IExecuteFunctions): Promise<INodeExecutionData[] | undefined>;
	/** Runs once after every item, on the node's paired output (Create and Wait puts the execution to wait here). */
	afterItems?(this: IExecuteFunctions, output: INodeExecutionData[]): Promise<INodeExecutionData[]>;
}

/** An output item or an error, paired with the input items it came from. */
export type BatchOutcome = { pairedItems: number[]; result: OperationResult } | { pairedItems: number[]; error: Error };

/**
 * Needs all input items at once (to group them into requests). It reports one outcome per output item or
 * error; the router pairs them and handles continueOnFail exactly as for item operations.
 */
export interface BatchOperation {
	description: INodeProperties[];
	/** Batches only read or write safely to repeat: a paid write is an item operation. */
	kind: Exclude<OperationKind, 'paidWrite'>;
	executeBatch(this: IExecuteFunctions, itemCount: number): Promise<BatchOutcome[]>;
}

export type OllangOperation = ItemOperation | BatchOperation;

export type ResourceOperations<R extends OllangResource> = Record<OllangResourceMap[R], OllangOperation>;
