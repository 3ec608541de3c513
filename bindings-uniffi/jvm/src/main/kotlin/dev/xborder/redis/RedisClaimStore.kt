// The claim store over Redis, for the JVM (Jedis). Needs redis.clients:jedis on the classpath
// (an optional dependency of xborder-jvm: add it to use this class).
package dev.xborder.redis

import dev.xborder.ClaimStore
import dev.xborder.StoreTime
import java.security.MessageDigest
import redis.clients.jedis.UnifiedJedis
import redis.clients.jedis.exceptions.JedisNoScriptException

/**
 * xborder's claims kept in Redis, shared by every instance of a consumer: keys [prefix] + id.
 * A load is a `GET`; a compare-and-set is the project's one Redis script
 * (`core/src/claims/redis_compare_and_set.lua`, shipped in this jar), the same the Rust, Node and Python
 * adapters run. It only moves entry texts: every decision is core's. A Redis error thrown here
 * reaches the caller of [dev.xborder.Claims.step] as `STORE_UNAVAILABLE`.
 *
 * ```java
 * Claims claims = new Claims(new RedisClaimStore(new JedisPooled("127.0.0.1", 6379)), 30_000L, null);
 * ```
 *
 * [redis] is any Jedis client of one Redis (`JedisPooled`, `UnifiedJedis`): thread-safe, one per
 * application. Each key expires after the TTL core gives ([StoreTime.ttlMs]): a done id's the
claims' window (7 days by default), a claim's two leases.
 */
class RedisClaimStore @JvmOverloads constructor(private val redis: UnifiedJedis, private val prefix: String = DEFAULT_PREFIX) : ClaimStore {
    /** A `GET` (Redis drops an expired key itself: [time] is not needed). */
    override fun load(id: String, time: StoreTime): String? = redis.get(prefix + id)

    /** The script: the new entry expires after core's [StoreTime.ttlMs], as given. */
    override fun compareAndSet(id: String, expected: String?, new: String?, time: StoreTime): Boolean {
        val keys = listOf(prefix + id)
        val args = listOf(expected ?: "", new ?: "", time.ttlMs?.toString() ?: "") // "" for none
        val applied = try {
            redis.evalsha(SCRIPT_SHA1, keys, args)
        } catch (e: JedisNoScriptException) {
            redis.eval(SCRIPT, keys, args) // the first call on this server: it caches the script
        }
        return applied == 1L
    }

    companion object {
        /** The keys' prefix when none is given (the other runtimes' adapters use it too). */
        const val DEFAULT_PREFIX = "xb:claims:"

        /** The compare-and-set script, as the project's services run it. */
        @JvmField
        val SCRIPT: String = (RedisClaimStore::class.java.getResourceAsStream("redis_compare_and_set.lua")
            ?: error("redis_compare_and_set.lua is missing from the jar (dev/xborder/redis/)")).use { String(it.readAllBytes(), Charsets.UTF_8) }

        /** Its SHA-1, as `EVALSHA` takes it. */
        @JvmField
        val SCRIPT_SHA1: String = MessageDigest.getInstance("SHA-1").digest(SCRIPT.toByteArray(Charsets.UTF_8))
            .joinToString("") { "%02x".format(it) }
    }
}
