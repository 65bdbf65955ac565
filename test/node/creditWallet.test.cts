import { failure, run, useSandbox } from './setup.cts';

const sandbox = useSandbox();
const getWallet = { resource: 'creditWallet', operation: 'get' };

describe('Credit Wallet > Get', () => {
	it.each(['owner', 'billing'])('returns credits and USD equivalents with the %s key', async (key) => {
		const result = await run(sandbox(), getWallet, { key });

		expect(result.json).toHaveLength(1);
		const wallet = result.json[0];
		expect(wallet).toMatchObject({ totalCredits: expect.any(Number), remainingCredits: expect.any(Number), usedCredits: expect.any(Number) });
		expect(wallet.totalUsd).toBeCloseTo(Number(wallet.totalCredits) / 1000, 6);
	});

	it('403 with the member key names the roles needed', async () => {
		const error = failure(await run(sandbox(), getWallet, { key: 'member' }));

		expect(error.httpCode).toBe('403');
		expect(error.description).toContain('client_owner or client_accessBillings');
	});

	it('401 with a wrong key', async () => {
		expect(failure(await run(sandbox(), getWallet, { key: 'wrong-key-7654321' })).httpCode).toBe('401');
	});
});
