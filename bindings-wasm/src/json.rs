//! JS values in and out: a JS value's JSON document read from the glue's tape
//! (`js/imports/json.js`), and the small builders of JS objects and arrays.

use js_sys::{Array, Object, Reflect};
use serde_json::{Map, Number, Value};
use wasm_bindgen::prelude::*;
use xborder_core::beneficiary;

use crate::errors::error;

#[wasm_bindgen(module = "/js/imports/json.js")]
extern "C" {
    /// The tags and numbers of a JS value's JSON document (`JSON.parse(JSON.stringify(value))`,
    /// walked once), throwing on a non-finite number or what `JSON.stringify` refuses. Read by
    /// `Tape`, with the document's text (`json_tape_text`, asked right after).
    #[wasm_bindgen(js_name = jsonTape, catch)]
    fn json_tape(value: &JsValue) -> Result<Vec<f64>, JsValue>;

    /// Every string and key of the last `json_tape`'s document, one after the other.
    #[wasm_bindgen(js_name = jsonTapeText)]
    fn json_tape_text() -> String;

    /// Whether a JS string is well-formed UTF-16 (no lone surrogate).
    #[wasm_bindgen(js_name = isWellFormed)]
    pub(crate) fn is_well_formed(s: &JsValue) -> bool;
}

/// A count (`existingWebhooks`, `window`, `capacity`), checked in JavaScript to be absent or a
/// non-negative integer number (never `+x`: not `'3'`, not `true`). Passed as an `f64`, not a
/// `u32` (wasm-bindgen would wrap 2^32 + 3 to 3): above `u32::MAX` it reads as `u32::MAX` (the
/// cast saturates), more than any limit either way.
#[cfg(feature = "webhooks")]
pub(crate) fn count(v: Option<f64>) -> Option<u32> {
    v.map(|x| x as u32)
}

pub(crate) fn is_absent(v: &JsValue) -> bool {
    v.is_undefined() || v.is_null()
}

/// A JS value as a JSON document (`undefined` reads as `null`). `MALFORMED_JSON` where the
/// text `JSON.stringify` writes would not parse in serde_json: a non-finite number, a cycle, a
/// lone surrogate, nesting over serde_json's recursion limit. The glue walks the value once into
/// a tape (`jsonTape`), read here in one pass: two calls across the boundary, whatever the size.
pub(crate) fn json_in(v: &JsValue) -> Result<Value, JsValue> {
    if v.is_undefined() {
        return Ok(Value::Null);
    }
    let code = beneficiary::MalformedJson.code();
    json_tape(v)
        .ok()
        .and_then(|codes| Tape::read(&codes, &json_tape_text(), js_digits))
        .ok_or_else(|| {
            error(
                code,
                format!("{code}: the value is not a JSON document the core can read (a non-finite number, a cycle, a lone surrogate, or nesting over {MAX_DEPTH} levels)"),
            )
        })
}

/// Core's limit (serde_json's recursion limit): the uniffi bindings read the same document from
/// its text with serde_json, which refuses an array or object nested deeper than this.
const MAX_DEPTH: usize = xborder_core::MAX_JSON_DEPTH;

/// A JSON document as the glue's `jsonTape` writes it, plain JSON data walked depth first:
/// `codes` holds a tag per value (0 `null`, 1 `false`, 2 `true`, 3 a number then its value, 4 a
/// string then its length in UTF-16 code units, 5 an array then its length, 6 an object then its
/// number of keys, each key a string before its value), after a first code that is 1 when a
/// string or key is not well-formed UTF-16; `text` holds every string and key, in order.
struct Tape<'a, D> {
    codes: std::slice::Iter<'a, f64>,
    text: &'a str,
    digits: D,
}

impl<'a, D: Fn(f64) -> Option<String>> Tape<'a, D> {
    /// The document; `None` for what serde_json would refuse in its text (a lone surrogate, a
    /// non-finite number, nesting over `MAX_DEPTH`), or a tape that is not one document.
    fn read(codes: &'a [f64], text: &'a str, digits: D) -> Option<Value> {
        let mut codes = codes.iter();
        if *codes.next()? != 0.0 {
            return None;
        }
        let mut tape = Tape {
            codes,
            text,
            digits,
        };
        let value = tape.value(0)?;
        (tape.codes.next().is_none() && tape.text.is_empty()).then_some(value)
    }

    fn code(&mut self) -> Option<f64> {
        self.codes.next().copied()
    }

