//! Core's account-detail checks as a process, for the differential test against python-stdnum,
//! schwifty and clabe (`tests/accounts/check.py`, run by `bash tests/accounts/run.sh`).
//!
//! ```text
//! accounts check      # stdin: {"kind": "iban", "value": "..."} per line
//!                     # stdout: {"ok": true} or {"ok": false, "code": "INVALID_IBAN",
//!                     #         "problem": "check_digits"} per line, in order
//! accounts registry   # stdin: {"country": "DE", "structure": "8!n10!n"} per line (the oracle's
//!                     #        registry, only to build a first valid IBAN of each country)
//!                     # stdout: core's IBAN registry, derived through its public API
//! ```
//!
//! Everything goes through `AccountDetail::check`: core's registry table is not public, so
//! `registry` reads it back from core's answers. Every two-letter pair `AA`..`ZZ` is asked
//! for (`CC00`): core answers UnknownCountry, or a Length problem that names the country's
//! IBAN length. For each country it knows, a valid IBAN is built from the oracle's structure
//! (check digits computed here); core must accept it and refuse it one character longer and
//! shorter with that length; then each position after the country takes each of the 36
//! letters and digits in turn (the check digits recomputed for a BBAN position): the
//! characters core accepts there give the position's kind (digits `n`, letters `a`, both
//! `c`). The structure printed is core's, read position by position; the oracle's only
//! chose where to start.

use std::collections::BTreeMap;
use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use serde_json::{json, Value};
use xborder_core::beneficiary::{AccountDetail, AccountDetailError, AccountProblem};

/// The kind names of the `check` protocol (FORMAT.md's order).
const KINDS: [(&str, AccountDetail); 9] = [
    ("iban", AccountDetail::Iban),
    ("clabe", AccountDetail::Clabe),
    ("cbu", AccountDetail::Cbu),
    ("cuit", AccountDetail::Cuit),
    ("bic", AccountDetail::Bic),
    ("ifsc", AccountDetail::Ifsc),
    ("sort_code", AccountDetail::SortCode),
    ("bsb", AccountDetail::Bsb),
    ("branch_code", AccountDetail::BranchCode),
];

const ALNUM: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

fn problem_name(p: AccountProblem) -> &'static str {
    match p {
        AccountProblem::Length { .. } => "length",
        AccountProblem::UnknownCountry { .. } => "unknown_country",
        AccountProblem::Layout => "layout",
        AccountProblem::UnknownType => "unknown_type",
        AccountProblem::UnknownBicCountry { .. } => "unknown_bic_country",
        AccountProblem::CheckDigits => "check_digits",
        _ => "other",
    }
}

fn verdict(result: Result<(), AccountDetailError>) -> Value {
    match result {
        Ok(()) => json!({ "ok": true }),
        Err(e) => match e.problem {
            AccountProblem::Length { expected, actual } => json!({
                "ok": false, "code": e.code(), "problem": problem_name(e.problem),
                "expected": expected, "actual": actual,
            }),
            _ => json!({ "ok": false, "code": e.code(), "problem": problem_name(e.problem) }),
        },
    }
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn read_lines() -> io::Result<Vec<Value>> {
    let mut out = Vec::new();
    for (n, line) in io::stdin().lock().lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&line).map_err(|e| {
            io::Error::new(io::ErrorKind::InvalidData, format!("line {}: {e}", n + 1))
        })?;
        out.push(v);
    }
    Ok(out)
}

fn check_mode() -> Result<(), String> {
    let stdin = io::stdin();
    let mut out = BufWriter::new(io::stdout().lock());
    for (n, line) in stdin.lock().lines().enumerate() {
        let line = line.map_err(|e| e.to_string())?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&line).map_err(|e| format!("line {}: {e}", n + 1))?;
        let (Some(kind), Some(value)) = (text(&v, "kind"), text(&v, "value")) else {
            return Err(format!(
                "line {}: want {{\"kind\": string, \"value\": string}}, got {line}",
                n + 1
            ));
        };
        let Some((_, detail)) = KINDS.iter().find(|(name, _)| *name == kind) else {
            let names: Vec<&str> = KINDS.iter().map(|(name, _)| *name).collect();
            return Err(format!(
                "line {}: unknown kind {kind:?} (one of {})",
                n + 1,
                names.join(", ")
            ));
        };
        writeln!(out, "{}", verdict(detail.check(value))).map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())
}

