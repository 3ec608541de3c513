//! [`check_account`]: one account detail as the user types it, so a form can say "keep typing"
//! apart from "this is wrong", with the form to send and the form to show.

use super::account::Compact;
use super::{AccountDetail, AccountDetailError};

/// Where a value being typed stands.
///
/// ```
/// use xborder_core::beneficiary::{check_account, AccountDetail, AccountState};
/// assert_eq!(check_account(AccountDetail::Iban, "DE89 3704").state, AccountState::Incomplete);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AccountState {
    /// Nothing typed (spaces and hyphens aside).
    Empty,
    /// Nothing wrong so far, and not finished: typing on may make it complete.
    Incomplete,
    /// A full value with no problem: exactly what [`AccountDetail::check`] accepts.
    Complete,
    /// Wrong whatever is typed after it: the problem, its code, reason and figures.
    Invalid(AccountDetailError),
}

impl AccountState {
    /// The state's name on the wire: `empty`, `incomplete`, `complete`, `invalid`.
    ///
    /// ```
    /// use xborder_core::beneficiary::AccountState;
    /// assert_eq!(AccountState::Incomplete.as_str(), "incomplete");
    /// ```
    pub fn as_str(&self) -> &'static str {
        match self {
            AccountState::Empty => "empty",
            AccountState::Incomplete => "incomplete",
            AccountState::Complete => "complete",
            AccountState::Invalid(_) => "invalid",
        }
    }
}

/// The answer of [`check_account`]: the state, the electronic form (what the API takes) and the
/// display form (what the input shows).
///
/// ```
/// use xborder_core::beneficiary::{check_account, AccountDetail, AccountState};
/// let c = check_account(AccountDetail::SortCode, "12 34 5");
/// assert_eq!((c.electronic.as_str(), c.display.as_str()), ("12345", "12-34-5"));
/// assert_eq!(c.state, AccountState::Incomplete);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct AccountCheck {
    /// Empty, incomplete, complete or invalid.
    pub state: AccountState,
    /// The value with ASCII spaces and hyphens removed and ASCII letters upper-cased,
    /// everything else kept.
    pub electronic: String,
    /// `electronic` grouped for reading, whatever the state: an IBAN in fours, a sort code
    /// `12-34-56`, a BSB `123-456`, a CUIT `20-12345678-6`; the other kinds as `electronic`.
    pub display: String,
}

/// Checks one account detail as the user types it: `empty`, `incomplete` (nothing wrong yet),
/// `complete` (exactly when [`AccountDetail::check`] accepts it) or `invalid` (wrong whatever is
/// typed after it: a character that cannot stand where it stands, a value too long, an IBAN
/// country outside the registry, a BIC country not assigned, a CUIT type or a routing number's
/// prefix out of range, IBAN check digits `00`, `01`, `99`, a CBU's first block failing its
/// check digit, and at full length every check of the kind). Cheap enough for every keystroke:
/// nothing is allocated but the two strings.
///
/// ```
/// use xborder_core::beneficiary::{check_account, AccountDetail, AccountState, Reason};
/// let typed = check_account(AccountDetail::Iban, "de89 3704 0044 0532 0130 00");
/// assert_eq!(typed.state, AccountState::Complete);
/// assert_eq!(typed.electronic, "DE89370400440532013000");
/// assert_eq!(typed.display, "DE89 3704 0044 0532 0130 00");
///
/// let AccountState::Invalid(e) = check_account(AccountDetail::Iban, "DE893704004405320130001").state
/// else { unreachable!() };
/// assert_eq!((e.code(), e.reason()), ("INVALID_IBAN", Reason::Length));
/// assert_eq!((e.params().expected, e.params().actual), (Some(22), Some(23)));
/// ```
pub fn check_account(kind: AccountDetail, value: &str) -> AccountCheck {
    let electronic = electronic(value);
    let display = display(kind, &electronic);
    let c = Compact::of(&electronic);
    let state = if c.len == 0 {
        AccountState::Empty
    } else {
        let full = kind.is_full(&c);
        match kind.problem(&c, !full) {
            Some(problem) => AccountState::Invalid(AccountDetailError {
                detail: kind,
                problem,
            }),
            None if full => AccountState::Complete,
            None => AccountState::Incomplete,
        }
    };
    AccountCheck {
        state,
        electronic,
        display,
    }
}

/// The electronic form: ASCII spaces and hyphens removed, ASCII letters upper-cased, everything
/// else kept.
pub(super) fn electronic(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    out.extend(
        value
            .chars()
            .filter(|ch| !matches!(ch, ' ' | '-'))
            .map(|ch| ch.to_ascii_uppercase()),
    );
    out
}

