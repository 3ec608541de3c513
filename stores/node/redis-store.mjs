// Claims of xborder kept in Redis, for Node (ioredis): the store interface of `Claims.withStore`
// and nothing else. The rules are xborder's (core's claim task decides); this only moves entry
// texts: a load is a GET, a compare-and-set is core's one Redis script, the same the Rust
// (stores/redis) and Python adapters run. `core/src/claims/redis_compare_and_set.lua` is that
// script, checked equal to core's `REDIS_COMPARE_AND_SET` by `cargo test -p xborder-redis`.
import { readFileSync } from 'node:fs';

/** Core's compare-and-set script (one key; expected, new, TTL in ms; '' means none). */
export const COMPARE_AND_SET = readFileSync(
  new URL('../../core/src/claims/redis_compare_and_set.lua', import.meta.url), 'utf8');

/**
 * A `ClaimStore` over an ioredis client: `Claims.withStore(redisClaimStore(redis), { leaseMs })`.
 * Keys are `prefix + event id`. A written key expires after `ttlMs` (core's `time.ttlMs`, already
 * clamped: given to the script's `PEXPIRE` as it is); Redis drops an expired key itself, so the
 * step's `time` is not needed here. Redis errors reject, which xborder reports as
 * `STORE_UNAVAILABLE`.
 */
export function redisClaimStore(redis, { prefix = 'xb:claims:' } = {}) {
  redis.defineCommand('xborderCompareAndSet', { numberOfKeys: 1, lua: COMPARE_AND_SET });
  return {
    load: (id) => redis.get(prefix + id),
    compareAndSet: async (id, expected, next, ttlMs) =>
      (await redis.xborderCompareAndSet(prefix + id, expected ?? '', next ?? '',
        ttlMs == null ? '' : String(ttlMs))) === 1,
  };
}

/**
 * The Redis server's clock in milliseconds (`TIME`): the clock every instance sharing this Redis
 * can take its claim times from, so that their own clocks cannot disagree.
 */
export async function redisTimeMs(redis) {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}
