//! [`REDIS_COMPARE_AND_SET`]: the one Redis script of every language's claim store.

/// The one Redis script every language's adapter runs for
/// [`ClaimStore::compare_and_set`](super::ClaimStore::compare_and_set)
/// (`EVAL` / `EVALSHA` with one key, the id's key, and three arguments: the expected entry
/// text, the new entry text, the TTL in milliseconds; an empty argument means "no entry" or "no
/// TTL"; a TTL under 1 ms removes the entry). Entry texts are never empty, so the empty string is
/// free to mean "none". Answers 1 when it applied the change, 0 when the entry was not the
/// expected one. A load is a plain `GET`.
///
/// A TTL from 1 ms to 60,000 ms is kept as 60,000 ms (`MIN` in the script): Redis drops entries
/// on its own real clock, while core's steps run at the host's times (or, in the conformance
/// vectors, at fixed times while real time passes), so a short TTL could drop an entry between
/// two steps that core's rules still count. Core reads an entry past its time as no entry
/// whatever Redis holds, so the floor changes no answer: it only keeps the entry's space a
/// minute longer.
///
/// The text is the repository's one file, `core/src/claims/redis_compare_and_set.lua`: the
/// Python wheel and the JVM jar ship it, the Node receiver reads it.
///
/// ```
/// let s = xborder_core::claims::REDIS_COMPARE_AND_SET;
/// assert!(s.contains("redis.call('GET', KEYS[1])") && s.contains("'PX'"));
/// assert!(s.contains("local MIN = 60000"));
/// ```
pub const REDIS_COMPARE_AND_SET: &str = include_str!("redis_compare_and_set.lua");
