//! ISO 3166-1 alpha-2 codes (officially assigned), generated from pycountry 26.2.16.

pub(crate) const ALPHA2: [&str; 249] = [
    "AD", "AE", "AF", "AG", "AI", "AL", "AM", "AO", "AQ", "AR", "AS", "AT", "AU", "AW", "AX", "AZ",
    "BA", "BB", "BD", "BE", "BF", "BG", "BH", "BI", "BJ", "BL", "BM", "BN", "BO", "BQ", "BR", "BS",
    "BT", "BV", "BW", "BY", "BZ", "CA", "CC", "CD", "CF", "CG", "CH", "CI", "CK", "CL", "CM", "CN",
    "CO", "CR", "CU", "CV", "CW", "CX", "CY", "CZ", "DE", "DJ", "DK", "DM", "DO", "DZ", "EC", "EE",
    "EG", "EH", "ER", "ES", "ET", "FI", "FJ", "FK", "FM", "FO", "FR", "GA", "GB", "GD", "GE", "GF",
    "GG", "GH", "GI", "GL", "GM", "GN", "GP", "GQ", "GR", "GS", "GT", "GU", "GW", "GY", "HK", "HM",
    "HN", "HR", "HT", "HU", "ID", "IE", "IL", "IM", "IN", "IO", "IQ", "IR", "IS", "IT", "JE", "JM",
    "JO", "JP", "KE", "KG", "KH", "KI", "KM", "KN", "KP", "KR", "KW", "KY", "KZ", "LA", "LB", "LC",
    "LI", "LK", "LR", "LS", "LT", "LU", "LV", "LY", "MA", "MC", "MD", "ME", "MF", "MG", "MH", "MK",
    "ML", "MM", "MN", "MO", "MP", "MQ", "MR", "MS", "MT", "MU", "MV", "MW", "MX", "MY", "MZ", "NA",
    "NC", "NE", "NF", "NG", "NI", "NL", "NO", "NP", "NR", "NU", "NZ", "OM", "PA", "PE", "PF", "PG",
    "PH", "PK", "PL", "PM", "PN", "PR", "PS", "PT", "PW", "PY", "QA", "RE", "RO", "RS", "RU", "RW",
    "SA", "SB", "SC", "SD", "SE", "SG", "SH", "SI", "SJ", "SK", "SL", "SM", "SN", "SO", "SR", "SS",
    "ST", "SV", "SX", "SY", "SZ", "TC", "TD", "TF", "TG", "TH", "TJ", "TK", "TL", "TM", "TN", "TO",
    "TR", "TT", "TV", "TW", "TZ", "UA", "UG", "UM", "US", "UY", "UZ", "VA", "VC", "VE", "VG", "VI",
    "VN", "VU", "WF", "WS", "YE", "YT", "ZA", "ZM", "ZW",
];

/// [`ALPHA2`] as 26 rows of 26 bits (row: the first letter, bit: the second), built at compile
/// time: a look-up is two shifts instead of a search, on every validation.
pub(crate) static ALPHA2_BITS: [u32; 26] = alpha2_bits();

// Evaluated at compile time only: an index out of range would be a compile error, not a panic.
#[allow(clippy::indexing_slicing)]
const fn alpha2_bits() -> [u32; 26] {
    let mut bits = [0u32; 26];
    let mut i = 0;
    while i < ALPHA2.len() {
        let code = ALPHA2[i].as_bytes();
        bits[(code[0] - b'A') as usize] |= 1 << (code[1] - b'A');
        i += 1;
    }
    bits
}

/// Whether `code` is two upper-case ASCII letters of an assigned ISO 3166-1 alpha-2 code.
pub(crate) fn is_alpha2(code: &[u8]) -> bool {
    match code {
        [a @ b'A'..=b'Z', b @ b'A'..=b'Z'] => ALPHA2_BITS
            .get(usize::from(a - b'A'))
            .is_some_and(|row| row >> (b - b'A') & 1 == 1),
        _ => false,
    }
}
