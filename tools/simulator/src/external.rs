//! The provider's `GET /v1/external-events`, simulated: every event a run generates (live and
//! unknown, dead-lettered ones included) as the record the provider keeps, `{id, name,
//! aggregateType, aggregateId, merchantId, payload, createdAt}` with the envelope's `id`, and the
//! pages of that list (newest first by default, `{data, total, page, pageSize}`).

use serde_json::{json, Value};
use xborder_core::catch_up::{date_time, timestamp_ms};

/// The merchant every simulated record names.
pub const MERCHANT_ID: &str = "m_simulator";

/// `ms` since the Unix epoch as the provider writes `createdAt`: `YYYY-MM-DDTHH:MM:SS.mmmZ`
/// (core's [`date_time`]; past year 9999, its last millisecond).
///
/// ```
/// assert_eq!(xborder_simulator::external::created_at(1_795_780_800_500), "2026-11-27T12:00:00.500Z");
/// ```
pub fn created_at(ms: u64) -> String {
    i64::try_from(ms)
        .ok()
        .and_then(date_time)
        .unwrap_or_else(|| "9999-12-31T23:59:59.999Z".to_owned())
}

/// The record of the event whose webhook envelope is `body`, created at `ms`: one JSON line.
/// `None` when `body` is not an envelope (the simulator's own are).
pub fn record(body: &[u8], ms: u64) -> Option<String> {
    let env: Value = serde_json::from_slice(body).ok()?;
    let entity = env.get("entity")?;
    let rec = json!({
        "id": env.get("id")?,
        "name": env.get("event")?,
        "aggregateType": entity.get("type")?,
        "aggregateId": entity.get("id")?,
        "merchantId": MERCHANT_ID,
        "payload": entity.get("data").cloned().unwrap_or(Value::Null),
        "createdAt": created_at(ms),
    });
    Some(rec.to_string())
}

/// The value of `key` in a query string (`a=1&b=2`), undecoded (the simulator's parameters are
/// numbers and words).
fn param<'a>(query: &'a str, key: &str) -> Option<&'a str> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

/// The page `query` asks for of the records in `lines` (one JSON record per line; a line that
/// is not JSON is skipped): sorted by `createdAt`, newest first unless `sortOrder=ASC` (records
/// of equal times in the reverse of their lines, as the newest written last comes first),
/// `page` from 0, `pageSize` 10 unless given (payments-api.md's defaults). An answer is
/// `{data, total, page, pageSize}`; a parameter that is not a number is an error text (400).
pub fn page(lines: &str, query: &str) -> Result<Value, String> {
    let number = |key: &str, default: u64| match param(query, key) {
        None => Ok(default),
        Some(v) => v
            .parse::<u64>()
            .map_err(|_| format!("{key} must be a non-negative integer")),
    };
    let page = number("page", 0)?;
    let size = number("pageSize", 10)?;
    if size == 0 || size > 1_000 {
        return Err("pageSize must be from 1 to 1000".into());
    }
    let ascending = match param(query, "sortOrder") {
        None => false,
        Some(o) if o.eq_ignore_ascii_case("desc") => false,
        Some(o) if o.eq_ignore_ascii_case("asc") => true,
        Some(_) => return Err("sortOrder must be ASC or DESC".into()),
    };
    if param(query, "sortBy").is_some_and(|s| s != "createdAt") {
        return Err("the simulator sorts by createdAt only".into());
    }
    let mut records: Vec<(i64, usize, Value)> = lines
        .lines()
        .enumerate()
        .filter_map(|(i, l)| serde_json::from_str::<Value>(l).ok().map(|v| (i, v)))
        .map(|(i, v)| {
            let at = v
                .get("createdAt")
                .and_then(Value::as_str)
                .and_then(timestamp_ms)
                .unwrap_or(i64::MIN);
            (at, i, v)
        })
        .collect();
    records.sort_by_key(|r| (r.0, r.1));
    if !ascending {
        records.reverse();
    }
    let total = records.len();
    let start = usize::try_from(page.saturating_mul(size)).unwrap_or(usize::MAX);
    let take = usize::try_from(size).unwrap_or(usize::MAX);
    let data: Vec<Value> = records
        .into_iter()
        .skip(start)
        .take(take)
        .map(|(_, _, v)| v)
        .collect();
    Ok(json!({ "data": data, "total": total, "page": page, "pageSize": size }))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use xborder_core::catch_up::CatchUp;

    #[test]
    fn times_read_back_as_core_reads_them() {
        for ms in [
            0,
            1,
            999,
            86_399_999,
            951_782_400_000,
            1_795_780_800_500,
            4_102_444_800_000,
        ] {
            assert_eq!(timestamp_ms(&created_at(ms)), Some(ms as i64), "{ms}");
        }
    }

    fn lines(n: u64) -> String {
        (0..n)
            .map(|i| {
                let body = format!(
                    r#"{{"id":"evt_{i}","event":"order:created","entity":{{"id":"ord_{i}","type":"order","data":{{"id":"ord_{i}"}}}}}}"#
                );
                record(body.as_bytes(), 1_795_780_800_000 + i * 1_000).unwrap() + "\n"
            })
            .collect()
    }

    #[test]
    fn pages_newest_first_and_a_catch_up_walks_them() {
        let text = lines(25);
        let p = page(&text, "page=0&pageSize=10&sortBy=createdAt&sortOrder=DESC").unwrap();
        assert_eq!(
            (p["total"].as_u64(), p["data"].as_array().unwrap().len()),
            (Some(25), 10)
        );
        assert_eq!(p["data"][0]["id"], "evt_24");
        let last = page(&text, "page=2&pageSize=10").unwrap();
        assert_eq!(last["data"].as_array().unwrap().len(), 5);
        assert_eq!(last["data"][4]["id"], "evt_0");
        let asc = page(&text, "sortOrder=asc&pageSize=1").unwrap();
        assert_eq!(asc["data"][0]["id"], "evt_0");
        assert!(page(&text, "pageSize=0").is_err());
        assert!(page(&text, "page=-1").is_err());
        assert!(page(&text, "sortOrder=UP").is_err());

        // core's catch-up over these pages: every event, oldest first, each once.
        let mut c = CatchUp::new(None).unwrap().page_size(7).unwrap();
        while let Some(q) = c.next_request() {
            c.feed(&page(&text, &q.to_query()).unwrap()).unwrap();
        }
        let ids: Vec<String> = c.events().map(|e| e.id().to_owned()).collect();
        let want: Vec<String> = (0..25).map(|i| format!("evt_{i}")).collect();
        assert_eq!(ids, want);
        assert!(c.drifts().is_empty(), "{:?}", c.drifts());
        assert_eq!(c.checkpoint(), Some("2026-11-27T12:00:24.000Z"));
        let e = c.events().next().unwrap();
        assert_eq!(e.envelope()["entity"]["data"]["id"], "ord_0");
    }
}