/// An IBAN of `country` and `bban` with its check digits computed (ISO 7064 mod 97-10).
fn make_iban(country: &[u8], bban: &[u8]) -> String {
    let mut rem = 0u32;
    for ch in bban.iter().chain(country).chain(b"00") {
        rem = match ch {
            b'0'..=b'9' => rem * 10 + u32::from(ch - b'0'),
            _ => rem * 100 + u32::from(ch.to_ascii_uppercase().wrapping_sub(b'A')) + 10,
        } % 97;
    }
    let mut s = String::from_utf8_lossy(country).into_owned();
    s.push_str(&format!("{:02}", 98 - rem));
    s.push_str(&String::from_utf8_lossy(bban));
    s
}

/// `8!n10!n` (or `18n`) as one kind letter per position.
fn expand(structure: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut count = 0usize;
    for s in structure.bytes() {
        match s {
            b'0'..=b'9' => count = count * 10 + usize::from(s - b'0'),
            b'!' => {}
            b'n' | b'a' | b'c' => {
                out.extend(std::iter::repeat_n(s, count));
                count = 0;
            }
            _ => return None,
        }
    }
    (count == 0).then_some(out)
}

/// Runs of one kind letter written as `18n`; `kinds` letters other than n/a/c are written
/// as they are (`?` for a position that accepts some other set of characters).
fn runs(kinds: &[u8]) -> String {
    let mut out = String::new();
    let mut iter = kinds.iter().peekable();
    while let Some(&k) = iter.next() {
        let mut n = 1;
        while iter.peek() == Some(&&k) {
            iter.next();
            n += 1;
        }
        out.push_str(&format!("{n}{}", char::from(k)));
    }
    out
}

/// The kind letter of a set of accepted characters.
fn kind_of(accepted: &[u8]) -> u8 {
    let digits = accepted.iter().filter(|b| b.is_ascii_digit()).count();
    let letters = accepted.iter().filter(|b| b.is_ascii_uppercase()).count();
    match (digits, letters) {
        (10, 0) => b'n',
        (0, 26) => b'a',
        (10, 26) => b'c',
        (0, 0) => b'-',
        _ => b'?',
    }
}

