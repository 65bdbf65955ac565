import type { FolderDocRecord, FolderDocType, FolderRecord, ProjectRecord, ProjectSubtitle, SourceKind } from '../types.cts';
import type { World } from '../world.cts';
import { sourceKindOf } from './catalog.cts';

/**
 * Projects hold the uploaded source; folder documents are copied onto every project of their folder
 * (now and later), and removing a folder document removes those copies.
 */
export interface NewProject {
	name: string;
	folderId: string;
	sourceLanguage: string;
	fileName: string;
	size: number;
	notes?: Array<{ details: string; timeStamp: string }>;
}

/** Rough media length and word count from the file size, so prices and segment counts follow the upload. */
function estimateContent(kind: SourceKind, size: number): { durationSec?: number; wordCount?: number } {
	if (kind === 'video') return { durationSec: clamp(Math.round(size / 250_000), 10, 4 * 3600) };
	if (kind === 'audio') return { durationSec: clamp(Math.round(size / 16_000), 10, 4 * 3600) };
	if (kind === 'subtitle') return { durationSec: clamp(Math.round(size / 25), 10, 4 * 3600) };
	return { wordCount: clamp(Math.round(size / 12), 50, 200_000) };
}

function clamp(value: number, min: number, max: number): number {
	return Math.min(max, Math.max(min, value));
}

export function createProject(world: World, input: NewProject, content?: { durationSec?: number; wordCount?: number }): ProjectRecord {
	const kind = sourceKindOf(input.fileName);
	if (!kind) throw new Error(`createProject: ${input.fileName} has no supported extension`);
	const id = world.ids.next(world.clock.nowMillis());
	const project: ProjectRecord = {
		id,
		name: input.name,
		folderId: input.folderId,
		sourceLanguage: input.sourceLanguage,
		createdAt: world.clock.nowIso(),
		source: {
			fileName: input.fileName,
			kind,
			size: input.size,
			url: `${world.fileBaseUrl}/projects/${id}/${encodeURIComponent(input.fileName)}`,
			...(content ?? estimateContent(kind, input.size)),
		},
		docs: [],
		notes: input.notes ?? [],
		subtitles: [],
	};
	world.state.projects.set(id, project);
	for (const doc of world.state.folderDocs.values()) {
		if (doc.folderId === project.folderId) applyDocToProject(world, doc, project);
	}
	return project;
}

function applyDocToProject(world: World, doc: FolderDocRecord, project: ProjectRecord): void {
	project.docs.push({ id: world.ids.next(world.clock.nowMillis()), folderDocId: doc.id, type: doc.type, name: doc.name, url: doc.url });
}

export interface NewFolderDoc {
	type: FolderDocType;
	name?: string;
	language?: string;
	url?: string;
	fileName?: string;
	size?: number;
}

export function attachFolderDoc(world: World, folder: FolderRecord, input: NewFolderDoc): FolderDocRecord {
	const id = world.ids.next(world.clock.nowMillis());
	const now = world.clock.nowIso();
	const fileName = input.fileName ?? (input.url ? fileNameOfUrl(input.url) : null);
	const doc: FolderDocRecord = {
		id,
		folderId: folder.id,
		type: input.type,
		name: input.name ?? fileName ?? `${input.type} ${id.slice(-6)}`,
		language: input.language ?? null,
		url: input.url ?? `${world.fileBaseUrl}/folders/${folder.id}/docs/${id}/${encodeURIComponent(fileName ?? 'document')}`,
		fileName,
		size: input.size ?? null,
		source: input.url ? 'url' : 'upload',
		createdAt: now,
		updatedAt: now,
	};
	world.state.folderDocs.set(id, doc);
	for (const project of world.state.projects.values()) {
		if (project.folderId === folder.id) applyDocToProject(world, doc, project);
	}
	return doc;
}

function fileNameOfUrl(url: string): string | null {
	try {
		const last = new URL(url).pathname.split('/').pop();
		return last ? decodeURIComponent(last) : null;
	} catch {
		return null;
	}
}

/** Orders created before the removal keep their copies (they are order documents, not project copies). */
export function removeFolderDoc(world: World, doc: FolderDocRecord): void {
	world.state.folderDocs.delete(doc.id);
	for (const project of world.state.projects.values()) {
		if (project.folderId === doc.folderId) project.docs = project.docs.filter((copy) => copy.folderDocId !== doc.id);
	}
}

