// The contract: zod schemas of the API's answers to every read the node makes, one source for the sandbox (its
// answers are checked against them in npm test), the node (its field lists are checked against them) and the
// live check (`npm run contract`). Objects list the fields we code against; a field the service adds is an
// addition, never a failure. Where the spec says "not shown", the shape is the public SDKs' (PUBLIC-API-REFERENCE.md).
import { z } from 'zod';
import { DELIVERY_EVENT_TYPES, FOLDER_DOC_TYPES, FOLDER_TYPES, JOB_STATUSES, LISTED_ORDER_STATUSES, ORDER_TYPES, REVISION_TYPES } from '../sandbox/types.cts';

/** An ISO 8601 timestamp such as 2026-11-01T12:00:00.000Z. */
export const timestamp = z.string().datetime({ offset: true });
const count = z.number().int().nonnegative();
/** When a record was created and last changed. */
const stamps = { createdAt: timestamp, updatedAt: timestamp };

export const healthSchema = z.object({
	/** Epoch milliseconds (the docs; one skill calls it a response time). */
	time: z.number(),
	status: z.enum(['OK', 'NOK']),
});

/** `meta` of a paged list (spec: page metadata). */
export const pageMetaSchema = z.object({
	page: count,
	take: count,
	itemCount: count,
	pageCount: count,
	hasPreviousPage: z.boolean(),
	hasNextPage: z.boolean(),
});

export function pageOf<T extends z.ZodTypeAny>(row: T) {
	return z.object({ data: z.array(row), meta: pageMetaSchema });
}

export const orderStatusSchema = z.enum(LISTED_ORDER_STATUSES);
export const orderTypeSchema = z.enum(ORDER_TYPES);

export const orderSummarySchema = z.object({
	id: z.string(),
	name: z.string(),
	sourceLanguage: z.string(),
	targetLanguage: z.string(),
	status: orderStatusSchema,
	type: orderTypeSchema,
	level: z.number(),
	createdAt: timestamp,
	projectId: z.string(),
	folderId: z.string(),
});

export const orderDocSchema = z.object({
	id: z.string(),
	name: z.string(),
	url: z.string(),
	type: z.string(),
	size: z.number().optional(),
	duration: z.number().optional(),
	wordCount: z.number().optional(),
	sourceLanguage: z.string().optional(),
	...stamps,
});

export const evaluationSchema = z.object({
	id: z.string(),
	orderId: z.string(),
	createdAt: timestamp,
	textSummary: z.string().optional(),
	scores: z.array(z.object({ name: z.string(), description: z.string(), value: z.number() })).optional(),
	segmentEvals: z.array(z.object({ id: z.string(), explain: z.string(), suggestedNewValue: z.string() })).optional(),
	isLoading: z.boolean(),
});

export const deliveryEventSchema = z.object({
	type: z.enum(DELIVERY_EVENT_TYPES),
	occurredAt: timestamp,
	actorType: z.string(),
	actorId: z.string().nullable(),
});

export const orderSchema = z.object({
	id: z.string(),
	createdAt: timestamp,
	name: z.string(),
	sourceLanguage: z.string(),
	targetLanguage: z.string(),
	type: orderTypeSchema,
	status: orderStatusSchema,
	rate: z.number(),
	projectId: z.string(),
	level: z.number(),
	folderId: z.string(),
	vttUrl: z.string().optional(),
	orderDocs: z.array(orderDocSchema),
	finance: z.object({ paymentAmount: z.number() }),
	latestEvaluation: evaluationSchema.nullable().optional(),
	deliveryEvents: z.array(deliveryEventSchema),
});

/** Review-gate info; the spec names tagName, reviewType and tagColor, the TS SDK inReview, enteredReviewAt, reviewers. */
export const reviewInfoSchema = z.object({
	inReview: z.boolean(),
	tagName: z.string().nullable(),
	reviewType: z.string().nullable(),
	tagColor: z.string().nullable(),
	enteredReviewAt: timestamp.nullable(),
	reviewers: z.array(z.object({ id: z.string(), name: z.string(), email: z.string() })),
});

export const consumptionLineSchema = z.object({
	id: z.string(),
	orderId: z.string(),
	orderName: z.string(),
	createdBy: z.object({ id: z.string(), name: z.string(), email: z.string() }),
	orderType: orderTypeSchema,
	creditsUsed: z.number(),
	usdEquivalent: z.number(),
	provider: z.string(),
	providerKey: z.string(),
	service: z.string(),
	tags: z.array(z.string()),
	occurredAt: timestamp,
	projectId: z.string().optional(),
});

