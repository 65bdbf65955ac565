import { minutesToMs } from './core/clock.cts';
import type { Rng } from './core/rng.cts';
import {
	FIRST_NAMES,
	FOLDER_NAMES,
	isMediaType,
	LANGUAGES,
	LAST_NAMES,
	PROJECT_TOPICS,
	RERUNS,
	SOURCE_FILES,
	TAGS,
} from './domain/catalog.cts';
import { memoryItemKey } from './domain/importJobs.cts';
import { addConsumptionLine } from './domain/orderBilling.cts';
import { createOrder, freeze } from './domain/orderLife.cts';
import { buildPlan, minutesToLandAfter, planLifecycle, stepIndexReaching } from './domain/orderPlan.cts';
import { attachFolderDoc, createProject } from './domain/projects.cts';
import { usdToCredits } from './domain/wallet.cts';
import {
	FOLDER_DOC_TYPES,
	ORDER_TYPES,
	type FolderRecord,
	type MemoryRecord,
	type OrderRecord,
	type OrderStatus,
	type SpecOrderStatus,
	type OrderType,
	type PlanStep,
	type ProjectRecord,
	type Role,
	type SeededFixtures,
	type SourceKind,
	type UserRecord,
} from './types.cts';
import type { World } from './world.cts';

/**
 * Deterministic seeded data. Orders are not written in their final state: each is created at its (past)
 * creation time and the simulated clock replays its life up to the start time, so statuses, delivery events,
 * consumption lines and the wallet agree with each other exactly as they will for orders created later.
 */
export interface VolumeConfig {
	orders: number;
	consumptionLines: number;
	folders: number;
	projectsPerFolder: number;
	docsPerFolder: number;
	memories: number;
	memoryItemsPerMemory: number;
	/** Users who request orders besides the three API-key users. */
	requestors: number;
	contentTerms: number;
	historyDays: number;
}

export const VOLUMES: Readonly<Record<'small' | 'demo' | 'large', VolumeConfig>> = {
	small: { orders: 60, consumptionLines: 300, folders: 4, projectsPerFolder: 3, docsPerFolder: 2, memories: 3, memoryItemsPerMemory: 20, requestors: 4, contentTerms: 10, historyDays: 60 },
	demo: { orders: 200, consumptionLines: 1500, folders: 6, projectsPerFolder: 4, docsPerFolder: 2, memories: 5, memoryItemsPerMemory: 60, requestors: 8, contentTerms: 40, historyDays: 90 },
	large: { orders: 1000, consumptionLines: 10_000, folders: 12, projectsPerFolder: 6, docsPerFolder: 3, memories: 8, memoryItemsPerMemory: 200, requestors: 20, contentTerms: 200, historyDays: 120 },
};

export interface SeedResult {
	keys: { owner: string; billing: string; member: string };
	usersByKey: Map<string, UserRecord>;
	fixtures: SeededFixtures;
}

const DAY_MINUTES = 24 * 60;

interface OrderSpec {
	type: OrderType;
	level: 0 | 1;
	project: ProjectRecord;
	requestor: UserRecord;
	targetLanguage: string;
	createdAtMs: number;
	plan: PlanStep[];
	freezeAs?: OrderStatus;
	fixtureKey?: string;
}

