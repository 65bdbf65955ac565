import { z } from 'zod';
import { CUSTOM_INSTRUCTION_SUGGESTIONS } from '../domain/catalog.cts';
import { readJsonBody } from '../http/body.cts';
import type { ApiContext, ApiRoute, Reply } from '../http/server.cts';
import { nonEmptyString, validate } from '../http/validation.cts';
import { json } from './common.cts';

const contentImportBody = z
	.object({
		targetLanguage: nonEmptyString,
		translations: z
			.array(
				z
					.object({
						sourceText: nonEmptyString,
						targetText: nonEmptyString,
						elementId: z.string().optional(),
						type: z.string().optional(),
					})
					.strict(),
			)
			.min(1),
	})
	.strict();

/**
 * Upsert keyed on sourceText plus targetLanguage: an existing term gets the language added or updated,
 * a new sourceText creates a term; re-importing the same pair only updates the target text.
 */
async function importContent(ctx: ApiContext): Promise<Reply> {
	const body = validate(contentImportBody, await readJsonBody(ctx.req));
	const { world } = ctx;
	const now = world.clock.nowIso();
	for (const unit of body.translations) {
		let term = world.state.content.get(unit.sourceText);
		if (!term) {
			term = {
				id: world.ids.next(world.clock.nowMillis()),
				sourceText: unit.sourceText,
				elementId: unit.elementId ?? null,
				type: unit.type ?? 'text',
				createdAt: now,
				updatedAt: now,
				targets: new Map(),
			};
			world.state.content.set(unit.sourceText, term);
		}
		if (unit.elementId !== undefined) term.elementId = unit.elementId;
		if (unit.type !== undefined) term.type = unit.type;
		term.targets.set(body.targetLanguage, { targetText: unit.targetText, updatedAt: now });
		term.updatedAt = now;
	}
	return json(201, { success: true, imported: body.translations.length });
}

function customInstructionSuggestions(): Reply {
	return json(
		200,
		CUSTOM_INSTRUCTION_SUGGESTIONS.map((suggestion) => ({ ...suggestion })),
	);
}

export const contentRoutes: ApiRoute[] = [
	{ method: 'POST', pattern: '/integration/content/import', auth: 'C', handler: importContent },
	{ method: 'GET', pattern: '/integration/custom-instructions/suggestions', auth: 'C', handler: customInstructionSuggestions },
];
