// The workflows the bench runs in n8n: for each scenario, our node's side and the HTTP Request node's side, built
// the way a user would build them in the editor (node types and versions as the editor creates them today), and
// sharing the same input nodes so that only the measured nodes differ.

/** Node type names of n8n's own nodes, at the versions n8n 2.40's editor creates. */
const CORE = Object.freeze({
	manualTrigger: { type: 'n8n-nodes-base.manualTrigger', typeVersion: 1 },
	set: { type: 'n8n-nodes-base.set', typeVersion: 3.4 },
	splitOut: { type: 'n8n-nodes-base.splitOut', typeVersion: 1 },
	aggregate: { type: 'n8n-nodes-base.aggregate', typeVersion: 1 },
	loopOverItems: { type: 'n8n-nodes-base.splitInBatches', typeVersion: 3 },
	// 4.5 is the HTTP Request node's default version in n8n 2.40.
	httpRequest: { type: 'n8n-nodes-base.httpRequest', typeVersion: 4.5 },
	code: { type: 'n8n-nodes-base.code', typeVersion: 2 },
	webhook: { type: 'n8n-nodes-base.webhook', typeVersion: 2 },
	noOp: { type: 'n8n-nodes-base.noOp', typeVersion: 1 },
});

export const OLLANG_NODE_TYPE = 'n8n-nodes-ollang.ollang';

/** Names of the measured nodes, so the runner finds them in the run data. */
export const NODE = Object.freeze({
	ollang: 'Ollang',
	http: 'HTTP Request',
	splitPages: 'Split Out Pages',
	loop: 'Loop Over Items',
	aggregate: 'Aggregate',
	code: 'Code',
	fetchFile: 'Fetch File',
});

let nodeCounter = 0;
function node(name, kind, parameters, extra = {}) {
	nodeCounter += 1;
	return {
		id: `bench-node-${String(nodeCounter).padStart(4, '0')}`,
		name,
		...kind,
		position: [nodeCounter * 220, 300],
		parameters,
		...extra,
	};
}

/** A workflow whose nodes run one after another, in the given order. */
function chainWorkflow(id, name, nodes) {
	const connections = {};
	for (let index = 0; index < nodes.length - 1; index++) {
		connections[nodes[index].name] = { main: [[{ node: nodes[index + 1].name, type: 'main', index: 0 }]] };
	}
	return { id, name, active: false, nodes, connections, settings: { executionOrder: 'v1' }, pinData: {} };
}

function manualTrigger() {
	return node('Manual Trigger', CORE.manualTrigger, {});
}

function ollangNode(parameters, credentials, credential = credentials.ollang) {
	return node(NODE.ollang, { type: OLLANG_NODE_TYPE, typeVersion: 1 }, parameters, {
		credentials: { ollangApi: credential },
	});
}

