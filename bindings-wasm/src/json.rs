//! JS values in and out: a JS value's JSON document read from the JSON text the public API
//! writes for it (`jsonText`, `js/api/json.js`) by core's parser, JSON text written for the glue
//! to parse, and the small builders of JS objects and arrays.

#[cfg(any(feature = "webhooks", feature = "pagination"))]
use js_sys::{Array, Object, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::errors::xb_error;

/// A count (`existingWebhooks`, `window`, `capacity`), checked in JavaScript to be absent or a
/// non-negative integer number (never `+x`: not `'3'`, not `true`). Passed as an `f64`, not a
/// `u32` (wasm-bindgen would wrap 2^32 + 3 to 3): above `u32::MAX` it reads as `u32::MAX` (the
/// cast saturates), more than any limit either way.
#[cfg(feature = "webhooks")]
pub(crate) fn count(v: Option<f64>) -> Option<u32> {
    v.map(|x| x as u32)
}

/// A JSON document from the JSON text the glue wrote for a JS value (`jsonText` in the public API,
/// `js/api/json.js`), read by core's parser. `MALFORMED_JSON` where that text would not parse in
/// serde_json or could not be written (the glue passes an empty text): a non-finite number, a
/// cycle, a BigInt, a lone surrogate (`JSON.stringify` escapes it), nesting over serde_json's
/// recursion limit.
pub(crate) fn text_in(text: &str) -> Result<Value, JsValue> {
    xborder_core::parse_json(text).map_err(|_| {
        let code = xborder_core::MalformedJson.code();
        let mut message = String::from(code);
        message.push_str(": the value is not a JSON document the core can read (a non-finite number, a cycle, a BigInt, a lone surrogate, or nesting over ");
        push_u32(&mut message, MAX_DEPTH);
        message.push_str(" levels)");
        xb_error(code, &message, None, JsValue::UNDEFINED)
    })
}

/// Core's nesting limit (serde_json's recursion limit), in the message of `MALFORMED_JSON`.
const MAX_DEPTH: u32 = xborder_core::MAX_JSON_DEPTH as u32;

/// `n` in decimal digits, without `core::fmt`.
pub(crate) fn push_u32(out: &mut String, n: u32) {
    let mut digits = [0u8; 10];
    let mut at = digits.len();
    let mut n = n;
    while let Some(d) = at.checked_sub(1).and_then(|i| digits.get_mut(i)) {
        *d = b'0' + (n % 10) as u8;
        at -= 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in digits.get(at..).unwrap_or_default() {
        out.push(char::from(d));
    }
}

/// JSON text written by hand (the glue parses it with `JSON.parse`): objects, arrays, strings and
/// small numbers, without `core::fmt` or a serializer in the module.
#[derive(Default)]
pub(crate) struct JsonOut {
    pub(crate) text: String,
}

impl JsonOut {
    /// A comma before an item that follows another in the same object or array.
    fn sep(&mut self) {
        if !matches!(self.text.as_bytes().last(), None | Some(b'{' | b'[' | b':')) {
            self.text.push(',');
        }
    }

    pub(crate) fn open(&mut self) {
        self.sep();
        self.text.push('{');
    }

    pub(crate) fn close(&mut self) {
        self.text.push('}');
    }

    pub(crate) fn key(&mut self, k: &str) {
        self.string(k);
        self.text.push(':');
    }

    pub(crate) fn key_str(&mut self, k: &str, v: &str) {
        self.key(k);
        self.string(v);
    }

    pub(crate) fn raw(&mut self, v: &str) {
        self.sep();
        self.text.push_str(v);
    }

    pub(crate) fn array<T>(&mut self, items: &[T], mut item: impl FnMut(&mut Self, &T)) {
        self.sep();
        self.text.push('[');
        for x in items {
            item(self, x);
        }
        self.text.push(']');
    }

    pub(crate) fn number(&mut self, n: u32) {
        self.sep();
        push_u32(&mut self.text, n);
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\u00XX`.
    pub(crate) fn string(&mut self, s: &str) {
        self.sep();
        self.text.push('"');
        for c in s.chars() {
            match c {
                '"' => self.text.push_str("\\\""),
                '\\' => self.text.push_str("\\\\"),
                c if c < ' ' => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    self.text.push_str("\\u00");
                    let b = c as usize;
                    for i in [b >> 4, b & 15] {
                        self.text
                            .push(char::from(HEX.get(i).copied().unwrap_or(b'0')));
                    }
                }
                c => self.text.push(c),
            }
        }
        self.text.push('"');
    }
}

#[cfg(any(feature = "webhooks", feature = "pagination"))]
/// A JS object from `(key, value)` pairs.
pub(crate) fn js_object(pairs: &[(&str, JsValue)]) -> JsValue {
    let out = Object::new();
    for (k, v) in pairs {
        // Defining a property of a fresh plain object cannot fail.
        let _ = Reflect::set(&out, &JsValue::from_str(k), v);
    }
    out.into()
}

#[cfg(any(feature = "webhooks", feature = "pagination"))]
pub(crate) fn js_array(items: impl IntoIterator<Item = JsValue>) -> JsValue {
    items.into_iter().collect::<Array>().into()
}

#[cfg(any(feature = "webhooks", feature = "pagination"))]
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

    /// What `JsonOut` writes is JSON that serde_json reads back as the same items.
    #[test]
    fn json_out_is_json() {
        let texts = [
            "",
            "a",
            "\"q\" \\ back",
            "tab\tnl\n\u{1}\u{1f}",
            "é😀",
            "{[:,]}",
        ];
        let mut out = JsonOut::default();
        out.array(&texts, |out, t| {
            out.open();
            out.key_str(t, t);
            out.key("n");
            out.number(4_294_967_295);
            out.key("z");
            out.number(0);
            out.key("b");
            out.raw("true");
            out.key("e");
            out.array(&[7_u32], |out, n| out.number(*n));
            out.close();
        });
        let got: Value = serde_json::from_str(&out.text).unwrap();
        let want: Vec<Value> = texts
            .iter()
            .map(|t| {
                let mut m = serde_json::Map::new();
                m.insert((*t).to_owned(), Value::from(*t));
                m.insert("n".into(), Value::from(4_294_967_295_u32));
                m.insert("z".into(), Value::from(0));
                m.insert("b".into(), Value::from(true));
                m.insert("e".into(), Value::from(vec![7]));
                Value::Object(m)
            })
            .collect();
        assert_eq!(got, Value::Array(want));
        let mut s = String::new();
        for n in [0, 9, 10, 127, 1_000_000] {
            s.clear();
            push_u32(&mut s, n);
            assert_eq!(s, n.to_string());
        }
    }
}
