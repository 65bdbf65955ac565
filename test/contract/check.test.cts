// The contract check run in-process against the sandbox: everything matches; each drift mode gives exactly its
// differences and exit code; hostile answers give a clear line each; the key never appears in the report.
import { startSandbox, type DriftMode, type Sandbox } from '../../sandbox/index.cts';
import { runContractCheck, type CheckReport } from '../../contract/check.cts';
import type { OperationReport } from '../../contract/classify.cts';
import { operationLines, summaryLine } from '../../contract/format.cts';
import { call } from '../sandbox/helpers.cts';

const FIGMA_FILE = 'ContractCheckFile01';

/**
 * A Figma order, an import job and a custom instruction in the sandbox, so the check reads them too (the API cannot
 * list the first two; the sandbox seeds no instruction).
 */
async function seedFigmaAndImportJob(sandbox: Sandbox): Promise<string> {
	const figma = await call(sandbox, 'POST', '/integration/orders/figma/create', {
		body: { fileKey: FIGMA_FILE, fileUrl: `https://www.figma.com/design/${FIGMA_FILE}/Site`, sourceLanguage: 'en', targetLanguages: ['fr'] },
	});
	expect(figma.status).toBe(201);
	const memoryId = sandbox.fixtures.memories[0];
	const job = await call(sandbox, 'POST', `/integration/memories/${memoryId}/items/import`, {
		body: { items: [{ sourceLanguage: 'en', targetLanguage: 'fr', sourceText: 'Hello', targetText: 'Bonjour' }] },
	});
	expect(job.status).toBe(201);
	const instruction = await call(sandbox, 'POST', '/integration/custom-instructions', { body: { key: 'tone', value: 'Friendly' } });
	expect(instruction.status).toBe(201);
	return job.body.jobId as string;
}

async function check(drift: DriftMode[], options: { key?: (sandbox: Sandbox) => string; figma?: boolean } = {}): Promise<{ report: CheckReport; key: string; text: string }> {
	const sandbox = await startSandbox({ quiet: true, drift });
	try {
		const importJobId = options.figma ? await seedFigmaAndImportJob(sandbox) : undefined;
		const key = options.key ? options.key(sandbox) : sandbox.keys.owner;
		const report = await runContractCheck({ baseUrl: sandbox.baseUrl, apiKey: key, figmaFileKey: options.figma ? FIGMA_FILE : undefined, importJobId });
		const text = [...report.operations.flatMap(operationLines), report.fatal ?? '', summaryLine(report)].join('\n');
		expect(JSON.stringify(report)).not.toContain(key);
		expect(text).not.toContain(key);
		return { report, key, text };
	} finally {
		await sandbox.close();
	}
}

const byName = (report: CheckReport, name: string): OperationReport => {
	const found = report.operations.find((operation) => operation.operation === name);
	if (!found) throw new Error(`no operation "${name}" in ${report.operations.map((operation) => operation.operation).join(', ')}`);
	return found;
};
const notOk = (report: CheckReport) => report.operations.filter((operation) => operation.outcome !== 'ok' && operation.outcome !== 'skipped').map((operation) => operation.operation);
const differences = (operation: OperationReport) => operation.differences.map(({ path, expected, received }) => `${path}: expected ${expected}, got ${received}`);

