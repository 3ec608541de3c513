//! A strict JSON scanner (RFC 8259) for the envelope: one pass over the body, no values built,
//! no numbers converted, no recursion (nesting costs one bit of a stack per level), the nesting
//! limit and UTF-8 checked on the way (no pass before it), the ends of strings found from bit
//! masks of the body's 64-byte blocks rather than searched for.
//!
//! The envelope needs five strings and the raw text of `entity.data`; a general parser would
//! build and convert everything else only to drop it, and it would carry number conversion,
//! float formatting of its error messages and typed deserialisation into every binary (the WASM
//! module above all). The scanner checks the whole text exactly as strictly as serde_json does
//! (grammar, escapes, raw control characters, invalid UTF-8, trailing bytes), hands back the
//! raw text of the values its caller asks for, and decodes string escapes only where asked.
//!
//! The WASM build finds the ends of strings byte by byte instead of through the 64-byte block
//! masks (see [`Blocks`]): the masks are speed, and that build is sized first. Both ways give
//! the same offsets (a test checks them against each other, the fuzz target the masks against
//! serde_json).
// The masks and the blocks' state: unused by the WASM build.
#![cfg_attr(target_arch = "wasm32", allow(dead_code))]

/// The text is not JSON (the scanner says no more: the envelope reports `MALFORMED_JSON`, or
/// `NESTING_TOO_DEEP` when the nesting limit is what stopped it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Malformed;

/// Eight copies of a byte, one per lane of a `u64`.
const fn lanes(b: u8) -> u64 {
    u64::from_le_bytes([b; 8])
}

/// Bit `k` set where byte `k` of `w` has its high bit clear and stays below 0x80 when `n` is
/// added to it: for `n` = 0x7f the zero bytes, for `n` = 0x60 the bytes below 0x20. The sum never
/// carries into the next byte, so every byte is exact (unlike the borrow trick, which can mark a
/// byte above a match).
#[inline(always)]
fn lane_bits(w: u64, n: u8) -> u64 {
    let high = (((w & lanes(0x7f)).wrapping_add(lanes(n))) | w) & lanes(0x80) ^ lanes(0x80);
    // Multiplying gathers bit 8k (after the shift) into bit 56 + k.
    (high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// The eight words of a 64-byte block, with their index.
#[inline(always)]
fn words(block: &[u8; 64]) -> impl Iterator<Item = (usize, u64)> + '_ {
    block
        .chunks_exact(8)
        .map(|w| w.try_into().map_or(0, u64::from_le_bytes))
        .enumerate()
}

/// Which bytes of a 64-byte block are `"`, and which stop a run of plain string characters (`\`
/// or a control character, below 0x20), one bit per byte.
#[inline(always)]
fn masks(block: &[u8; 64]) -> (u64, u64) {
    let mut quotes = 0;
    let mut any_stop = 0;
    for (k, w) in words(block) {
        quotes |= lane_bits(w ^ lanes(b'"'), 0x7f) << (8 * k);
        // Whether any byte stops a string (not where: a borrow can mark a lane above a match).
        let x = w ^ lanes(b'\\');
        any_stop |= x.wrapping_sub(lanes(1)) & !x & lanes(0x80);
        any_stop |= w.wrapping_sub(lanes(0x20)) & !w & lanes(0x80);
    }
    let stops = if any_stop != 0 { stops(block) } else { 0 };
    (quotes, stops)
}

/// Where the stops of a block are: rare in a compact body (escapes; in a pretty-printed one, the
/// whitespace between tokens), so kept out of the common path.
#[cold]
#[inline(never)]
fn stops(block: &[u8; 64]) -> u64 {
    words(block).fold(0, |stops, (k, w)| {
        stops | (lane_bits(w ^ lanes(b'\\'), 0x7f) | lane_bits(w, 0x60)) << (8 * k)
    })
}

#[inline(always)]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The first offset at or after `i` that is not JSON whitespace (space, tab, line feed,
/// carriage return; nothing else).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn ws(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).copied().is_some_and(is_ws) {
        i += 1;
    }
    i
}

/// One or more digits at `i`; the offset after them.
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn digits_end(bytes: &[u8], i: usize) -> Result<usize, Malformed> {
    let end = digits_from(bytes, i);
    if end == i {
        return Err(Malformed);
    }
    Ok(end)
}

