//! [`REDIS_COMPARE_AND_SET`]: the one Redis script of every language's claim store.

/// The one Redis script every language's adapter runs for
/// [`ClaimStore::compare_and_set`](super::ClaimStore::compare_and_set)
/// (`EVAL` / `EVALSHA` with one key, the id's key, and three arguments: the expected entry
/// text, the new entry text, the TTL in milliseconds; an empty argument means "no entry" or "no
/// TTL"; a TTL under 1 ms removes the entry). Entry texts are never empty, so the empty string is free to mean "none". Answers 1
/// when it applied the change, 0 when the entry was not the expected one. A load is a plain
/// `GET`.
///
/// ```
/// let s = xborder_core::claims::REDIS_COMPARE_AND_SET;
/// assert!(s.contains("redis.call('GET', KEYS[1])") && s.contains("'PX'"));
/// ```
pub const REDIS_COMPARE_AND_SET: &str = "\
local cur = redis.call('GET', KEYS[1])
if cur == false then cur = '' end
if cur ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
elseif ARGV[3] == '' then
  redis.call('SET', KEYS[1], ARGV[2])
elseif tonumber(ARGV[3]) < 1 then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 1
";
