import type { IDataObject, INodePropertyOptions } from 'n8n-workflow';

import { records } from '../common/simplify';

/** The kinds of file an order lists, as the Download Files operation offers them. */
export type FileKind = 'subtitles' | 'translatedDocument' | 'dubbedAudio' | 'embeddedVideo' | 'source';

export const KIND_OPTIONS: INodePropertyOptions[] = [
	{ name: 'All Deliverables', value: 'deliverables', description: 'Subtitles, translated documents, dubbed audio and embedded videos; not the source' },
	{ name: 'All Files', value: 'all', description: 'Every deliverable and the source file' },
	{ name: 'Dubbed Audio', value: 'dubbedAudio', description: 'The audio tracks of the dub' },
	{ name: 'Embedded Video', value: 'embeddedVideo', description: 'The video with the subtitles burned in, or with the dub laid in' },
	{ name: 'Source', value: 'source', description: 'The file the order was made from' },
	{ name: 'Subtitles', value: 'subtitles', description: 'The subtitle file (the order\'s VTT link and subtitle documents)' },
	{ name: 'Translated Document', value: 'translatedDocument', description: 'The document in the target language' },
];

const DELIVERABLE_KINDS: FileKind[] = ['subtitles', 'translatedDocument', 'dubbedAudio', 'embeddedVideo'];

/** The kinds a filter value selects. */
export function kindsOf(filter: string): FileKind[] {
	if (filter === 'deliverables') return DELIVERABLE_KINDS;
	if (filter === 'all') return [...DELIVERABLE_KINDS, 'source'];
	return [filter as FileKind];
}

/**
 * Document types by kind, compared without case, underscores or dashes: the reference's snake_case types
 * (translator_document, created_ai_dub_audio, ...) and the spec's camelCase examples (subtitle, translation, ...).
 * Everything else an order lists (guidelines, invoices, waveforms, thumbnails, stems) is no deliverable.
 */
const KIND_BY_TYPE: Readonly<Record<string, FileKind>> = {
	subtitle: 'subtitles',
	subtitles: 'subtitles',
	createdsubtitle: 'subtitles',
	translation: 'translatedDocument',
	translatordocument: 'translatedDocument',
	translateddocument: 'translatedDocument',
	translatedimage: 'translatedDocument',
	dubbedaudio: 'dubbedAudio',
	createdaidubaudio: 'dubbedAudio',
	vendoraudiowithbackground: 'dubbedAudio',
	vendoraudiowithoutbackground: 'dubbedAudio',
	createdembeddedvideo: 'embeddedVideo',
	createdsubtitleembeddedvideo: 'embeddedVideo',
	dubbedvideo: 'embeddedVideo',
	vendorvideo: 'embeddedVideo',
};

/** The kind of a document type, or undefined for a document that is no deliverable. */
export function kindOfType(type: string): FileKind | undefined {
	const normalized = type.toLowerCase().replace(/[_-]/g, '');
	if (normalized.startsWith('source')) return 'source';
	return KIND_BY_TYPE[normalized];
}

const MIME_TYPES: Readonly<Record<string, string>> = {
	vtt: 'text/vtt',
	srt: 'application/x-subrip',
	txt: 'text/plain',
	pdf: 'application/pdf',
	doc: 'application/msword',
	docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
	xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
	pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
	png: 'image/png',
	jpg: 'image/jpeg',
	jpeg: 'image/jpeg',
	mp3: 'audio/mpeg',
	wav: 'audio/wav',
	m4a: 'audio/mp4',
	aac: 'audio/aac',
	mp4: 'video/mp4',
	mov: 'video/quicktime',
	mkv: 'video/x-matroska',
	webm: 'video/webm',
};

/** The MIME type a file name says, or undefined for an unknown extension (then the storage host's answer says). */
export function mimeTypeOfName(name: string): string | undefined {
	const dot = name.lastIndexOf('.');
	return dot < 0 ? undefined : MIME_TYPES[name.slice(dot + 1).toLowerCase()];
}

/** One file of an order to download. */
export interface OrderFile {
	kind: FileKind;
	/** The document's type; 'vttUrl' for the order's own subtitle link. */
	type: string;
	/** The document's id; undefined for the vttUrl. */
	documentId?: string;
	fileName: string;
	url: string;
	language: string;
}

function pathOf(url: string): string {
	try {
		return new URL(url).pathname;
	} catch {
		return url;
	}
}

/** The last segment of a link's path, decoded: a name for the vttUrl when no subtitle document has it. */
function nameFromLink(url: string): string | undefined {
	const last = pathOf(url).split('/').pop() ?? '';
	try {
		const name = decodeURIComponent(last).trim();
		return name === '' ? undefined : name;
	} catch {
		return undefined;
	}
}

/**
 * The files of an order of the given kinds, in the order's own order. Deliverables are in the target language
 * (a closed-caption order's subtitles in the source language); the source in the source language. The vttUrl is
 * listed only when no subtitle document points at the same file.
 */
export function filesOf(order: IDataObject, kinds: FileKind[]): OrderFile[] {
	const orderId = String(order.id);
	const sourceLanguage = String(order.sourceLanguage ?? '');
	const deliveredLanguage = order.type === 'cc' ? sourceLanguage : String(order.targetLanguage ?? '');
	const languageOf = (kind: FileKind) => (kind === 'source' ? sourceLanguage : deliveredLanguage);
	const files: OrderFile[] = [];
	for (const doc of records(order.orderDocs)) {
		const kind = typeof doc.type === 'string' ? kindOfType(doc.type) : undefined;
		if (kind === undefined || !kinds.includes(kind) || typeof doc.url !== 'string' || doc.url === '') continue;
		const name = typeof doc.name === 'string' && doc.name.trim() !== '' ? doc.name.trim() : nameFromLink(doc.url);
		files.push({
			kind,
			type: String(doc.type),
			documentId: typeof doc.id === 'string' ? doc.id : undefined,
			fileName: name ?? `${orderId}_${String(doc.type)}`,
			url: doc.url,
			language: languageOf(kind),
		});
	}
	const vttUrl = order.vttUrl;
	if (kinds.includes('subtitles') && typeof vttUrl === 'string' && vttUrl !== '') {
		const listed = files.some((file) => file.kind === 'subtitles' && pathOf(file.url) === pathOf(vttUrl));
		if (!listed) {
			files.unshift({
				kind: 'subtitles',
				type: 'vttUrl',
				fileName: nameFromLink(vttUrl) ?? `${orderId}_${deliveredLanguage}.vtt`,
				url: vttUrl,
				language: deliveredLanguage,
			});
		}
	}
	return files;
}

/** The same file in a fresh read of the order (by document id, else by type and name), for a refreshed link. */
export function sameFile(files: OrderFile[], wanted: OrderFile): OrderFile | undefined {
	return (
		files.find((file) => wanted.documentId !== undefined && file.documentId === wanted.documentId) ??
		files.find((file) => file.type === wanted.type && file.fileName === wanted.fileName)
	);
}
