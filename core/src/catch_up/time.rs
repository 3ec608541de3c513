//! [`timestamp_ms`]: the provider's `createdAt` (RFC 3339 date-time) as milliseconds since the
//! Unix epoch, read exactly as FORMAT.md's `events.catch_up` says.

/// Milliseconds since 1970-01-01T00:00:00Z of a date-time `YYYY-MM-DDTHH:MM:SS`, an optional
/// fraction (`.` and one or more digits, read to the millisecond, further digits cut), then `Z`
/// or `±HH:MM` (`T` and `Z` in either case). `None` for anything else: a space for the `T`,
/// missing seconds, second 60, an impossible date (`02-30`, `02-29` of a common year), an
/// offset past 23:59.
///
/// ```
/// use xborder_core::catch_up::timestamp_ms;
/// assert_eq!(timestamp_ms("1970-01-01T00:00:01.5Z"), Some(1_500));
/// assert_eq!(timestamp_ms("1970-01-01T01:00:00+01:00"), Some(0));
/// assert_eq!(timestamp_ms("2026-11-27t12:00:00.9999z"), timestamp_ms("2026-11-27T12:00:00.999Z"));
/// assert_eq!(timestamp_ms("2026-11-27 12:00:00Z"), None);
/// assert_eq!(timestamp_ms("2026-02-29T00:00:00Z"), None);
/// ```
pub fn timestamp_ms(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let year = digits(b, 0, 4)?;
    let month = digits(b, 5, 2)?;
    let day = digits(b, 8, 2)?;
    let hour = digits(b, 11, 2)?;
    let minute = digits(b, 14, 2)?;
    let second = digits(b, 17, 2)?;
    let fixed = [(4, b'-'), (7, b'-'), (13, b':'), (16, b':')];
    if fixed.iter().any(|&(i, c)| b.get(i) != Some(&c))
        || !matches!(b.get(10), Some(b'T' | b't'))
        || !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let mut at = 19;
    let mut millis = 0;
    if b.get(at) == Some(&b'.') {
        at += 1;
        let start = at;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            if at - start < 3 {
                millis = millis * 10 + i64::from(b.get(at).map_or(0, |d| d - b'0'));
            }
            at += 1;
        }
        match at - start {
            0 => return None,
            1 => millis *= 100,
            2 => millis *= 10,
            _ => {}
        }
    }
    let offset_minutes = match b.get(at..)? {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), ..] => {
            let rest = b.get(at..)?;
            if rest.len() != 6 || rest.get(3) != Some(&b':') {
                return None;
            }
            let (h, m) = (digits(rest, 1, 2)?, digits(rest, 4, 2)?);
            if h > 23 || m > 59 {
                return None;
            }
            let minutes = h * 60 + m;
            if *sign == b'-' {
                -minutes
            } else {
                minutes
            }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset_minutes * 60;
    Some(seconds * 1_000 + millis)
}

/// The date-time of `ms` since the Unix epoch as the provider writes `createdAt`
/// (`YYYY-MM-DDTHH:MM:SS.mmmZ`), [`timestamp_ms`] read backwards: for a host that keeps a
/// checkpoint of its own, or a test that writes records. `None` outside the years 0000–9999.
///
/// ```
/// use xborder_core::catch_up::{date_time, timestamp_ms};
/// assert_eq!(date_time(1_795_780_800_500).as_deref(), Some("2026-11-27T12:00:00.500Z"));
/// assert_eq!(date_time(-1).as_deref(), Some("1969-12-31T23:59:59.999Z"));
/// assert_eq!(timestamp_ms(&date_time(42).unwrap()), Some(42));
/// ```
pub fn date_time(ms: i64) -> Option<String> {
    let (days, rest) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Howard Hinnant's `civil_from_days`.
    let z = days.checked_add(719_468)?;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = (yoe + era * 400).checked_add(i64::from(month <= 2))?;
    (0..=9999).contains(&year).then(|| {
        format!(
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
            rest / 3_600_000,
            rest / 60_000 % 60,
            rest / 1_000 % 60,
            rest % 1_000
        )
    })
}

