import { failure, pairedIndexes, run, useSandbox } from './setup.cts';

const sandbox = useSandbox();
const getSuggestions = { resource: 'customInstruction', operation: 'getSuggestions' };

describe('Custom Instruction > Get Suggestions', () => {
	it('returns one item per suggestion, for any valid key', async () => {
		const owner = await run(sandbox(), getSuggestions);
		const member = await run(sandbox(), getSuggestions, { key: 'member' });

		expect(owner.json.length).toBeGreaterThan(0);
		expect(owner.json[0]).toMatchObject({ key: expect.any(String), value: expect.any(String), active: expect.any(Boolean) });
		expect(member.json).toEqual(owner.json);
		expect(new Set(pairedIndexes(owner))).toEqual(new Set([0]));
	});

	it('401 with a wrong key, with a hint to check it', async () => {
		const error = failure(await run(sandbox(), getSuggestions, { key: 'wrong-key-1111111' }));

		expect(error.httpCode).toBe('401');
		expect(error.description).toContain('Check the API key');
	});
});