#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn digits_from(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` at `i`, checked and not converted.
fn number_end(bytes: &[u8], mut i: usize) -> Result<usize, Malformed> {
    if bytes.get(i) == Some(&b'-') {
        i += 1;
    }
    match bytes.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits_from(bytes, i + 1),
        _ => return Err(Malformed),
    }
    if bytes.get(i) == Some(&b'.') {
        i = digits_end(bytes, i + 1)?;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        i = digits_end(bytes, i)?;
    }
    Ok(i)
}

/// Which containers are open, innermost in the low bit (1 for an object): 64 levels in a word,
/// deeper ones spilled to the heap.
#[derive(Default)]
struct Nest {
    bits: u64,
    len: usize,
    spill: Vec<u64>,
}

impl Nest {
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn push(&mut self, object: bool) {
        if self.len != 0 && self.len % 64 == 0 {
            self.spill.push(self.bits);
        }
        self.bits = self.bits << 1 | u64::from(object);
        self.len += 1;
    }

    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn pop(&mut self) {
        self.bits >>= 1;
        self.len -= 1;
        if self.len != 0 && self.len % 64 == 0 {
            self.bits = self.spill.pop().unwrap_or_default();
        }
    }

    /// Whether the innermost open container is an object; `None` when none is open.
    #[inline(always)]
    fn top(&self) -> Option<bool> {
        (self.len != 0).then_some(self.bits & 1 == 1)
    }
}

/// The masks of the 64-byte block at `base`, when the body has 64 bytes there.
#[inline(always)]
fn full_block(bytes: &[u8], base: usize) -> Option<(u64, u64)> {
    bytes
        .get(base..)
        .and_then(<[u8]>::first_chunk::<64>)
        .map(masks)
}

/// The masks of the 64-byte block at `base`; past the end of the body, bytes read as 0 (a
/// control character, which stops a string: an unterminated one is an error there).
#[inline(never)]
fn block(bytes: &[u8], base: usize) -> (u64, u64) {
    full_block(bytes, base).unwrap_or_else(|| {
        let mut block = [0; 64];
        let rest = bytes.get(base..).unwrap_or_default();
        block
            .iter_mut()
            .zip(rest)
            .for_each(|(to, from)| *to = *from);
        masks(&block)
    })
}

/// Where the strings of the body are, one 64-byte block at a time (one bit per byte: where the
/// quotes are, where a `\` or control character is), each block's masks computed once and the
/// next block's ahead of need. In a block without `\` or control characters (most blocks of a
/// compact body) every quote opens or closes a string, in order: the end of a string is the
/// next quote not yet passed, found from the mask alone (clear the lowest bit, count trailing
/// zeros), so no token waits for the one before it to be searched.
#[derive(Clone, Copy)]
struct Blocks {
    /// The current block: its offset (a multiple of 64) and masks.
    base: usize,
    quotes: u64,
    stops: u64,
    /// The quotes of the current block the scan has not passed yet.
    ahead: u64,
    /// The block after it.
    next: (u64, u64),
}

impl Blocks {
    /// No block yet: every offset of the body is 64 or more past `base`, and the block after
    /// `base` is none of the body's either.
    const NONE: Blocks = Blocks {
        base: !127,
        quotes: 0,
        stops: 0,
        ahead: 0,
        next: (0, 0),
    };

    /// Makes the block holding offset `i` current, its quotes from `i` on ahead.
    #[inline(always)]
    fn advance(&mut self, bytes: &[u8], i: usize) {
        let base = i & !63;
        (self.quotes, self.stops) = if base == self.base.wrapping_add(64) {
            self.next
        } else {
            block(bytes, base)
        };
        self.base = base;
        self.ahead = self.quotes & u64::MAX << (i - base);
        // In line: the common case, one call fewer per 64 bytes.
        self.next = full_block(bytes, base + 64).unwrap_or_else(|| block(bytes, base + 64));
    }

    /// The end of the string that opens at `i` (the offset past its closing quote): escapes
    /// checked, not decoded, UTF-8 not checked.
    #[inline(always)]
    fn string_end(&mut self, bytes: &[u8], i: usize) -> Result<usize, Malformed> {
        // The WASM build keeps to the general way, for size: this path is speed alone.
        #[cfg(not(target_arch = "wasm32"))]
        {
            let mut off = i.wrapping_sub(self.base);
            if off >= 64 {
                self.advance(bytes, i);
                off = i - self.base;
            }
            // The quote at `i` is the next one ahead, and the next after it closes the string.
            let past = self.ahead & self.ahead.wrapping_sub(1);
            if self.stops == 0 && past != 0 && self.ahead.trailing_zeros() as usize == off {
                self.ahead = past & (past - 1);
                return Ok(self.base + past.trailing_zeros() as usize + 1);
            }
        }
        self.string_end_slow(bytes, i + 1)
    }