/// The number written by the `len` ASCII digits at `at`.
fn digits(b: &[u8], at: usize, len: usize) -> Option<i64> {
    b.get(at..at + len)?.iter().try_fold(0i64, |n, d| {
        d.is_ascii_digit().then(|| n * 10 + i64::from(d - b'0'))
    })
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::timestamp_ms;

    #[test]
    fn reads_what_the_contract_reads() {
        assert_eq!(timestamp_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            timestamp_ms("2026-11-27T12:00:00.000Z"),
            Some(1_795_780_800_000)
        );
        assert_eq!(
            timestamp_ms("2026-11-27T13:00:00+01:00"),
            Some(1_795_780_800_000)
        );
        assert_eq!(
            timestamp_ms("2026-11-27T11:00:00-01:00"),
            Some(1_795_780_800_000)
        );
        assert_eq!(
            timestamp_ms("2026-11-27T12:00:00.5Z"),
            Some(1_795_780_800_500)
        );
        assert_eq!(
            timestamp_ms("2026-11-27T12:00:00.05Z"),
            Some(1_795_780_800_050)
        );
        assert_eq!(
            timestamp_ms("2026-11-27T11:59:59.999999Z"),
            Some(1_795_780_799_999)
        );
        assert_eq!(
            timestamp_ms("2024-02-29T00:00:00Z"),
            Some(1_709_164_800_000)
        );
        assert_eq!(timestamp_ms("2000-02-29T00:00:00Z"), Some(951_782_400_000));
        assert_eq!(timestamp_ms("1969-12-31T23:59:59Z"), Some(-1_000));
        assert_eq!(
            timestamp_ms("2026-11-27T12:00:00+23:59"),
            Some(1_795_780_800_000 - 86_340_000)
        );
    }

    #[test]
    fn refuses_the_rest() {
        for bad in [
            "",
            "yesterday",
            "27/11/2026",
            "2026-11-27 12:00:00Z",
            "2026-11-27T12:00Z",
            "2026-11-27T12:00:60Z",
            "2026-11-27T24:00:00Z",
            "2026-11-27T12:60:00Z",
            "2026-13-01T00:00:00Z",
            "2026-00-01T00:00:00Z",
            "2026-11-00T00:00:00Z",
            "2026-11-31T00:00:00Z",
            "2100-02-29T00:00:00Z",
            "2026-11-27T12:00:00",
            "2026-11-27T12:00:00.Z",
            "2026-11-27T12:00:00+24:00",
            "2026-11-27T12:00:00+01:60",
            "2026-11-27T12:00:00+0100",
            "2026-11-27T12:00:00Z ",
            " 2026-11-27T12:00:00Z",
            "+2026-11-27T12:00:00Z",
            "2026-11-27T12:00:00+01:00:00",
            "2026-1-27T12:00:00Z",
            "２026-11-27T12:00:00Z",
        ] {
            assert_eq!(timestamp_ms(bad), None, "{bad}");
        }
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "\\PC{0,40}") {
            let _ = timestamp_ms(&s);
        }

        /// Every millisecond of the years 0000 to 9999 reads back as itself.
        #[test]
        fn reads_back_what_date_time_writes(t in -62_167_219_200_000i64..253_402_300_800_000) {
            let text = super::date_time(t).unwrap();
            proptest::prop_assert_eq!(timestamp_ms(&text), Some(t), "{}", text);
        }
    }

    #[test]
    fn date_time_within_four_digit_years() {
        use super::date_time;
        assert_eq!(
            date_time(-62_167_219_200_000).as_deref(),
            Some("0000-01-01T00:00:00.000Z")
        );
        assert_eq!(
            date_time(253_402_300_799_999).as_deref(),
            Some("9999-12-31T23:59:59.999Z")
        );
        assert_eq!(date_time(-62_167_219_200_001), None);
        assert_eq!(date_time(253_402_300_800_000), None);
        assert_eq!(date_time(i64::MIN), None);
        assert_eq!(date_time(i64::MAX), None);
    }
}
