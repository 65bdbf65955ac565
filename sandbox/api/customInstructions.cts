import { createHash } from 'node:crypto';
import { z } from 'zod';
import { readJsonBody } from '../http/body.cts';
import { shapeB } from '../http/errors.cts';
import type { ApiContext, ApiRoute, Reply } from '../http/server.cts';
import { nonEmptyString, validate } from '../http/validation.cts';
import type { CustomInstructionRecord } from '../types.cts';
import type { World } from '../world.cts';
import { json, NO_CONTENT } from './common.cts';

/**
 * Custom instructions (public reference §3.8): client-scoped, applied to every order of the account. The key is a
 * machine id (tone_professional) and unique in the account (409 otherwise).
 */
export const INSTRUCTION_KEY = /^[A-Za-z][A-Za-z0-9_]*$/;

const key = nonEmptyString.pipe(
	z
		.string()
		.max(100)
		.regex(INSTRUCTION_KEY, 'must be a machine id: a letter, then letters, digits or underscores (e.g. tone_professional)'),
);
const value = nonEmptyString.pipe(z.string().max(10_000));
const description = z.string().max(1000);

const createBody = z.object({ key, value, description: description.optional() }).strict();

const updateBody = z
	.object({ key: key.optional(), value: value.optional(), active: z.boolean().optional(), description: description.nullable().optional() })
	.strict()
	.refine((body) => Object.values(body).some((field) => field !== undefined), {
		message: 'at least one of key, value, active, description must be given',
	});

/** The account's id: every instruction of the (one) client account carries it. Derived from the seed, stable. */
function scopeRefIdOf(world: World): string {
	return createHash('sha256').update(`client-account:${world.seed}`).digest('hex').slice(0, 24);
}

export function instructionView(instruction: CustomInstructionRecord) {
	return { ...instruction };
}

function findInstruction(ctx: ApiContext): CustomInstructionRecord {
	const instruction = ctx.world.state.customInstructions.get(ctx.params.id);
	if (!instruction) throw shapeB(404, `Custom instruction ${ctx.params.id} not found`);
	return instruction;
}

function refuseDuplicateKey(world: World, wanted: string, except?: string): void {
	for (const instruction of world.state.customInstructions.values()) {
		if (instruction.key === wanted && instruction.id !== except) {
			throw shapeB(409, `A custom instruction with key ${wanted} already exists`);
		}
	}
}

/** Creation order (oldest first). */
function listInstructions(ctx: ApiContext): Reply {
	return json(200, [...ctx.world.state.customInstructions.values()].map(instructionView));
}

async function createInstruction(ctx: ApiContext): Promise<Reply> {
	const body = validate(createBody, await readJsonBody(ctx.req));
	const { world } = ctx;
	refuseDuplicateKey(world, body.key);
	const now = world.clock.nowIso();
	const instruction: CustomInstructionRecord = {
		id: world.ids.next(world.clock.nowMillis()),
		key: body.key,
		value: body.value,
		active: true,
		description: body.description ?? null,
		scopeRefId: scopeRefIdOf(world),
		createdAt: now,
		updatedAt: now,
	};
	world.state.customInstructions.set(instruction.id, instruction);
	return json(201, instructionView(instruction));
}

/** Any of key, value, active, description (null clears the description); at least one. */
async function updateInstruction(ctx: ApiContext): Promise<Reply> {
	// As NestJS does: the body is validated before the handler looks the instruction up.
	const body = validate(updateBody, await readJsonBody(ctx.req));
	const instruction = findInstruction(ctx);
	if (body.key !== undefined) refuseDuplicateKey(ctx.world, body.key, instruction.id);
	if (body.key !== undefined) instruction.key = body.key;
	if (body.value !== undefined) instruction.value = body.value;
	if (body.active !== undefined) instruction.active = body.active;
	if (body.description !== undefined) instruction.description = body.description;
	instruction.updatedAt = ctx.world.clock.nowIso();
	return json(200, instructionView(instruction));
}

function deleteInstruction(ctx: ApiContext): Reply {
	const instruction = findInstruction(ctx);
	ctx.world.state.customInstructions.delete(instruction.id);
	return NO_CONTENT;
}

export const customInstructionRoutes: ApiRoute[] = [
	{ method: 'GET', pattern: '/integration/custom-instructions', auth: 'C', handler: listInstructions },
	{ method: 'POST', pattern: '/integration/custom-instructions', auth: 'C', handler: createInstruction },
	{ method: 'PATCH', pattern: '/integration/custom-instructions/:id', auth: 'C', handler: updateInstruction },
	{ method: 'DELETE', pattern: '/integration/custom-instructions/:id', auth: 'C', handler: deleteInstruction },
];
