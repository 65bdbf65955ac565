// A paid write is declared, not remembered: every operation that sends POST, PUT, PATCH or DELETE is declared a paid
// write (kind 'paidWrite', sent through the write-once protocol, with Retry Protection and Idempotency Key) or a
// write safe to repeat (kind 'write'). Found from what each operation really sends: run against the sandbox, its
// request log read. The transport refuses an undeclared write at runtime, so no operation can bypass this.
import type { INodeProperties } from 'n8n-workflow';
import { resources } from '../../nodes/Ollang/actions/router';
import type { OllangOperation } from '../../nodes/Ollang/actions/node.type';
import { checkDeclared, declareOperation } from '../../nodes/Ollang/transport/declared';
import { ALL_OPERATIONS, markedItem } from '../reliability/operations.cts';
import { run, useSandbox } from './setup.cts';

const sandbox = useSandbox();
/** Reads whose request is a POST for its body, declared safe to repeat (retry 'safe'), which the transport allows. */
const POSTS_THAT_READ = new Set(['folder.exportXlsx']);

function operationOf(name: string): OllangOperation {
	const [resource, operation] = name.split('.');
	return (resources as unknown as Record<string, Record<string, OllangOperation>>)[resource][operation];
}

describe.each(ALL_OPERATIONS.map((operation) => [operation.name, operation] as const))('%s', (name, operation) => {
	it('is declared for what it sends: a write is a paid write or safe to repeat, a paid write has Retry Protection', async () => {
		const declared = operationOf(name);
		const item = await markedItem(operation, sandbox(), `D${name}`);
		sandbox().requests.reset();

		const result = await run(sandbox(), operation.parameters(sandbox()), { items: [item], staticData: {} });

		expect(result.error).toBeUndefined();
		const writes = sandbox().requests.log.filter((request) => request.method !== 'GET');
		if (writes.length > 0 && !POSTS_THAT_READ.has(name)) expect(['write', 'paidWrite']).toContain(declared.kind);
		if (declared.kind === 'read' && !POSTS_THAT_READ.has(name)) expect(writes).toEqual([]);
		if (declared.kind === 'paidWrite') {
			// Among its Options: what a user rarely changes stays off the main panel.
			const options = declared.description.filter((property) => property.name === 'options').flatMap((property) => (property.options ?? []) as INodeProperties[]);
			expect(options.map((option) => option.name)).toEqual(expect.arrayContaining(['retryProtection', 'idempotencyKey']));
			expect(declared.description.map((property) => property.name)).not.toContain('retryProtection');
		}
	});
});

describe('the transport refuses an undeclared write before sending', () => {
	const context = () => ({}) as Parameters<typeof checkDeclared>[0];

	it('a read that POSTs', () => {
		const ctx = context();
		declareOperation(ctx, 'order.get', 'read');
		expect(() => checkDeclared(ctx, 'POST')).toThrow('order.get is declared a read, but sends POST');
		expect(() => checkDeclared(ctx, 'GET')).not.toThrow();
		expect(() => checkDeclared(ctx, 'POST', 'safe')).not.toThrow();
	});

	it("a paid write's request outside the write-once protocol's send step", () => {
		const ctx = context();
		declareOperation(ctx, 'order.rerun', 'paidWrite');
		expect(() => checkDeclared(ctx, 'POST')).toThrow('order.rerun is a paid write: its POST must go through the write-once protocol');
	});

	it('every operation of the node is declared one of the three kinds', () => {
		for (const operations of Object.values(resources)) {
			for (const operation of Object.values(operations as Record<string, OllangOperation>)) {
				expect(['read', 'write', 'paidWrite']).toContain(operation.kind);
			}
		}
	});
});
