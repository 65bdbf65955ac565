import { LANGUAGES } from './catalog.cts';

/**
 * The language catalogue of GET /integration/locales/* (public reference §3.11), with the platform's conventions:
 * `pt` is Brazilian Portuguese and `pt-PT` Portugal's; `es` is Spain's Spanish and `es-MX` Latin America's; `zh` is
 * Simplified Chinese, `zh-Hant` Traditional and `zh-TW` Taiwan's; British English is `en-UK` (not en-GB); and `ar-EG`,
 * `ar-AE`, `fr-CA`. Every language the seeded data uses (catalog.cts LANGUAGES) is in it.
 */
export interface Language {
	code: string;
	name: string;
	nativeName?: string;
	variants?: Language[];
}

const lang = (code: string, name: string, nativeName: string, variants?: Language[]): Language =>
	variants ? { code, name, nativeName, variants } : { code, name, nativeName };

export const LOCALE_CATALOGUE: readonly Language[] = [
	lang('en', 'English', 'English', [lang('en-UK', 'English (United Kingdom)', 'English (United Kingdom)')]),
	lang('fr', 'French', 'Français', [lang('fr-CA', 'French (Canada)', 'Français (Canada)')]),
	lang('de', 'German', 'Deutsch'),
	lang('es', 'Spanish (Spain)', 'Español (España)', [lang('es-MX', 'Spanish (Latin America)', 'Español (Latinoamérica)')]),
	lang('it', 'Italian', 'Italiano'),
	lang('pt', 'Portuguese (Brazil)', 'Português (Brasil)', [lang('pt-PT', 'Portuguese (Portugal)', 'Português (Portugal)')]),
	lang('ja', 'Japanese', '日本語'),
	lang('ko', 'Korean', '한국어'),
	lang('zh', 'Chinese (Simplified)', '简体中文', [
		lang('zh-Hant', 'Chinese (Traditional)', '繁體中文'),
		lang('zh-TW', 'Chinese (Taiwan)', '中文（台灣）'),
	]),
	lang('tr', 'Turkish', 'Türkçe'),
	lang('ar', 'Arabic', 'العربية', [
		lang('ar-EG', 'Arabic (Egypt)', 'العربية (مصر)'),
		lang('ar-AE', 'Arabic (United Arab Emirates)', 'العربية (الإمارات)'),
	]),
	lang('nl', 'Dutch', 'Nederlands'),
	lang('pl', 'Polish', 'Polski'),
	lang('ru', 'Russian', 'Русский'),
	lang('uk', 'Ukrainian', 'Українська'),
	lang('sv', 'Swedish', 'Svenska'),
	lang('da', 'Danish', 'Dansk'),
	lang('fi', 'Finnish', 'Suomi'),
	lang('nb', 'Norwegian Bokmål', 'Norsk bokmål'),
	lang('el', 'Greek', 'Ελληνικά'),
	lang('he', 'Hebrew', 'עברית'),
	lang('hi', 'Hindi', 'हिन्दी'),
	lang('id', 'Indonesian', 'Bahasa Indonesia'),
	lang('th', 'Thai', 'ไทย'),
	lang('vi', 'Vietnamese', 'Tiếng Việt'),
];

/** Every entry, bases and variants, by code. */
const BY_CODE = new Map<string, Language>();
const BASE_OF = new Map<string, Language>();
for (const base of LOCALE_CATALOGUE) {
	BY_CODE.set(base.code, base);
	BASE_OF.set(base.code, base);
	for (const variant of base.variants ?? []) {
		BY_CODE.set(variant.code, variant);
		BASE_OF.set(variant.code, base);
	}
}
for (const code of LANGUAGES) {
	if (!BY_CODE.has(code)) throw new Error(`locales: the seeded language ${code} is missing from the catalogue`);
}