describe('contract check against the sandbox', () => {
	it('every read-only operation matches, with no additions: exit 0', async () => {
		const { report, text } = await check([], { figma: true });

		expect(notOk(report)).toEqual([]);
		expect(report.operations.filter((operation) => operation.outcome === 'skipped')).toEqual([]);
		expect(report.summary).toEqual({ ok: 24, differs: 0, unreachable: 0, skipped: 0, additions: 0 });
		expect(report.exitCode).toBe(0);
		// The reads reached every read endpoint of the contract, both review-info paths included.
		const paths = new Set(report.operations.flatMap((operation) => operation.requests.map((request) => request.path.replace(/[0-9a-f]{24}/g, ':id'))));
		expect(paths).toContain('/v1/api/client/orders/:id/review/info');
		expect(paths).toContain('/integration/orders/:id/review/info');
		expect(paths).toContain('/integration/memories/import-jobs/:id');
		expect(paths).toContain('/integration/orders/figma/:id/status');
		expect(report.operations.every((operation) => operation.requests.every((request) => request.method === 'GET'))).toBe(true);
		expect(text).toContain('both review-info paths answer');
		expect(summaryLine(report)).toMatch(/^Contract check of http:\/\/127\.0\.0\.1:\d+: 24 ok, 0 differs, 0 unreachable, 0 skipped; 0 additions; every answer matches the contract \(exit 0\)\.$/);
	});

	it('a renamed field: the missing field differs, the new name is an addition: exit 1', async () => {
		const { report } = await check(['renamed-field']);

		expect(notOk(report)).toEqual(['Credit Wallet > Get']);
		const wallet = byName(report, 'Credit Wallet > Get');
		expect(differences(wallet)).toEqual(['remainingCredits: expected number, got nothing (missing)']);
		expect(wallet.additions).toEqual([{ request: 'GET /integration/credits', path: 'creditsRemaining' }]);
		expect(report.exitCode).toBe(1);
	});

	it('a changed type: the path with expected and received: exit 1', async () => {
		const { report, text } = await check(['changed-type']);

		expect(notOk(report)).toEqual(['Order > Get']);
		expect(differences(byName(report, 'Order > Get'))).toEqual([expect.stringMatching(/^finance\.paymentAmount: expected number, got string "[\d.]+"$/)]);
		expect(text).toMatch(/^differs {5}Order > Get\n {4}finance\.paymentAmount: expected number, got string/m);
		expect(report.exitCode).toBe(1);
	});

	it('a removed endpoint: 404 on that operation only: exit 1', async () => {
		const { report } = await check(['removed-endpoint']);

		expect(notOk(report)).toEqual(['Locale > Get Languages']);
		expect(byName(report, 'Locale > Get Languages').problems).toEqual([
			'GET /integration/locales/languages: 404 (Cannot GET /integration/locales/languages): the endpoint is missing or moved',
		]);
		expect(report.exitCode).toBe(1);
	});

	it('an extra field is an addition, not a failure: exit 0', async () => {
		const { report, text } = await check(['extra-field']);

		expect(notOk(report)).toEqual([]);
		expect(byName(report, 'Order > Get').additions).toEqual([{ request: expect.stringMatching(/^GET \/integration\/orders\/[0-9a-f]{24}$/), path: 'dueAt' }]);
		expect(report.summary.additions).toBe(1);
		expect(text).toContain('+ dueAt: not in the contract (an addition, not a failure)');
		expect(report.exitCode).toBe(0);
	});

	it('a key without rights: the billing reads are refused: exit 2', async () => {
		const { report } = await check(['no-rights']);

		expect(notOk(report)).toEqual(['Credit Wallet > Get', 'Consumption > Get Many']);
		expect(byName(report, 'Credit Wallet > Get').problems).toEqual([expect.stringMatching(/^GET \/integration\/credits: the key has no rights for this \(403 ACCESS_DENIED /)]);
		expect(report.summary.unreachable).toBe(2);
		expect(report.exitCode).toBe(2);
	});

	it("review info only on the SDK's path: says which path works: exit 1", async () => {
		const { report } = await check(['review-info-moved']);

		expect(notOk(report)).toEqual(['Order > Get Review Info']);
		const spec = byName(report, 'Order > Get Review Info');
		expect(spec.problems).toEqual([expect.stringMatching(/^GET \/v1\/api\/client\/orders\/[0-9a-f]{24}\/review\/info: 404 /)]);
		expect(spec.notes).toEqual([expect.stringContaining("the SDK's path /integration/orders/:orderId/review/info answers and matches the contract: that path works")]);
		expect(byName(report, "Order > Get Review Info on the SDK's path").outcome).toBe('ok');
		expect(report.exitCode).toBe(1);
	});

	it('a refused key stops the check after the first authenticated read: exit 2', async () => {
		const { report, text } = await check([], { key: () => 'sbx_wrong_key_0123456789abcdef' });

		expect(report.operations.map((operation) => `${operation.operation}: ${operation.outcome}`)).toEqual(['Health > Check: ok', 'Credit Wallet > Get: unreachable']);
		expect(report.fatal).toBe('The API refused the key (401): check the key; nothing else can be checked.');
		expect(text).toContain('GET /integration/credits: the API refused the key (401 UNAUTHORIZED Invalid or missing API key)');
		expect(report.exitCode).toBe(2);
	});
});

describe('hostile answers get a clear line each', () => {
	it('an HTML error page from a gateway: unreachable, exit 2', async () => {
		const { report } = await check(['html-error']);

		expect(report.operations.map((operation) => operation.operation)).toEqual(['Health > Check']);
		expect(report.fatal).toMatch(/^The service at http:\/\/127\.0\.0\.1:\d+ is unreachable: GET \/health: the service answered 503: 503 Service Temporarily Unavailable 503 Service Temporarily Unavailable nginx$/);
		expect(report.exitCode).toBe(2);
	});

	it('JSON cut off: every read differs with its own line, exit 1', async () => {
		const { report } = await check(['truncated-json']);

		const ran = report.operations.filter((operation) => operation.outcome !== 'skipped');
		expect(ran.length).toBeGreaterThanOrEqual(10);
		for (const operation of ran) {
			expect(operation.outcome).toBe('differs');
			expect(operation.problems).toEqual([expect.stringMatching(/^GET \S+: answered 200 with a body that is not JSON \(.+; \d+ bytes, cut off\?\): "/)]);
		}
		expect(report.exitCode).toBe(1);
	});

	it('a 200 with an empty body: differs, exit 1', async () => {
		const { report } = await check(['empty-body']);

		expect(byName(report, 'Health > Check').problems).toEqual(['GET /health: answered 200 with an empty body where the contract expects JSON']);
		expect(notOk(report)).toEqual(report.operations.filter((operation) => operation.outcome !== 'skipped').map((operation) => operation.operation));
		expect(report.exitCode).toBe(1);
	});

	it('a redirect to another host: not followed, unreachable, exit 2', async () => {
		const { report } = await check(['redirect']);

		expect(report.fatal).toMatch(/unreachable: GET \/health: redirected \(302\) to https:\/\/elsewhere\.invalid; not followed, so the key is not sent to another host$/);
		expect(report.exitCode).toBe(2);
	});

	it('nothing listening: unreachable, exit 2', async () => {
		const sandbox = await startSandbox({ quiet: true });
		const { baseUrl, keys } = sandbox;
		await sandbox.close();

		const report = await runContractCheck({ baseUrl, apiKey: keys.owner });

		expect(report.fatal).toMatch(/^The service at http:\/\/127\.0\.0\.1:\d+ is unreachable: GET \/health: no answer from http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)$/);
		expect(report.exitCode).toBe(2);
	});

	it('a plain-http base URL to another host is refused before anything is sent', async () => {
		await expect(runContractCheck({ baseUrl: 'http://api.example.com', apiKey: 'k' })).rejects.toThrow(/^--base-url: /);
	});
});
