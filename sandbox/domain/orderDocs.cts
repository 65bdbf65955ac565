import type { OrderDoc, OrderRecord, ProjectRecord } from '../types.cts';
import type { World } from '../world.cts';
import { isMediaType } from './catalog.cts';

/** An order's documents: its source and guidance at creation, the AI output, and the subtitle-embedded video. */

function fileUrl(world: World, ...parts: string[]): string {
	return `${world.fileBaseUrl}/${parts.map(encodeURIComponent).join('/')}`;
}

export function sourceDocOf(world: World, project: ProjectRecord, orderId: string): OrderDoc {
	const source = project.source;
	const kindType = { video: 'sourceVideo', audio: 'sourceAudio', document: 'sourceDocument', subtitle: 'sourceSubtitle' }[source.kind];
	return {
		id: world.ids.next(world.clock.nowMillis()),
		name: source.fileName,
		url: fileUrl(world, 'orders', orderId, source.fileName),
		type: kindType,
		size: source.size,
		...(source.durationSec !== undefined ? { duration: source.durationSec } : {}),
		...(source.wordCount !== undefined ? { wordCount: source.wordCount } : {}),
		sourceLanguage: project.sourceLanguage,
		createdAt: project.createdAt,
		updatedAt: project.createdAt,
	};
}

/** Orders keep the guidance they were created with, even after the folder document is removed. */
export function guidanceDocOf(world: World, project: ProjectRecord, copy: ProjectRecord['docs'][number]): OrderDoc {
	const now = world.clock.nowIso();
	return {
		id: world.ids.next(world.clock.nowMillis()),
		name: copy.name,
		url: copy.url,
		type: copy.type,
		size: 0,
		sourceLanguage: project.sourceLanguage,
		createdAt: now,
		updatedAt: now,
	};
}

export function deliverAiOutput(world: World, order: OrderRecord): void {
	const now = world.clock.nowIso();
	const source = order.orderDocs[0];
	const base = order.name.replace(/[^A-Za-z0-9]+/g, '_');
	const media = isMediaType(order.type);
	const durationSec = source?.duration;
	order.segmentCount = media ? Math.max(1, Math.ceil((durationSec ?? 60) / 4)) : Math.max(1, Math.ceil((source?.wordCount ?? 200) / 18));
	const outputs: Array<{ type: string; ext: string }> =
		order.type === 'cc' || order.type === 'subtitle'
			? [{ type: 'subtitle', ext: 'vtt' }]
			: order.type === 'aiDubbing'
				? [{ type: 'dubbedAudio', ext: 'mp3' }, { type: 'subtitle', ext: 'vtt' }]
				: order.type === 'studioDubbing'
					? [{ type: 'dubbedVideo', ext: 'mp4' }, { type: 'subtitle', ext: 'vtt' }]
					: [{ type: 'translation', ext: 'docx' }];
	for (const output of outputs) {
		const language = order.type === 'cc' ? order.sourceLanguage : order.targetLanguage;
		const name = `${base}_${language}.${output.ext}`;
		const url = fileUrl(world, 'orders', order.id, name);
		// A rerun replaces the output of the earlier run instead of adding a second copy.
		const earlier = order.orderDocs.find((doc) => doc.type === output.type && doc.name === name);
		if (earlier) {
			earlier.updatedAt = now;
			continue;
		}
		order.orderDocs.push({
			id: world.ids.next(world.clock.nowMillis()),
			name,
			url,
			type: output.type,
			size: output.ext === 'vtt' ? order.segmentCount * 90 : output.ext === 'docx' ? 20_000 + order.segmentCount * 120 : (source?.size ?? 1_000_000),
			// The spec: duration for audio and video only, wordCount for text documents only (by the file, not the order type).
			...((output.ext === 'mp3' || output.ext === 'mp4') && durationSec !== undefined ? { duration: durationSec } : {}),
			...(output.ext === 'docx' ? { wordCount: source?.wordCount ?? order.segmentCount * 18 } : {}),
			sourceLanguage: order.sourceLanguage,
			createdAt: now,
			updatedAt: now,
		});
		if (output.ext === 'vtt') order.vttUrl = url;
	}
}

export function touchOutputDocs(world: World, order: OrderRecord): void {
	const now = world.clock.nowIso();
	for (const doc of order.orderDocs) {
		if (['subtitle', 'translation', 'dubbedAudio', 'dubbedVideo'].includes(doc.type)) doc.updatedAt = now;
	}
}

/** Subtitle embedding: the embedded video appears as an order document a few minutes after the request. */
export function requestSubtitleEmbedding(world: World, order: OrderRecord): void {
	const embedding = { requestedAt: world.clock.nowIso(), completedAt: null as string | null };
	order.subtitleEmbedding = embedding;
	world.clock.scheduleIn(5, () => {
		if (order.subtitleEmbedding !== embedding) return;
		embedding.completedAt = world.clock.nowIso();
		const name = `${order.name.replace(/[^A-Za-z0-9]+/g, '_')}_${order.targetLanguage}_embedded.mp4`;
		order.orderDocs.push({
			id: world.ids.next(world.clock.nowMillis()),
			name,
			url: fileUrl(world, 'orders', order.id, name),
			type: 'created_subtitle_embedded_video',
			size: order.orderDocs[0]?.size ?? 1_000_000,
			...(order.orderDocs[0]?.duration !== undefined ? { duration: order.orderDocs[0].duration } : {}),
			sourceLanguage: order.sourceLanguage,
			createdAt: embedding.completedAt,
			updatedAt: embedding.completedAt,
		});
	});
}
