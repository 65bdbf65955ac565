// n8n's REST API as its editor uses it: sign-in, node types, workflows, executions.
import http from 'node:http';
import { ensureRuntime, requireFromN8n } from './install.mjs';
import { LOCAL_OWNER } from './commands.mjs';

/**
 * `fetch` for n8n, with one retry of a read whose kept-alive connection n8n had closed as idle (its keep-alive
 * timeout is 5 s; a busy machine lets a pooled connection pass it between two requests): such a read never reached n8n.
 */
export async function n8nFetch(url, init = {}) {
	try {
		return await fetch(url, init);
	} catch (error) {
		const code = error?.cause?.code;
		if ((init.method ?? 'GET') !== 'GET' || (code !== 'UND_ERR_SOCKET' && code !== 'ECONNRESET')) throw error;
		return await fetch(url, init);
	}
}

/** Signs in through n8n's REST API and returns the Cookie header for later requests. */
export async function signIn(baseUrl, owner = LOCAL_OWNER) {
	const response = await fetch(new URL('/rest/login', baseUrl), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ emailOrLdapLoginId: owner.email, password: owner.password }),
	});
	if (!response.ok) throw new Error(`signing in to ${baseUrl} as ${owner.email} failed: HTTP ${response.status} ${await response.text()}`);
	const cookies = response.headers.getSetCookie().map((cookie) => cookie.split(';')[0]);
	return cookies.join('; ');
}

/** The node types the running n8n has loaded, as its editor sees them (`/types/nodes.json`, signed in). */
export async function listLoadedNodeTypes(baseUrl, cookie) {
	const response = await n8nFetch(new URL('/types/nodes.json', baseUrl), { headers: { cookie } });
	if (!response.ok) throw new Error(`GET /types/nodes.json: HTTP ${response.status}`);
	const nodes = await response.json();
	return [...new Set(nodes.map((node) => node.name))];
}