    /// [`Blocks::string_end`] from `i` in the string: across blocks, through escapes.
    #[cfg(not(target_arch = "wasm32"))]
    #[inline(always)]
    fn string_end_slow(&mut self, bytes: &[u8], mut i: usize) -> Result<usize, Malformed> {
        loop {
            let off = i.wrapping_sub(self.base);
            if off >= 64 {
                if i > bytes.len() {
                    return Err(Malformed); // a guard: past the end the bytes read as stops
                }
                self.advance(bytes, i);
                continue;
            }
            let quote = (self.quotes >> off).trailing_zeros();
            let stop = (self.stops >> off).trailing_zeros();
            if quote < stop {
                // `off + quote` < 64: the quotes up to the closing one are passed.
                self.ahead = self.quotes & !1 << (off + quote as usize);
                return Ok(i + quote as usize + 1);
            }
            if stop == 64 {
                i = self.base + 64; // neither in this block
                continue;
            }
            i = escape_end(bytes, i + stop as usize)?;
        }
    }

    /// The WASM build, sized first, has no masks: [`string_end`] byte by byte.
    #[cfg(target_arch = "wasm32")]
    fn string_end_slow(&mut self, bytes: &[u8], i: usize) -> Result<usize, Malformed> {
        string_end(bytes, i)
    }
}

/// The end of a string from `i` in it (the offset past its closing quote), byte by byte: the
/// WASM build's way, and the reference of the masks' in the tests.
#[cfg_attr(not(any(test, target_arch = "wasm32")), allow(dead_code))]
fn string_end(bytes: &[u8], mut i: usize) -> Result<usize, Malformed> {
    loop {
        let rest = bytes.get(i..).unwrap_or_default();
        i += rest
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
            .ok_or(Malformed)?;
        if bytes.get(i) == Some(&b'"') {
            return Ok(i + 1);
        }
        i = escape_end(bytes, i)?;
    }
}

/// Past the escape at `i` in a string; an error for a bad escape or a control character there.
fn escape_end(bytes: &[u8], i: usize) -> Result<usize, Malformed> {
    match bytes.get(i..).and_then(<[u8]>::first_chunk::<2>) {
        Some([b'\\', b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't']) => Ok(i + 2),
        Some([b'\\', b'u']) => match bytes.get(i + 2..i + 6) {
            Some(hex) if hex.iter().all(u8::is_ascii_hexdigit) => Ok(i + 6),
            _ => Err(Malformed),
        },
        _ => Err(Malformed),
    }
}

/// Skips the value at `i` (with `blocks` current up to it), without recursion, letting it open
/// at most `room` levels of arrays and objects: the offset after it, and the blocks.
fn skip(
    bytes: &[u8],
    mut i: usize,
    room: usize,
    mut blocks: Blocks,
) -> Result<(usize, Blocks), Malformed> {
    let mut nest = Nest::default();
    // A member of an object comes next: its key and colon before the value.
    let mut member = false;
    loop {
        if member {
            if bytes.get(i) != Some(&b'"') {
                return Err(Malformed);
            }
            i = ws(bytes, blocks.string_end(bytes, i)?);
            if bytes.get(i) != Some(&b':') {
                return Err(Malformed);
            }
            i = ws(bytes, i + 1);
        }
        match bytes.get(i) {
            Some(b'"') => i = blocks.string_end(bytes, i)?,
            Some(&open @ (b'{' | b'[')) => {
                if nest.len >= room {
                    return Err(Malformed);
                }
                i = ws(bytes, i + 1);
                // `{` + 2 is `}`, `[` + 2 is `]`.
                if bytes.get(i) == Some(&(open + 2)) {
                    i += 1;
                } else {
                    member = open == b'{';
                    nest.push(member);
                    continue;
                }
            }
            Some(b'-' | b'0'..=b'9') => i = number_end(bytes, i)?,
            Some(&first @ (b't' | b'f' | b'n')) => {
                let word: &[u8] = match first {
                    b't' => b"true",
                    b'f' => b"false",
                    _ => b"null",
                };
                if bytes.get(i..i + word.len()) != Some(word) {
                    return Err(Malformed);
                }
                i += word.len();
            }
            _ => return Err(Malformed),
        }
        // A value is complete: close what it completes, up to the next value or the end.
        loop {
            let Some(object) = nest.top() else {
                return Ok((i, blocks));
            };
            i = ws(bytes, i);
            let next = bytes.get(i).copied();
            i += 1;
            match (next, object) {
                (Some(b','), _) => {
                    i = ws(bytes, i);
                    member = object;
                    break;
                }
                (Some(b'}'), true) | (Some(b']'), false) => nest.pop(),
                _ => return Err(Malformed),
            }
        }
    }
}

