// Which schema each read endpoint's 2xx answer must match. Paths are the sandbox's and the node's (':name' is one
// path segment).
import { z } from 'zod';
import * as schema from './schemas.cts';

export interface ReadEndpoint {
	method: 'GET';
	pattern: string;
	schema: z.ZodTypeAny;
}

const get = (pattern: string, answer: z.ZodTypeAny): ReadEndpoint => ({ method: 'GET', pattern, schema: answer });

/** The review-gate info paths: the spec's (the node's) and the public SDKs'. */
export const REVIEW_INFO_SPEC_PATH = '/v1/api/client/orders/:orderId/review/info';
export const REVIEW_INFO_SDK_PATH = '/integration/orders/:orderId/review/info';

export const READ_ENDPOINTS: readonly ReadEndpoint[] = [
	get('/health', schema.healthSchema),
	get('/integration/credits', schema.creditWalletSchema),
	get('/integration/consumption', schema.pageOf(schema.consumptionLineSchema)),
	get('/integration/orders', schema.pageOf(schema.orderSummarySchema)),
	get('/integration/orders/figma', z.array(schema.figmaOrderSchema)),
	get('/integration/orders/figma/:orderId/status', schema.figmaStatusSchema),
	get(REVIEW_INFO_SPEC_PATH, schema.reviewInfoSchema),
	get(REVIEW_INFO_SDK_PATH, schema.reviewInfoSchema),
	get('/integration/orders/:orderId', schema.orderSchema),
	get('/integration/revision/:orderId', z.array(schema.revisionSchema)),
	get('/integration/project', schema.pageOf(schema.projectSummarySchema)),
	get('/integration/project/:projectId', schema.projectSchema),
	get('/integration/folder', schema.pageOf(schema.folderSchema)),
	get('/integration/folder/:folderId/order-language-pairs', schema.languagePairsSchema),
	get('/integration/folder/:folderId/docs', z.array(schema.folderDocSchema)),
	get('/integration/memories', z.array(schema.memorySchema)),
	get('/integration/memories/import-jobs/:jobId', schema.importJobSchema),
	get('/integration/memories/:memoryId', schema.memorySchema),
	get('/integration/custom-instructions/suggestions', z.array(schema.customInstructionSuggestionSchema)),
	get('/integration/custom-instructions', z.array(schema.customInstructionSchema)),
	get('/integration/locales/languages', z.array(schema.languageSchema)),
	get('/integration/locales/search', z.array(schema.languageSchema)),
	get('/integration/locales/validate/:tag', schema.tagValidationSchema),
	get('/integration/content/export', schema.contentExportSchema),
];

function patternRegExp(pattern: string): RegExp {
	const source = pattern
		.split('/')
		.map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
		.join('/');
	return new RegExp(`^${source}$`);
}

const MATCHERS = READ_ENDPOINTS.map((endpoint) => ({ endpoint, regExp: patternRegExp(endpoint.pattern) }));

/** The endpoint a request path (without its query) belongs to; the first match wins, as in the sandbox's router. */
export function endpointFor(method: string, pathname: string): ReadEndpoint | undefined {
	return MATCHERS.find(({ endpoint, regExp }) => endpoint.method === method && regExp.test(pathname))?.endpoint;
}
