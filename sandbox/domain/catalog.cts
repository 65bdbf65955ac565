import type { OrderType, SourceKind } from '../types.cts';

/** Fixed vocabularies the seeded data and the simulation draw from. */

export const PROVIDERS: Readonly<Record<string, string>> = {
	openai: 'OpenAI',
	gemini: 'Gemini',
	elevenlabs: 'Elevenlabs',
	deepl: 'DeepL',
	anthropic: 'Anthropic',
	assemblyai: 'AssemblyAI',
	deepgram: 'Deepgram',
	azure: 'Azure Speech',
};

export type ProviderRun = readonly [providerKey: string, service: string];

const TRANSCRIPTION: ProviderRun[] = [
	['elevenlabs', 'Speech to Text'],
	['assemblyai', 'Transcription'],
	['deepgram', 'Transcription'],
	['openai', 'Transcription'],
];
const DOCUMENT_ANALYSIS: ProviderRun[] = [
	['openai', 'Document Analysis'],
	['gemini', 'Document Analysis'],
];
const ALIGNMENT: ProviderRun[] = [
	['openai', 'Subtitle Alignment'],
	['gemini', 'Segmentation'],
];
const TRANSLATION: ProviderRun[] = [
	['openai', 'Translation'],
	['gemini', 'Translation'],
	['deepl', 'Machine Translation'],
	['anthropic', 'Translation'],
];
const SPEECH: ProviderRun[] = [
	['elevenlabs', 'Text to Speech'],
	['azure', 'Text to Speech'],
];
export const RERUNS: ProviderRun[] = [
	['openai', 'Rerun Translation'],
	['gemini', 'Quality Check'],
	['anthropic', 'Quality Check'],
];

export type AiStage = 'start' | 'resume' | 'aiDelivered';

export function isMediaType(type: OrderType): boolean {
	return type === 'cc' || type === 'subtitle' || type === 'aiDubbing' || type === 'studioDubbing' || type === 'other';
}

export function isDubbingType(type: OrderType): boolean {
	return type === 'aiDubbing' || type === 'studioDubbing';
}

/** Which provider runs a stage of an order can bill. */
export function stageRuns(stage: AiStage, type: OrderType): ProviderRun[] {
	if (stage === 'start') return isMediaType(type) ? TRANSCRIPTION : DOCUMENT_ANALYSIS;
	if (stage === 'resume') return ALIGNMENT;
	return isDubbingType(type) ? [...TRANSLATION, ...SPEECH] : TRANSLATION;
}

/** USD per unit (minute of media, or word) at level 0 (AI) and level 1 (AI + human review). */
export const RATES: Readonly<Record<OrderType, { unit: 'minute' | 'word'; level0: number; level1: number }>> = {
	cc: { unit: 'minute', level0: 0.25, level1: 1.2 },
	subtitle: { unit: 'minute', level0: 0.6, level1: 2.5 },
	aiDubbing: { unit: 'minute', level0: 2.5, level1: 6 },
	studioDubbing: { unit: 'minute', level0: 9, level1: 18 },
	other: { unit: 'minute', level0: 0.4, level1: 1.5 },
	document: { unit: 'word', level0: 0.01, level1: 0.06 },
	proofreading: { unit: 'word', level0: 0.008, level1: 0.04 },
	revision: { unit: 'word', level0: 0.005, level1: 0.03 },
};

export const LANGUAGES = ['fr', 'de', 'es', 'it', 'pt', 'ja', 'ko', 'zh', 'tr', 'ar', 'nl', 'pl'] as const;

export const TAGS = ['marketing', 'education', 'support', 'product', 'legal', 'sales', 'hr', 'research', 'media', 'games'] as const;

export const FIRST_NAMES = ['Ada', 'Berk', 'Chloe', 'Deniz', 'Elif', 'Farah', 'Gus', 'Hana', 'Ivan', 'Jon', 'Kemal', 'Lena', 'Mert', 'Nina', 'Omar', 'Pia', 'Quinn', 'Rosa', 'Sami', 'Tara'] as const;
export const LAST_NAMES = ['Aksoy', 'Brown', 'Costa', 'Demir', 'Evans', 'Fischer', 'Garcia', 'Hughes', 'Ito', 'Jensen', 'Kaya', 'Lopez', 'Moreau', 'Novak', 'Ortiz'] as const;

export const FOLDER_NAMES = ['General', 'Marketing Videos', 'Legal Documents', 'Product Training', 'Customer Stories', 'Game Trailers', 'Support Articles', 'Webinars', 'Podcasts', 'Onboarding', 'Press Kit', 'Investor Updates'] as const;

export const PROJECT_TOPICS = ['Product Launch', 'Quarterly Review', 'Safety Training', 'Brand Story', 'Feature Tour', 'Customer Interview', 'Release Notes', 'Terms of Service', 'Welcome Video', 'Season Trailer', 'Help Center', 'Keynote'] as const;

export const SOURCE_FILES: Readonly<Record<SourceKind, string>> = {
	video: 'mp4',
	audio: 'mp3',
	document: 'docx',
	subtitle: 'srt',
};

export const EXTENSION_KINDS: Readonly<Record<string, SourceKind>> = {
	mp4: 'video',
	mov: 'video',
	mkv: 'video',
	webm: 'video',
	avi: 'video',
	mp3: 'audio',
	wav: 'audio',
	m4a: 'audio',
	aac: 'audio',
	flac: 'audio',
	srt: 'subtitle',
	vtt: 'subtitle',
	docx: 'document',
	doc: 'document',
	pdf: 'document',
	txt: 'document',
	xlsx: 'document',
	pptx: 'document',
	json: 'document',
	xliff: 'document',
	xlf: 'document',
	md: 'document',
	html: 'document',
};

/** The kind a filename's extension stands for, or null when the name is not usable (no base name or no known extension). */
export function sourceKindOf(filename: string | null | undefined): SourceKind | null {
	if (!filename) return null;
	const base = filename.split(/[\\/]/).pop() ?? '';
	const dot = base.lastIndexOf('.');
	if (dot <= 0 || dot === base.length - 1) return null;
	return EXTENSION_KINDS[base.slice(dot + 1).toLowerCase()] ?? null;
}

export const CUSTOM_INSTRUCTION_SUGGESTIONS = [
	{ key: 'tone', value: 'Keep a friendly, informal tone and address the viewer directly.', description: 'Voice and register of the translation', active: true },
	{ key: 'brandNames', value: 'Never translate product and brand names; keep their original spelling and capitalisation.', description: 'Protected terms', active: true },
	{ key: 'numbers', value: 'Write numbers, dates and currencies in the target locale format.', description: 'Locale formatting', active: true },
	{ key: 'subtitleLength', value: 'Keep each subtitle line under 42 characters and at most two lines per cue.', description: 'Subtitle readability', active: false },
	{ key: 'formality', value: 'Use the formal form of address (for example vous, Sie, usted).', description: 'Formality level', active: false },
	{ key: 'glossary', value: 'Follow the attached glossary strictly; prefer glossary terms over synonyms.', active: true },
] as const;
