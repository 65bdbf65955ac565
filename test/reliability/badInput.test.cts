// Bad input, table-driven, across every operation: each must give a clear error naming the field and the problem
// and the index of the item that carried it, and nothing may be sent for an input the node can see is invalid (the
// sandbox's request log holds only the requests of the valid items before it). Ids the node accepts must stay in
// their path segment (the sandbox's log shows the path it received). Answers no service should give (not JSON,
// cut short, empty, of another shape, huge) come from a gateway in front of the sandbox.
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import type { Sandbox } from '../../sandbox/index.cts';
import { binaryInputItem } from '../harness/engine.cts';
import { byId, run, useSandbox } from '../node/setup.cts';
import { claimOf, errorOf, Figures, spoils, startGateway } from './helpers.cts';
import type { Spoil } from './helpers.cts';
import { completedOrder as freshCompletedOrder, createFigmaOrder, createFolderDocument, createInstruction, createMemory, createRevision, figmaUrl, READS_BEFORE_SENDING } from './operations.cts';

const sandbox = useSandbox();
const figures = new Figures('Bad input: local checks, path segments and broken answers');

/** Where a case's value goes in the parameters. */
const V = '={{ $json.value }}';

type Value = unknown | ((sandbox: Sandbox) => unknown);

interface BadInput {
	/** resource.operation */
	operation: string;
	/** What is wrong, for the test's name. */
	what: string;
	/** Besides resource and operation; V stands for the value under test. */
	parameters: INodeParameters | ((sandbox: Sandbox) => INodeParameters);
	/** A value that works: items with it come before the bad one. Without it, the bad item is alone. */
	good?: Value;
	bad: Value;
	/** The field the error names ("Invalid <field> (item <n>): ..."). */
	field: string;
	problem: RegExp;
	/** Builds an item from its value (default: { json: { value } }). */
	item?: (value: unknown) => INodeExecutionData;
	/** The operation reads every item before sending anything. */
	readsAllFirst?: boolean;
	/** A node-wide option, read with item 0. */
	nodeWide?: boolean;
	/** Requests each good item sends (default 1). */
	requestsPerItem?: number;
}

const completedOrder = (s: Sandbox) => s.fixtures.orders.byStatus.completed;
const freshOrder = (input: Parameters<Sandbox['simulate']['createOrders']>[1]) => (s: Sandbox) =>
	s.simulate.createOrders(1, { progress: false, ...input })[0].id;
const reviewable = freshOrder({ status: 'completed', level: 0 });
const cancellable = freshOrder({ status: 'ongoing', level: 1 });
const embeddable = freshOrder({ type: 'subtitle', status: 'completed' });
const writableFolder = (s: Sandbox) => byId(s.fixtures.folders.writable);

const idProblems: Array<[string, unknown, RegExp]> = [
	['an empty id', '', /^the ID must not be empty$/],
	['a whitespace id', '   ', /^the ID must not be empty$/],
	['an id with a slash', 'a/b', /^the ID must not contain '\/'$/],
	['the id ".."', '..', /^the ID must not contain '\.\.'$/],
	['an id climbing to another route', '../../credits', /^the ID must not contain '\/'$/],
	['the id "."', '.', /^the ID must not be '\.'$/],
	['an object as id', { id: 1 }, /^the ID must be a text ID$/],
];

const list = { returnAll: false, limit: 1 };
const notADate = /is not a valid ISO 8601 date/;
const createOrder = (extra: INodeParameters = {}) => (s: Sandbox): INodeParameters => ({
	projectId: s.fixtures.projects.writable,
	orderType: 'subtitle',
	level: 0,
	targetLanguages: { language: [{ code: 'de', isRush: false }] },
	...extra,
});
const unitsFromField = { unitsSource: 'field', units: V, targetLanguage: 'de' };
const importUnits = (extra: INodeParameters = {}) => (s: Sandbox): INodeParameters => ({
	memoryId: byId(s.fixtures.memories[0]),
	unitsSource: 'field',
	units: '={{ $json.units }}',
	sourceLanguage: 'en',
	targetLanguage: 'fr',
	...extra,
});
const someUnits = { units: [{ sourceText: 'Yes', targetText: 'Oui' }] };
const fileItem = (bytes: Buffer | string, fileName = 'guide.txt') => () =>
	binaryInputItem(bytes, { fileName, mimeType: 'text/plain', json: {} });
const uploadFile = (extra: INodeParameters = {}): INodeParameters => ({ binaryPropertyName: 'data', sourceLanguage: 'en', ...extra });
const withFile = (value: unknown) => binaryInputItem('media bytes', { fileName: 'clip.mp4', mimeType: 'video/mp4', json: { value } as IDataObject });
let uniqueCount = 0;
/** A fresh value per good item, for what must be unique (instruction keys, Figma files with an active order). */
const unique = (make: (n: number) => string) => () => make(++uniqueCount);
const MAX_FOLDER_DOCUMENT_BYTES = 50 * 1024 * 1024;

/** Run QC Evaluation reads the order (its latest evaluation) before each evaluation, for Retry Protection. */
const QC_REQUESTS_PER_ITEM = 2;