/** The HTTP Request node with the API key in a Header Auth credential (X-Api-Key), as the API's docs describe. */
function httpRequestNode(parameters, credentials, name = NODE.http) {
	return node(
		name,
		CORE.httpRequest,
		{ authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth', ...parameters },
		{ credentials: { httpHeaderAuth: credentials.headerAuth } },
	);
}

/**
 * The input items of the import scenarios: one Edit Fields node builds the list of units with an expression, and
 * Split Out turns it into one item per unit. Both sides of a scenario get exactly these items.
 */
function unitItems(unitExpression, unitCount) {
	return [
		node('Make Units', CORE.set, {
			mode: 'manual',
			assignments: {
				assignments: [
					{
						id: 'units',
						name: 'units',
						type: 'array',
						value: `={{ Array.from({ length: ${unitCount} }, (_, i) => (${unitExpression})) }}`,
					},
				],
			},
			options: {},
		}),
		node('One Item per Unit', CORE.splitOut, { fieldToSplitOut: 'units', options: {} }),
	];
}

// Unique source texts (the memory and the content database upsert on them), a few words long as UI strings are.
const MEMORY_UNIT = "{ sourceLanguage: 'en', targetLanguage: 'de', sourceText: 'Bench source text number ' + i, targetText: 'Bench Zieltext Nummer ' + i }";
const CONTENT_UNIT = "{ sourceText: 'Bench content text number ' + i, targetText: 'Bench Inhaltstext Nummer ' + i, elementId: 'bench.element.' + i }";

/**
 * The consumption export written by hand in a Code node: n8n's own request helper (no node code of ours), page 1
 * for the page count, then the other pages `concurrency` at a time, one item per line in page order. The key is
 * the sandbox's, written into the code as a user without a credential would.
 */
function consumptionCode(baseUrl, apiKey, concurrency) {
	return `const base = ${JSON.stringify(`${baseUrl}/integration/consumption?pageOptions[take]=50&pageOptions[page]=`)};
const headers = { 'X-Api-Key': ${JSON.stringify(apiKey)} };
const getPage = (page) => this.helpers.httpRequest({ method: 'GET', url: base + page, headers, json: true });
const first = await getPage(1);
const pages = [first];
let next = 2;
const worker = async () => {
	while (next <= first.meta.pageCount) {
		const page = next++;
		pages[page - 1] = await getPage(page);
	}
};
await Promise.all(Array.from({ length: ${concurrency} }, worker));
return pages.flatMap((answer) => answer.data.map((line) => ({ json: line })));`;
}

/**
 * Every workflow of every scenario. `context`: { baseUrl, apiKey, credentials: { ollang, headerAuth, ollangScale }, limits,
 * unitCount, memoryId, orderIds, exportOrderId, perItemConcurrencies }. Returns { key: workflow } with fixed ids, so a re-import replaces
 * the previous copy.
 */
export function buildWorkflows(context) {
	nodeCounter = 0;
	const { baseUrl, credentials } = context;
	const api = (path) => `${baseUrl}${path}`;
	const workflows = {};
	const add = (key, id, name, nodes) => {
		workflows[key] = chainWorkflow(id, `Bench: ${name}`, nodes);
	};

	// 1. Consumption export, all lines.
	add('consumptionOurs', 'BenchConsumOurs01', 'consumption export, Ollang node (Return All)', [
		manualTrigger(),
		ollangNode({ resource: 'consumption', operation: 'getMany', simplify: false, returnAll: true, filters: {}, options: {} }, credentials),
	]);
	add('consumptionOursMax', 'BenchConsumOurs10', 'consumption export, Ollang node (Return All, 10 parallel pages)', [
		manualTrigger(),
		ollangNode({ resource: 'consumption', operation: 'getMany', simplify: false, returnAll: true, filters: {}, options: { pageConcurrency: 10 } }, credentials),
	]);
	// 7. The same export against the scale sandboxes (their own credential, pointed at each in turn).
	add('scaleConsumption', 'BenchScaleConsum1', 'consumption export at scale, Ollang node (Return All)', [
		manualTrigger(),
		ollangNode({ resource: 'consumption', operation: 'getMany', simplify: false, returnAll: true, filters: {}, options: {} }, credentials, credentials.ollangScale),
	]);
	add('consumptionCodePeer', 'BenchConsumCode01', 'consumption export, Code node paging with this.helpers.httpRequest', [
		manualTrigger(),
		// Starts n8n's task runner (its first task launches it), so the measured Code node pays no start-up.
		node('Warm Up Task Runner', CORE.code, { jsCode: 'return [{ json: {} }];' }),
		node(NODE.code, CORE.code, { jsCode: consumptionCode(baseUrl, context.apiKey, context.limits.pageConcurrency) }),
	]);
	add('consumptionPeer', 'BenchConsumPeer01', 'consumption export, HTTP Request node with pagination', [
		manualTrigger(),
		httpRequestNode(
			{
				method: 'GET',
				url: api('/integration/consumption'),
				sendQuery: true,
				specifyQuery: 'keypair',
				queryParameters: { parameters: [{ name: 'pageOptions[take]', value: '50' }] },
				options: {
					pagination: {
						pagination: {
							paginationMode: 'updateAParameterInEachRequest',
							parameters: { parameters: [{ type: 'qs', name: 'pageOptions[page]', value: '={{ $response.body.meta.page + 1 }}' }] },
							paginationCompleteWhen: 'other',
							completeExpression: '={{ !$response.body.meta.hasNextPage }}',
							limitPagesFetched: false,
							requestInterval: 0,
						},
					},
				},
			},
			credentials,
		),
		// The pages come out as one item each ({ data, meta }); a user splits them to get one item per line, as ours gives.
		node(NODE.splitPages, CORE.splitOut, { fieldToSplitOut: 'data', options: {} }),
	]);

	// 2. Memory import, 10,000 units as items.
	const memoryPath = `/integration/memories/${context.memoryId}/items/import`;
	add('memoryOurs', 'BenchMemoryOurs01', 'memory import, Ollang node (Import Items)', [
		manualTrigger(),
		...unitItems(MEMORY_UNIT, context.unitCount),
		ollangNode(
			{
				resource: 'memory',
				operation: 'importItems',
				memoryId: { __rl: true, mode: 'id', value: context.memoryId },
				unitsSource: 'item',
				sourceLanguage: '={{ $json.sourceLanguage }}',
				targetLanguage: '={{ $json.targetLanguage }}',
				sourceText: '={{ $json.sourceText }}',
				targetText: '={{ $json.targetText }}',
				waitForCompletion: false,
				options: {},
			},
			credentials,
		),
	]);
	// Diagnostic: the same units as one item holding the list, so the node evaluates one expression instead of four
	// per unit. It tells the cost of reading parameters per item from the cost of sending.
	add('memoryOursFromField', 'BenchMemoryOursFld', 'memory import, Ollang node (Units From a Field, one item)', [
		manualTrigger(),
		unitItems(MEMORY_UNIT, context.unitCount)[0],
		ollangNode(
			{
				resource: 'memory',
				operation: 'importItems',
				memoryId: { __rl: true, mode: 'id', value: context.memoryId },
				unitsSource: 'field',
				units: '={{ $json.units }}',
				sourceLanguage: '',
				targetLanguage: '',
				waitForCompletion: false,
				options: {},
			},
			credentials,
		),
	]);
	add('memoryPeer', 'BenchMemoryPeer01', 'memory import, HTTP Request node, one request per item', [
		manualTrigger(),
		...unitItems(MEMORY_UNIT, context.unitCount),
		httpRequestNode(
			{
				method: 'POST',
				url: api(memoryPath),
				sendBody: true,
				contentType: 'json',
				specifyBody: 'json',
				jsonBody:
					'={{ { items: [{ sourceLanguage: $json.sourceLanguage, targetLanguage: $json.targetLanguage, sourceText: $json.sourceText, targetText: $json.targetText }] } }}',
				options: {},
			},
			credentials,
		),
	]);
	// The best batching without a Code node: Loop Over Items in batches of 1000 (the API's maximum), Aggregate each
	// batch into one list, one HTTP Request per batch, back to the loop.
	{
		const trigger = manualTrigger();
		const [makeUnits, splitUnits] = unitItems(MEMORY_UNIT, context.unitCount);
		const loop = node(NODE.loop, CORE.loopOverItems, { batchSize: 1000, options: {} });
		const aggregate = node(NODE.aggregate, CORE.aggregate, { aggregate: 'aggregateAllItemData', destinationFieldName: 'items', options: {} });
		const request = httpRequestNode(
			{
				method: 'POST',
				url: api(memoryPath),
				sendBody: true,
				contentType: 'json',
				specifyBody: 'json',
				jsonBody: '={{ { items: $json.items } }}',
				options: {},
			},
			credentials,
		);
		const link = (to) => ({ node: to.name, type: 'main', index: 0 });
		workflows.memoryPeerBatched = {
			id: 'BenchMemoryPeer1k',
			name: 'Bench: memory import, HTTP Request node, batches of 1000 (Loop Over Items + Aggregate)',
			active: false,
			nodes: [trigger, makeUnits, splitUnits, loop, aggregate, request],
			connections: {
				[trigger.name]: { main: [[link(makeUnits)]] },
				[makeUnits.name]: { main: [[link(splitUnits)]] },
				[splitUnits.name]: { main: [[link(loop)]] },
				// Output 0 is "done", output 1 is "loop".
				[loop.name]: { main: [[], [link(aggregate)]] },
				[aggregate.name]: { main: [[link(request)]] },
				[request.name]: { main: [[link(loop)]] },
			},
			settings: { executionOrder: 'v1' },
			pinData: {},
		};
	}

	// 3. Content import, 10,000 units as items.
	const contentParameters = (options) => ({
		resource: 'content',
		operation: 'import',
		targetLanguage: 'de',
		unitsSource: 'item',
		sourceText: '={{ $json.sourceText }}',
		targetText: '={{ $json.targetText }}',
		elementId: '={{ $json.elementId }}',
		type: '',
		options,
	});
	add('contentOurs', 'BenchContentOurs1', 'content import, Ollang node (default batch size)', [
		manualTrigger(),
		...unitItems(CONTENT_UNIT, context.unitCount),
		ollangNode(contentParameters({}), credentials),
	]);
	add('contentOursMax', 'BenchContentOurs5k', 'content import, Ollang node (Batch Size 5000)', [
		manualTrigger(),
		...unitItems(CONTENT_UNIT, context.unitCount),
		ollangNode(contentParameters({ batchSize: 5000 }), credentials),
	]);
	add('contentPeer', 'BenchContentPeer1', 'content import, HTTP Request node, one request per item', [
		manualTrigger(),
		...unitItems(CONTENT_UNIT, context.unitCount),
		httpRequestNode(
			{
				method: 'POST',
				url: api('/integration/content/import'),
				sendBody: true,
				contentType: 'json',
				specifyBody: 'json',
				jsonBody:
					"={{ { targetLanguage: 'de', translations: [{ sourceText: $json.sourceText, targetText: $json.targetText, elementId: $json.elementId }] } }}",
				options: {},
			},
			credentials,
		),
	]);

	// 4. XLSX export of an order with 100,000 segments, and a baseline per side: the same node reading the same
	// order as JSON, so the difference is the export and not loading the node's code or n8n's start-up.
	const exportOrder = { __rl: true, mode: 'id', value: context.exportOrderId };
	add('xlsxOursBaseline', 'BenchXlsxOursBase', 'XLSX baseline, Ollang node (Order > Get)', [
		manualTrigger(),
		ollangNode({ resource: 'order', operation: 'get', simplify: false, orderId: exportOrder }, credentials),
	]);
	add('xlsxOurs', 'BenchXlsxOurs0001', 'XLSX export, Ollang node (Order > Export XLSX)', [
		manualTrigger(),
		ollangNode({ resource: 'order', operation: 'exportXlsx', orderId: exportOrder, binaryPropertyName: 'data' }, credentials),
	]);
	add('xlsxPeerBaseline', 'BenchXlsxPeerBase', 'XLSX baseline, HTTP Request node (GET the order)', [
		manualTrigger(),
		httpRequestNode({ method: 'GET', url: api(`/integration/orders/${context.exportOrderId}`), options: {} }, credentials),
	]);
	add('xlsxPeer', 'BenchXlsxPeer0001', 'XLSX export, HTTP Request node (response format File)', [
		manualTrigger(),
		httpRequestNode(
			{
				method: 'GET',
				url: api(`/integration/orders/${context.exportOrderId}/export-xlsx`),
				options: { response: { response: { responseFormat: 'file', outputPropertyName: 'data' } } },
			},
			credentials,
		),
	]);

	// 10. A large deliverable: Order > Download Files beside the HTTP Request node fetching the signed link (reading
	// the order first, as a user must, for the link), each with a baseline reading the order only.
	if (context.download) {
		const { orderId, fileName } = context.download;
		const order = { __rl: true, mode: 'id', value: orderId };
		add('downloadOursBaseline', 'BenchDownOursBase', 'download baseline, Ollang node (Order > Get)', [manualTrigger(), ollangNode({ resource: 'order', operation: 'get', simplify: false, orderId: order }, credentials)]);
		add('downloadOurs', 'BenchDownOurs0001', 'download, Ollang node (Order > Download Files)', [
			manualTrigger(),
			ollangNode({ resource: 'order', operation: 'downloadFiles', orderId: order, kind: 'embeddedVideo', binaryPropertyName: 'data' }, credentials),
		]);
		const getOrder = () => httpRequestNode({ method: 'GET', url: api(`/integration/orders/${orderId}`), options: {} }, credentials);
		add('downloadPeerBaseline', 'BenchDownPeerBase', 'download baseline, HTTP Request node (GET the order)', [manualTrigger(), getOrder()]);
		add('downloadPeer', 'BenchDownPeer0001', 'download, HTTP Request node (the signed link, response format File)', [
			manualTrigger(),
			getOrder(),
			// The signed link authorizes itself: no credential, as the node sends none there.
			node(NODE.fetchFile, CORE.httpRequest, {
				method: 'GET',
				url: `={{ $json.orderDocs.find((doc) => doc.name === ${JSON.stringify(fileName)}).url }}`,
				options: { response: { response: { responseFormat: 'file', outputPropertyName: 'data' } } },
			}),
		]);
	}

	// 6. Order > Get for 1,000 input items.
	const orderItems = () => [
		node('Order IDs', CORE.set, {
			mode: 'raw',
			jsonOutput: JSON.stringify({ orderIds: context.orderIds }),
			options: {},
		}),
		node('One Item per Order', CORE.splitOut, { fieldToSplitOut: 'orderIds', options: { destinationFieldName: 'orderId' } }),
	];
	// At the default read concurrency the option is not set, as a user who never opened Options leaves it.
	for (const concurrency of context.perItemConcurrencies) {
		const options = concurrency === context.limits.itemConcurrency ? {} : { readConcurrency: concurrency };
		add(`perItemOurs${concurrency}`, `BenchPerItemOursC${concurrency}`, `Order > Get per item, Ollang node, Read Concurrency ${concurrency}`, [
			manualTrigger(),
			...orderItems(),
			ollangNode({ resource: 'order', operation: 'get', simplify: false, orderId: { __rl: true, mode: 'id', value: '={{ $json.orderId }}' }, options }, credentials),
		]);
	}
	add('perItemPeer', 'BenchPerItemPeer1', 'Order > Get per item, HTTP Request node', [
		manualTrigger(),
		...orderItems(),
		httpRequestNode({ method: 'GET', url: `=${api('/integration/orders/')}{{ $json.orderId }}`, options: {} }, credentials),
	]);

	return workflows;
}

/**
 * Scenario 8 (queue mode): a Webhook that answers when the workflow has finished ("When Last Node Finishes") with
 * the order that Order > Get read for the `orderId` in the request's body. Created through n8n's REST API (it gets
 * its id there), so it has none here. `credential`: { id, name } of the Ollang credential.
 */
export function queueWorkflow({ credential, webhookPath }) {
	nodeCounter = 0;
	const webhook = node('Webhook', CORE.webhook, { httpMethod: 'POST', path: webhookPath, responseMode: 'lastNode', options: {} }, { webhookId: '6f1d3c2e-5b7a-4a51-9c0d-00000000b3c4' });
	const getOrder = ollangNode({ resource: 'order', operation: 'get', simplify: false, orderId: { __rl: true, mode: 'id', value: '={{ $json.body.orderId }}' } }, { ollang: credential });
	const { id: _none, active: _active, pinData: _pinData, ...workflow } = chainWorkflow('', 'Bench: queue mode, Order > Get from a webhook', [webhook, getOrder]);
	return workflow;
}

/** The Ollang Callback Trigger's name in scenario 11's workflow (the bench reads its items in the run data). */
export const BURSTS_TRIGGER_NODE = 'On Ollang callback';

/**
 * Scenario 11 (callbacks in bursts): its two sides in one n8n, each its trigger followed by a No Operation node.
 * `trigger`: the Ollang Callback Trigger (events: Order Completed) with its sweep every `sweepMinutes`; `webhook`:
 * n8n's own Webhook node as a user adds it for any callback (POST, answering "Immediately", i.e. On Received), the
 * least n8n does to take a request in. Created through n8n's REST API, so they have no ids here.
 */
export function burstsWorkflows({ credential, triggerWebhookId, webhookPath, sweepMinutes }) {
	nodeCounter = 0;
	const trigger = node(
		BURSTS_TRIGGER_NODE,
		{ type: 'n8n-nodes-ollang.ollangCallbackTrigger', typeVersion: 1 },
		{ events: ['orderCompleted'], options: { sweepMinutes } },
		{ webhookId: triggerWebhookId, credentials: { ollangApi: credential } },
	);
	const webhook = node('Webhook', CORE.webhook, { httpMethod: 'POST', path: webhookPath, responseMode: 'onReceived', options: {} }, { webhookId: webhookPath });
	const strip = ({ id: _none, active: _active, pinData: _pinData, ...workflow }) => workflow;
	return {
		trigger: strip(chainWorkflow('', 'Bench: callbacks in bursts: Ollang Callback Trigger', [trigger, node('Received', CORE.noOp, {})])),
		webhook: strip(chainWorkflow('', "Bench: callbacks in bursts: n8n's Webhook node", [webhook, node('Received', CORE.noOp, {})])),
	};
}
