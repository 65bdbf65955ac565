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

const op = (operation: string, extra: Record<string, unknown> = {}) => ({ resource: 'customInstruction', operation, ...extra });
const instructions = () => [...sandbox().state.customInstructions.values()];

describe('Custom Instruction > Create, Get Many, Get, Update, Delete', () => {
	it('creates one instruction per item, with its description, and Get Many lists them', async () => {
		const created = await run(sandbox(), op('create', { key: '={{ $json.key }}', value: '={{ $json.value }}', additionalFields: { description: 'Tone' } }), {
			items: [{ json: { key: 'tone_professional', value: 'Be formal.' } }, { json: { key: 'brand_names', value: 'Keep brand names.' } }],
		});

		expect(created.json).toEqual([
			expect.objectContaining({ key: 'tone_professional', value: 'Be formal.', description: 'Tone', active: true, id: expect.any(String), scopeRefId: expect.any(String) }),
			expect.objectContaining({ key: 'brand_names', value: 'Keep brand names.' }),
		]);
		expect(pairedIndexes(created)).toEqual([0, 1]);
		expect(sandbox().requests.count({ method: 'POST', path: '/integration/custom-instructions' })).toBe(2);

		const listed = await run(sandbox(), op('getMany', { returnAll: true }));
		expect(listed.json.map((instruction) => instruction.key)).toEqual(instructions().map((instruction) => instruction.key));
		const limited = await run(sandbox(), op('getMany', { returnAll: false, limit: 1, filters: { search: 'BRAND' } }));
		expect(limited.json).toEqual([expect.objectContaining({ key: 'brand_names' })]);
	});

	it('refuses a key that is not a machine ID before sending anything', async () => {
		const error = failure(await run(sandbox(), op('create', { key: 'Tone professional', value: 'x' })));

		expect(error.message).toBe(
			'Invalid Key (item 0): "Tone professional" is not a machine ID: start with a letter, then only letters, digits or underscores, at most 100 characters (e.g. tone_professional)',
		);
		expect(sandbox().requests.count()).toBe(0);
	});

	it('a duplicate key with another instruction fails with the API\'s 409 and a hint, sent once', async () => {
		await run(sandbox(), op('create', { key: 'dup_key', value: 'First.' }));
		sandbox().requests.reset();

		const error = failure(await run(sandbox(), op('create', { key: 'dup_key', value: 'Second.' })));

		expect(error.httpCode).toBe('409');
		expect(error.message).toContain('already exists');
		expect(error.description).toContain('use Update');
		expect(sandbox().requests.count({ method: 'POST' })).toBe(1);
	});

	it("created, its answer lost: n8n's Retry finds it (409, the list holds it) and reads as already applied, with its ID; asked again in a new execution, the 409 is the answer", async () => {
		sandbox().faults.add({ method: 'POST', kind: 'drop', when: 'after', times: 1 });
		const lost = await run(sandbox(), op('create', { key: 'retried_key', value: 'Same.' }), { staticData: {} });

		const retried = await run(sandbox(), op('create', { key: 'retried_key', value: 'Same.' }), { retryOf: lost, staticData: {} });
		const again = await run(sandbox(), op('create', { key: 'retried_key', value: 'Same.' }), { staticData: {} });

		const made = [...sandbox().state.customInstructions.values()].filter((instruction) => instruction.key === 'retried_key');
		expect(made).toHaveLength(1);
		expect(failure(lost).description).toContain('may have been applied');
		expect(retried.json).toEqual([expect.objectContaining({ id: made[0].id, key: 'retried_key', alreadyApplied: true })]);
		expect(failure(again).httpCode).toBe('409');
	});

	it('Get picks the instruction by ID from the list; an unknown ID fails naming the field', async () => {
		const [first] = instructions();

		const got = await run(sandbox(), op('get', { instructionId: { __rl: true, mode: 'list', value: first.id } }));
		expect(got.json).toEqual([{ ...first }]);
		expect(sandbox().requests.count({ method: 'GET', path: '/integration/custom-instructions' })).toBe(1);

		const error = failure(await run(sandbox(), op('get', { instructionId: '000000000000000000000000' })));
		expect(error.message).toBe('Invalid Custom Instruction (item 0): no custom instruction has the ID "000000000000000000000000"');
		expect(error.description).toContain('The API cannot get one instruction by ID');
	});

	it('Update changes only the fields added; none added is refused locally; an empty description clears it', async () => {
		const target = instructions().find((instruction) => instruction.key === 'tone_professional')!;

		const updated = await run(sandbox(), op('update', { instructionId: target.id, updateFields: { active: false, description: '' } }));
		expect(updated.json[0]).toMatchObject({ id: target.id, active: false, description: null, value: 'Be formal.' });
		expect(sandbox().state.customInstructions.get(target.id)).toMatchObject({ active: false, description: null });
		const [request] = sandbox().requests.log;
		expect(request).toMatchObject({ method: 'PATCH', path: `/integration/custom-instructions/${target.id}`, status: 200 });

		sandbox().requests.reset();
		const error = failure(await run(sandbox(), op('update', { instructionId: target.id, updateFields: {} })));
		expect(error.message).toBe('Invalid Update Fields (item 0): add at least one of Key, Instruction, Active or Description');
		expect(sandbox().requests.count()).toBe(0);
		expect(failure(await run(sandbox(), op('update', { instructionId: target.id, updateFields: { key: 'no spaces allowed' } }))).message).toMatch(/^Invalid Key \(item 0\)/);
		expect(sandbox().requests.count()).toBe(0);
	});

	it('Delete removes it (204) and outputs a confirmation; a second delete in a new execution is the API\'s 404', async () => {
		const target = instructions().find((instruction) => instruction.key === 'brand_names')!;

		const deleted = await run(sandbox(), op('delete', { instructionId: target.id }));
		expect(deleted.json).toEqual([{ success: true, instructionId: target.id, deleted: true }]);
		expect(sandbox().state.customInstructions.has(target.id)).toBe(false);

		// Deleting it again in a new execution (a mistyped or stale ID reads the same): the API's 404 is the answer.
		const again = await run(sandbox(), op('delete', { instructionId: target.id }));
		expect(failure(again).httpCode).toBe('404');
	});
});
