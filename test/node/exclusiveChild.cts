// One n8n process of the fault harness (claimProcesses.test.cts): n8n's own DeduplicationHelper (the cli's) over
// its own ProcessedData entity on SQLite or PostgreSQL (DB_POSTGRESDB_PORT set), as n8n runs it, and the shipped exclusive section claiming names in the
// node's row. Each step is appended to the shared log before and after it happens, so the parent can tell who went
// ahead even when this process is killed in between.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { exclusively } from '../../nodes/shared/exclusive';

const modules = process.env.N8N_MODULES as string;
const load = (name: string) => require(join(modules, name));
/** `step pid name time`: the time lets the parent put an overlap beside its pauses. */
const log = (line: string) => appendFileSync(process.env.LOG as string, `${line} ${Date.now()}\n`);

async function main() {
	const { Container } = load('@n8n/di');
	const { DataSource } = load('@n8n/typeorm');
	const db = load('@n8n/db');
	const { DeduplicationHelper } = load('n8n/dist/deduplication/deduplication-helper.js');
	const postgres = process.env.DB_POSTGRESDB_PORT;
	const source = new DataSource({
		...(postgres
			? { type: 'postgres', host: '127.0.0.1', port: Number(postgres), database: process.env.DB_POSTGRESDB_DATABASE, username: process.env.DB_POSTGRESDB_USER }
			: { type: 'sqlite', database: process.env.DB }),
		entities: [db.ProcessedData],
		synchronize: process.env.SYNC === '1',
	});
	await source.initialize();
	if (!postgres) await source.query('PRAGMA busy_timeout = 10000');
	Container.set(db.ProcessedDataRepository, new db.ProcessedDataRepository(source));
	const helper = new DeduplicationHelper();
	const context = { workflow: { id: 'wf-1' }, node: { id: 'node-1' } };
	const store = {
		checkProcessedAndRecord: async (items: never[], scope: never, options: never) => await helper.checkProcessedAndRecord(items, scope, context, options),
		clearAllProcessedItems: async (scope: never) => await helper.clearAllProcessedItems(scope, context),
	} as never;
	const me = process.pid;
	if (process.env.STALE === '1') {
		// Writes back copies of the section's row read a while before, as a late n8n update does (UPDATE by key).
		const repository = Container.get(db.ProcessedDataRepository);
		let copies = 0;
		while (Date.now() < Number(process.env.UNTIL)) {
			const read = await repository.findOne({ where: { workflowId: 'wf-1', context: '' } });
			await new Promise((resolve) => setTimeout(resolve, read ? Math.random() * 500 : 1));
			if (read) {
				await repository.update({ workflowId: 'wf-1', context: '' }, read);
				copies++;
			}
		}
		log(`stale ${me} ${copies}`);
		await source.destroy();
		return;
	}
	const names = Number(process.env.NAMES);
	for (let round = 0; round < names; round++) {
		const name = `name-${round}`;
		try {
			await exclusively(
				store,
				async () => {
					log(`enter ${me} ${name}`);
					const found = await helper.checkProcessedAndRecord([name], 'node', context, { mode: 'entries', maxEntries: 10_000 });
					log(`${found.new.length === 1 ? 'won' : 'before'} ${me} ${name}`);
					log(`exit ${me} ${name}`);
				},
				Number(process.env.LEASE_MS),
			);
		} catch (error) {
			log(`stopped ${me} ${name} ${(error as Error).message}`);
		}
	}
	if (names > 0) log(`done ${me}`);
	await source.destroy();
}

main().catch((error) => {
	log(`crashed ${process.pid} ${(error as Error).message}`);
	process.exit(1);
});