/** A request to n8n's REST API (signed in) that must succeed; returns the answer's `data`. */
export async function restRequest(baseUrl, cookie, method, pathname, body) {
	const response = await n8nFetch(new URL(pathname, baseUrl), {
		method,
		headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (!response.ok) throw new Error(`${method} ${pathname}: HTTP ${response.status} ${await response.text()}`);
	return (await response.json()).data;
}

/**
 * Creates a workflow through the REST API, as the editor saves a new one (`{ name, nodes, connections, settings }`);
 * returns it as n8n stored it (with the `id` n8n gave it).
 */
export async function createWorkflow(baseUrl, cookie, workflow) {
	return await restRequest(baseUrl, cookie, 'POST', '/rest/workflows', workflow);
}

/**
 * Deletes a workflow through the REST API. n8n 2 deletes only archived workflows: it is archived first (an n8n
 * without archiving refuses that, and deletes it directly).
 */
export async function deleteWorkflow(baseUrl, cookie, id) {
	await restRequest(baseUrl, cookie, 'POST', `/rest/workflows/${encodeURIComponent(id)}/archive`).catch(() => undefined);
	await restRequest(baseUrl, cookie, 'DELETE', `/rest/workflows/${encodeURIComponent(id)}`);
}

/**
 * The executions of one workflow in a running n8n (signed in), oldest first: each is the execution's summary
 * (`id`, `mode`, `status`, `startedAt`, ...) with `data` holding its run data (`resultData.runData`), which n8n
 * serves in its `flatted` encoding and is decoded here with n8n's own copy of that library.
 */
export async function readExecutions(baseUrl, cookie, workflowId, { limit = 250 } = {}) {
	const { parse } = requireFromN8n(await ensureRuntime(), 'flatted');
	const executions = [];
	for (const summary of await readExecutionSummaries(baseUrl, cookie, workflowId, { limit })) {
		const detail = await restRequest(baseUrl, cookie, 'GET', `/rest/executions/${summary.id}`);
		executions.push({ ...summary, data: parse(detail.data) });
	}
	return executions;
}

/** Above any execution id n8n gives (its ids are 32-bit integers): the first page of an id range. */
const BEYOND_LAST_ID = '2147483647';

/**
 * The executions of one workflow as n8n lists them (`id`, `mode`, `status`, `startedAt`, `stoppedAt`), oldest
 * first, without their run data; the `limit` most recent.
 *
 * n8n answers at most 100 per request, and its list without a range is ordered by start time. n8n 2.41 pages that
 * order by start time (its `nextCursor` pages by id, which skips: below). 2.40 and 1.x return no cursor: paging below the
 * smallest id of a page skips every execution that started earlier than the page's last one but has a larger id
 * than its smallest (executions of a burst start out of id order, in queue mode above all). Given both ends of an id
 * range they order by id instead, so there the pages are id ranges, newest first.
 */
export async function readExecutionSummaries(baseUrl, cookie, workflowId, { limit = 250 } = {}) {
	const filterOf = (extra = {}) => encodeURIComponent(JSON.stringify({ workflowId, ...extra }));
	const page = async (size, range, filter = filterOf()) => await restRequest(baseUrl, cookie, 'GET', `/rest/executions?filter=${filter}&limit=${size}${range}`);
	const results = [];
	const first = await page(Math.min(100, limit), '');
	if ('nextCursor' in first) {
		// 2.41's cursor asks for ids below the last row's while the list is ordered by start time, so it skips an
		// execution that started earlier with a larger id: the next page is asked by start time instead (`startedBefore`
		// keeps the last start's ties), and rows seen twice are dropped below.
		const seen = new Map(first.results.map((row) => [String(row.id), row]));
		let current = first;
		while (seen.size < limit && current.results.length >= Math.min(100, limit)) {
			const earliest = current.results.map((row) => row.startedAt ?? row.createdAt).filter(Boolean).sort()[0];
			if (earliest === undefined) break;
			current = await page(Math.min(100, limit - seen.size + 1), '', filterOf({ startedBefore: earliest }));
			const fresh = current.results.filter((row) => !seen.has(String(row.id)));
			if (fresh.length === 0) break;
			for (const row of fresh) seen.set(String(row.id), row);
		}
		const start = (row) => row.startedAt ?? row.createdAt ?? '';
		results.push(...[...seen.values()].sort((a, b) => start(b).localeCompare(start(a)) || Number(b.id) - Number(a.id)).slice(0, limit));
	} else {
		for (let below = BEYOND_LAST_ID; results.length < limit; ) {
			const size = Math.min(100, limit - results.length);
			const current = await page(size, `&firstId=0&lastId=${below}`);
			results.push(...current.results);
			if (current.results.length < size) break;
			below = String(Math.min(...current.results.map((summary) => Number(summary.id))));
		}
	}
	const byId = new Map(results.map((summary) => [String(summary.id), summary]));
	return [...byId.values()].sort((a, b) => Number(a.id) - Number(b.id));
}

/** A workflow's static data as n8n has it in its database (what survives a restart), through the REST API. */
export async function readWorkflowStaticData(baseUrl, cookie, workflowId) {
	const workflow = await restRequest(baseUrl, cookie, 'GET', `/rest/workflows/${encodeURIComponent(workflowId)}`);
	const { staticData } = workflow;
	if (typeof staticData === 'string') return JSON.parse(staticData);
	return staticData ?? {};
}

/**
 * n8n 2.41 checks each resource locator's value against its mode's regex before publishing, in a `vm` with a 250 ms
 * wall-clock watchdog (n8n-workflow's safe-regex). On a busy machine the watchdog can fire on a one-word ID: the
 * check throws and n8n refuses the publication with this sentence, where a value that fails its regex is named as
 * "Missing or invalid required parameters". Publishing again is what its user does; a real issue fails every time.
 */
const VALIDATION_THREW = 'Error validating node parameters';
const VALIDATION_ATTEMPTS = 3;

/**
 * Publishes (activates) a workflow in a running n8n, as the editor's Publish button does (its current version).
 * `versionId` publishes that version instead. n8n 2.40 answers once the publication is recorded; its webhooks and triggers follow shortly after
 * (callProductionWebhook waits for a webhook).
 */
export async function activateWorkflow(baseUrl, cookie, id, versionId = undefined) {
	const version = versionId ?? (await restRequest(baseUrl, cookie, 'GET', `/rest/workflows/${encodeURIComponent(id)}`)).versionId;
	for (let attempt = 1; ; attempt++) {
		try {
			return await restRequest(baseUrl, cookie, 'POST', `/rest/workflows/${encodeURIComponent(id)}/activate`, { versionId: version });
		} catch (error) {
			if (attempt >= VALIDATION_ATTEMPTS || !String(error?.message).includes(VALIDATION_THREW)) throw error;
			console.log(`[n8n-rest] publishing ${id}: n8n's parameter check threw (attempt ${attempt} of ${VALIDATION_ATTEMPTS}); publishing again`);
		}
	}
}

/**
 * A request to a published workflow's production webhook (`/webhook/<path>`), sent again while n8n answers that the
 * webhook "is not registered": n8n 2.40 publishes through an outbox (workflows.useWorkflowPublicationService), so
 * the publish request is answered before the webhook is registered. Such an answer started nothing, so sending
 * again is safe. Answers `{ status, text }` of the first other answer; throws after `timeoutMs`.
 */
export async function callProductionWebhook(baseUrl, pathname, init = {}, { timeoutMs = 60_000 } = {}) {
	const until = Date.now() + timeoutMs;
	for (;;) {
		const response = await n8nFetch(new URL(`/webhook/${pathname}`, baseUrl), init);
		const text = await response.text();
		if (response.status !== 404 || !text.includes('is not registered')) return { status: response.status, text };
		if (Date.now() > until) throw new Error(`the webhook ${pathname} was not registered within ${timeoutMs / 1000} s of its workflow's publication: ${text.slice(0, 300)}`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

/**
 * A request to n8n on a connection of its own, answered `{ status, text }` whatever the status. For requests that
 * change something or take long (an install runs for seconds): a kept-alive connection that n8n closed as idle
 * meanwhile would fail it before n8n sees it, and such a request is not retried blindly.
 */
export async function n8nRequest(url, { method = 'GET', headers = {}, body } = {}) {
	const payload = body === undefined ? undefined : JSON.stringify(body);
	return await new Promise((resolve, reject) => {
		const request = http.request(
			url,
			{ method, agent: false, headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) } },
			(response) => {
				const chunks = [];
				response.on('data', (chunk) => chunks.push(chunk));
				response.on('end', () => resolve({ status: response.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
				response.on('error', reject);
			},
		);
		request.on('error', reject);
		request.end(payload);
	});
}

/**
 * n8n's community-package installer, the requests behind Settings > Community nodes: `POST` installs
 * (`{ name, version? }`), `PATCH` updates (`{ name, version? }`), `DELETE` uninstalls (`name`), `GET` lists. Answers
 * `{ status, data, message }` whatever the status, so a caller can check n8n's error for bad input.
 */
export async function communityPackages(baseUrl, cookie, method, body) {
	const query = method === 'DELETE' ? `?name=${encodeURIComponent(body.name)}` : '';
	const { status, text } = await n8nRequest(new URL(`/rest/community-packages${query}`, baseUrl), {
		method,
		headers: { cookie },
		body: method === 'POST' || method === 'PATCH' ? body : undefined,
	});
	let answer;
	try {
		answer = text ? JSON.parse(text) : {};
	} catch {
		answer = { message: text };
	}
	return { status, data: answer.data, message: answer.message };
}
