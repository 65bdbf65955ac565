import { z } from 'zod';
import { languagesView, searchLanguages, validateTag } from '../domain/locales.cts';
import type { ApiContext, ApiRoute, Reply } from '../http/server.cts';
import { nonEmptyString, validate } from '../http/validation.cts';
import { json } from './common.cts';

/** Locales (public reference §3.11, SDK only): the catalogue, a search over it, and tag validation. */
function listLanguages(): Reply {
	return json(200, languagesView());
}

const searchQuery = z.object({ q: nonEmptyString }).strict();

function search(ctx: ApiContext): Reply {
	const { q } = validate(searchQuery, ctx.query);
	return json(200, searchLanguages(q));
}

/** The tag is one path segment, URL-encoded by the client (pt/PT arrives as pt%2FPT and is answered invalid). */
function validateLanguageTag(ctx: ApiContext): Reply {
	return json(200, validateTag(ctx.params.tag));
}

export const localeRoutes: ApiRoute[] = [
	{ method: 'GET', pattern: '/integration/locales/languages', auth: 'C', handler: listLanguages },
	{ method: 'GET', pattern: '/integration/locales/search', auth: 'C', handler: search },
	{ method: 'GET', pattern: '/integration/locales/validate/:tag', auth: 'C', handler: validateLanguageTag },
];
