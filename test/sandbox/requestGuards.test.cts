import { call, expectShapeB, useSandbox } from './helpers.cts';

/**
 * What the service refuses before it acts: callbacks to addresses that reach a private, loopback, link-local,
 * benchmark, multicast or broadcast range in any spelling; source URLs that are not http(s); names and keys beyond
 * their limits. Each is a 400 shape B naming the field, and nothing is created or charged.
 */
const sandbox = useSandbox();

const PRIVATE_CALLBACK_HOSTS = [
	// IPv4-mapped IPv6 (the URL parser writes ::ffff:7f00:1), IPv4-compatible, IPv4-translated, NAT64, 6to4, Teredo
	'[::ffff:127.0.0.1]',
	'[::ffff:10.0.0.1]',
	'[::ffff:169.254.169.254]',
	'[::ffff:192.168.1.1]',
	'[::ffff:0:127.0.0.1]',
	'[::127.0.0.1]',
	'[64:ff9b::7f00:1]',
	'[64:ff9b::a00:1]',
	'[64:ff9b:1::1]',
	'[2002:7f00:1::]',
	'[2001:0:4136:e378::1]',
	// IPv4 ranges beyond the private ones, and other spellings the URL parser turns into them
	'198.18.0.1',
	'198.19.255.254',
	'224.0.0.1',
	'239.255.255.250',
	'255.255.255.255',
	'240.0.0.1',
	'0.0.0.0',
	'192.0.0.8',
	'192.0.2.1',
	'2130706433',
	'0x7f.1',
	// IPv6 multicast, unspecified, site-local, documentation, discard
	'[ff02::1]',
	'[::]',
	'[fec0::1]',
	'[2001:db8::1]',
	'[100::1]',
	// names that resolve inside a network
	'intranet',
	'router.home.arpa',
];

describe('callback URLs must reach a public host', () => {
	it.each(PRIVATE_CALLBACK_HOSTS)('Run QC Evaluation refuses https://%s/ with 400, charging nothing', async (host) => {
		const orderId = sandbox().fixtures.orders.completedLevel0;
		const before = sandbox().state.wallet.usedCredits;
		const response = await call(sandbox(), 'POST', `/integration/orders/${orderId}/qc`, { body: { callbackUrl: `https://${host}/qc` } });
		expect({ status: response.status, message: response.body.message }).toEqual({
			status: 400,
			message: [expect.stringMatching(/^callbackUrl must point to a public host/)],
		});
		expectShapeB(response.body, 400, 'Bad Request');
		expect(sandbox().state.wallet.usedCredits).toBe(before);
	});

	it('Order > Create refuses a callback on a private address (http or https), and takes a public one', async () => {
		const projectId = sandbox().fixtures.projects.writable;
		const orders = sandbox().state.orders.size;
		const create = (callbackUrl: string) =>
			call(sandbox(), 'POST', '/integration/orders/create', { body: { orderType: 'document', level: 0, projectId, targetLanguageConfigs: [{ language: 'de' }], callbackUrl } });
		for (const callbackUrl of ['http://[::ffff:127.0.0.1]:5678/webhook', 'https://192.168.1.1/hook', 'http://198.18.0.1/']) {
			const response = await create(callbackUrl);
			expect({ callbackUrl, status: response.status, message: response.body.message }).toEqual({
				callbackUrl,
				status: 400,
				message: [expect.stringMatching(/^callbackUrl must point to a public host/)],
			});
		}
		const ftp = await create('ftp://hooks.example.com/x');
		expect(ftp.body.message).toEqual(['callbackUrl must use http or https']);
		expect(sandbox().state.orders.size).toBe(orders);
		expect((await create('https://hooks.example.com/ollang')).status).toBe(201);
	});

	it('public addresses stay accepted, in plain and IPv6 form', async () => {
		for (const host of ['hooks.example.com', '8.8.8.8', '[2606:4700:4700::1111]', '[64:ff9b::808:808]']) {
			const [order] = sandbox().simulate.createOrders(1, { type: 'document', level: 0, status: 'completed', progress: false });
			const response = await call(sandbox(), 'POST', `/integration/orders/${order.id}/qc`, { body: { callbackUrl: `https://${host}/qc` } });
			expect({ host, status: response.status }).toEqual({ host, status: 200 });
		}
	});
});

describe('source URLs, names and Figma keys', () => {
	const createByUrl = (body: object) => call(sandbox(), 'POST', '/integration/project/create-by-url', { body });

	it('Project > Create From URL refuses file:// and javascript: URLs and a 1 MB name', async () => {
		const projects = sandbox().state.projects.size;
		for (const url of ['file:///etc/passwd.mp4', 'javascript:alert(1)//a.mp4', 'ftp://cdn.example.com/a.mp4']) {
			const response = await createByUrl({ url, name: 'X', sourceLanguage: 'en' });
			expect({ url, status: response.status, message: response.body.message }).toEqual({ url, status: 400, message: ['url must use http or https'] });
		}
		const long = await createByUrl({ url: 'https://cdn.example.com/a.mp4', name: 'n'.repeat(1024 * 1024), sourceLanguage: 'en' });
		expect({ status: long.status, message: long.body.message }).toEqual({ status: 400, message: ['name must be shorter than or equal to 255 characters'] });
		expect(sandbox().state.projects.size).toBe(projects);
	});

	it('Upload > Upload From URL refuses file:// and javascript: URLs', async () => {
		const projects = sandbox().state.projects.size;
		for (const url of ['file:///tmp/a.mp4', 'javascript:alert(1)']) {
			const response = await call(sandbox(), 'POST', '/integration/upload/direct-url', { body: { url, originalname: 'a.mp4', size: 1, sourceLanguage: 'en' } });
			expect({ url, status: response.status, message: response.body.message }).toEqual({ url, status: 400, message: ['url must use http or https'] });
		}
		expect(sandbox().state.projects.size).toBe(projects);
	});

	it('Figma create refuses a javascript: file URL that mentions figma.com and a 100 KB file key', async () => {
		const orders = sandbox().state.orders.size;
		const figma = (body: object) => call(sandbox(), 'POST', '/integration/orders/figma/create', { body: { sourceLanguage: 'en', targetLanguages: ['de'], ...body } });
		const script = await figma({ fileKey: 'AbC123', fileUrl: 'javascript:alert(1)//www.figma.com/design/AbC123/x' });
		expect({ status: script.status, message: script.body.message }).toEqual({ status: 400, message: ['fileUrl must be a Figma file URL (figma.com)'] });
		const elsewhere = await figma({ fileKey: 'AbC123', fileUrl: 'https://evil.example/figma.com/design/AbC123/x' });
		expect(elsewhere.body.message).toEqual(['fileUrl must be a Figma file URL (figma.com)']);
		const longKey = await figma({ fileKey: 'K'.repeat(100 * 1024), fileUrl: 'https://www.figma.com/design/AbC123/x' });
		expect({ status: longKey.status, message: longKey.body.message }).toEqual({ status: 400, message: ['fileKey must be shorter than or equal to 128 characters'] });
		expect(sandbox().state.orders.size).toBe(orders);
	});
});