/** Standard tags the platform writes another way: valid, answered with the platform's code. */
const PLATFORM_ALIASES: Readonly<Record<string, string>> = {
	'en-US': 'en',
	'en-GB': 'en-UK',
	'pt-BR': 'pt',
	'es-ES': 'es',
	'es-419': 'es-MX',
	'zh-CN': 'zh',
	'zh-Hans': 'zh',
	'zh-Hans-CN': 'zh',
	'zh-Hant-TW': 'zh-TW',
	'fr-FR': 'fr',
	'de-DE': 'de',
	'no': 'nb',
};

/** Catalogue codes by their lower-case spelling: the docs write es-mx and zh-tw for es-MX and zh-TW. */
const BY_FOLDED_CODE = new Map([...BY_CODE.keys()].map((code) => [code.toLowerCase(), code]));

/** Whether a code is in the catalogue, in any letter case (the codes the create endpoints take). */
export function isCatalogueCode(code: string): boolean {
	return BY_FOLDED_CODE.has(code.toLowerCase());
}

export function languagesView(): Language[] {
	return structuredClone(LOCALE_CATALOGUE) as Language[];
}

function fold(text: string): string {
	return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/**
 * Entries (bases and variants alike, each without its variants) whose code, name or native name contains the
 * query, case and accents ignored; an exact code match comes first, then catalogue order.
 */
export function searchLanguages(query: string): Language[] {
	const needle = fold(query.trim());
	const matches: Language[] = [];
	for (const entry of BY_CODE.values()) {
		const fields = [entry.code, entry.name, entry.nativeName ?? ''].map(fold);
		if (fields.some((field) => field.includes(needle))) {
			matches.push({ code: entry.code, name: entry.name, ...(entry.nativeName ? { nativeName: entry.nativeName } : {}) });
		}
	}
	return matches.sort((a, b) => Number(fold(b.code) === needle) - Number(fold(a.code) === needle));
}

export interface TagValidation {
	valid: boolean;
	code?: string;
	language?: string;
	region?: string;
	reasons?: string[];
}

const TAG = /^([A-Za-z]{2,3})(?:-([A-Za-z]{4}))?(?:-([A-Za-z]{2}|\d{3}))?$/;

/** Case-normalised tag parts: language lower case, script title case, region upper case. */
function parseTag(tag: string): { language: string; script?: string; region?: string } | null {
	const match = TAG.exec(tag);
	if (!match) return null;
	const [, language, script, region] = match;
	return {
		language: language.toLowerCase(),
		...(script ? { script: script[0].toUpperCase() + script.slice(1).toLowerCase() } : {}),
		...(region ? { region: region.toUpperCase() } : {}),
	};
}

/** Validates a language tag against the catalogue (GET /integration/locales/validate/{tag}). */
export function validateTag(input: string): TagValidation {
	const tag = input.trim();
	const parts = parseTag(tag);
	if (!parts) {
		return {
			valid: false,
			reasons: [`"${tag}" is not a language tag: a language code, optionally a script and a region, joined by "-" (e.g. pt-PT, zh-Hant)`],
		};
	}
	const normalized = [parts.language, parts.script, parts.region].filter(Boolean).join('-');
	const code = BY_CODE.has(normalized) ? normalized : PLATFORM_ALIASES[normalized];
	const region = parts.region ? { region: parts.region } : {};
	if (code !== undefined) {
		// The region of the platform's code (en-UK for en-GB), else the one given (BR for pt-BR, which is pt).
		const platformRegion = parseTag(code)?.region ?? parts.region;
		return { valid: true, code, language: (BASE_OF.get(code) as Language).code, ...(platformRegion ? { region: platformRegion } : {}) };
	}
	const base = BASE_OF.get(parts.language);
	if (!base) {
		return { valid: false, ...region, reasons: [`${parts.language} is not a supported language (GET /integration/locales/languages lists them)`] };
	}
	const variants = (base.variants ?? []).map((variant) => variant.code);
	const offered = variants.length > 0 ? `; supported: ${[base.code, ...variants].join(', ')}` : `; use ${base.code}`;
	return { valid: false, language: base.code, ...region, reasons: [`${normalized} is not in the catalogue${offered}`] };
}