/// A cursor over the raw body bytes. The grammar is checked on bytes (outside strings only
/// ASCII is JSON); UTF-8 is checked on the spans handed back ([`Scanner::value`], the keys of
/// [`Scanner::object`]), which together cover every string of the text, so nothing reads the
/// body in a pass of its own. Arrays and objects may nest `max_depth` deep (the containers the
/// cursor is in count); one level more is [`Malformed`], which the caller tells apart by
/// counting alone.
pub(crate) struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    max_depth: usize,
    blocks: Blocks,
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(bytes: &'a [u8], max_depth: usize) -> Self {
        Scanner {
            bytes,
            pos: 0,
            depth: 0,
            max_depth,
            blocks: Blocks::NONE,
        }
    }

    pub(crate) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Skips JSON whitespace.
    pub(crate) fn ws(&mut self) {
        self.pos = ws(self.bytes, self.pos);
    }

    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// A string at the cursor: its raw bytes between the quotes (escapes checked, not decoded;
    /// UTF-8 not checked).
    fn string(&mut self) -> Result<&'a [u8], Malformed> {
        if self.peek() != Some(b'"') {
            return Err(Malformed);
        }
        let end = self.blocks.string_end(self.bytes, self.pos)?;
        let raw = self.bytes.get(self.pos + 1..end - 1).ok_or(Malformed)?;
        self.pos = end;
        Ok(raw)
    }

    /// Any value at the cursor, skipped; returns its raw text (no surrounding whitespace),
    /// checked to be UTF-8.
    pub(crate) fn value(&mut self) -> Result<&'a str, Malformed> {
        let start = self.pos;
        (self.pos, self.blocks) =
            skip(self.bytes, start, self.max_depth - self.depth, self.blocks)?;
        std::str::from_utf8(self.since(start)?).map_err(|_| Malformed)
    }

    /// An object at the cursor: `member` is called with each raw key (checked to be UTF-8),
    /// the cursor at its value, and must consume the value (with [`Scanner::value`] or
    /// [`Scanner::object`]).
    pub(crate) fn object(
        &mut self,
        mut member: impl FnMut(&mut Self, &'a str) -> Result<(), Malformed>,
    ) -> Result<(), Malformed> {
        if self.peek() != Some(b'{') || self.depth >= self.max_depth {
            return Err(Malformed);
        }
        self.depth += 1;
        self.pos = ws(self.bytes, self.pos + 1);
        if self.peek() == Some(b'}') {
            self.pos += 1;
        } else {
            loop {
                let key = self.string()?;
                self.pos = ws(self.bytes, self.pos);
                if self.peek() != Some(b':') {
                    return Err(Malformed);
                }
                self.pos = ws(self.bytes, self.pos + 1);
                let key = std::str::from_utf8(key).map_err(|_| Malformed)?;
                member(self, key)?;
                self.ws();
                match self.peek() {
                    Some(b',') => self.pos = ws(self.bytes, self.pos + 1),
                    Some(b'}') => break,
                    _ => return Err(Malformed),
                }
            }
            self.pos += 1;
        }
        self.depth -= 1;
        Ok(())
    }

    /// An array at the cursor: `item` is called with the cursor at each item and must consume it
    /// (with [`Scanner::value`], [`Scanner::object`] or [`Scanner::array`]).
    pub(crate) fn array(
        &mut self,
        mut item: impl FnMut(&mut Self) -> Result<(), Malformed>,
    ) -> Result<(), Malformed> {
        if self.peek() != Some(b'[') || self.depth >= self.max_depth {
            return Err(Malformed);
        }
        self.depth += 1;
        self.pos = ws(self.bytes, self.pos + 1);
        if self.peek() != Some(b']') {
            loop {
                item(self)?;
                self.ws();
                match self.peek() {
                    Some(b',') => self.pos = ws(self.bytes, self.pos + 1),
                    Some(b']') => break,
                    _ => return Err(Malformed),
                }
            }
        }
        self.pos += 1;
        self.depth -= 1;
        Ok(())
    }

    /// The raw bytes from `start` to the cursor.
    pub(crate) fn since(&self, start: usize) -> Result<&'a [u8], Malformed> {
        self.bytes.get(start..self.pos).ok_or(Malformed)
    }

    /// The cursor's offset.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }
}