/** Seeds `world` (whose clock stands at the start of history) and leaves the clock at `startMs`. */
export function seedWorld(world: World, volume: VolumeConfig, startMs: number): SeedResult {
	const rng = world.rng.data;
	const historyStartMs = world.clock.nowMillis();
	// Orders from the first quarter of the history predate the delivery log: their events are empty.
	const logStartMs = historyStartMs + (startMs - historyStartMs) / 4;

	const { keys, usersByKey, apiUsers, requestors } = seedUsers(world, rng, volume);
	seedTranslators(world, rng);
	const folders = seedFolders(world, volume, apiUsers.member);
	const projectsByFolder = folders.map((folder) => seedProjects(world, rng, folder, volume.projectsPerFolder));
	const folderDocs = folders.map((folder) => seedFolderDocs(world, rng, folder, volume.docsPerFolder));
	const memories = seedMemories(world, rng, volume);
	seedContent(world, rng, volume.contentTerms);

	const pick = (folderIndex: number, type: OrderType) => projectFor(projectsByFolder[folderIndex], type);
	const everyone = [apiUsers.owner, apiUsers.billing, apiUsers.member, ...requestors];
	const specs: OrderSpec[] = [];
	const fixtureSpec = (key: string, type: OrderType, level: 0 | 1, land: OrderStatus | 'redelivered', folderIndex = 0, freezeAs?: OrderStatus) => {
		const plan = buildPlan(world, type, level, land === 'redelivered');
		const index = land === 'redelivered' ? plan.length - 1 : stepIndexReaching({ type, level }, plan, land);
		if (index === null) throw new Error(`seed: a ${type} level ${level} order never reaches ${land}`);
		specs.push({
			type,
			level,
			project: pick(folderIndex, type),
			requestor: apiUsers.owner,
			targetLanguage: LANGUAGES[specs.length % LANGUAGES.length],
			createdAtMs: startMs - minutesToMs(minutesToLandAfter(plan, index)),
			plan,
			freezeAs,
			fixtureKey: key,
		});
	};
	fixtureSpec('status:pending', 'cc', 0, 'pending');
	fixtureSpec('status:ongoing', 'document', 0, 'ongoing');
	fixtureSpec('status:waitingForCC', 'subtitle', 0, 'waitingForCC');
	fixtureSpec('status:waitingForSubtitle', 'aiDubbing', 0, 'waitingForSubtitle');
	fixtureSpec('status:qualityCheck', 'subtitle', 1, 'qualityCheck');
	fixtureSpec('status:completed', 'cc', 0, 'completed');
	fixtureSpec('status:delivered', 'document', 0, 'delivered');
	fixtureSpec('status:revision', 'revision', 0, 'delivered', 0, 'revision');
	fixtureSpec('status:delayed', 'studioDubbing', 1, 'ongoing', 0, 'delayed');
	fixtureSpec('status:readyToSent', 'proofreading', 1, 'completed', 0, 'readyToSent');
	for (const type of ORDER_TYPES) fixtureSpec(`type:${type}`, type, 0, 'delivered');
	fixtureSpec('completedLevel0', 'subtitle', 0, 'completed');
	fixtureSpec('deliveredLevel0', 'cc', 0, 'delivered');
	fixtureSpec('level1Ongoing', 'document', 1, 'ongoing');
	fixtureSpec('subtitleCompleted', 'subtitle', 0, 'completed');
	fixtureSpec('noSegmentData', 'other', 0, 'completed', 0, 'completed');
	fixtureSpec('largeExport', 'subtitle', 0, 'delivered');
	fixtureSpec('redelivered', 'subtitle', 1, 'redelivered');
	fixtureSpec('hiddenFromMember', 'cc', 0, 'delivered', 2);
	fixtureSpec('readOnlyForMember', 'subtitle', 0, 'completed', 1);
	// level1Ongoing must have its translator: land after assignTranslator, not at the first 'ongoing'.
	const level1 = specs.find((spec) => spec.fixtureKey === 'level1Ongoing') as OrderSpec;
	level1.createdAtMs = startMs - minutesToMs(minutesToLandAfter(level1.plan, level1.plan.findIndex((step) => step.kind === 'assignTranslator')));
	const withoutEvents = buildPlan(world, 'cc', 0, false);
	specs.push({ type: 'cc', level: 0, project: pick(0, 'cc'), requestor: apiUsers.owner, targetLanguage: 'fr', createdAtMs: historyStartMs + minutesToMs(60), plan: withoutEvents, fixtureKey: 'withoutEvents' });

	for (let i = specs.length; i < volume.orders; i++) specs.push(randomSpec(world, rng, projectsByFolder, everyone, historyStartMs, startMs));

	const ordersPerStage = Math.max(1, volume.orders) * 2.3;
	const linesPerStage = Math.max(1, Math.round((0.9 * volume.consumptionLines) / ordersPerStage));
	world.lineBudget = volume.consumptionLines;
	const fixtureOrders = new Map<string, OrderRecord>();
	const frozen: Array<[OrderRecord, OrderStatus]> = [];
	for (const spec of specs) {
		world.clock.schedule(spec.createdAtMs, () => {
			const order = createOrder(world, {
				project: spec.project,
				type: spec.type,
				level: spec.level,
				targetLanguage: spec.targetLanguage,
				requestor: spec.requestor,
				plan: spec.plan,
				linesPerStage,
				logsEvents: spec.createdAtMs >= logStartMs,
				autoQc: rng.chance(0.3),
			});
			if (spec.fixtureKey) fixtureOrders.set(spec.fixtureKey, order);
			if (spec.freezeAs) frozen.push([order, spec.freezeAs]);
		});
	}
	world.clock.advanceTo(startMs);
	world.lineBudget = null;
	for (const [order, status] of frozen) freeze(order, status);

	const fixture = (key: string) => (fixtureOrders.get(key) as OrderRecord).id;
	(fixtureOrders.get('largeExport') as OrderRecord).segmentCount = 100_000;
	(fixtureOrders.get('noSegmentData') as OrderRecord).segmentCount = 0;

	topUpConsumption(world, rng, volume.consumptionLines);
	const used = world.state.wallet.usedCredits;
	world.state.wallet.totalCredits = Math.ceil((used + usdToCredits(500)) / 100_000) * 100_000;

	seedApiUploadsFolder(world);

	const byStatus = {} as Record<SpecOrderStatus, string>;
	for (const key of fixtureOrders.keys()) if (key.startsWith('status:')) byStatus[key.slice(7) as SpecOrderStatus] = fixture(key);
	const byType = {} as Record<OrderType, string>;
	for (const type of ORDER_TYPES) byType[type] = fixture(`type:${type}`);

	const ref = (user: UserRecord) => ({ id: user.id, name: user.name, email: user.email });
	const fixtures: SeededFixtures = {
		users: { owner: ref(apiUsers.owner), billing: ref(apiUsers.billing), member: ref(apiUsers.member) },
		folders: { writable: folders[0].id, readOnlyForMember: folders[1].id, hiddenFromMember: folders[2].id, all: folders.map((folder) => folder.id) },
		projects: { writable: projectsByFolder[0][0].id, readOnlyForMember: projectsByFolder[1][0].id, hiddenFromMember: projectsByFolder[2][0].id },
		folderDocs: { writable: folderDocs[0], readOnlyForMember: folderDocs[1] },
		memories: memories.map((memory) => memory.id),
		orders: {
			byStatus,
			byType,
			completedLevel0: fixture('completedLevel0'),
			deliveredLevel0: fixture('deliveredLevel0'),
			level1Ongoing: fixture('level1Ongoing'),
			subtitleCompleted: fixture('subtitleCompleted'),
			noSegmentData: fixture('noSegmentData'),
			largeExport: fixture('largeExport'),
			withoutEvents: fixture('withoutEvents'),
			redelivered: fixture('redelivered'),
			hiddenFromMember: fixture('hiddenFromMember'),
			readOnlyForMember: fixture('readOnlyForMember'),
		},
	};
	return { keys, usersByKey, fixtures };
}

