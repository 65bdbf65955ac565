import { createHash } from 'crypto';
import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { requireList } from '../actions/common/responses';
import type { OllangRequest } from '../transport';
import { apiRequest, CREDENTIAL_TYPE } from '../transport';

/**
 * How long a loaded catalogue is reused. n8n's editor asks again every time a panel with a language field opens
 * (once per field, once per row of Target Languages) and tells the node nothing about a reload, so the catalogue
 * is kept a short while: a panel's fields share one request, and opening the panel again a minute later loads it
 * afresh.
 */
export const LANGUAGE_CACHE_TTL_MS = 60_000;

interface CachedCatalogue {
	loadedAt: number;
	options: Promise<INodePropertyOptions[]>;
}

/** Per credential: the base URL and a digest of the key (never the key itself). */
const catalogues = new Map<string, CachedCatalogue>();

async function credentialKey(this: ILoadOptionsFunctions): Promise<string> {
	const credentials = await this.getCredentials<{ baseUrl?: string; apiKey?: string }>(CREDENTIAL_TYPE);
	const baseUrl = String(credentials.baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	const keyDigest = createHash('sha256')
		.update(String(credentials.apiKey ?? ''))
		.digest('hex')
		.slice(0, 32);
	return `${baseUrl}\n${keyDigest}`;
}

/** Each language and each of its variants, as "German (de)", sorted by name. */
function toOptions(languages: IDataObject[]): INodePropertyOptions[] {
	const entries = languages.flatMap((language) => [
		language,
		...(Array.isArray(language.variants) ? (language.variants as IDataObject[]) : []),
	]);
	return entries
		.filter((entry) => typeof entry.code === 'string' && entry.code !== '')
		.map((entry) => ({
			name: `${String(entry.name ?? entry.code)} (${String(entry.code)})`,
			value: String(entry.code),
		}))
		.sort((a, b) => a.name.localeCompare(b.name));
}

async function loadCatalogue(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const request: OllangRequest = { method: 'GET', path: '/integration/locales/languages', retry: 'safe' };
	return toOptions(requireList.call(this, request, await apiRequest.call(this, request)));
}

/** The catalogue for this credential, loaded at most once per LANGUAGE_CACHE_TTL_MS; a failure is not kept. */
export async function languageOptions(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const key = await credentialKey.call(this);
	const now = Date.now();
	for (const [cachedKey, cached] of catalogues) {
		if (now - cached.loadedAt >= LANGUAGE_CACHE_TTL_MS) catalogues.delete(cachedKey);
	}
	let cached = catalogues.get(key);
	if (cached === undefined) {
		cached = { loadedAt: now, options: loadCatalogue.call(this) };
		catalogues.set(key, cached);
		const entry = cached;
		entry.options.catch(() => {
			if (catalogues.get(key) === entry) catalogues.delete(key);
		});
	}
	return (await cached.options).map((option) => ({ ...option }));
}
