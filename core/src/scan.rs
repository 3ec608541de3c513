//! A strict JSON scanner (RFC 8259) for the envelope: one pass over the text, no values built,
//! no numbers converted, no recursion (nesting costs one byte of a heap stack per level).
//!
//! The envelope needs five strings and the raw text of `entity.data`; a general parser would
//! build and convert everything else only to drop it, and it would carry number conversion,
//! float formatting of its error messages and typed deserialisation into every binary (the WASM
//! module above all). The scanner checks the whole text exactly as strictly as serde_json does
//! (grammar, escapes, raw control characters, trailing bytes), hands back the raw text of the
//! values its caller asks for, and decodes string escapes only where asked.

/// The text is not JSON (the scanner says no more: the envelope reports `MALFORMED_JSON`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Malformed;

/// A cursor over UTF-8 text (already validated by the caller, so every span cut at an ASCII
/// byte is a `&str`).
pub(crate) struct Scanner<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Scanner { text, pos: 0 }
    }

    #[inline(always)] // a call per byte otherwise, in the size-optimised WASM build
    pub(crate) fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    #[inline(always)] // a call per byte otherwise, in the size-optimised WASM build
    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.pos += 1;
        Some(b)
    }

    #[inline(always)] // a call per byte otherwise, in the size-optimised WASM build
    fn eat(&mut self, want: u8) -> Result<(), Malformed> {
        match self.bump() {
            Some(b) if b == want => Ok(()),
            _ => Err(Malformed),
        }
    }

    /// Skips JSON whitespace (space, tab, line feed, carriage return; nothing else).
    #[inline(always)] // a call per byte otherwise, in the size-optimised WASM build
    pub(crate) fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    fn span(&self, start: usize, end: usize) -> Result<&'a str, Malformed> {
        self.text.get(start..end).ok_or(Malformed)
    }

    /// A string at the cursor: its raw text between the quotes, escapes checked, not decoded.
    pub(crate) fn string(&mut self) -> Result<&'a str, Malformed> {
        self.eat(b'"')?;
        let start = self.pos;
        loop {
            // Runs of plain characters are skipped in one search (fast even in a size-optimised
            // build, where a call per byte is not inlined away).
            let rest = self.text.as_bytes().get(self.pos..).ok_or(Malformed)?;
            self.pos += rest
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .ok_or(Malformed)?;
            match self.bump().ok_or(Malformed)? {
                b'"' => return self.span(start, self.pos - 1),
                b'\\' => match self.bump().ok_or(Malformed)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                    b'u' => {
                        for _ in 0..4 {
                            if !self.bump().ok_or(Malformed)?.is_ascii_hexdigit() {
                                return Err(Malformed);
                            }
                        }
                    }
                    _ => return Err(Malformed),
                },
                _ => return Err(Malformed), // a raw control character
            }
        }
    }

    fn digits(&mut self) -> Result<(), Malformed> {
        if !self.peek().is_some_and(|b| b.is_ascii_digit()) {
            return Err(Malformed);
        }
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        Ok(())
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, checked and not converted.
    fn number(&mut self) -> Result<(), Malformed> {
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits()?,
            _ => return Err(Malformed),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.digits()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            self.digits()?;
        }
        Ok(())
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), Malformed> {
        let end = self.pos + word.len();
        if self.text.as_bytes().get(self.pos..end) == Some(word) {
            self.pos = end;
            Ok(())
        } else {
            Err(Malformed)
        }
    }

    /// A member's key and its colon; the cursor is left at the value.
    fn key(&mut self) -> Result<&'a str, Malformed> {
        let key = self.string()?;
        self.ws();
        self.eat(b':')?;
        self.ws();
        Ok(key)
    }

    /// Any value at the cursor, skipped; returns its raw text (no surrounding whitespace).
    pub(crate) fn value(&mut self) -> Result<&'a str, Malformed> {
        let start = self.pos;
        // The closers of the open arrays and objects, innermost last.
        let mut open: Vec<u8> = Vec::new();
        loop {
            match self.peek().ok_or(Malformed)? {
                b'{' => {
                    self.pos += 1;
                    self.ws();
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                    } else {
                        open.push(b'}');
                        self.key()?;
                        continue;
                    }
                }
                b'[' => {
                    self.pos += 1;
                    self.ws();
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                    } else {
                        open.push(b']');
                        continue;
                    }
                }
                b'"' => {
                    self.string()?;
                }
                b'-' | b'0'..=b'9' => self.number()?,
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                _ => return Err(Malformed),
            }
            // A value is complete: close what it completes, up to the next value or the end.
            loop {
                let Some(&close) = open.last() else {
                    return self.span(start, self.pos);
                };
                self.ws();
                match self.bump() {
                    Some(b',') => {
                        self.ws();
                        if close == b'}' {
                            self.key()?;
                        }
                        break;
                    }
                    Some(b) if b == close => {
                        open.pop();
                    }
                    _ => return Err(Malformed),
                }
            }
        }
    }

    /// An object at the cursor: `member` is called with each raw key, the cursor at its value,
    /// and must consume the value (with [`Scanner::value`] or [`Scanner::object`]).
    pub(crate) fn object(
        &mut self,
        mut member: impl FnMut(&mut Self, &'a str) -> Result<(), Malformed>,
    ) -> Result<(), Malformed> {
        self.eat(b'{')?;
        self.ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            let key = self.key()?;
            member(self, key)?;
            self.ws();
            match self.bump() {
                Some(b',') => self.ws(),
                Some(b'}') => return Ok(()),
                _ => return Err(Malformed),
            }
        }
    }

    /// The raw text from `start` to the cursor.
    pub(crate) fn since(&self, start: usize) -> Result<&'a str, Malformed> {
        self.span(start, self.pos)
    }

    /// The cursor's offset.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }
}