function randomSpec(
	world: World,
	rng: Rng,
	projectsByFolder: ProjectRecord[][],
	everyone: UserRecord[],
	historyStartMs: number,
	startMs: number,
): OrderSpec {
	const type = rng.weighted<OrderType>([
		['cc', 15],
		['subtitle', 25],
		['document', 20],
		['aiDubbing', 15],
		['studioDubbing', 10],
		['proofreading', 5],
		['other', 5],
		['revision', 5],
	]);
	const level: 0 | 1 = rng.chance(0.35) ? 1 : 0;
	const recent = rng.chance(0.15);
	const createdAtMs = recent
		? rng.int(startMs - minutesToMs(6 * 60), startMs - 1000)
		: rng.int(historyStartMs, startMs - minutesToMs(DAY_MINUTES));
	const project = projectFor(rng.pick(projectsByFolder), type, rng);
	const roll = rng.next();
	const freezeAs: OrderStatus | undefined = roll < 0.03 ? 'revision' : roll < 0.06 ? 'delayed' : roll < 0.09 ? 'readyToSent' : undefined;
	return {
		type,
		level,
		project,
		requestor: rng.pick(everyone),
		targetLanguage: rng.pick(LANGUAGES.filter((language) => language !== project.sourceLanguage)),
		createdAtMs,
		plan: planLifecycle(world, type, level),
		freezeAs,
	};
}

/** A project whose source fits the order type: the first one (fixtures), or a random one when `rng` is given. */
export function projectFor(projects: ProjectRecord[], type: OrderType, rng?: Rng): ProjectRecord {
	const wanted = isMediaType(type) ? ['video', 'audio'] : ['document'];
	const fitting = projects.filter((project) => wanted.includes(project.source.kind));
	if (fitting.length === 0) return projects[0];
	return rng ? rng.pick(fitting) : fitting[0];
}

