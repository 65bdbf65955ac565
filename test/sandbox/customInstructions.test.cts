import { call, expectShapeB, expectShapeC, useSandbox } from './helpers.cts';

const sandbox = useSandbox();
const PATH = '/integration/custom-instructions';
const create = (body: unknown) => call(sandbox(), 'POST', PATH, { body });
const update = (id: string, body: unknown) => call(sandbox(), 'PATCH', `${PATH}/${id}`, { body });
const list = () => call(sandbox(), 'GET', PATH);
const ID_PATTERN = /^[0-9a-f]{24}$/;

describe('custom instructions', () => {
	it('POST creates an active instruction (201, the full object) and GET lists it, oldest first', async () => {
		const created = await create({ key: 'tone_professional', value: 'Use a professional tone.', description: 'Tone' });
		expect(created.status).toBe(201);
		expect(created.body).toEqual({
			id: expect.stringMatching(ID_PATTERN),
			key: 'tone_professional',
			value: 'Use a professional tone.',
			active: true,
			description: 'Tone',
			scopeRefId: expect.stringMatching(ID_PATTERN),
			createdAt: sandbox().clock.now().toISOString(),
			updatedAt: sandbox().clock.now().toISOString(),
		});
		const second = await create({ key: 'brandNames', value: 'Keep brand names.' });
		expect(second.body).toMatchObject({ key: 'brandNames', description: null, active: true, scopeRefId: created.body.scopeRefId });

		const listed = await list();
		expect(listed.status).toBe(200);
		expect(listed.body.map((instruction: { id: string }) => instruction.id)).toEqual([created.body.id, second.body.id]);
		expect(listed.body[0]).toEqual(created.body);
		// Any valid key reads the account's instructions.
		expect((await call(sandbox(), 'GET', PATH, { key: sandbox().keys.member })).body).toEqual(listed.body);
	});

	it('a duplicate key answers 409 Conflict (shape B) and creates nothing', async () => {
		await create({ key: 'numbers_locale', value: 'Locale formats.' });
		const before = sandbox().state.customInstructions.size;

		const duplicate = await create({ key: 'numbers_locale', value: 'Again.' });

		expect(duplicate.status).toBe(409);
		expect(duplicate.body).toEqual({ statusCode: 409, message: 'A custom instruction with key numbers_locale already exists', error: 'Conflict' });
		expect(sandbox().state.customInstructions.size).toBe(before);
	});

	it('validates the body: key a machine id, value required, no unknown fields (400 shape B)', async () => {
		const missing = await create({});
		expect(missing.status).toBe(400);
		expect(missing.body).toEqual({ statusCode: 400, message: ['key should not be empty', 'value should not be empty'], error: 'Bad Request' });
		const badKey = await create({ key: 'Tone professional!', value: 'x', active: false });
		expectShapeB(badKey.body, 400, 'Bad Request');
		expect(badKey.body.message).toEqual([
			'key must be a machine id: a letter, then letters, digits or underscores (e.g. tone_professional)',
			'property active should not exist',
		]);
		expect((await create({ key: '1tone', value: 'x' })).status).toBe(400);
	});

	it('PATCH changes any of key, value, active, description (200, updatedAt moves); at least one is needed', async () => {
		const { body: created } = await create({ key: 'formality', value: 'Use the formal form.', description: 'Formality' });
		sandbox().clock.advance(5);

		const patched = await update(created.id, { active: false, value: 'Use vous.', description: null });
		expect(patched.status).toBe(200);
		expect(patched.body).toEqual({
			...created,
			active: false,
			value: 'Use vous.',
			description: null,
			updatedAt: sandbox().clock.now().toISOString(),
		});
		expect((await update(created.id, { key: 'formality_fr' })).body.key).toBe('formality_fr');

		const empty = await update(created.id, {});
		expect(empty.status).toBe(400);
		expect(empty.body.message).toEqual(['at least one of key, value, active, description must be given']);
		expect((await update(created.id, { active: 'no' })).body.message).toEqual(['active must be a boolean value']);
		expect((await update(created.id, { key: 'with space' })).status).toBe(400);
	});

	it('PATCH to a key another instruction has answers 409; to its own key, 200', async () => {
		const { body: first } = await create({ key: 'glossary_strict', value: 'Follow the glossary.' });
		const { body: second } = await create({ key: 'glossary_loose', value: 'Prefer the glossary.' });

		const clash = await update(second.id, { key: 'glossary_strict' });
		expect(clash.status).toBe(409);
		expectShapeB(clash.body, 409, 'Conflict');
		expect(sandbox().state.customInstructions.get(second.id)?.key).toBe('glossary_loose');
		expect((await update(first.id, { key: 'glossary_strict', value: 'Strictly.' })).status).toBe(200);
	});

	it('DELETE answers 204 and removes it; unknown ids answer 404 shape B on PATCH and DELETE', async () => {
		const { body: created } = await create({ key: 'to_remove', value: 'Temporary.' });

		const removed = await call(sandbox(), 'DELETE', `${PATH}/${created.id}`);
		expect(removed.status).toBe(204);
		expect(removed.text).toBe('');
		expect(sandbox().state.customInstructions.has(created.id)).toBe(false);
		expect((await list()).body.some((instruction: { id: string }) => instruction.id === created.id)).toBe(false);

		const again = await call(sandbox(), 'DELETE', `${PATH}/${created.id}`);
		expect(again.status).toBe(404);
		expect(again.body).toEqual({ statusCode: 404, message: `Custom instruction ${created.id} not found`, error: 'Not Found' });
		const patch = await update('000000000000000000000000', { value: 'x' });
		expect(patch.status).toBe(404);
		expectShapeB(patch.body, 404, 'Not Found');
	});

	it('401 shape C without a key, on every route', async () => {
		for (const [method, path] of [
			['GET', PATH],
			['POST', PATH],
			['PATCH', `${PATH}/000000000000000000000000`],
			['DELETE', `${PATH}/000000000000000000000000`],
		]) {
			const response = await call(sandbox(), method, path, { key: null, body: method === 'POST' ? { key: 'a', value: 'b' } : undefined });
			expect(response.status).toBe(401);
			expectShapeC(response.body, 'UNAUTHORIZED');
		}
	});
});