/// Core's entry for `cc`, whose IBAN length core says is `length`: read position by position,
/// starting from an IBAN of the oracle's structure `hint`.
fn derive(cc: [u8; 2], length: usize, hint: Option<&str>) -> Value {
    let iban = AccountDetail::Iban;
    let country = String::from_utf8_lossy(&cc).into_owned();
    let mut anomalies: Vec<String> = Vec::new();
    let Some(kinds) = hint.and_then(expand) else {
        return json!({ "country": country, "length": length, "bban": null,
                       "anomalies": ["no structure from the oracle to build an IBAN with"] });
    };
    // A first BBAN of the oracle's structure: varied digits and letters.
    let bban: Vec<u8> = kinds
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let digit = b'0' + u8::try_from(i * 7 % 10).unwrap_or(0);
            let letter = b'A' + u8::try_from(i * 5 % 26).unwrap_or(0);
            match k {
                b'n' => digit,
                b'a' => letter,
                _ if i % 2 == 0 => letter,
                _ => digit,
            }
        })
        .collect();
    let base = make_iban(&cc, &bban);
    let base_verdict = iban.check(&base);
    if base_verdict.is_err() {
        let why = format!(
            "refuses {base}, built from the oracle's structure: {}",
            verdict(base_verdict)
        );
        return json!({ "country": country, "length": length, "bban": null, "anomalies": [why] });
    }
    // One character more and one less: a Length problem naming the same length.
    let shorter = base.get(..base.len() - 1).unwrap_or_default().to_owned();
    for (probe, actual) in [
        (format!("{base}0"), base.len() + 1),
        (shorter, base.len() - 1),
    ] {
        match iban.check(&probe) {
            Err(AccountDetailError {
                problem:
                    AccountProblem::Length {
                        expected,
                        actual: got,
                    },
                ..
            }) if usize::from(expected) == length && got == actual => {}
            other => anomalies.push(format!("{probe}: {}", verdict(other))),
        }
    }
    // The check digits: which characters are not a layout problem there (a digit that is not
    // the right one is a CheckDigits problem).
    let mut check = Vec::new();
    for at in 2..4 {
        let mut accepted = Vec::new();
        for &ch in ALNUM {
            let mut probe = base.clone().into_bytes();
            if let Some(slot) = probe.get_mut(at) {
                *slot = ch;
            }
            let probe = String::from_utf8_lossy(&probe).into_owned();
            match iban.check(&probe) {
                Ok(())
                | Err(AccountDetailError {
                    problem: AccountProblem::CheckDigits,
                    ..
                }) => accepted.push(ch),
                Err(AccountDetailError {
                    problem: AccountProblem::Layout,
                    ..
                }) => {}
                other => anomalies.push(format!("{probe}: {}", verdict(other))),
            }
        }
        check.push(kind_of(&accepted));
    }
    // Each BBAN position: which characters core accepts there (check digits computed again).
    let mut derived = Vec::new();
    for at in 0..bban.len() {
        let mut accepted = Vec::new();
        for &ch in ALNUM {
            let mut probe_bban = bban.clone();
            if let Some(slot) = probe_bban.get_mut(at) {
                *slot = ch;
            }
            let probe = make_iban(&cc, &probe_bban);
            match iban.check(&probe) {
                Ok(()) => accepted.push(ch),
                Err(AccountDetailError {
                    problem: AccountProblem::Layout,
                    ..
                }) => {}
                other => anomalies.push(format!("{probe}: {}", verdict(other))),
            }
        }
        derived.push(kind_of(&accepted));
    }
    json!({
        "country": country, "length": length, "check": runs(&check), "bban": runs(&derived),
        "anomalies": anomalies,
    })
}

fn registry_mode() -> Result<(), String> {
    let mut hints = BTreeMap::new();
    for v in read_lines().map_err(|e| e.to_string())? {
        let (Some(cc), Some(structure)) = (text(&v, "country"), text(&v, "structure")) else {
            return Err(format!(
                "want {{\"country\": string, \"structure\": string}}, got {v}"
            ));
        };
        hints.insert(cc.to_owned(), structure.to_owned());
    }
    let iban = AccountDetail::Iban;
    let mut out = BufWriter::new(io::stdout().lock());
    let mut unknown = 0usize;
    for a in b'A'..=b'Z' {
        for b in b'A'..=b'Z' {
            let cc = [a, b];
            let name = String::from_utf8_lossy(&cc).into_owned();
            let length = match iban.check(&format!("{name}00")) {
                Err(AccountDetailError {
                    problem: AccountProblem::UnknownCountry { country },
                    ..
                }) if country.as_str() == name => {
                    unknown += 1;
                    continue;
                }
                Err(AccountDetailError {
                    problem:
                        AccountProblem::Length {
                            expected,
                            actual: 4,
                        },
                    ..
                }) => usize::from(expected),
                other => {
                    let why = format!("{name}00 gave {}", verdict(other));
                    let line = json!({ "country": name, "length": null, "bban": null,
                                       "anomalies": [why] });
                    writeln!(out, "{line}").map_err(|e| e.to_string())?;
                    continue;
                }
            };
            let line = derive(cc, length, hints.get(&name).map(String::as_str));
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
        }
    }
    writeln!(out, "{}", json!({ "unknown_countries": unknown })).map_err(|e| e.to_string())?;
    out.flush().map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let result = match mode.as_str() {
        "check" => check_mode(),
        "registry" => registry_mode(),
        _ => Err("usage: accounts check|registry (see tests/accounts/README.md)".to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("accounts: {e}");
            ExitCode::from(2)
        }
    }
}
