//! The raw text of each record's `payload` in a page's JSON text, read with core's scanner: a
//! recovered event's `entity.data` is then the payload exactly as the provider sent it (as a
//! delivery's `entity.data` is the raw text of the body), never a number written back from its
//! `f64`, and the WASM module carries no JSON writer for it.

use crate::scan::{unescape, Malformed, Scanner};
use crate::MAX_JSON_DEPTH;

/// Whether the raw key `raw` (escapes not decoded) is `name`.
fn key_is(raw: &str, name: &str) -> bool {
    raw == name || (raw.contains('\\') && unescape(raw).as_deref() == Some(name))
}

/// The raw `payload` of the record at the cursor: `None` for a record that is not an object,
/// has none, or has `null` (the last `payload` wins, as in a parsed record).
fn payload(s: &mut Scanner<'_>) -> Result<Option<String>, Malformed> {
    if s.peek() != Some(b'{') {
        s.value()?;
        return Ok(None);
    }
    let mut raw = None;
    s.object(|s, key| {
        let v = s.value()?;
        if key_is(key, "payload") {
            raw = (v != "null").then(|| v.to_owned());
        }
        Ok(())
    })?;
    Ok(raw)
}

/// The raw payload of each item of the page's `data` list, in order (the last `data` wins);
/// empty when the text is not an object with a `data` list (the page's parsed value says what
/// is wrong with it).
pub(super) fn payload_texts(page: &str) -> Vec<Option<String>> {
    let mut out = Vec::new();
    let mut s = Scanner::new(page.as_bytes(), MAX_JSON_DEPTH);
    s.ws();
    let read = s.object(|s, key| {
        if key_is(key, "data") && s.peek() == Some(b'[') {
            let mut items = Vec::new();
            s.array(|s| {
                items.push(payload(s)?);
                Ok(())
            })?;
            out = items;
            Ok(())
        } else {
            s.value().map(|_| ())
        }
    });
    if read.is_err() {
        out.clear();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::payload_texts;

    #[test]
    fn payloads_are_read_raw_in_order() {
        let page = r#"{"total": 3, "d\u0061ta": [
            {"id": "a", "payload": {"amount": 0.1, "n": 1.0e2}},
            {"id": "b", "payload": null},
            7,
            {"payload": [1], "payload": {"x":"\u00e9"}}
        ], "page": 0}"#;
        assert_eq!(
            payload_texts(page),
            [
                Some(r#"{"amount": 0.1, "n": 1.0e2}"#.to_owned()),
                None,
                None,
                Some(r#"{"x":"\u00e9"}"#.to_owned()),
            ]
        );
        assert!(payload_texts(r#"{"data": 1}"#).is_empty());
        assert!(payload_texts(r#"{"data": [{"payload": 1},"#).is_empty());
        assert!(payload_texts("[]").is_empty());
    }
}