/// A whole JSON text read into a `Value` by this scanner: the same grammar, escapes, UTF-8 and
/// nesting (at most `max_depth`) as everywhere else in core, so a document given as text reads
/// alike in every runtime, with no second JSON parser linked into the WASM module. Duplicate
/// keys: the last wins (as serde_json's `Value`). Numbers: integers exactly; others as the
/// `f64` of their digits and exponent, within a few units in the last place (the documents read
/// this way never use a number's value, only that it is one), and a number beyond the `f64`
/// range (`1e400`) is [`Malformed`], as serde_json has it; within those few units of the range's
/// edge (`1.7976931348623157e308`) the two may judge differently.
pub(crate) fn to_value(bytes: &[u8], max_depth: usize) -> Result<serde_json::Value, Malformed> {
    let mut s = Scanner::new(bytes, max_depth);
    s.ws();
    let v = s.tree()?;
    s.ws();
    if !s.at_end() {
        return Err(Malformed);
    }
    Ok(v)
}

impl Scanner<'_> {
    /// The value at the cursor, built (containers nest at most `max_depth`).
    fn tree(&mut self) -> Result<serde_json::Value, Malformed> {
        use serde_json::Value;
        match self.peek() {
            Some(b'{') => {
                let mut map = serde_json::Map::new();
                self.object(|s, key| {
                    let k = unescape(key).ok_or(Malformed)?;
                    let v = s.tree()?;
                    map.insert(k, v);
                    Ok(())
                })?;
                Ok(Value::Object(map))
            }
            Some(b'[') => {
                let mut items = Vec::new();
                self.array(|s| {
                    items.push(s.tree()?);
                    Ok(())
                })?;
                Ok(Value::Array(items))
            }
            _ => {
                let raw = self.value()?;
                match raw.as_bytes().first() {
                    Some(b'"') => {
                        let inner = raw.get(1..raw.len().saturating_sub(1)).ok_or(Malformed)?;
                        unescape(inner).map(Value::String).ok_or(Malformed)
                    }
                    Some(b't') => Ok(Value::Bool(true)),
                    Some(b'f') => Ok(Value::Bool(false)),
                    Some(b'n') => Ok(Value::Null),
                    _ => number(raw).map(Value::Number),
                }
            }
        }
    }
}

/// A JSON number's text (the scanner checked its grammar) as a `Number`.
fn number(raw: &str) -> Result<serde_json::Number, Malformed> {
    if !raw.contains(['.', 'e', 'E']) {
        // Integers by hand (no `str::parse` in the WASM module): u64, else a negative i64;
        // `-0` is the float -0.0, as serde_json reads it.
        let (negative, digits) = match raw.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, raw),
        };
        let magnitude = digits.bytes().try_fold(0u64, |n, d| {
            n.checked_mul(10)?
                .checked_add(u64::from(d.wrapping_sub(b'0')))
        });
        match (negative, magnitude) {
            (false, Some(u)) => return Ok(u.into()),
            (true, Some(m)) if m > 0 && m <= 1 << 63 => {
                return Ok((0i64.wrapping_sub_unsigned(m)).into())
            }
            _ => {}
        }
    }
    // Up to 19 significant digits, the rest only counted, then scaled by the exponent.
    let (negative, rest) = match raw.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, raw),
    };
    let (digits, exponent) = match rest.find(['e', 'E']) {
        Some(i) => (
            rest.get(..i).unwrap_or_default(),
            rest.get(i + 1..).unwrap_or_default(),
        ),
        None => (rest, "0"),
    };
    let exponent = {
        let (sign, digits) = match exponent.as_bytes().first() {
            Some(b'-') => (-1, exponent.get(1..).unwrap_or_default()),
            Some(b'+') => (1, exponent.get(1..).unwrap_or_default()),
            _ => (1, exponent),
        };
        sign * digits.bytes().fold(0i64, |n, d| {
            n.saturating_mul(10)
                .saturating_add(i64::from(d.wrapping_sub(b'0')))
                .min(1 << 20)
        })
    };
    let (mut mantissa, mut scale, mut seen_point) = (0u64, 0i64, false);
    for b in digits.bytes() {
        match b {
            b'.' => seen_point = true,
            b'0'..=b'9' if mantissa < 1_000_000_000_000_000_000 => {
                mantissa = mantissa * 10 + u64::from(b - b'0');
                scale -= i64::from(seen_point);
            }
            _ => scale += i64::from(!seen_point),
        }
    }
    let e = exponent.saturating_add(scale).clamp(-400, 400) as i32;
    let value = if mantissa == 0 {
        0.0
    } else if e < 0 {
        // Two steps, so that 10^-e stays finite down to the smallest subnormals.
        mantissa as f64 / 10f64.powi((-e).min(300)) / 10f64.powi((-e - 300).max(0))
    } else {
        mantissa as f64 * 10f64.powi(e)
    };
    serde_json::Number::from_f64(if negative { -value } else { value }).ok_or(Malformed)
}

