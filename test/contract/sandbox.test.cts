// The sandbox is held to the contract: every order, review gate, project, folder and memory it holds answers in the
// contract's shape, with no field the contract lacks (the check's own run reads one of each; this reads them all).
import type { z } from 'zod';
import { compareWithSchema } from '../../contract/compare.cts';
import { endpointFor } from '../../contract/endpoints.cts';
import { call, useSandbox } from '../sandbox/helpers.cts';

const sandbox = useSandbox();

async function mismatches(paths: string[]): Promise<string[]> {
	const found: string[] = [];
	for (const path of paths) {
		const response = await call(sandbox(), 'GET', path);
		const schema = endpointFor('GET', path.split('?')[0])?.schema as z.ZodTypeAny;
		if (response.status !== 200) {
			found.push(`${path}: ${response.status}`);
			continue;
		}
		const { differences, additions } = compareWithSchema(schema, response.body);
		found.push(...differences.map((difference) => `${path} ${difference.path}: expected ${difference.expected}, got ${difference.received}`));
		found.push(...additions.map((addition) => `${path} ${addition}: not in the contract`));
	}
	return found;
}

describe('every answer of the sandbox matches the contract exactly', () => {
	it('orders (every status and type), their review info on both paths and their revisions', async () => {
		const statuses = new Set([...sandbox().state.orders.values()].map((order) => order.status));
		expect(statuses.size).toBeGreaterThanOrEqual(10);
		const orders = [...sandbox().state.orders.keys()];
		expect(orders.length).toBeGreaterThanOrEqual(30);
		const paths = orders.flatMap((id) => [`/integration/orders/${id}`, `/v1/api/client/orders/${id}/review/info`, `/integration/orders/${id}/review/info`, `/integration/revision/${id}`]);
		expect(await mismatches(paths)).toEqual([]);
	});

	it('lists, projects, folders, memories, locales and the wallet', async () => {
		const { state } = sandbox();
		const paths = [
			'/health',
			'/integration/credits',
			'/integration/consumption?pageOptions[take]=50',
			'/integration/orders?pageOptions[take]=50',
			'/integration/project?take=50',
			'/integration/folder?take=50',
			'/integration/memories',
			'/integration/custom-instructions',
			'/integration/custom-instructions/suggestions',
			'/integration/locales/languages',
			'/integration/locales/search?q=en',
			'/integration/locales/validate/pt-BR',
			'/integration/locales/validate/xx',
			'/integration/content/export?targetLanguage=fr',
			'/integration/content/export?targetLanguages=fr&targetLanguages=de',
			...[...state.projects.keys()].map((id) => `/integration/project/${id}`),
			...[...state.folders.keys()].flatMap((id) => [`/integration/folder/${id}/docs`, `/integration/folder/${id}/order-language-pairs`, `/integration/folder/${id}/order-language-pairs?status=assigned`]),
			...[...state.memories.keys()].map((id) => `/integration/memories/${id}`),
		];
		expect(await mismatches(paths)).toEqual([]);
	});
});
