import type { ApiContext, ApiRoute, Reply } from '../http/server.cts';
import { json } from './common.cts';

/** GET /health, without authentication: { time: the service's clock in epoch milliseconds, status: 'OK' }. */
function health(ctx: ApiContext): Reply {
	return json(200, { time: ctx.world.clock.nowMillis(), status: 'OK' });
}

export const healthRoutes: ApiRoute[] = [{ method: 'GET', pattern: '/health', auth: 'none', handler: health }];