/// Decodes the escapes of a string's raw text (as the scanner found it). `None` when
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
    use proptest::prelude::*;

    /// `to_value` reads what serde_json reads, to the same `Value` (numbers compared by kind
    /// and to 1e-12 relative), and refuses what serde_json refuses.
    fn same_as_serde(text: &str) {
        let ours = to_value(text.as_bytes(), crate::MAX_JSON_DEPTH);
        let theirs = serde_json::from_str::<serde_json::Value>(text);
        match (ours, theirs) {
            (Ok(a), Ok(b)) => assert!(close(&a, &b), "{text}: {a} vs {b}"),
            (Err(_), Err(_)) => {}
            (a, b) => panic!("{text}: ours {:?}, serde_json {:?}", a.ok(), b.ok()),
        }
    }

    fn close(a: &serde_json::Value, b: &serde_json::Value) -> bool {
        use serde_json::Value as V;
        match (a, b) {
            (V::Number(x), V::Number(y)) => {
                match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                    (Some(p), Some(q), _, _) => p == q,
                    (_, _, Some(p), Some(q)) => p == q,
                    _ => {
                        let (p, q) = (
                            x.as_f64().unwrap_or(f64::NAN),
                            y.as_f64().unwrap_or(f64::NAN),
                        );
                        x.is_f64() == y.is_f64() && (p == q || ((p - q) / q).abs() < 1e-12)
                    }
                }
            }
            (V::Array(x), V::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(p, q)| close(p, q))
            }
            (V::Object(x), V::Object(y)) => {
                x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| close(v, w)))
            }
            _ => a == b,
        }
    }

    #[test]
    fn to_value_reads_as_serde_json() {
        for text in [
            r#"{"data": {"rules": {"requiredFields": [{"field": "a\u00e9\ud83d\ude00"}]}}, "requestId": 1}"#,
            r#"[1, -1, 0, -0, 18446744073709551615, -9223372036854775808, 18446744073709551616]"#,
            r#"[1.5, -2.25e-3, 1e308, 1.79e308, 5e-324, 1e-400, 0.000001e310, 123456789012345678901234567890]"#,
            r#"{"a": 1, "a": 2}"#,
            "  true ",
            "null",
            r#""\"""#,
            r#"{"x": [[], {}, [{}]]}"#,
            "1e400",
            "-1e400",
            "1.8e308",
            "[1,]",
            "{\"a\" 1}",
            "{",
            "\"\\ud800\"",
            "01",
            "1.",
            ".5",
            "[1] x",
            "",
            "\u{feff}{}",
            "nul",
            "[\"\u{7f}\"]",
            "\"\t\"",
        ] {
            same_as_serde(text);
        }
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(to_value(deep(127).as_bytes(), 127).is_ok());
        assert!(to_value(deep(128).as_bytes(), 127).is_err());
        same_as_serde(&deep(127));
        same_as_serde(&deep(128));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]
        #[test]
        fn to_value_agrees_with_serde_json_on_numbers(
            x in any::<f64>().prop_filter("a few units from the f64 range's edge", |x| x.abs() < 1.79e308),
            i in any::<i64>(),
            u in any::<u64>(),
        ) {
            same_as_serde(&format!("[{x:e}, {x}, {i}, {u}]"));
        }

        #[test]
        fn to_value_agrees_with_serde_json_on_text(text in "[\\[\\]{}\"a:,0-9.eE+\\- tnrufl\\\\]{0,24}") {
            same_as_serde(&text);
        }
    }

    fn whole(text: &str) -> Result<&str, Malformed> {
        whole_bytes(text.as_bytes(), usize::MAX)
    }

    fn whole_bytes(bytes: &[u8], max_depth: usize) -> Result<&str, Malformed> {
        let mut s = Scanner::new(bytes, max_depth);
        s.ws();
        let v = s.value()?;
        s.ws();
        if s.at_end() {
            Ok(v)
        } else {
            Err(Malformed)
        }
    }

    /// What the scanner must decide: UTF-8, then serde_json's verdict.
    fn serde_accepts(bytes: &[u8]) -> bool {
        std::str::from_utf8(bytes)
            .is_ok_and(|t| serde_json::from_str::<serde::de::IgnoredAny>(t).is_ok())
    }

    /// The byte-by-byte search the block masks replaced: the end of the string opening at
    /// `i`, or `None`.
    fn string_end_stepwise(bytes: &[u8], mut i: usize) -> Option<usize> {
        i += 1;
        loop {
            match *bytes.get(i)? {
                b'"' => return Some(i + 1),
                b'\\' => match *bytes.get(i + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                    b'u' if bytes.get(i + 2..i + 6)?.iter().all(u8::is_ascii_hexdigit) => i += 6,
                    _ => return None,
                },
                0..=0x1f => return None,
                _ => i += 1,
            }
        }
    }

    #[test]
    fn masks_mark_exactly_the_quotes_and_the_stops() {
        let mut block = [0u8; 64];
        for (k, b) in block.iter_mut().enumerate() {
            *b = [
                b'"', b'\\', b'a', 0x1f, 0x20, 0x7f, 0x80, 0xa2, 0xdc, b'!', b'#', 0,
            ][k % 12];
        }
        let (quotes, stops) = masks(&block);
        for (k, &b) in block.iter().enumerate() {
            assert_eq!(quotes >> k & 1 == 1, b == b'"', "quote at {k}: {b:#x}");
            assert_eq!(
                stops >> k & 1 == 1,
                b == b'\\' || b < 0x20,
                "stop at {k}: {b:#x}"
            );
        }
        assert_eq!(masks(&[b'x'; 64]), (0, 0));
        assert_eq!(masks(&[b'"'; 64]), (u64::MAX, 0));
    }

    #[test]
    fn strings_end_where_the_stepwise_search_ends_them_at_every_offset() {
        // Each kind of string content at every offset around two block boundaries, several
        // strings in a row (the masks' quotes are taken in order).
        let pieces: [&[u8]; 12] = [
            b"a",
            b"\\\"",
            b"\\\\",
            b"\\u00e9",
            b"\\ud83d\\ude00",
            b"\\n",
            b"\xc3\xa9",
            b"\t",
            b"\\x",
            b"\\u12",
            b"\x01",
            b"/",
        ];
        for pad in 0..140 {
            for piece in pieces {
                for tail in [
                    &b""[..],
                    b"b",
                    b"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
                ] {
                    let mut text = vec![b' '; pad % 7];
                    text.push(b'[');
                    text.extend(b"\"\",".repeat(pad)); // empty strings before it, cut anywhere
                    text.truncate(pad % 7 + 1 + pad);
                    if text.last() == Some(&b'"') {
                        text.push(b'"');
                    }
                    if text.last() != Some(&b'[') {
                        text.push(b',');
                    }
                    let open = text.len();
                    text.push(b'"');
                    text.extend(b"a".repeat(pad));
                    text.extend_from_slice(piece);
                    text.extend_from_slice(tail);
                    text.extend_from_slice(b"\",\"z\"]");
                    let got = skip(&text, open, usize::MAX, Blocks::NONE).map(|(end, _)| end);
                    assert_eq!(
                        got.ok(),
                        string_end_stepwise(&text, open),
                        "{:?}",
                        String::from_utf8_lossy(&text)
                    );
                    assert_eq!(
                        whole_bytes(&text, usize::MAX).is_ok(),
                        serde_accepts(&text),
                        "{:?}",
                        String::from_utf8_lossy(&text)
                    );
                }
            }
        }
    }

    proptest::proptest! {
        /// The masks end strings where the WASM build's byte-by-byte search ends them, from
        /// every offset, one `Blocks` carried from one string to the next as a scan carries it.
        #[test]
        fn masks_end_strings_where_the_byte_search_ends_them(
            bytes in proptest::collection::vec(
                prop_oneof![
                    Just(b'"'), Just(b'\\'), Just(b'a'), Just(b'n'), Just(b'u'), Just(b'0'),
                    Just(0x1f), Just(0x80), Just(b' '),
                ],
                0..300,
            ),
            steps in proptest::collection::vec(0usize..80, 1..20),
        ) {
            let mut blocks = Blocks::NONE;
            let mut i = 0;
            for step in steps {
                let want = string_end(&bytes, i + 1);
                if bytes.get(i) == Some(&b'"') {
                    proptest::prop_assert_eq!(blocks.string_end(&bytes, i), want, "from {}", i);
                } else {
                    proptest::prop_assert_eq!(blocks.string_end_slow(&bytes, i + 1), want, "from {}", i);
                }
                i += step;
            }
            for i in 0..bytes.len() + 2 {
                let mut fresh = Blocks::NONE;
                proptest::prop_assert_eq!(fresh.string_end_slow(&bytes, i), string_end(&bytes, i));
            }
        }
    }

    #[test]
    fn an_unterminated_string_at_the_end_of_the_body_is_refused() {
        for n in 0..200 {
            let text = format!("\"{}", "a".repeat(n));
            assert_eq!(whole(&text), Err(Malformed), "{n}");
            let text = format!("\"{}\\", "a".repeat(n));
            assert_eq!(whole(&text), Err(Malformed), "{n}");
            let text = format!("\"{}\"", "a".repeat(n));
            assert_eq!(whole(&text), Ok(text.as_str()), "{n}");
        }
    }

    #[test]
    fn nesting_stops_one_level_past_the_limit() {
        for limit in [0usize, 1, 2, 63, 64, 65, 127, 128] {
            for depth in limit.saturating_sub(2)..limit + 3 {
                let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
                let text = if depth == 0 { "0".to_owned() } else { text };
                assert_eq!(
                    whole_bytes(text.as_bytes(), limit).is_ok(),
                    depth <= limit,
                    "{limit} {depth}"
                );
                let text = format!(
                    "{}1{}",
                    "{\"a\":[".repeat(depth / 2),
                    "]}".repeat(depth / 2)
                );
                assert_eq!(
                    whole_bytes(text.as_bytes(), limit).is_ok(),
                    depth / 2 * 2 <= limit,
                    "{text}"
                );
            }
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

    /// JSON values with strings long enough to cross 64-byte blocks, escapes included.
    fn any_json() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            "[a-z\"\\\\\\x00-\\x1fé😀 ]{0,90}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..8).prop_map(serde_json::Value::from),
                proptest::collection::btree_map("[a-z\"]{0,12}", inner, 0..8)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2_000))]
        #[test]
        fn agrees_with_serde_json_on_any_text(text in "[\\[\\]{}\":,0-9eE.+\\-a-z\\\\ ]{0,40}") {
            let ours = whole(&text).is_ok();
            let serde = serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok();
            proptest::prop_assert_eq!(ours, serde, "{:?}", text);
        }

        #[test]
        fn agrees_with_serde_json_on_long_bodies(
            parts in proptest::collection::vec(
                prop_oneof![
                    "[\\[\\]{}\":,0-9eE.\\-a-z\\\\ \\n\\t]{1,3}".prop_map(String::into_bytes),
                    "\"[a-z ]{0,80}\"".prop_map(String::into_bytes),
                    "\"[a-z]{0,70}(\\\\[\"\\\\/bfnrtux]|\\\\u[0-9a-f]{4}|[\\x00-\\x1f]|é)[a-z]{0,70}\"".prop_map(String::into_bytes),
                    proptest::collection::vec(proptest::num::u8::ANY, 1..3),
                ],
                0..24,
            )
        ) {
            let bytes = parts.concat();
            proptest::prop_assert_eq!(
                whole_bytes(&bytes, usize::MAX).is_ok(),
                serde_accepts(&bytes),
                "{:?}",
                String::from_utf8_lossy(&bytes)
            );
        }

        #[test]
        fn agrees_with_serde_json_on_long_valid_bodies(value in any_json()) {
            let text = value.to_string();
            proptest::prop_assert_eq!(whole(&text), Ok(text.as_str()));
            let pretty = serde_json::to_string_pretty(&value).unwrap_or_default();
            proptest::prop_assert_eq!(whole(&pretty), Ok(pretty.as_str()));
            // Every cut of it is refused where serde_json refuses it.
            for cut in (0..text.len()).step_by(7) {
                if let Some(prefix) = text.get(..cut) {
                    proptest::prop_assert_eq!(whole(prefix).is_ok(), serde_accepts(prefix.as_bytes()), "{:?}", prefix);
                }
            }
        }

        #[test]
        fn unescape_agrees_with_serde_json(text in "([a-z]|\\\\[\"\\\\/bfnrt]|\\\\u[dD][89aAbBcCdDeEfF][0-9a-f]{2}|\\\\u00[0-9a-f]{2}){0,8}") {
            let quoted = format!("\"{text}\"");
            let serde = serde_json::from_str::<String>(&quoted).ok();
            let mut s = Scanner::new(quoted.as_bytes(), usize::MAX);
            let ours = s.string().ok().and_then(|r| std::str::from_utf8(r).ok()).and_then(unescape);
            proptest::prop_assert_eq!(ours, serde, "{:?}", quoted);
        }
    }
}