    /// A count or length (a non-negative integer the glue wrote).
    fn len(&mut self) -> Option<usize> {
        Some(self.code()? as usize)
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        Some(match self.code()? as u8 {
            0 => Value::Null,
            1 => Value::Bool(false),
            2 => Value::Bool(true),
            3 => Value::Number(json_number(self.code()?, &self.digits)?),
            4 => Value::String(self.string()?),
            tag @ (5 | 6) if depth < MAX_DEPTH => {
                let n = self.len()?;
                if tag == 5 {
                    Value::Array(
                        (0..n)
                            .map(|_| self.value(depth + 1))
                            .collect::<Option<_>>()?,
                    )
                } else {
                    let mut map = Map::new();
                    for _ in 0..n {
                        let key = match self.code()? as u8 {
                            4 => self.string()?,
                            _ => return None,
                        };
                        map.insert(key, self.value(depth + 1)?);
                    }
                    Value::Object(map)
                }
            }
            _ => return None,
        })
    }

    /// The next string of `text`: as many characters as make its length in UTF-16 units.
    fn string(&mut self) -> Option<String> {
        let mut units = self.len()?;
        // ASCII (the usual case): one byte per unit.
        if let Some(s) = self.text.get(..units).filter(|s| s.is_ascii()) {
            self.text = self.text.get(units..)?;
            return Some(s.to_owned());
        }
        let mut end = 0;
        for c in self.text.chars() {
            if units == 0 {
                break;
            }
            units = units.checked_sub(c.len_utf16())?;
            end += c.len_utf8();
        }
        let (s, rest) = (self.text.get(..end)?, self.text.get(end..)?);
        self.text = rest;
        (units == 0).then(|| s.to_owned())
    }
}

/// The number serde_json parses from the text `JSON.stringify` writes for `x`. JavaScript writes
/// an integer below 1e21 in digits (`-0` as `0`), which serde_json reads as a `u64` or `i64`
/// where they fit; from 2^53 on those digits are the shortest that round-trip, padded with
/// zeros (2^63 is written `9223372036854776000`), so they are asked of JavaScript (`digits`).
/// Anything else is a double's shortest form, read back exactly (`float_roundtrip`). `None` for
/// a non-finite number.
fn json_number(x: f64, digits: impl Fn(f64) -> Option<String>) -> Option<Number> {
    const TWO_53: f64 = 9_007_199_254_740_992.0;
    if x.fract() == 0.0 && x.abs() < 1e21 {
        if x.abs() < TWO_53 {
            return Some(if x >= 0.0 {
                Number::from(x as u64)
            } else {
                Number::from(x as i64)
            });
        }
        let digits = digits(x)?;
        if let Ok(n) = digits.parse::<u64>() {
            return Some(Number::from(n));
        }
        if let Ok(n) = digits.parse::<i64>() {
            return Some(Number::from(n));
        }
    }
    Number::from_f64(x)
}

/// The digits JavaScript writes for a number (`Number.prototype.toString`).
fn js_digits(x: f64) -> Option<String> {
    js_sys::Number::from(x)
        .to_string_with_radix(10)
        .ok()
        .map(String::from)
}

/// A JS object from `(key, value)` pairs.
pub(crate) fn js_object(pairs: &[(&str, JsValue)]) -> JsValue {
    let out = Object::new();
    for (k, v) in pairs {
        // Defining a property of a fresh plain object cannot fail.
        let _ = Reflect::set(&out, &JsValue::from_str(k), v);
    }
    out.into()
}

pub(crate) fn js_array(items: impl IntoIterator<Item = JsValue>) -> JsValue {
    items.into_iter().collect::<Array>().into()
}

pub(crate) fn js_str(s: &str) -> JsValue {
    JsValue::from_str(s)
}

/// A page number or count: the core keeps them at most 2^53 − 1, exact as a JS number.
#[cfg(any(feature = "webhooks", feature = "pagination"))]
pub(crate) fn js_u64(n: u64) -> JsValue {
    JsValue::from_f64(n as f64)
}