export function folderDocView(doc: FolderDocRecord) {
	return {
		id: doc.id,
		folderId: doc.folderId,
		type: doc.type,
		name: doc.name,
		language: doc.language,
		url: doc.url,
		fileName: doc.fileName,
		size: doc.size,
		createdAt: doc.createdAt,
		updatedAt: doc.updatedAt,
	};
}

/** Project document types are snake_case (public notes §5.12); folder-document copies keep their folder type. */
const SOURCE_DOC_TYPES: Readonly<Record<SourceKind, string>> = {
	video: 'source_video',
	audio: 'source_audio',
	document: 'source_document',
	subtitle: 'source_srt',
};

/** Orders made from a project. */
export function ordersCountOf(world: World, projectId: string): number {
	let count = 0;
	for (const order of world.state.orders.values()) if (order.projectId === projectId) count++;
	return count;
}

/** GET /integration/project rows. */
export function projectSummary(world: World, project: ProjectRecord) {
	return {
		id: project.id,
		name: project.name,
		sourceLanguage: project.sourceLanguage,
		createdAt: project.createdAt,
		folderId: project.folderId,
		ordersCount: ordersCountOf(world, project.id),
	};
}

/** GET /integration/project/{projectId}: the summary plus projectDocs (the source, folder-document copies, subtitles). */
export function projectView(world: World, project: ProjectRecord) {
	const { source } = project;
	const sourceDoc = {
		// The project's id with another tail: stable, and never another record's id (their tails come from the seed).
		id: `${project.id.slice(0, 18)}f0f0f0`,
		name: source.fileName,
		url: source.url,
		type: SOURCE_DOC_TYPES[source.kind],
		size: source.size,
		...(source.durationSec !== undefined && source.kind !== 'document' ? { duration: source.durationSec } : {}),
		...(source.wordCount !== undefined && source.kind === 'document' ? { wordCount: source.wordCount } : {}),
		sourceLanguage: project.sourceLanguage,
		createdAt: project.createdAt,
		updatedAt: project.createdAt,
		projectId: project.id,
		folderId: project.folderId,
	};
	const copies = project.docs.map((copy) => ({
		id: copy.id,
		name: copy.name,
		url: copy.url,
		type: copy.type,
		sourceLanguage: project.sourceLanguage,
		createdAt: world.state.folderDocs.get(copy.folderDocId)?.createdAt ?? project.createdAt,
		updatedAt: world.state.folderDocs.get(copy.folderDocId)?.updatedAt ?? project.createdAt,
		projectId: project.id,
		folderId: project.folderId,
	}));
	const subtitles = project.subtitles.map((subtitle) => ({
		id: subtitle.id,
		name: subtitle.name,
		url: subtitle.url,
		type: 'source_vtt',
		size: subtitle.size,
		sourceLanguage: subtitle.sourceLanguage,
		createdAt: subtitle.createdAt,
		updatedAt: subtitle.createdAt,
		projectId: project.id,
		folderId: project.folderId,
	}));
	return {
		id: project.id,
		name: project.name,
		sourceLanguage: project.sourceLanguage,
		createdAt: project.createdAt,
		folderId: project.folderId,
		projectDocs: [sourceDoc, ...copies, ...subtitles],
		ordersCount: ordersCountOf(world, project.id),
	};
}

/** A VTT added to a project: `all` (auto-detect) takes the project's source language. */
export function addProjectSubtitle(
	world: World,
	project: ProjectRecord,
	input: { name: string; fileName: string; size: number; sourceLanguage?: string },
): ProjectSubtitle {
	const id = world.ids.next(world.clock.nowMillis());
	const language = input.sourceLanguage === undefined || input.sourceLanguage.toLowerCase() === 'all' ? project.sourceLanguage : input.sourceLanguage;
	const subtitle: ProjectSubtitle = {
		id,
		name: input.name,
		fileName: input.fileName,
		size: input.size,
		sourceLanguage: language,
		url: `${world.fileBaseUrl}/projects/${project.id}/subtitles/${id}/${encodeURIComponent(input.fileName)}`,
		createdAt: world.clock.nowIso(),
	};
	project.subtitles.push(subtitle);
	return subtitle;
}
