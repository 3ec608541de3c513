// account_check: one account detail as the user types it (`check_account`, contract v4's
// `account.check`).

use xborder_core::beneficiary::{check_account, AccountCheck, AccountDetail, AccountState, Reason};

/// The electronic form written again from FORMAT.md: ASCII spaces and hyphens removed, ASCII
/// letters upper-cased, every other character kept.
fn model_electronic(value: &str) -> String {
    value
        .chars()
        .filter(|c| !matches!(c, ' ' | '-'))
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// The display form written again from FORMAT.md: an IBAN in groups of four separated by a
/// space, a sort code `12-34-56`, a BSB `123-456`, a CUIT `20-12345678-6` (characters past the
/// last group joining it), the other kinds as the electronic form.
fn model_display(kind: AccountDetail, electronic: &str) -> String {
    let (cut, sep): (fn(usize) -> bool, char) = match kind {
        AccountDetail::Iban => (|i| i % 4 == 0, ' '),
        AccountDetail::SortCode => (|i| i == 2 || i == 4, '-'),
        AccountDetail::Bsb => (|i| i == 3, '-'),
        AccountDetail::Cuit => (|i| i == 2 || i == 10, '-'),
        _ => return electronic.to_owned(),
    };
    let mut out = String::new();
    for (i, ch) in electronic.chars().enumerate() {
        if i > 0 && cut(i) {
            out.push(sep);
        }
        out.push(ch);
    }
    out
}

/// How many characters of the input the detailed checks read.
const TYPED: usize = 64;

fn is_invalid(s: &AccountState) -> bool {
    matches!(s, AccountState::Invalid(_))
}

/// What holds of one answer: the state agrees with the one-value check (`complete` exactly when
/// it accepts), the electronic and display forms are the model's, an invalid state carries the
/// kind's code, a message, and figures that match its reason; the answer is a function of the
/// electronic form, and the display form reads back to the same answer.
fn check_one(kind: AccountDetail, value: &str) -> AccountCheck {
    let c = check_account(kind, value);
    let checked = kind.check(value);
    assert_eq!(
        c.state == AccountState::Complete,
        checked.is_ok(),
        "{kind:?} {value:?}: {:?} but check says {checked:?}",
        c.state
    );
    assert_eq!(c.electronic, model_electronic(value), "{kind:?} {value:?}");
    assert_eq!(
        c.display,
        model_display(kind, &c.electronic),
        "{kind:?} {value:?}"
    );
    let unseparated: String = c
        .display
        .chars()
        .filter(|ch| !matches!(ch, ' ' | '-'))
        .collect();
    assert_eq!(unseparated, c.electronic, "{kind:?} {value:?}");
    assert_eq!(
        c.state == AccountState::Empty,
        c.electronic.is_empty(),
        "{kind:?} {value:?}"
    );
    let count = c.electronic.chars().count();
    let (min, max) = kind.length();
    match &c.state {
        AccountState::Empty | AccountState::Incomplete => {
            assert!(
                count < usize::from(max),
                "{kind:?} {value:?}: incomplete at {count}"
            );
        }
        AccountState::Complete => {
            assert!(
                (usize::from(min)..=usize::from(max)).contains(&count),
                "{kind:?} {value:?}: complete at {count}"
            );
        }
        AccountState::Invalid(e) => {
            assert_eq!(e.detail, kind, "{value:?}");
            assert_eq!(e.code(), kind.issue_code().as_str());
            assert!(!e.to_string().trim().is_empty(), "{kind:?} {value:?}");
            let p = e.params();
            match e.reason() {
                Reason::Length => {
                    assert_eq!(p.actual, Some(count), "{kind:?} {value:?}");
                    assert_ne!(p.expected, Some(count), "{kind:?} {value:?}");
                    assert!(p.country.is_none());
                }
                Reason::Country => {
                    let letters = p.country.expect("a country reason names the letters");
                    assert!(p.expected.is_none() && p.actual.is_none());
                    assert!(
                        c.electronic.contains(letters.as_str()),
                        "{kind:?} {value:?}: {letters}"
                    );
                }
                _ => assert!(p.is_empty(), "{kind:?} {value:?}: {p:?}"),
            }
            // At full length (or past it) the state's problem is the check's.
            if count >= usize::from(max) {
                assert_eq!(checked.err(), Some(*e), "{kind:?} {value:?}");
            }
        }
        _ => panic!("a state this target does not know: {:?}", c.state),
    }
    assert_eq!(
        check_account(kind, &c.electronic),
        c,
        "{kind:?} {value:?} vs its electronic form"
    );
    assert_eq!(
        check_account(kind, &c.display),
        c,
        "{kind:?} {value:?} vs its display form"
    );
    assert_eq!(
        check_account(kind, &value.to_ascii_lowercase()).state,
        c.state,
        "{kind:?} {value:?} in lower case"
    );
    c
}

/// First byte: the kind (one of `AccountDetail::ALL`); second: where to cut; the rest: the text,
/// as UTF-8 (invalid sequences replaced). `check_account` never panics; for three values typed
/// one after the other (the text cut after `cut mod (chars + 1)` characters, the text less its
/// last character: the keystroke before, and the text) `complete` is exactly what the check
/// accepts, and the text's answer holds `check_one`'s checks. Once one of them is `invalid`, every longer one is `invalid` too: typing
/// on never mends a value. (The fuzzer picks the cut, so over a run every prefix of every text
/// meets its extensions; checking all prefixes of each input cost 20× the executions.)
pub fn account_check(data: &[u8]) {
    let [first, cut, rest @ ..] = data else {
        return;
    };
    let kind = AccountDetail::ALL[usize::from(*first) % AccountDetail::ALL.len()];
    let whole = String::from_utf8_lossy(rest);
    // Any length: no panic, `complete` exactly when the check accepts, and past the longest kind
    // (34 characters, separators aside) `invalid`. The detailed checks below read the first
    // `TYPED` characters: every kind is read in full well within them, and checking the whole
    // of a 4 KiB input a dozen times made each execution 30 times slower.
    if whole.chars().nth(TYPED).is_some() {
        let c = check_account(kind, &whole);
        assert_eq!(
            c.state == AccountState::Complete,
            kind.check(&whole).is_ok(),
            "{kind:?} {whole:?}"
        );
        if c.electronic.chars().count() > 34 {
            assert!(is_invalid(&c.state), "{kind:?} {whole:?}: {:?}", c.state);
        }
    }
    let text: String = whole.chars().take(TYPED).collect();
    let chars = text.chars().count();
    let prefix = |n: usize| -> String { text.chars().take(n).collect() };
    let mut typed = vec![prefix(usize::from(*cut) % (chars + 1))];
    if chars > 0 {
        typed.push(prefix(chars - 1));
    }
    typed.sort_by_key(String::len);
    typed.push(text.clone());
    let mut invalid_since: Option<&str> = None;
    for (i, value) in typed.iter().enumerate() {
        // The typed text gets every check; its prefixes the state's agreement with the check
        // (what `invalid` stays invalid rests on), which costs a fifth.
        let state = if i + 1 == typed.len() {
            check_one(kind, value).state
        } else {
            let state = check_account(kind, value).state;
            assert_eq!(
                state == AccountState::Complete,
                kind.check(value).is_ok(),
                "{kind:?} {value:?}"
            );
            state
        };
        match invalid_since {
            Some(before) => assert!(
                is_invalid(&state),
                "{kind:?}: {before:?} is invalid but {value:?}, typed on, is {:?}",
                state
            ),
            None if is_invalid(&state) => invalid_since = Some(value),
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_display_model_agrees_with_the_vectors() {
        assert_eq!(
            model_display(AccountDetail::Iban, "DE89370400440532013000"),
            "DE89 3704 0044 0532 0130 00"
        );
        assert_eq!(model_display(AccountDetail::Iban, "DE89"), "DE89");
        assert_eq!(
            model_display(AccountDetail::SortCode, "1234567"),
            "12-34-567"
        );
        assert_eq!(
            model_display(AccountDetail::Cuit, "20123456786"),
            "20-12345678-6"
        );
        assert_eq!(
            model_display(AccountDetail::Bic, "DEUTDEFF500"),
            "DEUTDEFF500"
        );
    }

    #[test]
    fn a_mistyped_prefix_stays_invalid_and_a_good_value_completes() {
        let kind_byte = |k: AccountDetail| {
            u8::try_from(AccountDetail::ALL.iter().position(|x| *x == k).unwrap()).unwrap()
        };
        for (kind, value) in [
            (AccountDetail::Iban, "de89 3704 0044 0532 0130 00"),
            (AccountDetail::Iban, "XX89 3704"),
            (AccountDetail::SortCode, "12-34-5a"),
            (AccountDetail::Aba, "021000021"),
            (AccountDetail::Cuit, "20-12345678-6"),
        ] {
            // Every cut: each prefix against the keystroke before the whole and the whole.
            for cut in 0..=u8::try_from(value.len()).unwrap() {
                let mut input = vec![kind_byte(kind), cut];
                input.extend_from_slice(value.as_bytes());
                account_check(&input);
            }
        }
        assert_eq!(
            check_one(AccountDetail::Iban, "de89 3704 0044 0532 0130 00").state,
            AccountState::Complete
        );
        assert!(is_invalid(
            &check_one(AccountDetail::SortCode, "12-34-5a").state
        ));
    }
}