function seedUsers(world: World, rng: Rng, volume: VolumeConfig) {
	const now = world.clock.nowMillis();
	const makeUser = (name: string, email: string, roles: Role[]): UserRecord => {
		const user: UserRecord = { id: world.ids.next(now), name, email, roles, tags: rng.sample(TAGS, rng.int(1, 3)), folderRestrictions: new Map() };
		world.state.users.set(user.id, user);
		return user;
	};
	const apiUsers = {
		owner: makeUser('Maya Chen', 'owner@sandbox.ollang.test', ['client_owner']),
		billing: makeUser('Bilal Aydin', 'billing@sandbox.ollang.test', ['client_accessBillings']),
		member: makeUser('Mina Park', 'member@sandbox.ollang.test', []),
	};
	const requestors: UserRecord[] = [];
	for (let i = 0; i < volume.requestors; i++) {
		const first = FIRST_NAMES[i % FIRST_NAMES.length];
		const last = LAST_NAMES[(i * 7) % LAST_NAMES.length];
		const suffix = i >= FIRST_NAMES.length ? String(Math.floor(i / FIRST_NAMES.length) + 1) : '';
		requestors.push(makeUser(`${first} ${last}`, `${first}.${last}${suffix}@example.com`.toLowerCase(), []));
	}
	const key = (role: string) => `sbx_${role}_${Array.from({ length: 24 }, () => rng.int(0, 15).toString(16)).join('')}`;
	const keys = { owner: key('owner'), billing: key('billing'), member: key('member') };
	const usersByKey = new Map<string, UserRecord>([
		[keys.owner, apiUsers.owner],
		[keys.billing, apiUsers.billing],
		[keys.member, apiUsers.member],
	]);
	return { keys, usersByKey, apiUsers, requestors };
}

function seedTranslators(world: World, rng: Rng): void {
	world.state.lspManager = { id: world.ids.next(world.clock.nowMillis()), name: 'Lara Novak', email: 'pm@lsp.example.com' };
	for (let i = 0; i < 6; i++) {
		const first = rng.pick(FIRST_NAMES);
		const last = rng.pick(LAST_NAMES);
		world.state.translators.push({ id: world.ids.next(world.clock.nowMillis()), name: `${first} ${last}`, email: `${first}.${last}.${i}@translators.example.com`.toLowerCase() });
	}
}

/** Dashboard label colours; the first is the docs' example. */
const FOLDER_COLORS = ['#B6B6B6', '#4A90E2', '#F5A623', '#7ED321', '#BD10E0', '#D0021B'] as const;

/**
 * The account's "API Uploads" folder (type `api`, as in the public docs), made last so that it changes nothing
 * seeded before it. It starts empty: uploads without a folder still go to the first folder (see the README).
 */
function seedApiUploadsFolder(world: World): FolderRecord {
	const folder: FolderRecord = { id: world.ids.next(world.clock.nowMillis()), name: 'API Uploads', createdAt: world.clock.nowIso(), hexColor: '#B6B6B6', type: 'api' };
	world.state.folders.set(folder.id, folder);
	return folder;
}

function seedFolders(world: World, volume: VolumeConfig, member: UserRecord): FolderRecord[] {
	const folders: FolderRecord[] = [];
	for (let i = 0; i < Math.max(3, volume.folders); i++) {
		const base = FOLDER_NAMES[i % FOLDER_NAMES.length];
		const folder: FolderRecord = {
			id: world.ids.next(world.clock.nowMillis()),
			name: i < FOLDER_NAMES.length ? base : `${base} ${Math.floor(i / FOLDER_NAMES.length) + 1}`,
			createdAt: world.clock.nowIso(),
			hexColor: FOLDER_COLORS[i % FOLDER_COLORS.length],
			type: 'default',
		};
		world.state.folders.set(folder.id, folder);
		folders.push(folder);
	}
	// The member reads but cannot write the second folder, and cannot see the third.
	member.folderRestrictions.set(folders[1].id, 'read');
	member.folderRestrictions.set(folders[2].id, 'none');
	return folders;
}