/** The spec: "Field names of the credit wallet: not shown"; these are the public SDKs'. */
export const creditWalletSchema = z.object({
	totalCredits: z.number(),
	remainingCredits: z.number(),
	usedCredits: z.number(),
	currency: z.string(),
	creditsPerUsd: z.number(),
	totalUsd: z.number(),
	remainingUsd: z.number(),
	usedUsd: z.number(),
	lastSyncDate: timestamp.nullable(),
});

export const projectSummarySchema = z.object({
	id: z.string(),
	name: z.string(),
	sourceLanguage: z.string(),
	createdAt: timestamp,
	folderId: z.string(),
	ordersCount: count,
});

/** Project documents carry the order documents' fields, and always their language, project and folder. */
export const projectDocSchema = orderDocSchema.extend({ sourceLanguage: z.string(), projectId: z.string(), folderId: z.string() });

export const projectSchema = projectSummarySchema.extend({ projectDocs: z.array(projectDocSchema) });

export const folderSchema = z.object({
	id: z.string(),
	name: z.string(),
	hexColor: z.string(),
	type: z.enum(FOLDER_TYPES),
	createdAt: timestamp,
	projectCount: count,
});

export const languagePairsSchema = z.object({
	pairs: z.array(z.object({ sourceLanguage: z.string(), targetLanguage: z.string(), ordersCount: count })),
});

export const folderDocSchema = z.object({
	id: z.string(),
	folderId: z.string(),
	type: z.enum(FOLDER_DOC_TYPES),
	name: z.string(),
	language: z.string().nullable(),
	url: z.string(),
	fileName: z.string().nullable(),
	size: z.number().nullable(),
	...stamps,
});

export const memorySchema = z.object({
	id: z.string(),
	title: z.string(),
	memoryItemsCount: count,
	...stamps,
});

const jobStatus = z.enum(JOB_STATUSES);
export const importJobSchema = z.object({
	jobId: z.string(),
	status: jobStatus,
	progress: z.number(),
	itemsCount: z.number().nullable(),
	error: z.string().nullable(),
	completedAt: timestamp.nullable(),
	vectorizationStatus: jobStatus.nullable(),
	vectorizationProgress: z.number().nullable(),
	vectorizationError: z.string().nullable(),
	vectorizationCompletedAt: timestamp.nullable(),
});

export const customInstructionSuggestionSchema = z.object({
	key: z.string(),
	value: z.string(),
	description: z.string().optional(),
	active: z.boolean(),
});

export const customInstructionSchema = z.object({
	id: z.string(),
	key: z.string(),
	value: z.string(),
	active: z.boolean(),
	description: z.string().nullable(),
	scopeRefId: z.string(),
	...stamps,
});

const languageEntry = z.object({ code: z.string(), name: z.string(), nativeName: z.string().optional() });
export const languageSchema = languageEntry.extend({ variants: z.array(languageEntry).optional() });

export const tagValidationSchema = z.object({
	valid: z.boolean(),
	code: z.string().optional(),
	language: z.string().optional(),
	region: z.string().optional(),
	reasons: z.array(z.string()).optional(),
});

export const revisionSchema = z.object({
	id: z.string(),
	createdAt: timestamp,
	type: z.enum(REVISION_TYPES),
	time: z.string(),
	description: z.string().nullable(),
	orderId: z.string(),
});

const figmaReviewInfo = z.object({ teamTagName: z.string(), teamTagColor: z.string(), reviewType: z.string() }).nullable();

export const figmaOrderSchema = z.object({
	id: z.string(),
	status: orderStatusSchema,
	targetLanguage: z.string(),
	createdAt: timestamp,
	orderName: z.string(),
	reviewInfo: figmaReviewInfo,
});

export const figmaStatusSchema = z.object({
	orderId: z.string(),
	status: orderStatusSchema,
	targetLanguage: z.string(),
	orderName: z.string(),
	createdAt: timestamp,
	completedAt: timestamp.nullable(),
	reviewInfo: figmaReviewInfo,
	fileKey: z.string(),
	projectId: z.string(),
	importId: z.string(),
});

/** One target language: { sourceText: targetText }; several: { language: that map }. */
export const contentExportSchema = z.union([z.record(z.string()), z.record(z.record(z.string()))]);