const CASES: BadInput[] = [
	...idProblems.map(([what, bad, problem]): BadInput => ({
		operation: 'order.get',
		what,
		parameters: { orderId: byId(V) },
		good: completedOrder,
		bad,
		field: 'Order',
		problem,
	})),
	{ operation: 'order.requestHumanReview', what: 'the id ".."', parameters: { orderId: byId(V) }, good: reviewable, bad: '..', field: 'Order', problem: /'\.\.'/ },
	{ operation: 'order.requestHumanReview', what: 'an id with a slash', parameters: { orderId: byId(V) }, good: reviewable, bad: 'abc/def', field: 'Order', problem: /'\/'/ },
	{ operation: 'order.cancelHumanReview', what: 'an empty id', parameters: { orderId: byId(V) }, good: cancellable, bad: '', field: 'Order', problem: /must not be empty/ },
	{ operation: 'order.cancelHumanReview', what: 'the id "/"', parameters: { orderId: byId(V) }, good: cancellable, bad: '/', field: 'Order', problem: /'\/'/ },
	{ operation: 'order.exportXlsx', what: 'an id with ".." and an encoded slash', parameters: { orderId: byId(V) }, good: (s: Sandbox) => s.fixtures.orders.subtitleCompleted, bad: '..%2F', field: 'Order', problem: /'\.\.'/ },
	{ operation: 'order.exportXlsx', what: 'an empty output field', parameters: (s) => ({ orderId: byId(s.fixtures.orders.subtitleCompleted), binaryPropertyName: V }), good: 'data', bad: '', field: 'Put Output File in Field', problem: /^must not be empty$/ },
	{ operation: 'order.downloadFiles', what: 'an id with a slash', parameters: { orderId: byId(V), kind: 'subtitles' }, good: (s: Sandbox) => s.fixtures.orders.byType.subtitle, bad: 'a/b', field: 'Order', problem: /'\/'/ },
	{ operation: 'order.downloadFiles', what: 'a kind it does not offer', parameters: (s) => ({ orderId: byId(s.fixtures.orders.byType.subtitle), kind: V }), good: 'subtitles', bad: 'subtitle', field: 'Files', problem: /^"subtitle" is not one of: deliverables, all, / },
	{ operation: 'order.getReviewInfo', what: 'an id climbing back', parameters: { orderId: byId(V) }, good: (s: Sandbox) => s.fixtures.orders.byStatus.qualityCheck, bad: 'x/../y', field: 'Order', problem: /'\/'/ },
	{ operation: 'order.requestSubtitleEmbedding', what: 'the id ".."', parameters: { orderId: byId(V) }, good: embeddable, bad: '..', field: 'Order', problem: /'\.\.'/ },

	{ operation: 'order.cancel', what: 'the id ".."', parameters: { orderId: byId(V) }, good: freshOrder({}), bad: '..', field: 'Order', problem: /'\.\.'/ },
	{ operation: 'order.cancel', what: 'an empty id', parameters: { orderId: byId(V) }, good: freshOrder({}), bad: ' ', field: 'Order', problem: /must not be empty/ },
	{ operation: 'order.rerun', what: 'an id with a slash', parameters: { orderId: byId(V) }, good: freshCompletedOrder, bad: 'a/b', field: 'Order', problem: /'\/'/ },
	{ operation: 'order.rerun', what: 'a Free Rerun that is not true or false', parameters: { orderId: byId('={{ $json.value.orderId }}'), options: { freeReRun: '={{ $json.value.flag }}' } }, good: (s: Sandbox) => ({ orderId: freshCompletedOrder(s), flag: true }), bad: (s: Sandbox) => ({ orderId: freshCompletedOrder(s), flag: 'often' }), field: 'Free Rerun', problem: /^must be true or false, got a string$/ },
	{ operation: 'order.runQcEvaluation', what: 'an http callback URL', parameters: (s) => ({ orderId: byId(freshCompletedOrder(s)), options: { callbackUrl: V } }), good: 'https://hooks.example.com/qc', bad: 'http://hooks.example.com/qc', field: 'Callback URL', problem: /must start with https:\/\//, requestsPerItem: QC_REQUESTS_PER_ITEM },
	{ operation: 'order.runQcEvaluation', what: 'a callback URL on localhost', parameters: (s) => ({ orderId: byId(freshCompletedOrder(s)), options: { callbackUrl: V } }), good: 'https://hooks.example.com/qc', bad: 'https://localhost:5678/webhook', field: 'Callback URL', problem: /"localhost" is a local or private address/, requestsPerItem: QC_REQUESTS_PER_ITEM },
	{ operation: 'order.runQcEvaluation', what: 'a callback URL on a private network address', parameters: (s) => ({ orderId: byId(freshCompletedOrder(s)), options: { callbackUrl: V } }), good: 'https://hooks.example.com/qc', bad: 'https://10.0.0.8/hook', field: 'Callback URL', problem: /"10\.0\.0\.8" is a local or private address/, requestsPerItem: QC_REQUESTS_PER_ITEM },
	{ operation: 'order.runQcEvaluation', what: 'a callback URL that is not a URL', parameters: (s) => ({ orderId: byId(freshCompletedOrder(s)), options: { callbackUrl: V } }), good: 'https://hooks.example.com/qc', bad: 'hooks', field: 'Callback URL', problem: /is not a valid URL/, requestsPerItem: QC_REQUESTS_PER_ITEM },
	{ operation: 'order.runQcEvaluation', what: 'every criterion off', parameters: (s) => ({ orderId: byId(freshCompletedOrder(s)), accuracy: false, fluency: false, tone: false, culturalFit: V }), good: true, bad: false, field: 'Accuracy', problem: /turn on at least one of Accuracy, Fluency, Tone or Cultural Fit/, requestsPerItem: QC_REQUESTS_PER_ITEM },
	{ operation: 'revision.create', what: 'a time without its leading zero', parameters: (s) => ({ orderId: byId(freshCompletedOrder(s)), type: 'other', time: V }), good: '00:00:05', bad: '0:00:05', field: 'Time', problem: /"0:00:05" is not a time as HH:MM:SS/ },
	{ operation: 'revision.create', what: 'minute 75', parameters: (s) => ({ orderId: byId(freshCompletedOrder(s)), type: 'other', time: V }), good: '00:59:59', bad: '00:75:00', field: 'Time', problem: /is not a time as HH:MM:SS/ },
	{ operation: 'revision.create', what: 'an empty time', parameters: (s) => ({ orderId: byId(freshCompletedOrder(s)), type: 'other', time: V }), good: '01:00:00', bad: '', field: 'Time', problem: /^must not be empty$/ },
	{ operation: 'revision.create', what: 'an unknown type', parameters: (s) => ({ orderId: byId(freshCompletedOrder(s)), type: V, time: '00:00:07' }), good: 'syncError', bad: 'timing', field: 'Type', problem: /"timing" is not one of: formatError, missingSubtitle, other, syncError, wrongSubtitle/ },
	{ operation: 'revision.create', what: 'the order ".."', parameters: { orderId: byId(V), type: 'other', time: '00:00:07' }, good: freshCompletedOrder, bad: '..', field: 'Order', problem: /'\.\.'/ },
	{ operation: 'revision.getMany', what: 'the order id with a slash', parameters: { orderId: byId(V), returnAll: true }, good: completedOrder, bad: 'a/b', field: 'Order', problem: /'\/'/ },
	{ operation: 'revision.getMany', what: 'limit 0', parameters: (s) => ({ orderId: byId(completedOrder(s)), returnAll: false, limit: V }), good: 1, bad: 0, field: 'Limit', problem: /got 0$/ },
	{ operation: 'revision.delete', what: 'a revision id with a slash', parameters: { orderId: byId('={{ $json.value.orderId }}'), revisionId: '={{ $json.value.revisionId }}' }, good: (s: Sandbox) => createRevision(s, 'Withdrawn'), bad: (s: Sandbox) => ({ orderId: completedOrder(s), revisionId: 'r/1' }), field: 'Revision', problem: /'\/'/ },
	{ operation: 'revision.delete', what: 'an empty revision id', parameters: { orderId: byId('={{ $json.value.orderId }}'), revisionId: '={{ $json.value.revisionId }}' }, good: (s: Sandbox) => createRevision(s, 'Withdrawn too'), bad: (s: Sandbox) => ({ orderId: completedOrder(s), revisionId: '' }), field: 'Revision', problem: /must not be empty/ },

	{ operation: 'order.getMany', what: 'limit 0', parameters: { returnAll: false, limit: V }, good: 1, bad: 0, field: 'Limit', problem: /^must be a whole number at least 1, got 0$/ },
	{ operation: 'order.getMany', what: 'a negative limit', parameters: { returnAll: false, limit: V }, good: 1, bad: -3, field: 'Limit', problem: /got -3$/ },
	{ operation: 'order.getMany', what: 'a limit that is not a number', parameters: { returnAll: false, limit: V }, good: 1, bad: 'ten', field: 'Limit', problem: /got "ten"$/ },
	{ operation: 'order.getMany', what: 'a fractional limit', parameters: { returnAll: false, limit: V }, good: 1, bad: 2.5, field: 'Limit', problem: /got 2\.5$/ },
	{ operation: 'order.getMany', what: 'take 0', parameters: { ...list, options: { pageSize: V } }, good: 10, bad: 0, field: 'Page Size', problem: /^must be a whole number from 1 to 50, got 0$/ },
	{ operation: 'order.getMany', what: 'take 51', parameters: { ...list, options: { pageSize: V } }, good: 10, bad: 51, field: 'Page Size', problem: /got 51$/ },
	{ operation: 'order.getMany', what: 'a take that is not a number', parameters: { ...list, options: { pageSize: V } }, good: 10, bad: 'fifty', field: 'Page Size', problem: /got "fifty"$/ },
	{ operation: 'order.getMany', what: 'no pages at a time', parameters: { ...list, options: { pageConcurrency: V } }, good: 2, bad: 0, field: 'Parallel Page Requests', problem: /from 1 to 10, got 0$/ },
	{ operation: 'order.getMany', what: 'month 13', parameters: { ...list, filters: { createdFrom: V } }, good: '2025-01-01', bad: '2026-13-45', field: 'Created After', problem: notADate },
	{ operation: 'order.getMany', what: 'a date in words', parameters: { ...list, filters: { createdFrom: V } }, good: '2025-01-01', bad: 'yesterday', field: 'Created After', problem: notADate },
	{ operation: 'order.getMany', what: 'a day-first date', parameters: { ...list, filters: { createdTo: V } }, good: '2030-01-31', bad: '31/01/2026', field: 'Created Before', problem: notADate },
	{ operation: 'order.getMany', what: 'from after to', parameters: { ...list, filters: { createdFrom: V, createdTo: '2026-01-01' } }, good: '2025-12-01', bad: '2026-02-01', field: 'Created After', problem: /^must not be after Created Before/ },
	{ operation: 'order.getMany', what: 'an unknown type', parameters: { ...list, filters: { type: V } }, good: 'subtitle', bad: 'podcast', field: 'Type', problem: /"podcast" is not one of: .*subtitle/ },
	{ operation: 'order.getMany', what: 'an unknown status', parameters: { ...list, filters: { statuses: V } }, good: ['completed'], bad: ['completed', 'finished'], field: 'Statuses', problem: /"finished" is not one of: .*completed/ },
	{ operation: 'order.getMany', what: 'an unknown sort field', parameters: { ...list, options: { orderBy: V } }, good: 'name', bad: 'colour', field: 'Sort By', problem: /"colour" is not one of/ },
	{ operation: 'order.getMany', what: 'an unknown sort direction', parameters: { ...list, options: { orderDirection: V } }, good: 'asc', bad: 'sideways', field: 'Sort Direction', problem: /"sideways" is not one of: asc, desc$/ },

	{ operation: 'consumption.getMany', what: 'February 30', parameters: { ...list, filters: { from: V } }, good: '2026-02-28', bad: '2026-02-30', field: 'From', problem: notADate },
	{ operation: 'consumption.getMany', what: 'text as a date', parameters: { ...list, filters: { to: V } }, good: '2030-01-01', bad: 'not a date', field: 'To', problem: notADate },
	{ operation: 'consumption.getMany', what: 'an hour past 23', parameters: { ...list, filters: { to: V } }, good: '2030-01-01T23:00:00Z', bad: '2026-01-01T25:00:00Z', field: 'To', problem: notADate },
	{ operation: 'consumption.getMany', what: 'from after to', parameters: { ...list, filters: { from: V, to: '2026-01-01T00:00:00Z' } }, good: '2025-01-01', bad: '2026-01-02', field: 'From', problem: /^must not be after To/ },
	{ operation: 'consumption.getMany', what: 'an unknown order type', parameters: { ...list, filters: { orderType: V } }, good: 'cc', bad: 'podcast', field: 'Order Type', problem: /"podcast" is not one of/ },
	{ operation: 'consumption.getMany', what: 'an order id with a slash', parameters: { ...list, filters: { orderId: V } }, good: 'aaaaaaaaaaaaaaaaaaaaaaaa', bad: 'a/b', field: 'Order', problem: /'\/'/ },
	{ operation: 'consumption.getMany', what: 'take 51', parameters: { ...list, options: { pageSize: V } }, good: 50, bad: 51, field: 'Page Size', problem: /got 51$/ },
	{ operation: 'consumption.getMany', what: 'limit 0', parameters: { returnAll: false, limit: V }, good: 5, bad: 0, field: 'Limit', problem: /got 0$/ },
	{ operation: 'consumption.getMany', what: 'an unknown sort field', parameters: { ...list, options: { orderBy: V } }, good: 'occurredAt', bad: 'price', field: 'Sort By', problem: /"price" is not one of/ },

	{ operation: 'order.create', what: 'an empty project id', parameters: createOrder({ projectId: V }), good: (s: Sandbox) => s.fixtures.projects.writable, bad: '', field: 'Project', problem: /must not be empty/ },
	{ operation: 'order.create', what: 'a project id with a slash', parameters: createOrder({ projectId: V }), good: (s: Sandbox) => s.fixtures.projects.writable, bad: 'p/1', field: 'Project', problem: /'\/'/ },
	{ operation: 'order.create', what: 'an empty language code', parameters: createOrder({ targetLanguages: { language: [{ code: V }] } }), good: 'de', bad: '', field: 'Target Languages > Language #1', problem: /^must not be empty$/ },
	{ operation: 'order.create', what: 'a language listed twice', parameters: createOrder({ targetLanguages: { language: [{ code: 'de' }, { code: V }] } }), good: 'fr', bad: 'DE', field: 'Target Languages', problem: /"DE" is listed twice/ },
	{ operation: 'order.create', what: 'level 2', parameters: createOrder({ level: V }), good: 0, bad: 2, field: 'Level', problem: /must be 0 \(AI only\) or 1 \(human review\), got 2/ },
	{ operation: 'order.create', what: 'an unknown order type', parameters: createOrder({ orderType: V }), good: 'document', bad: 'podcast', field: 'Order Type', problem: /"podcast" is not one of: .*subtitle/ },
	{ operation: 'order.create', what: 'a callback that is not a URL', parameters: createOrder({ additionalFields: { callbackUrl: V } }), good: 'https://hooks.example.com/ok', bad: 'not a url', field: 'Callback URL', problem: /is not a valid URL/ },
	{ operation: 'order.create', what: 'an ftp callback', parameters: createOrder({ additionalFields: { callbackUrl: V } }), good: 'https://hooks.example.com/ok', bad: 'ftp://hooks.example.com/x', field: 'Callback URL', problem: /must start with http/ },
	{ operation: 'order.create', what: '21 memories', parameters: createOrder({ additionalFields: { selectedMemories: V } }), good: (s: Sandbox) => [s.fixtures.memories[0]], bad: Array.from({ length: 21 }, (_, index) => `m${index}`), field: 'Memory Names or IDs', problem: /at most 20 memories per order, got 21/ },
	{ operation: 'order.create', what: 'a memory id with a slash', parameters: createOrder({ additionalFields: { selectedMemories: V } }), good: (s: Sandbox) => s.fixtures.memories[1], bad: 'm/1', field: 'Memory Names or IDs', problem: /'\/'/ },
	{ operation: 'order.create', what: 'an unknown subtype', parameters: createOrder({ orderType: 'cc', additionalFields: { orderSubType: V } }), good: 'closedCaption', bad: 'captions', field: 'Subtype', problem: /"captions" is not one of/ },
	{ operation: 'order.create', what: 'an unknown dubbing style', parameters: createOrder({ orderType: 'aiDubbing', additionalFields: { dubbingStyle: V } }), good: 'overdub', bad: 'karaoke', field: 'Dubbing Style', problem: /"karaoke" is not one of/ },

	{ operation: 'content.import', what: 'an empty target language', parameters: { targetLanguage: V, sourceText: 'Save', targetText: 'Speichern' }, good: 'de', bad: '', field: 'Target Language', problem: /must not be empty/, readsAllFirst: true },
	{ operation: 'content.import', what: 'a unit without source text', parameters: { targetLanguage: 'de', sourceText: V, targetText: 'Speichern' }, good: 'Save', bad: '', field: 'Source Text', problem: /must not be empty/, readsAllFirst: true },
	{ operation: 'content.import', what: 'a unit whose target text is blank', parameters: { targetLanguage: 'de', sourceText: 'Save', targetText: V }, good: 'Speichern', bad: '   ', field: 'Target Text', problem: /must not be empty/, readsAllFirst: true },
	{ operation: 'content.import', what: 'units that are not JSON', parameters: unitsFromField, good: JSON.stringify([{ sourceText: 'a', targetText: 'b' }]), bad: '[{ sourceText: a', field: 'Units', problem: /not JSON/, readsAllFirst: true },
	{ operation: 'content.import', what: 'no units', parameters: unitsFromField, good: [{ sourceText: 'a', targetText: 'b' }], bad: [], field: 'Units', problem: /the list is empty/, readsAllFirst: true },
	{ operation: 'content.import', what: 'units as an object', parameters: unitsFromField, good: [{ sourceText: 'a', targetText: 'b' }], bad: { sourceText: 'a' }, field: 'Units', problem: /got an object/, readsAllFirst: true },
	{ operation: 'content.import', what: 'a unit that is a number', parameters: unitsFromField, good: [{ sourceText: 'a', targetText: 'b' }], bad: [42], field: 'Units > unit 1', problem: /must be an object, got a number/, readsAllFirst: true },
	{ operation: 'content.import', what: 'a unit missing its target text', parameters: unitsFromField, good: [{ sourceText: 'a', targetText: 'b' }], bad: [{ sourceText: 'a', targetText: 'b' }, { sourceText: 'c' }], field: 'Units > unit 2 targetText', problem: /must not be empty/, readsAllFirst: true },
	{ operation: 'content.import', what: 'batch size 0', parameters: { targetLanguage: 'de', sourceText: 'Save', targetText: 'Speichern', options: { batchSize: V } }, bad: 0, field: 'Batch Size', problem: /from 1 to 5000, got 0/, nodeWide: true },
	{ operation: 'content.import', what: 'batch size 5,001', parameters: { targetLanguage: 'de', sourceText: 'Save', targetText: 'Speichern', options: { batchSize: V } }, bad: 5001, field: 'Batch Size', problem: /got 5001/, nodeWide: true },

	{ operation: 'memory.create', what: 'an empty title', parameters: { title: V }, good: 'Glossary', bad: '', field: 'Title', problem: /must not be empty/ },
	{ operation: 'memory.create', what: 'a blank title', parameters: { title: V }, good: 'Glossary', bad: '  \t ', field: 'Title', problem: /must not be empty/ },
	{ operation: 'memory.get', what: 'the id ".."', parameters: { memoryId: byId(V) }, good: (s: Sandbox) => s.fixtures.memories[0], bad: '..', field: 'Memory', problem: /'\.\.'/ },
	{ operation: 'memory.rename', what: 'an id with a slash', parameters: { memoryId: byId(V), title: 'Renamed' }, good: (s: Sandbox) => s.fixtures.memories[1], bad: 'a/b', field: 'Memory', problem: /'\/'/ },
	{ operation: 'memory.rename', what: 'an empty new title', parameters: (s) => ({ memoryId: byId(s.fixtures.memories[1]), title: V }), good: 'Renamed', bad: '', field: 'New Title', problem: /must not be empty/ },
	{ operation: 'memory.delete', what: 'the id "/"', parameters: { memoryId: byId(V) }, good: (s: Sandbox) => createMemory(s, 'Doomed'), bad: '/', field: 'Memory', problem: /'\/'/ },
	{ operation: 'memory.getMany', what: 'limit 0', parameters: { returnAll: false, limit: V }, good: 2, bad: 0, field: 'Limit', problem: /got 0$/ },
	{ operation: 'memory.getImportJob', what: 'an empty job id', parameters: { jobId: V }, bad: '', field: 'Job ID', problem: /must not be empty/ },
	{ operation: 'memory.getImportJob', what: 'a job id climbing back', parameters: { jobId: V }, bad: '../x', field: 'Job ID', problem: /'\/'/ },
	{ operation: 'memory.importItems', what: 'the memory ".."', parameters: { memoryId: byId(V), sourceLanguage: 'en', targetLanguage: 'fr', sourceText: 'Yes', targetText: 'Oui' }, good: (s: Sandbox) => s.fixtures.memories[0], bad: '..', field: 'Memory', problem: /'\.\.'/, readsAllFirst: true },
	{ operation: 'memory.importItems', what: 'a unit without its source language', parameters: importUnits({ sourceLanguage: '' }), good: [{ sourceLanguage: 'en', sourceText: 'Yes', targetText: 'Oui' }], bad: [{ sourceText: 'Yes', targetText: 'Oui' }], item: (value) => ({ json: { units: value as IDataObject[] } }), field: 'Units > unit 1 sourceLanguage', problem: /must not be empty/, readsAllFirst: true },
	{ operation: 'memory.importItems', what: '1,001 units where one request must take them', parameters: importUnits({ options: { unitsPerRequest: V } }), bad: 1001, item: (value) => ({ json: { ...someUnits, value } as IDataObject }), field: 'Units per Request', problem: /from 1 to 1000, got 1001/, nodeWide: true },
	{ operation: 'memory.importItems', what: 'polling every 0.1 s', parameters: importUnits({ waitForCompletion: true, options: { pollIntervalSeconds: V } }), bad: 0.1, item: (value) => ({ json: { ...someUnits, value } as IDataObject }), field: 'Poll Interval (Seconds)', problem: /at least 0\.5/, nodeWide: true },
	{ operation: 'memory.importItems', what: 'a timeout of 0', parameters: importUnits({ waitForCompletion: true, options: { timeoutSeconds: V } }), bad: 0, item: (value) => ({ json: { ...someUnits, value } as IDataObject }), field: 'Timeout (Seconds)', problem: /above 0/, nodeWide: true },

	{ operation: 'folder.listDocuments', what: 'the folder ".."', parameters: { folderId: byId(V), returnAll: true }, good: (s: Sandbox) => s.fixtures.folders.writable, bad: '..', field: 'Folder', problem: /'\.\.'/ },
	{ operation: 'folder.listDocuments', what: 'limit 0', parameters: (s) => ({ folderId: writableFolder(s), returnAll: false, limit: V }), good: 1, bad: 0, field: 'Limit', problem: /got 0$/ },
	{ operation: 'folder.listDocuments', what: 'a folder link ending in ".."', parameters: { folderId: { __rl: true, mode: 'url', value: V }, returnAll: true }, good: (s: Sandbox) => `https://app.ollang.com/folders/${s.fixtures.folders.writable}`, bad: 'https://app.ollang.com/folders/..', field: 'Folder', problem: /'\.\.'/ },
	{ operation: 'folder.attachDocument', what: 'a document URL that is not a URL', parameters: (s) => ({ folderId: writableFolder(s), url: V, documentType: 'guideline' }), good: 'https://docs.example.com/a.pdf', bad: 'not a url', field: 'Document URL', problem: /is not a valid URL/ },
	{ operation: 'folder.attachDocument', what: 'a javascript: URL', parameters: (s) => ({ folderId: writableFolder(s), url: V, documentType: 'guideline' }), good: 'https://docs.example.com/b.pdf', bad: 'javascript:alert(1)', field: 'Document URL', problem: /must start with http/ },
	{ operation: 'folder.attachDocument', what: 'an unknown document type', parameters: (s) => ({ folderId: writableFolder(s), url: 'https://docs.example.com/c.pdf', documentType: V }), good: 'glossary', bad: 'manual', field: 'Document Type', problem: /"manual" is not one of: .*glossary/ },
	{ operation: 'folder.attachDocument', what: 'a folder id with a slash', parameters: { folderId: byId(V), url: 'https://docs.example.com/d.pdf', documentType: 'guideline' }, good: (s: Sandbox) => s.fixtures.folders.writable, bad: 'f/1', field: 'Folder', problem: /'\/'/ },
	{ operation: 'folder.uploadDocument', what: 'a missing binary field', parameters: (s) => ({ folderId: writableFolder(s), binaryPropertyName: 'data', documentType: 'guideline' }), good: true, bad: false, item: (value) => (value ? fileItem('terms')() : { json: {} }), field: 'Input Binary Field', problem: /the item has no binary field "data" \(binary fields present: none\)/ },
	{ operation: 'folder.uploadDocument', what: 'a file over 50 MB', parameters: (s) => ({ folderId: writableFolder(s), binaryPropertyName: 'data', documentType: 'guideline' }), good: 1024, bad: MAX_FOLDER_DOCUMENT_BYTES + 1, item: (size) => fileItem(Buffer.alloc(Number(size), 0x61))(), field: 'Input Binary Field', problem: /the file "guide\.txt" is 50\.0 MB, over the 50\.0 MB limit/ },
	{ operation: 'folder.uploadDocument', what: 'an empty file', parameters: (s) => ({ folderId: writableFolder(s), binaryPropertyName: 'data', documentType: 'guideline' }), good: 'terms', bad: '', item: (text) => fileItem(String(text))(), field: 'Input Binary Field', problem: /is empty/ },
	{ operation: 'folder.uploadDocument', what: 'an unknown document type', parameters: (s) => ({ folderId: writableFolder(s), binaryPropertyName: 'data', documentType: V }), good: 'character_list', bad: 'memo', item: (value) => ({ ...fileItem('names')(), json: { value } as IDataObject }), field: 'Document Type', problem: /"memo" is not one of/ },
	{ operation: 'folder.removeDocument', what: 'the document id ".."', parameters: (s) => ({ folderId: writableFolder(s), documentId: V }), good: (s: Sandbox) => createFolderDocument(s, 'Removable'), bad: '..', field: 'Document', problem: /'\.\.'/ },
	{ operation: 'folder.removeDocument', what: 'an empty document id', parameters: (s) => ({ folderId: writableFolder(s), documentId: V }), good: (s: Sandbox) => createFolderDocument(s, 'Removable too'), bad: '', field: 'Document', problem: /must not be empty/ },
	{ operation: 'folder.unassignTranslator', what: 'the folder "/"', parameters: { folderId: byId(V) }, good: (s: Sandbox) => s.fixtures.folders.writable, bad: '/', field: 'Folder', problem: /'\/'/ },

	{ operation: 'folder.getMany', what: 'take 51', parameters: { ...list, options: { pageSize: V } }, good: 2, bad: 51, field: 'Page Size', problem: /got 51$/ },
	{ operation: 'folder.getMany', what: 'an unknown sort field', parameters: { ...list, options: { orderBy: V } }, good: 'name', bad: 'projectCount', field: 'Sort By', problem: /"projectCount" is not one of: createdAt, id, name$/ },
	{ operation: 'folder.getOrderLanguagePairs', what: 'the folder ".."', parameters: { folderId: byId(V) }, good: (s: Sandbox) => s.fixtures.folders.writable, bad: '..', field: 'Folder', problem: /'\.\.'/ },
	{ operation: 'folder.getOrderLanguagePairs', what: 'an unknown status', parameters: (s) => ({ folderId: writableFolder(s), status: V }), good: 'assigned', bad: 'completed', field: 'Orders', problem: /"completed" is not one of: assigned, unassigned$/ },
	{ operation: 'folder.assignTranslator', what: 'a deadline in words', parameters: (s) => ({ folderId: writableFolder(s), translatorId: s.state.translators[0].id, additionalFields: { targetLanguage: 'zz', deadline: V } }), good: '2026-12-01', bad: 'next Friday', field: 'Deadline', problem: notADate },
	{ operation: 'folder.assignTranslator', what: 'February 30 as deadline', parameters: (s) => ({ folderId: writableFolder(s), translatorId: s.state.translators[0].id, additionalFields: { targetLanguage: 'zz', deadline: V } }), good: '2026-12-01T10:00:00Z', bad: '2027-02-30', field: 'Deadline', problem: notADate },
	{ operation: 'folder.assignTranslator', what: 'a blank translator', parameters: (s) => ({ folderId: writableFolder(s), translatorId: V, additionalFields: { targetLanguage: 'zz' } }), good: (s: Sandbox) => s.state.translators[0].id, bad: '  ', field: 'Translator ID', problem: /must not be empty/ },
	{ operation: 'folder.assignTranslator', what: 'a translator id with a slash', parameters: (s) => ({ folderId: writableFolder(s), translatorId: V, additionalFields: { targetLanguage: 'zz' } }), good: (s: Sandbox) => s.state.translators[0].id, bad: 't/1', field: 'Translator ID', problem: /'\/'/ },
	{ operation: 'folder.exportXlsx', what: 'no folders', parameters: { folderIds: V, targetLanguages: [] }, good: (s: Sandbox) => [s.fixtures.folders.readOnlyForMember], bad: [], field: 'Folder Names or IDs', problem: /^give at least one folder$/ },
	{ operation: 'folder.exportXlsx', what: 'only blank folder ids', parameters: { folderIds: V, targetLanguages: [] }, good: (s: Sandbox) => s.fixtures.folders.readOnlyForMember, bad: ' , ', field: 'Folder Names or IDs', problem: /^give at least one folder$/ },
	{ operation: 'folder.exportXlsx', what: 'a folder id with a slash', parameters: { folderIds: V, targetLanguages: [] }, good: (s: Sandbox) => [s.fixtures.folders.readOnlyForMember], bad: ['ok', 'a/b'], field: 'Folder Names or IDs', problem: /'\/'/ },
	{ operation: 'folder.exportXlsx', what: 'an empty output field', parameters: (s) => ({ folderIds: [s.fixtures.folders.readOnlyForMember], targetLanguages: [], binaryPropertyName: V }), good: 'data', bad: '', field: 'Put Output File in Field', problem: /^must not be empty$/ },

	{ operation: 'project.getMany', what: 'limit 0', parameters: { returnAll: false, limit: V }, good: 1, bad: 0, field: 'Limit', problem: /got 0$/ },
	{ operation: 'project.getMany', what: 'an unknown sort direction', parameters: { ...list, options: { orderDirection: V } }, good: 'asc', bad: 'up', field: 'Sort Direction', problem: /"up" is not one of: asc, desc$/ },
	{ operation: 'project.get', what: 'an id with a slash', parameters: { projectId: byId(V) }, good: (s: Sandbox) => s.fixtures.projects.writable, bad: 'p/1', field: 'Project', problem: /'\/'/ },
	{ operation: 'project.get', what: 'an empty id', parameters: { projectId: byId(V) }, good: (s: Sandbox) => s.fixtures.projects.writable, bad: '', field: 'Project', problem: /must not be empty/ },
	{ operation: 'project.createFromUrl', what: 'a file URL that is not a URL', parameters: { url: V, name: 'Clip', sourceLanguage: 'en' }, good: 'https://media.example.com/p1.mp4', bad: 'clip.mp4', field: 'File URL', problem: /is not a valid URL/ },
	{ operation: 'project.createFromUrl', what: 'a URL without a file name', parameters: { url: V, name: 'Clip', sourceLanguage: 'en' }, good: 'https://media.example.com/p2.mp4', bad: 'https://media.example.com/', field: 'File URL (file name taken from its last part)', problem: /must not be empty/ },
	{ operation: 'project.createFromUrl', what: 'a blank name', parameters: { url: 'https://media.example.com/p3.mp4', name: V, sourceLanguage: 'en' }, good: 'Clip', bad: ' ', field: 'Name', problem: /must not be empty/ },
	{ operation: 'project.createFromUrl', what: 'a folder id climbing back', parameters: { url: 'https://media.example.com/p4.mp4', name: 'Clip', sourceLanguage: 'en', additionalFields: { folderId: byId(V) } }, good: (s: Sandbox) => s.fixtures.folders.writable, bad: '../x', field: 'Folder', problem: /'\/'/ },
	{ operation: 'project.createFromUrl', what: 'a note without details', parameters: { url: 'https://media.example.com/p5.mp4', name: 'Clip', sourceLanguage: 'en', additionalFields: { notes: { note: [{ details: V }] } } }, good: 'Intro', bad: '', field: 'Notes > note 1 Details', problem: /must not be empty/ },

	{ operation: 'upload.uploadVtt', what: 'a file that is not .vtt', parameters: (s) => ({ projectId: byId(s.fixtures.projects.writable), binaryPropertyName: 'data', name: 'Subs' }), good: 'subs.vtt', bad: 'subs.srt', item: (value) => binaryInputItem('WEBVTT\n', { fileName: String(value), json: {} }), field: 'Input Binary Field file name', problem: /"subs\.srt" is not a \.vtt file/ },
	{ operation: 'upload.uploadVtt', what: 'a File Name that is not .vtt', parameters: (s) => ({ projectId: byId(s.fixtures.projects.writable), binaryPropertyName: 'data', name: 'Subs', additionalFields: { fileName: V } }), good: 'a.vtt', bad: 'vtt', item: (value) => binaryInputItem('WEBVTT\n', { fileName: 'x.vtt', json: { value } as IDataObject }), field: 'File Name', problem: /"vtt" is not a \.vtt file/ },
	{ operation: 'upload.uploadVtt', what: 'a missing binary field', parameters: (s) => ({ projectId: byId(s.fixtures.projects.writable), binaryPropertyName: 'data', name: 'Subs' }), good: true, bad: false, item: (value) => (value ? binaryInputItem('WEBVTT\n', { fileName: 'a.vtt', json: {} }) : { json: {} }), field: 'Input Binary Field', problem: /has no binary field "data"/ },
	{ operation: 'upload.uploadVtt', what: 'a blank name', parameters: (s) => ({ projectId: byId(s.fixtures.projects.writable), binaryPropertyName: 'data', name: V }), good: 'Subs', bad: '  ', item: (value) => binaryInputItem('WEBVTT\n', { fileName: 'a.vtt', json: { value } as IDataObject }), field: 'Name', problem: /must not be empty/ },
	{ operation: 'upload.uploadVtt', what: 'the project ".."', parameters: { projectId: byId(V), binaryPropertyName: 'data', name: 'Subs' }, good: (s: Sandbox) => s.fixtures.projects.writable, bad: '..', item: (value) => binaryInputItem('WEBVTT\n', { fileName: 'a.vtt', json: { value } as IDataObject }), field: 'Project', problem: /'\.\.'/ },
	{ operation: 'customInstruction.create', what: 'a key that is not a machine id', parameters: { key: V, value: 'Be concise.' }, good: unique((n) => `concise_${n}`), bad: 'be concise', field: 'Key', problem: /^"be concise" is not a machine ID: start with a letter/ },
	{ operation: 'customInstruction.create', what: 'a key starting with a digit', parameters: { key: V, value: 'Be brief.' }, good: unique((n) => `brief_${n}`), bad: '1st_rule', field: 'Key', problem: /is not a machine ID/ },
	{ operation: 'customInstruction.create', what: 'an empty instruction text', parameters: { key: '={{ "text_" + $itemIndex + "_" + $json.value.length }}', value: V }, good: 'Keep it short.', bad: ' ', field: 'Instruction', problem: /^must not be empty$/ },
	{ operation: 'customInstruction.get', what: 'the id ".."', parameters: { instructionId: V }, good: (s: Sandbox) => createInstruction(s, `readable_${++uniqueCount}`), bad: '..', field: 'Custom Instruction', problem: /'\.\.'/ },
	{ operation: 'customInstruction.update', what: 'no field to change', parameters: { instructionId: V, updateFields: {} }, bad: '000000000000000000000000', field: 'Update Fields', problem: /^add at least one of Key, Instruction, Active or Description$/ },
	{ operation: 'customInstruction.update', what: 'a new key that is not a machine id', parameters: { instructionId: '000000000000000000000000', updateFields: { key: V } }, bad: 'new key', field: 'Key', problem: /is not a machine ID/ },
	{ operation: 'customInstruction.delete', what: 'an id with a slash', parameters: { instructionId: V }, good: (s: Sandbox) => createInstruction(s, `removable_${++uniqueCount}`), bad: 'a/b', field: 'Custom Instruction', problem: /'\/'/ },
	{ operation: 'content.export', what: 'a language that is not a code', parameters: { targetLanguages: V }, good: 'de', bad: 'de fr', field: 'Target Languages', problem: /^"de fr" is not a language code/ },
	{ operation: 'content.export', what: 'a language listed twice', parameters: { targetLanguages: V }, good: 'de, fr', bad: 'de, fr, DE', field: 'Target Languages', problem: /^"DE" is listed twice$/ },
	{ operation: 'content.export', what: 'no language', parameters: { targetLanguages: V }, good: ['de'], bad: [], field: 'Target Languages', problem: /^add at least one language code$/ },
	{ operation: 'locale.search', what: 'a blank search text', parameters: { query: V }, good: 'french', bad: '  ', field: 'Search Text', problem: /^must not be empty$/ },
	{ operation: 'locale.validateTag', what: 'a tag with a slash', parameters: { tag: V }, good: 'pt-PT', bad: 'pt/PT', field: 'Language Tag', problem: /^"pt\/PT" is not a tag: it must not contain '\/'/ },
	{ operation: 'locale.validateTag', what: 'the tag ".."', parameters: { tag: V }, good: 'de', bad: '..', field: 'Language Tag', problem: /'\.\.'/ },
	{ operation: 'figmaOrder.create', what: 'a file URL not on figma.com', parameters: { fileUrl: V, sourceLanguage: 'en', targetLanguages: 'de' }, good: unique((n) => figmaUrl(`GoodUrl${n}`)), bad: 'https://example.com/design/Abc/File', field: 'File URL', problem: /is not a Figma file URL/ },
	{ operation: 'figmaOrder.create', what: 'no target language', parameters: { fileUrl: '={{ "https://www.figma.com/design/NoLanguage" + $itemIndex + "/File" }}', sourceLanguage: 'en', targetLanguages: V }, good: 'de', bad: ' , ', field: 'Target Languages', problem: /^add at least one language code$/ },
	{ operation: 'figmaOrder.create', what: 'a source language that is not a code', parameters: { fileUrl: '={{ "https://www.figma.com/design/BadSource" + $itemIndex + "/File" }}', sourceLanguage: V, targetLanguages: 'de' }, good: 'en', bad: 'English', field: 'Source Language', problem: /is not a language code/ },
	{ operation: 'figmaOrder.create', what: 'a file URL without a file key', parameters: { fileUrl: V, sourceLanguage: 'en', targetLanguages: 'de' }, good: unique((n) => figmaUrl(`GoodKey${n}`)), bad: 'https://www.figma.com/files/recent', field: 'File Key', problem: /could not be read from the File URL/ },
	{ operation: 'figmaOrder.getManyByFile', what: 'a file key with a space', parameters: { fileKey: V, returnAll: true }, good: 'SomeFileKey', bad: 'some file', field: 'File Key or URL', problem: /is not a Figma file key/ },
	{ operation: 'figmaOrder.getStatus', what: 'the id ".."', parameters: { orderId: byId(V) }, good: (s: Sandbox) => createFigmaOrder(s, `StatusGood${++uniqueCount}`), bad: '..', field: 'Order', problem: /'\.\.'/ },

	{ operation: 'upload.uploadFile', what: 'a missing binary field', parameters: uploadFile(), good: true, bad: false, item: (value) => (value ? withFile(value) : { json: {} }), field: 'Input Binary Field', problem: /has no binary field "data"/ },
	{ operation: 'upload.uploadFile', what: 'an empty source language', parameters: uploadFile({ sourceLanguage: V }), good: 'en', bad: '', item: withFile, field: 'Source Language', problem: /must not be empty/ },
	{ operation: 'upload.uploadFile', what: 'a file name without extension', parameters: uploadFile({ additionalFields: { fileName: V } }), good: 'episode.mp4', bad: 'episode', item: withFile, field: 'File Name', problem: /"episode" has no file extension/ },
	{ operation: 'upload.uploadFile', what: 'a folder id with a slash', parameters: uploadFile({ additionalFields: { folderId: V } }), good: (s: Sandbox) => s.fixtures.folders.writable, bad: 'a/b', item: withFile, field: 'Folder', problem: /'\/'/ },
	{ operation: 'upload.uploadFile', what: 'a note without details', parameters: uploadFile({ additionalFields: { notes: { note: [{ details: V, timeStamp: '00:00:05' }] } } }), good: 'Speaker changes', bad: '', item: withFile, field: 'Notes > note 1 Details', problem: /must not be empty/ },
	{ operation: 'upload.uploadFromUrl', what: 'a file URL that is not a URL', parameters: { url: V, size: 1000, sourceLanguage: 'en' }, good: 'https://media.example.com/a.mp4', bad: 'nope', field: 'File URL', problem: /is not a valid URL/ },
	{ operation: 'upload.uploadFromUrl', what: 'size 0', parameters: { url: 'https://media.example.com/b.mp4', size: V, sourceLanguage: 'en' }, good: 1000, bad: 0, field: 'File Size (Bytes)', problem: /at least 1, got 0/ },
	{ operation: 'upload.uploadFromUrl', what: 'a size in words', parameters: { url: 'https://media.example.com/c.mp4', size: V, sourceLanguage: 'en' }, good: 1000, bad: 'big', field: 'File Size (Bytes)', problem: /got "big"/ },
	{ operation: 'upload.uploadFromUrl', what: 'a URL without a file name', parameters: { url: V, size: 1000, sourceLanguage: 'en' }, good: 'https://media.example.com/d.mp4', bad: 'https://media.example.com/', field: 'File URL (file name taken from its last part)', problem: /must not be empty/ },
	{ operation: 'upload.uploadFromUrl', what: 'a blank source language', parameters: { url: 'https://media.example.com/e.mp4', size: 1000, sourceLanguage: V }, good: 'en', bad: '   ', field: 'Source Language', problem: /must not be empty/ },
	{ operation: 'upload.uploadFromUrl', what: 'a file name without extension', parameters: { url: 'https://media.example.com/f.mp4', size: 1000, sourceLanguage: 'en', additionalFields: { fileName: V } }, good: 'f.mp4', bad: 'clip', field: 'File Name', problem: /"clip" has no file extension/ },
];

async function valueOf(value: Value, s: Sandbox): Promise<unknown> {
	return typeof value === 'function' ? await (value as (sandbox: Sandbox) => unknown)(s) : value;
}

function nodeParameters(operation: string, parameters: BadInput['parameters'], s: Sandbox): INodeParameters {
	const [resource, name] = operation.split('.');
	return { resource, operation: name, ...(typeof parameters === 'function' ? parameters(s) : parameters) };
}

describe('locally invalid input: a clear error naming the field and the item, and nothing sent', () => {
	it.each(CASES.map((entry, index) => [`${entry.operation}: ${entry.what}`, entry, index] as [string, BadInput, number]))(
		'%s',
		async (_name, entry, index) => {
			const s = sandbox();
			// The bad item comes after 0, 1 or 2 good ones (where the case has a good value), so the item index is tested.
			const position = entry.nodeWide || entry.good === undefined ? 0 : index % 3;
			const toItem = entry.item ?? ((value: unknown) => ({ json: { value } as IDataObject }));
			const items: INodeExecutionData[] = [];
			for (let good = 0; good < position; good++) items.push(toItem(await valueOf(entry.good, s)));
			items.push(toItem(await valueOf(entry.bad, s)));
			s.requests.reset();

			const result = await run(s, nodeParameters(entry.operation, entry.parameters, s), { items });
			const error = errorOf(result);
			figures.add('bad inputs tried');

			const prefix = `Invalid ${entry.field} (item ${position}): `;
			expect(error?.name).toBe('NodeOperationError');
			expect(error?.message.slice(0, prefix.length)).toBe(prefix);
			expect(error?.message.slice(prefix.length)).toMatch(entry.problem);
			expect(error?.itemIndex).toBe(position);
			// Only the good items before it were sent (one request each), or none where all items are read first.
			const perItem = entry.requestsPerItem ?? (READS_BEFORE_SENDING.has(entry.operation) ? 2 : 1);
			expect(s.requests.count()).toBe(entry.readsAllFirst ? 0 : position * perItem);
			figures.add('bad inputs with a clear error before any request for them');
		},
	);
});

describe('ids stay in their path segment: the sandbox receives them percent-encoded', () => {
	const RISKY_IDS = ['?x=1', '#top', '%2F', '%2e%2e', 'a\\b', ' spaced id ', 'ü', 'a;b=c', '%00', '@host'];
	const ROUTES: Array<{
		operation: string;
		route: string;
		parameters: (s: Sandbox, id: string) => INodeParameters;
		path: (s: Sandbox, id: string) => string;
	}> = [
		{ operation: 'order.get', route: '/integration/orders/:orderId', parameters: (_s, id) => ({ orderId: byId(id) }), path: (_s, id) => `/integration/orders/${id}` },
		{ operation: 'order.getReviewInfo', route: '/v1/api/client/orders/:orderId/review/info', parameters: (_s, id) => ({ orderId: byId(id) }), path: (_s, id) => `/v1/api/client/orders/${id}/review/info` },
		{ operation: 'order.cancel', route: '/integration/orders/cancel/:orderId', parameters: (_s, id) => ({ orderId: byId(id) }), path: (_s, id) => `/integration/orders/cancel/${id}` },
		{ operation: 'revision.getMany', route: '/integration/revision/:orderId', parameters: (_s, id) => ({ orderId: byId(id), returnAll: true }), path: (_s, id) => `/integration/revision/${id}` },
		{ operation: 'memory.get', route: '/integration/memories/:memoryId', parameters: (_s, id) => ({ memoryId: byId(id) }), path: (_s, id) => `/integration/memories/${id}` },
		{ operation: 'memory.getImportJob', route: '/integration/memories/import-jobs/:jobId', parameters: (_s, id) => ({ jobId: id }), path: (_s, id) => `/integration/memories/import-jobs/${id}` },
		{ operation: 'folder.getOrderLanguagePairs', route: '/integration/folder/:folderId/order-language-pairs', parameters: (_s, id) => ({ folderId: byId(id) }), path: (_s, id) => `/integration/folder/${id}/order-language-pairs` },
		{ operation: 'folder.listDocuments', route: '/integration/folder/:folderId/docs', parameters: (_s, id) => ({ folderId: byId(id), returnAll: true }), path: (_s, id) => `/integration/folder/${id}/docs` },
		{ operation: 'customInstruction.update', route: '/integration/custom-instructions/:id', parameters: (_s, id) => ({ instructionId: id, updateFields: { active: true } }), path: (_s, id) => `/integration/custom-instructions/${id}` },
		{ operation: 'customInstruction.delete', route: '/integration/custom-instructions/:id', parameters: (_s, id) => ({ instructionId: id }), path: (_s, id) => `/integration/custom-instructions/${id}` },
		{ operation: 'figmaOrder.getStatus', route: '/integration/orders/figma/:orderId/status', parameters: (_s, id) => ({ orderId: byId(id) }), path: (_s, id) => `/integration/orders/figma/${id}/status` },
		{ operation: 'folder.removeDocument', route: '/integration/folder/:folderId/docs/:docId', parameters: (s, id) => ({ folderId: byId(s.fixtures.folders.writable), documentId: id }), path: (s, id) => `/integration/folder/${s.fixtures.folders.writable}/docs/${id}` },
	];

	it.each(ROUTES.map((route) => [route.operation, route] as [string, (typeof ROUTES)[number]]))('%s', async (_name, route) => {
		const s = sandbox();
		const received: string[] = [];
		for (const id of RISKY_IDS) {
			s.requests.reset();
			// Given by expression, so the value reaches the node at run time as typed.
			const result = await run(s, nodeParameters(route.operation, route.parameters(s, `={{ ${JSON.stringify(id)} }}`), s));
			const [request, ...more] = s.requests.log;
			received.push(request?.path);
			figures.add('ids tried that could leave their path segment');
			const stayed = more.length === 0 && request?.route === route.route && request.path === route.path(s, encodeURIComponent(id.trim()));
			figures.add('ids that left their path segment (must be 0)', stayed ? 0 : 1);
			expect(request?.status).toBe(404);
			// The service looked the id up and did not find it; a delete too (outside a retry, a 404 is the answer).
			expect(errorOf(result)?.httpCode).toBe('404');
			expect(more).toHaveLength(0);
		}
		expect(received).toEqual(RISKY_IDS.map((id) => route.path(s, encodeURIComponent(id.trim()))));
		expect(new Set(s.requests.log.map((record) => record.route))).toEqual(new Set([route.route]));
	});
});

interface BrokenAnswer {
	operation: string;
	what: string;
	parameters: (s: Sandbox) => INodeParameters;
	spoil: Spoil;
	/** The error names the problem. */
	message: RegExp;
	/** For actions: what the error must say about whether the request was applied. */
	claim?: 'mayHaveApplied';
	/** The node reads all items first and sends one request (the bad answer is to item 0). */
	single?: boolean;
}

const huge = () => {
	// 17 MB of JSON: a list of memories, each with a long title.
	const memory = JSON.stringify({ id: 'm'.repeat(24), title: 't'.repeat(1000), memoryItemsCount: 0 });
	const count = Math.ceil((17 * 1024 * 1024) / memory.length);
	return `[${Array.from({ length: count }, () => memory).join(',')}]`;
};

const BROKEN_ANSWERS: BrokenAnswer[] = [
	{ operation: 'order.get', what: 'an HTML page with status 200', parameters: (s) => ({ orderId: byId(s.fixtures.orders.byStatus.completed) }), spoil: spoils.answer(200, 'text/html', '<html><body>Maintenance</body></html>'), message: /expected a JSON body/ },
	{ operation: 'creditWallet.get', what: 'JSON cut short', parameters: () => ({}), spoil: spoils.answer(200, 'application/json', '{"totalCredits": 12'), message: /expected a JSON body/ },
	{ operation: 'memory.get', what: 'a connection closed before the promised length', parameters: (s) => ({ memoryId: byId(s.fixtures.memories[0]) }), spoil: spoils.cutShort('{"id": "abc", "ti'), message: /was dropped before an answer arrived .*\(gave up after 4 attempts\)/ },
	{ operation: 'customInstruction.getSuggestions', what: 'an empty 200', parameters: () => ({}), spoil: spoils.answer(200, 'application/json', ''), message: /expected a JSON body, got an empty answer \(HTTP 200\)/ },
	{ operation: 'memory.getMany', what: 'an object where a list belongs', parameters: () => ({ returnAll: true }), spoil: spoils.json(200, { unexpected: true }), message: /expected a list of objects/ },
	{ operation: 'order.get', what: 'a list where an order belongs', parameters: (s) => ({ orderId: byId(s.fixtures.orders.byStatus.completed) }), spoil: spoils.json(200, []), message: /expected an object with id/ },
	{ operation: 'consumption.getMany', what: 'a page without meta', parameters: () => ({ returnAll: false, limit: 1 }), spoil: spoils.json(200, { data: [] }), message: /expected a page/ },
	{ operation: 'order.getMany', what: 'a page of numbers', parameters: () => ({ returnAll: false, limit: 1 }), spoil: spoils.json(200, { data: [1, 2], meta: {} }), message: /expected a page/ },
	{ operation: 'memory.getImportJob', what: 'a job without status', parameters: () => ({ jobId: 'aaaaaaaaaaaaaaaaaaaaaaaa' }), spoil: spoils.json(200, { jobId: 'aaaaaaaaaaaaaaaaaaaaaaaa' }), message: /expected an object with status/ },
	{ operation: 'memory.getMany', what: 'a 17 MB answer', parameters: () => ({ returnAll: true }), spoil: spoils.answer(200, 'application/json', huge()), message: /expected a JSON answer of at most 16\.0 MB, got 17\.\d MB/ },
	{ operation: 'order.exportXlsx', what: 'JSON where a file belongs', parameters: (s) => ({ orderId: byId(s.fixtures.orders.subtitleCompleted) }), spoil: spoils.json(200, { ok: true }), message: /expected a file/ },
	{ operation: 'order.exportXlsx', what: 'an empty file', parameters: (s) => ({ orderId: byId(s.fixtures.orders.subtitleCompleted) }), spoil: spoils.answer(200, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', ''), message: /expected a file, got an empty answer/ },
	{ operation: 'order.getReviewInfo', what: 'a gateway error page, on every attempt', parameters: (s) => ({ orderId: byId(s.fixtures.orders.byStatus.qualityCheck) }), spoil: spoils.answer(502, 'text/html', '<html><h1>502 Bad Gateway</h1></html>'), message: /^The Ollang API answered 502: 502 Bad Gateway \(gave up after 4 attempts\)$/ },
	{ operation: 'order.create', what: 'a 201 of another shape', parameters: (s) => ({ projectId: s.fixtures.projects.writable, orderType: 'document', level: 0, targetLanguages: { language: [{ code: 'de' }] } }), spoil: spoils.json(201, { created: true }), message: /expected a list of objects/, claim: 'mayHaveApplied' },
	{ operation: 'upload.uploadFromUrl', what: 'a 201 without projectId', parameters: () => ({ url: 'https://media.example.com/g.mp4', size: 1000, sourceLanguage: 'en' }), spoil: spoils.json(201, { id: 'x' }), message: /expected an object with projectId/, claim: 'mayHaveApplied' },
	{ operation: 'memory.create', what: 'a 201 of null', parameters: () => ({ title: 'Broken answer' }), spoil: spoils.json(201, null), message: /expected an object with id/, claim: 'mayHaveApplied' },
	{ operation: 'memory.importItems', what: 'a 201 without jobId', parameters: (s) => ({ memoryId: byId(s.fixtures.memories[0]), sourceLanguage: 'en', targetLanguage: 'fr', sourceText: 'Yes', targetText: 'Oui' }), spoil: spoils.json(201, { status: 'pending' }), message: /expected an object with jobId/, claim: 'mayHaveApplied', single: true },
	{ operation: 'customInstruction.create', what: 'a 201 of null', parameters: () => ({ key: 'broken_answer', value: 'x' }), spoil: spoils.json(201, null), message: /expected an object with id/, claim: 'mayHaveApplied' },
	{ operation: 'figmaOrder.create', what: 'a 201 without orders', parameters: () => ({ fileUrl: figmaUrl('BrokenAnswer'), sourceLanguage: 'en', targetLanguages: 'de' }), spoil: spoils.json(201, { projectId: 'p' }), message: /expected an object with projectId, orders/, claim: 'mayHaveApplied' },
	{ operation: 'content.export', what: 'a list where a map belongs', parameters: () => ({ targetLanguages: 'de' }), spoil: spoils.json(200, [{ Save: 'Speichern' }]), message: /expected a JSON object/ },
	{ operation: 'content.export', what: 'a map of numbers', parameters: () => ({ targetLanguages: 'de' }), spoil: spoils.json(200, { Save: 1 }), message: /expected a map of source texts to target texts/ },
	{ operation: 'customInstruction.get', what: 'an object where the list belongs', parameters: () => ({ instructionId: 'abc' }), spoil: spoils.json(200, { id: 'abc' }), message: /expected a list of objects/, single: true },
	{ operation: 'order.cancelHumanReview', what: 'a 200 that is not JSON', parameters: (s) => ({ orderId: byId(s.fixtures.orders.level1Ongoing) }), spoil: spoils.answer(200, 'text/plain', 'OK'), message: /expected a JSON body/, claim: 'mayHaveApplied' },
];

describe('broken answers: a clear error naming the problem and the item', () => {
	it.each(BROKEN_ANSWERS.map((entry, index) => [`${entry.operation}: ${entry.what}`, entry, index] as [string, BrokenAnswer, number]))(
		'%s',
		async (_name, entry, index) => {
			const s = sandbox();
			// Items before the spoiled one get the service's real answers; from the spoiled one on, every answer is spoiled.
			// An action's reads before sending are answered as the service would: its own answer is the one spoiled.
			const position = entry.single ? 0 : index % 2;
			let actions = 0;
			const gateway = await startGateway(s.baseUrl, (requestIndex, req) => {
				const counted = entry.claim === undefined ? requestIndex : req.method === 'GET' ? -1 : actions++;
				return counted >= position ? entry.spoil : undefined;
			});
			try {
				const items = Array.from({ length: position + 1 }, () => ({ json: {} }));
				const result = await run(s, nodeParameters(entry.operation, entry.parameters, s), { items, baseUrl: gateway.baseUrl });
				const error = errorOf(result);
				figures.add('broken answers tried');

				expect(error?.name).toBe('NodeApiError');
				expect(error?.message).toMatch(entry.message);
				expect(error?.itemIndex).toBe(position);
				if (entry.claim) expect(claimOf(error?.description ?? '')).toBe(entry.claim);
				figures.add('broken answers with a clear error');
			} finally {
				await gateway.close();
			}
		},
	);
});
