import { z } from 'zod';
import { importJobView, startImportJob } from '../domain/importJobs.cts';
import { readJsonBody } from '../http/body.cts';
import { shapeB } from '../http/errors.cts';
import type { ApiContext, ApiRoute, Reply } from '../http/server.cts';
import { nonEmptyString, validate } from '../http/validation.cts';
import type { MemoryRecord } from '../types.cts';
import { json, NO_CONTENT } from './common.cts';

export const MAX_IMPORT_ITEMS = 1000;

export function memoryView(memory: MemoryRecord) {
	return {
		id: memory.id,
		title: memory.title,
		memoryItemsCount: memory.items.size,
		createdAt: memory.createdAt,
		updatedAt: memory.updatedAt,
	};
}

function findMemory(ctx: ApiContext): MemoryRecord {
	const memory = ctx.world.state.memories.get(ctx.params.memoryId);
	if (!memory) throw shapeB(404, `Translation memory ${ctx.params.memoryId} not found`);
	return memory;
}

const titleBody = z.object({ title: z.string().trim().min(1).max(200) }).strict();

const importItemsBody = z
	.object({
		items: z
			.array(
				z
					.object({
						sourceLanguage: nonEmptyString,
						targetLanguage: nonEmptyString,
						sourceText: nonEmptyString,
						targetText: nonEmptyString,
					})
					.strict(),
			)
			.min(1)
			.max(MAX_IMPORT_ITEMS),
	})
	.strict();

function listMemories(ctx: ApiContext): Reply {
	return json(200, [...ctx.world.state.memories.values()].map(memoryView));
}

async function createMemory(ctx: ApiContext): Promise<Reply> {
	const { title } = validate(titleBody, await readJsonBody(ctx.req));
	const { world } = ctx;
	const now = world.clock.nowIso();
	const memory: MemoryRecord = { id: world.ids.next(world.clock.nowMillis()), title, createdAt: now, updatedAt: now, items: new Map() };
	world.state.memories.set(memory.id, memory);
	return json(201, memoryView(memory));
}

function getMemory(ctx: ApiContext): Reply {
	return json(200, memoryView(findMemory(ctx)));
}

/** Renames; stored units are unaffected. */
async function renameMemory(ctx: ApiContext): Promise<Reply> {
	const memory = findMemory(ctx);
	const { title } = validate(titleBody, await readJsonBody(ctx.req));
	memory.title = title;
	memory.updatedAt = ctx.world.clock.nowIso();
	return json(200, memoryView(memory));
}

/** Removes the memory with all its units; a job still importing into it fails. */
function deleteMemory(ctx: ApiContext): Reply {
	const memory = findMemory(ctx);
	memory.items.clear();
	ctx.world.state.memories.delete(memory.id);
	return NO_CONTENT;
}

async function importMemoryItems(ctx: ApiContext): Promise<Reply> {
	const memory = findMemory(ctx);
	const { items } = validate(importItemsBody, await readJsonBody(ctx.req));
	const now = ctx.world.clock.nowIso();
	const job = startImportJob(
		ctx.world,
		memory,
		items.map((item) => ({ ...item, updatedAt: now })),
	);
	return json(201, { jobId: job.jobId, status: job.status });
}

function getImportJob(ctx: ApiContext): Reply {
	const job = ctx.world.state.importJobs.get(ctx.params.jobId);
	if (!job) throw shapeB(404, `Import job ${ctx.params.jobId} not found`);
	return json(200, importJobView(job));
}

export const memoryRoutes: ApiRoute[] = [
	{ method: 'GET', pattern: '/integration/memories', auth: 'C', handler: listMemories },
	{ method: 'POST', pattern: '/integration/memories', auth: 'C', handler: createMemory },
	// Before /memories/:memoryId so that "import-jobs" is never read as a memory id.
	{ method: 'GET', pattern: '/integration/memories/import-jobs/:jobId', auth: 'C', handler: getImportJob },
	{ method: 'GET', pattern: '/integration/memories/:memoryId', auth: 'C', handler: getMemory },
	{ method: 'PATCH', pattern: '/integration/memories/:memoryId', auth: 'C', handler: renameMemory },
	{ method: 'DELETE', pattern: '/integration/memories/:memoryId', auth: 'C', handler: deleteMemory },
	{ method: 'POST', pattern: '/integration/memories/:memoryId/items/import', auth: 'C', handler: importMemoryItems },
];
