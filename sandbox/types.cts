/** Domain values and records of the simulated service. Field names of API objects follow the spec. */

export const ORDER_STATUSES = [
	'pending',
	'ongoing',
	'completed',
	'revision',
	'delayed',
	'waitingForCC',
	'waitingForSubtitle',
	'delivered',
	'qualityCheck',
	'readyToSent',
] as const;
export type SpecOrderStatus = (typeof ORDER_STATUSES)[number];
/**
 * The spec's ten statuses plus `cancelled`, which a cancelled order has (public docs: cancel answers 409 once an
 * order is already cancelled; the public SDKs' polling treats `cancelled` as terminal).
 */
export type OrderStatus = SpecOrderStatus | 'cancelled';
/** Every status an order can have, for list filters. */
export const LISTED_ORDER_STATUSES = [...ORDER_STATUSES, 'cancelled'] as const;

export const REVISION_TYPES = ['missingSubtitle', 'wrongSubtitle', 'syncError', 'formatError', 'other'] as const;
export type RevisionType = (typeof REVISION_TYPES)[number];

export const ORDER_TYPES = ['cc', 'subtitle', 'document', 'aiDubbing', 'studioDubbing', 'proofreading', 'other', 'revision'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

export const CREATABLE_ORDER_TYPES = ['cc', 'subtitle', 'document', 'aiDubbing', 'studioDubbing'] as const;
export type CreatableOrderType = (typeof CREATABLE_ORDER_TYPES)[number];

export const DELIVERY_EVENT_TYPES = ['ai_delivered', 'translator_delivered', 'lsp_approved', 'order_delivered'] as const;
export type DeliveryEventType = (typeof DELIVERY_EVENT_TYPES)[number];

export const ACTOR_TYPES = ['ai', 'translator', 'lsp', 'system'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export const FOLDER_DOC_TYPES = ['guideline', 'glossary', 'character_list'] as const;
export type FolderDocType = (typeof FOLDER_DOC_TYPES)[number];

export const JOB_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export type Role = 'client_owner' | 'client_accessBillings';
export type FolderAccess = 'none' | 'read' | 'write';

export interface UserRecord {
	id: string;
	name: string;
	email: string;
	roles: Role[];
	/** Program tags; copied onto the consumption lines of the orders this user requests. */
	tags: string[];
	/** Folders where this user's access is less than write (every other folder: write). */
	folderRestrictions: Map<string, Exclude<FolderAccess, 'write'>>;
}

export interface TranslatorRecord {
	id: string;
	name: string;
	email: string;
}

export const FOLDER_TYPES = ['default', 'api'] as const;
export type FolderType = (typeof FOLDER_TYPES)[number];

export interface FolderRecord {
	id: string;
	name: string;
	createdAt: string;
	/** Label colour in the dashboard, e.g. #B6B6B6. */
	hexColor: string;
	/** 'api': the folder uploads land in when no folder is given (the public docs' "API Uploads"). */
	type: FolderType;
}

export interface ProjectDocCopy {
	id: string;
	folderDocId: string;
	type: FolderDocType;
	name: string;
	url: string;
}

export type SourceKind = 'video' | 'audio' | 'document' | 'subtitle';

export interface ProjectRecord {
	id: string;
	name: string;
	folderId: string;
	sourceLanguage: string;
	createdAt: string;
	source: {
		fileName: string;
		kind: SourceKind;
		size: number;
		url: string;
		durationSec?: number;
		wordCount?: number;
	};
	/** Copies of the folder's documents, applied when the project was created or the document attached. */
	docs: ProjectDocCopy[];
	notes: Array<{ details: string; timeStamp: string }>;
	/** Subtitle files added with POST /integration/upload/vtt, oldest first. */
	subtitles: ProjectSubtitle[];
}

export interface ProjectSubtitle {
	id: string;
	name: string;
	fileName: string;
	size: number;
	/** As given; `all` (auto-detect) is stored as the project's source language. */
	sourceLanguage: string;
	url: string;
	createdAt: string;
}

export interface FolderDocRecord {
	id: string;
	folderId: string;
	type: FolderDocType;
	name: string;
	language: string | null;
	url: string;
	fileName: string | null;
	size: number | null;
	source: 'url' | 'upload';
	createdAt: string;
	updatedAt: string;
}

export interface OrderDoc {
	id: string;
	name: string;
	url: string;
	type: string;
	size: number;
	duration?: number;
	wordCount?: number;
	sourceLanguage: string;
	createdAt: string;
	updatedAt: string;
}

export interface DeliveryEvent {
	type: DeliveryEventType;
	occurredAt: string;
	actorType: ActorType;
	actorId: string;
}

export interface Evaluation {
	id: string;
	orderId: string;
	createdAt: string;
	/** Absent while a requested QC evaluation is processing (the spec marks them optional). */
	textSummary?: string;
	scores?: Array<{ name: string; description: string; value: number }>;
	segmentEvals?: Array<{ id: string; explain: string; suggestedNewValue: string }>;
	isLoading: boolean;
}

/** A client revision request on a delivered order (POST /integration/revision/{orderId}). */
export interface RevisionRecord {
	id: string;
	orderId: string;
	createdAt: string;
	type: RevisionType;
	/** HH:MM:SS in the media. */
	time: string;
	description: string | null;
}

export type StepKind =
	| 'start'
	| 'waitForInput'
	| 'resume'
	| 'aiDelivered'
	| 'assignTranslator'
	| 'translatorDelivered'
	| 'lspApproved'
	| 'orderDelivered'
	| 'redeliver';

export interface PlanStep {
	kind: StepKind;
	afterMinutes: number;
}

export interface OrderPricing {
	unit: 'minute' | 'word';
	unitCount: number;
	level0Rate: number;
	level1Rate: number;
	level0Usd: number;
	level1Usd: number;
}

export interface OrderRecord {
	id: string;
	createdAt: string;
	name: string;
	sourceLanguage: string;
	targetLanguage: string;
	type: OrderType;
	status: OrderStatus;
	level: 0 | 1;
	projectId: string;
	folderId: string;
	vttUrl: string | null;
	orderDocs: OrderDoc[];
	latestEvaluation: Evaluation | null;
	deliveryEvents: DeliveryEvent[];
	pricing: OrderPricing;
	requestorId: string;
	translatorId: string | null;
	/** Set by assign-translator-to-orders when a deadline is given; cleared when the translator is unassigned. */
	translatorDeadline?: string | null;
	/** 0 until the AI pipeline produced segments; the XLSX export is generated from this count. */
	segmentCount: number;
	/** Orders created before the delivery log existed keep an empty deliveryEvents array. */
	logsEvents: boolean;
	/** Set when the order entered qualityCheck (the review gate). */
	reviewGateEnteredAt: string | null;
	options: {
		isRush: boolean;
		orderSubType: string | null;
		dubbingStyle: string | null;
		autoQc: boolean;
		callbackUrl: string | null;
		selectedMemories: string[];
	};
	subtitleEmbedding: { requestedAt: string; completedAt: string | null } | null;
	/** When the order last became available (completed, delivered or re-delivered); the revision window runs from it. */
	deliveredAt: string | null;
	/** Orders created together with this one that it waits on or that wait on it (dubbing and its subtitle order). */
	connectedOrderIds: string[];
	/** Reruns requested, oldest first. */
	reruns: Array<{ at: string; freeReRun: boolean; triggerFullChain: boolean }>;
	life: {
		plan: PlanStep[];
		next: number;
		/** Bumped to cancel the scheduled steps of an earlier plan (human review, cancel, fast-forward). */
		generation: number;
		linesPerStage: number;
		creditsEmitted: number;
	};
}

export interface ConsumptionLine {
	id: string;
	orderId: string;
	orderName: string;
	createdBy: { id: string; name: string; email: string };
	orderType: OrderType;
	creditsUsed: number;
	usdEquivalent: number;
	provider: string;
	providerKey: string;
	service: string;
	tags: string[];
	occurredAt: string;
	projectId: string;
}

export type LedgerKind = 'levelOneOrder' | 'humanReview' | 'humanReviewRefund' | 'orderCancelRefund' | 'rerun' | 'qcEvaluation';

/** Wallet movements that are not provider runs (those are the consumption lines). */
export interface LedgerEntry {
	at: string;
	kind: LedgerKind;
	orderId: string;
	/** Positive: spent; negative: refunded. */
	credits: number;
}

export interface WalletRecord {
	totalCredits: number;
	usedCredits: number;
	lastSyncAt: string | null;
	ledger: LedgerEntry[];
}

export interface MemoryItem {
	sourceLanguage: string;
	targetLanguage: string;
	sourceText: string;
	targetText: string;
	updatedAt: string;
}

export interface MemoryRecord {
	id: string;
	title: string;
	createdAt: string;
	updatedAt: string;
	/** Keyed by source language, target language and source text: re-importing a unit updates it. */
	items: Map<string, MemoryItem>;
}

export interface ImportJobRecord {
	jobId: string;
	memoryId: string;
	status: JobStatus;
	progress: number;
	itemsCount: number | null;
	error: string | null;
	completedAt: string | null;
	vectorizationStatus: JobStatus | null;
	vectorizationProgress: number | null;
	vectorizationError: string | null;
	vectorizationCompletedAt: string | null;
	createdAt: string;
	/** Held until the job completes, then dropped. */
	pendingItems: MemoryItem[] | null;
}

export interface ContentTermRecord {
	id: string;
	sourceText: string;
	elementId: string | null;
	type: string;
	createdAt: string;
	updatedAt: string;
	targets: Map<string, { targetText: string; updatedAt: string }>;
	/** Program tags set in content management (the API cannot set them; seeded terms carry one, imports none). */
	tags: string[];
	/** Orders the term came from (content management; imports link none). */
	orderIds: string[];
}

/** A client-scoped custom instruction (applied to every order of the account). */
export interface CustomInstructionRecord {
	id: string;
	key: string;
	value: string;
	active: boolean;
	description: string | null;
	scopeRefId: string;
	createdAt: string;
	updatedAt: string;
}

/** One Figma order request: a project holding the file's texts, and one document order per target language. */
export interface FigmaImportRecord {
	importId: string;
	fileKey: string;
	fileUrl: string;
	projectId: string;
	orderIds: string[];
	createdAt: string;
}

export interface SandboxState {
	users: Map<string, UserRecord>;
	translators: TranslatorRecord[];
	/** The LSP project manager who approves deliveries (lsp_approved) and reviews in the review gate. */
	lspManager: TranslatorRecord;
	folders: Map<string, FolderRecord>;
	projects: Map<string, ProjectRecord>;
	folderDocs: Map<string, FolderDocRecord>;
	orders: Map<string, OrderRecord>;
	/** Only ever appended to once seeded (the consumption list keeps its filtered, sorted views until it grows). */
	consumption: ConsumptionLine[];
	wallet: WalletRecord;
	memories: Map<string, MemoryRecord>;
	importJobs: Map<string, ImportJobRecord>;
	/** Content database, keyed by sourceText (the spec's matching key). */
	content: Map<string, ContentTermRecord>;
	/** Client revision requests, by id. */
	revisions: Map<string, RevisionRecord>;
	/** Custom instructions, by id, in creation order. */
	customInstructions: Map<string, CustomInstructionRecord>;
	/** Figma order requests, by importId. */
	figmaImports: Map<string, FigmaImportRecord>;
}

export interface UserRef {
	id: string;
	name: string;
	email: string;
}

/** Ids that tests need; every order fixture sits in the writable folder unless its name says otherwise. */
export interface SeededFixtures {
	users: { owner: UserRef; billing: UserRef; member: UserRef };
	folders: { writable: string; readOnlyForMember: string; hiddenFromMember: string; all: string[] };
	projects: { writable: string; readOnlyForMember: string; hiddenFromMember: string };
	folderDocs: { writable: string[]; readOnlyForMember: string[] };
	memories: string[];
	orders: {
		byStatus: Record<SpecOrderStatus, string>;
		byType: Record<OrderType, string>;
		completedLevel0: string;
		deliveredLevel0: string;
		/** Level 1, ongoing, translator assigned: cancel-human-review succeeds once. */
		level1Ongoing: string;
		subtitleCompleted: string;
		/** Completed but without segment data: the XLSX export answers 500. */
		noSegmentData: string;
		/** 100,000 segments, for the streaming export. */
		largeExport: string;
		/** Created before the delivery log existed: empty deliveryEvents. */
		withoutEvents: string;
		/** Delivered, then delivered again: repeated event types. */
		redelivered: string;
		hiddenFromMember: string;
		readOnlyForMember: string;
	};
}