/// `electronic` grouped for reading: separators only between typed characters, characters past
/// the last group joining it.
fn display(kind: AccountDetail, electronic: &str) -> String {
    let (groups, sep): (&[usize], char) = match kind {
        AccountDetail::Iban => (&[], ' '),
        AccountDetail::SortCode => (&[2, 2], '-'),
        AccountDetail::Bsb => (&[3], '-'),
        AccountDetail::Cuit => (&[2, 8], '-'),
        _ => return electronic.to_owned(),
    };
    let mut out = String::with_capacity(electronic.len() + electronic.len() / 4 + 2);
    // Where the next separator stands (in characters), and how many groups are closed.
    let mut next = groups.first().copied().unwrap_or(4);
    let mut closed = 0usize;
    for (i, ch) in electronic.chars().enumerate() {
        if i == next && i > 0 {
            out.push(sep);
            closed += 1;
            next = match groups.get(closed) {
                Some(g) => next + g,
                None if groups.is_empty() => next + 4,
                None => usize::MAX,
            };
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn display_groups() {
        let d = |k, v| display(k, v);
        assert_eq!(d(AccountDetail::SortCode, "12"), "12");
        assert_eq!(d(AccountDetail::SortCode, "123"), "12-3");
        assert_eq!(d(AccountDetail::SortCode, "1234567"), "12-34-567");
        assert_eq!(d(AccountDetail::Bsb, "1234567"), "123-4567");
        assert_eq!(d(AccountDetail::Cuit, "20123456786"), "20-12345678-6");
        assert_eq!(d(AccountDetail::Iban, "DE8937040"), "DE89 3704 0");
        assert_eq!(d(AccountDetail::Iban, "DE89"), "DE89");
        assert_eq!(d(AccountDetail::Iban, "DÉ89é"), "DÉ89 é");
        assert_eq!(d(AccountDetail::Bic, "DEUTDEFF500"), "DEUTDEFF500");
    }

    /// A value of the kind's own characters (digits, letters, the odd other one) and separators.
    fn typed() -> impl Strategy<Value = String> {
        proptest::string::string_regex(
            "[0-9A-Za-z -]{0,36}|[0-9 ]{0,30}|[A-Z]{2}[0-9]{0,30}|[0-9A-Zé.]{0,14}",
        )
        .unwrap()
    }

    /// Valid values of every kind, so that the property meets `complete` and the values past it.
    const GOOD: &[(AccountDetail, &str)] = &[
        (AccountDetail::Iban, "DE89370400440532013000"),
        (AccountDetail::Iban, "GB82WEST12345698765432"),
        (AccountDetail::Iban, "NO9386011117947"),
        (AccountDetail::Clabe, "002010077777777771"),
        (AccountDetail::Cbu, "2850590940090418135201"),
        (AccountDetail::Cuit, "20123456786"),
        (AccountDetail::Bic, "DEUTDEFF500"),
        (AccountDetail::Ifsc, "HDFC0001234"),
        (AccountDetail::SortCode, "123456"),
        (AccountDetail::Bsb, "062000"),
        (AccountDetail::BranchCode, "00312345"),
        (AccountDetail::Aba, "021000021"),
    ];

    fn is_invalid(s: &AccountState) -> bool {
        matches!(s, AccountState::Invalid(_))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        /// `complete` exactly when the one-value check accepts; once `invalid`, every
        /// extension stays `invalid`; the state is a function of `electronic`.
        #[test]
        fn complete_is_check_and_invalid_stays_invalid(
            kind in proptest::sample::select(AccountDetail::ALL),
            value in typed(),
            more in typed(),
            good in proptest::sample::select(GOOD),
            cut in 0usize..40,
        ) {
            for (kind, value) in [(kind, value.clone()), (good.0, good.1.chars().take(cut).collect::<String>() + &value)] {
                let c = check_account(kind, &value);
                prop_assert_eq!(c.state == AccountState::Complete, kind.check(&value).is_ok(), "{:?} {:?}", kind, value);
                prop_assert_eq!(&check_account(kind, &c.electronic), &c);
                let longer = format!("{value}{more}");
                if is_invalid(&c.state) {
                    prop_assert!(is_invalid(&check_account(kind, &longer).state), "{:?} {:?} -> {:?}", kind, value, longer);
                }
                // And every prefix of an invalid value's extensions: each char typed one by one.
                let mut seen_invalid = false;
                let mut typed_so_far = String::new();
                for ch in longer.chars() {
                    typed_so_far.push(ch);
                    let s = check_account(kind, &typed_so_far).state;
                    if seen_invalid {
                        prop_assert!(is_invalid(&s), "{:?} {:?}", kind, typed_so_far);
                    }
                    seen_invalid |= is_invalid(&s);
                    prop_assert_eq!(s == AccountState::Complete, kind.check(&typed_so_far).is_ok());
                }
            }
        }
    }
}
