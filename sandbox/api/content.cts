import { z } from 'zod';
import { CUSTOM_INSTRUCTION_SUGGESTIONS } from '../domain/catalog.cts';
import { readJsonBody } from '../http/body.cts';
import type { ApiContext, ApiRoute, Reply } from '../http/server.cts';
import { nonEmptyString, validate } from '../http/validation.cts';
import type { ContentTermRecord } from '../types.cts';
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
				tags: [],
				orderIds: [],
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

/** A query value given once, repeated, or in the bracket form (`key[]=a&key[]=b`): always a list. */
const queryList = z.preprocess((value) => (typeof value === 'string' ? [value] : value), z.array(nonEmptyString));

const contentExportQuery = z
	.object({
		targetLanguage: nonEmptyString.optional(),
		targetLanguages: queryList.optional(),
		tag: nonEmptyString.optional(),
		tags: queryList.optional(),
		orderIds: queryList.optional(),
	})
	.strict()
	.refine((query) => query.targetLanguage !== undefined || (query.targetLanguages ?? []).length > 0, {
		message: 'targetLanguage or targetLanguages should not be empty',
	});

/**
 * GET /integration/content/export: the terms that have a target in a requested language and pass the filters (any
 * of the tags given by tag and tags; any of orderIds), as { sourceText: targetText }. One language (targetLanguage,
 * targetLanguages, or both naming the same) gives that flat map; several give { language: map }, where a language
 * without any match is left out. No match at all gives {}.
 */
function exportContent(ctx: ApiContext): Reply {
	const query = validate(contentExportQuery, ctx.query);
	const languages = [...new Set([...(query.targetLanguage ? [query.targetLanguage] : []), ...(query.targetLanguages ?? [])])];
	const tags = [...(query.tag ? [query.tag] : []), ...(query.tags ?? [])];
	const orderIds = query.orderIds ?? [];
	const selected = [...ctx.world.state.content.values()].filter(
		(term) =>
			(tags.length === 0 || term.tags.some((tag) => tags.includes(tag))) &&
			(orderIds.length === 0 || term.orderIds.some((orderId) => orderIds.includes(orderId))),
	);
	const mapFor = (language: string) => contentMap(selected, language);
	if (languages.length === 1) return json(200, mapFor(languages[0]));
	const nested: Record<string, Record<string, string>> = {};
	for (const language of languages) {
		const map = mapFor(language);
		if (Object.keys(map).length > 0) nested[language] = map;
	}
	return json(200, nested);
}

function contentMap(terms: ContentTermRecord[], language: string): Record<string, string> {
	const map: Record<string, string> = {};
	for (const term of terms) {
		const target = term.targets.get(language);
		if (target) map[term.sourceText] = target.targetText;
	}
	return map;
}

function customInstructionSuggestions(): Reply {
	return json(
		200,
		CUSTOM_INSTRUCTION_SUGGESTIONS.map((suggestion) => ({ ...suggestion })),
	);
}

export const contentRoutes: ApiRoute[] = [
	{ method: 'POST', pattern: '/integration/content/import', auth: 'C', handler: importContent },
	{ method: 'GET', pattern: '/integration/content/export', auth: 'C', handler: exportContent },
	{ method: 'GET', pattern: '/integration/custom-instructions/suggestions', auth: 'C', handler: customInstructionSuggestions },
];