function seedProjects(world: World, rng: Rng, folder: FolderRecord, count: number): ProjectRecord[] {
	const projects: ProjectRecord[] = [];
	for (let i = 0; i < Math.max(2, count); i++) {
		// Every folder has a video (first) and a document (second) project, so every order type fits somewhere.
		const kind: SourceKind = i === 0 ? 'video' : i === 1 ? 'document' : rng.weighted<SourceKind>([['video', 6], ['audio', 1], ['document', 3]]);
		const name = `${rng.pick(PROJECT_TOPICS)} ${folder.name.split(' ')[0]} ${i + 1}`;
		const media = kind !== 'document';
		projects.push(
			createProject(
				world,
				{
					name,
					folderId: folder.id,
					sourceLanguage: rng.chance(0.85) ? 'en' : rng.pick(['es', 'de']),
					fileName: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.${SOURCE_FILES[kind]}`,
					size: media ? rng.int(5_000_000, 400_000_000) : rng.int(20_000, 2_000_000),
				},
				media ? { durationSec: rng.int(30, 1800) } : { wordCount: rng.int(300, 8000) },
			),
		);
	}
	return projects;
}

function seedFolderDocs(world: World, rng: Rng, folder: FolderRecord, count: number): string[] {
	const ids: string[] = [];
	for (let i = 0; i < count; i++) {
		const type = FOLDER_DOC_TYPES[i % FOLDER_DOC_TYPES.length];
		const slug = folder.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
		const doc = attachFolderDoc(world, folder, {
			type,
			name: `${folder.name} ${type.replace('_', ' ')}`,
			language: rng.chance(0.5) ? 'en' : undefined,
			url: `https://docs.example.com/${slug}/${type}.pdf`,
		});
		ids.push(doc.id);
	}
	return ids;
}

const MEMORY_TITLES = ['Marketing EN-FR', 'Legal Glossary', 'Product UI Strings', 'Support Macros', 'Game Dialogue', 'Training Courses', 'Press Releases', 'Website Copy'] as const;
const PHRASES = ['Welcome back', 'Sign in to continue', 'Your order has shipped', 'Terms and conditions apply', 'Contact our support team', 'Download the report', 'Watch the full video', 'Save your changes'] as const;

function seedMemories(world: World, rng: Rng, volume: VolumeConfig): MemoryRecord[] {
	const memories: MemoryRecord[] = [];
	for (let i = 0; i < volume.memories; i++) {
		const now = world.clock.nowIso();
		const memory: MemoryRecord = { id: world.ids.next(world.clock.nowMillis()), title: MEMORY_TITLES[i % MEMORY_TITLES.length], createdAt: now, updatedAt: now, items: new Map() };
		for (let n = 0; n < volume.memoryItemsPerMemory; n++) {
			const targetLanguage = rng.pick(LANGUAGES);
			const item = { sourceLanguage: 'en', targetLanguage, sourceText: `${rng.pick(PHRASES)} (${n + 1})`, targetText: `[${targetLanguage}] ${rng.pick(PHRASES)} (${n + 1})`, updatedAt: now };
			memory.items.set(memoryItemKey(item), item);
		}
		world.state.memories.set(memory.id, memory);
		memories.push(memory);
	}
	return memories;
}

function seedContent(world: World, rng: Rng, count: number): void {
	const now = world.clock.nowIso();
	for (let i = 0; i < count; i++) {
		const sourceText = `${rng.pick(PHRASES)} #${i + 1}`;
		const targets = new Map<string, { targetText: string; updatedAt: string }>();
		for (const language of rng.sample(LANGUAGES, rng.int(1, 3))) targets.set(language, { targetText: `[${language}] ${sourceText}`, updatedAt: now });
		world.state.content.set(sourceText, { id: world.ids.next(world.clock.nowMillis()), sourceText, elementId: `page.section${i}`, type: 'text', createdAt: now, updatedAt: now, targets, tags: [TAGS[i % 4]], orderIds: [] });
	}
}

/** Fills the consumption lines up to the volume's exact count with earlier reruns of finished orders. */
function topUpConsumption(world: World, rng: Rng, target: number): void {
	const missing = target - world.state.consumption.length;
	if (missing <= 0) return;
	const finished = [...world.state.orders.values()].filter((order) => order.segmentCount > 0 && order.deliveryEvents.length > 0);
	if (finished.length === 0) return;
	const startMs = world.clock.nowMillis();
	const added: Array<{ order: OrderRecord; atMs: number }> = [];
	for (let i = 0; i < missing; i++) {
		const order = rng.pick(finished);
		const finishedAt = Date.parse(order.deliveryEvents[0].occurredAt);
		added.push({ order, atMs: rng.int(finishedAt, Math.max(finishedAt, startMs - 1000)) });
	}
	// In time order, so that id order follows occurrence like the lines the replay wrote.
	added.sort((a, b) => a.atMs - b.atMs);
	for (const { order, atMs } of added) {
		const requestor = world.state.users.get(order.requestorId) as UserRecord;
		addConsumptionLine(world, order, requestor, rng.int(5, 400), rng.pick(RERUNS), atMs);
	}
	world.state.consumption.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