/// Decodes the escapes of a string's raw text (as [`Scanner::string`] returned it). `None` when
/// an escape is a lone or reversed surrogate: the text is not a Unicode string.
pub(crate) fn unescape(raw: &str) -> Option<String> {
    if !raw.contains('\\') {
        return Some(raw.to_owned());
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let c = match chars.next()? {
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'u' => {
                let hi = hex4(&mut chars)?;
                match hi {
                    0xD800..=0xDBFF => {
                        if chars.next()? != '\\' || chars.next()? != 'u' {
                            return None;
                        }
                        let lo = hex4(&mut chars)?;
                        if !(0xDC00..=0xDFFF).contains(&lo) {
                            return None;
                        }
                        char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?
                    }
                    _ => char::from_u32(hi)?,
                }
            }
            other => other, // '"', '\\', '/': the scanner let nothing else through
        };
        out.push(c);
    }
    Some(out)
}

fn hex4(chars: &mut std::str::Chars<'_>) -> Option<u32> {
    let mut n = 0;
    for _ in 0..4 {
        n = n * 16 + chars.next()?.to_digit(16)?;
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(text: &str) -> Result<&str, Malformed> {
        let mut s = Scanner::new(text);
        s.ws();
        let v = s.value()?;
        s.ws();
        if s.at_end() {
            Ok(v)
        } else {
            Err(Malformed)
        }
    }

    #[test]
    fn accepts_what_serde_json_accepts_and_refuses_the_rest() {
        let texts = [
            "0",
            "-0",
            "1.5e-3",
            "1E+2",
            "-12",
            "01",
            "1.",
            ".5",
            "-",
            "1e",
            "+1",
            "0x1",
            "true",
            "tru",
            "nul",
            "null",
            "nullx",
            "\"a\\u00e9\"",
            "\"\\x\"",
            "\"\\u12g4\"",
            "\"\t\"",
            "\"\u{7f}\"",
            "[]",
            "[1,]",
            "[,1]",
            "[1 2]",
            "{}",
            "{\"a\":1}",
            "{\"a\" 1}",
            "{\"a\":1,}",
            "{1:1}",
            "{\"a\":[{\"b\":[]}],\"c\":{}}",
            " [ 1 , { } ] ",
            "[1]]",
            "{\"a\":1}}",
            "[",
            "{",
            "\"",
            "",
            "NaN",
            "Infinity",
            "\"\\ud800\"",
            "[\"\\/\"]",
        ];
        for text in texts {
            let ours = whole(text).is_ok();
            let serde = serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok();
            assert_eq!(ours, serde, "{text:?}");
        }
        assert_eq!(whole(" [1, 2] "), Ok("[1, 2]"));
    }

    #[test]
    fn nesting_is_not_recursive() {
        let deep = format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
        assert_eq!(whole(&deep).map(str::len), Ok(2_000_000));
        assert_eq!(whole(&"[".repeat(1_000_000)), Err(Malformed));
    }

    #[test]
    fn unescape_decodes_pairs_and_refuses_lone_surrogates() {
        assert_eq!(
            unescape(r#"a\u00e9\ud83d\ude00\n\/\\\""#).as_deref(),
            Some("aé😀\n/\\\"")
        );
        for lone in [
            r"\ud800",
            r"\udc00",
            r"\udc00\ud800",
            r"\ud800x",
            r"\ud800\n",
            r"\ud800\u0041",
        ] {
            assert_eq!(unescape(lone), None, "{lone}");
        }
    }

    proptest::proptest! {
        #[test]
        fn agrees_with_serde_json_on_any_text(text in "[\\[\\]{}\":,0-9eE.+\\-a-z\\\\ ]{0,40}") {
            let ours = whole(&text).is_ok();
            let serde = serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok();
            proptest::prop_assert_eq!(ours, serde, "{:?}", text);
        }

        #[test]
        fn unescape_agrees_with_serde_json(text in "([a-z]|\\\\[\"\\\\/bfnrt]|\\\\u[dD][89aAbBcCdDeEfF][0-9a-f]{2}|\\\\u00[0-9a-f]{2}){0,8}") {
            let quoted = format!("\"{text}\"");
            let serde = serde_json::from_str::<String>(&quoted).ok();
            let mut s = Scanner::new(&quoted);
            let ours = s.string().ok().and_then(unescape);
            proptest::prop_assert_eq!(ours, serde, "{:?}", quoted);
        }
    }
}