/// A text's length in UTF-16 code units (what JavaScript's `length` counts).
pub(crate) fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.encode_utf16().count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `json_number(x)` is the number serde_json parses from the text JavaScript writes for `x`.
    /// Rust's `{}` writes the same digits as `Number.prototype.toString` below 1e21 (the shortest
    /// that round-trip, padded with zeros); above, both forms read back as the same double.
    #[test]
    fn numbers_are_what_serde_json_reads_from_their_text() {
        let two53 = 9_007_199_254_740_992.0_f64;
        let two63 = 9_223_372_036_854_775_808.0_f64;
        let two64 = 18_446_744_073_709_551_616.0_f64;
        let mut xs = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            -0.1,
            1.5,
            5e-324,
            1e-7,
            123456.789,
            1e20,
            1e21,
            1e22,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            two53,
            -two53,
            two63,
            -two63,
            two64,
            -two64,
        ];
        for base in [two53, two63, two64, 1e21] {
            let mut up = base;
            let mut down = base;
            for _ in 0..4 {
                up = f64::from_bits(up.to_bits() + 1);
                down = f64::from_bits(down.to_bits() - 1);
                xs.extend([up, down, -up, -down]);
            }
        }
        for x in xs {
            let text = if x == 0.0 {
                "0".to_owned()
            } else {
                format!("{x}")
            };
            let want: Value = serde_json::from_str(&text).unwrap();
            let got = Value::Number(json_number(x, |x| Some(format!("{x}"))).unwrap());
            assert_eq!(got, want, "{x:e} written {text}");
        }
        assert_eq!(json_number(f64::NAN, |_| None), None);
        assert_eq!(json_number(f64::INFINITY, |_| None), None);
    }

    /// `Tape` takes `MAX_DEPTH` nested arrays or objects and not one more, as serde_json does
    /// reading their text (the tarball test checks the walk at both depths in Node).
    #[test]
    fn max_depth_is_serde_json_recursion_limit() {
        let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(serde_json::from_str::<Value>(&nest(MAX_DEPTH)).is_ok());
        assert!(serde_json::from_str::<Value>(&nest(MAX_DEPTH + 1)).is_err());
        let objects = |n: usize| format!("{}1{}", r#"{"a":"#.repeat(n), "}".repeat(n));
        assert!(serde_json::from_str::<Value>(&objects(MAX_DEPTH)).is_ok());
        assert!(serde_json::from_str::<Value>(&objects(MAX_DEPTH + 1)).is_err());
        let arrays = |n: usize| {
            let mut codes = vec![0.0];
            codes.extend(std::iter::repeat_n([5.0, 1.0], n).flatten());
            codes.push(0.0);
            codes
        };
        assert!(Tape::read(&arrays(MAX_DEPTH), "", no_digits).is_some());
        assert!(Tape::read(&arrays(MAX_DEPTH + 1), "", no_digits).is_none());
    }

    fn no_digits(_: f64) -> Option<String> {
        None
    }

    /// A tape reads as the document serde_json parses from the text of the same value; strings
    /// are cut from the text by their UTF-16 length (astral characters are two units).
    #[test]
    fn tape_is_the_document() {
        let codes = [
            0.0, 6.0, 3.0, // {..3 keys
            4.0, 4.0, 5.0, 4.0, // "data": [4 items
            0.0, 2.0, 1.0, 3.0, -1.5, // null, true, false, -1.5
            4.0, 5.0, 4.0, 3.0, // "total": "é😀"
            4.0, 2.0, 6.0, 0.0, // "😀": {}
        ];
        let text = "datatotalé😀😀";
        let want: Value =
            serde_json::from_str(r#"{"data":[null,true,false,-1.5],"total":"é😀","😀":{}}"#)
                .unwrap();
        assert_eq!(Tape::read(&codes, text, no_digits), Some(want));
        // A lone surrogate flagged, text left over or missing, a tape that is not one value.
        let mut flagged = codes;
        flagged[0] = 1.0;
        assert_eq!(Tape::read(&flagged, text, no_digits), None);
        assert_eq!(Tape::read(&codes, "datatotalé😀😀x", no_digits), None);
        assert_eq!(Tape::read(&codes, "datatotalé😀", no_digits), None);
        assert_eq!(Tape::read(&[0.0, 0.0, 0.0], "", no_digits), None);
        assert_eq!(Tape::read(&[0.0, 5.0, 2.0, 0.0], "", no_digits), None);
        assert_eq!(Tape::read(&[0.0, 6.0, 1.0, 0.0, 0.0], "", no_digits), None);
        assert_eq!(Tape::read(&[0.0, 3.0, f64::INFINITY], "", no_digits), None);
        assert_eq!(Tape::read(&[0.0, 9.0], "", no_digits), None);
        assert_eq!(Tape::read(&[], "", no_digits), None);
    }

    /// Strings read back whole whatever their neighbours: ASCII ones (read by length in bytes)
    /// next to ones with characters of two, three and four bytes (read character by character).
    #[test]
    fn tape_strings_ascii_and_not() {
        let pool = [
            "a",
            "é",
            "aé",
            "éa",
            "x😀y",
            "",
            "Bogotá D.C.",
            "ab",
            "€",
            "😀",
        ];
        for i in 0..pool.len() {
            for j in 0..pool.len() {
                for k in 0..pool.len() {
                    let items = [pool[i], pool[j], pool[k]];
                    let mut codes = vec![0.0, 5.0, 3.0];
                    for s in items {
                        codes.extend([4.0, utf16_len(s) as f64]);
                    }
                    let text = items.concat();
                    let want = Value::Array(items.iter().map(|s| Value::from(*s)).collect());
                    assert_eq!(
                        Tape::read(&codes, &text, no_digits),
                        Some(want),
                        "{items:?}"
                    );
                    // One unit too many for the last string: the text runs out.
                    let last = codes.len() - 1;
                    codes[last] += 1.0;
                    assert_eq!(Tape::read(&codes, &text, no_digits), None, "{items:?}");
                }
            }
        }
    }
}
