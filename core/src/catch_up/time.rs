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

        #[test]
        fn agrees_with_a_day_count(days in 0i64..2_932_896, ms in 0i64..86_400_000) {
            // 0000-03-01 .. 8000: format the date back from the count and read it again.
            let t = days * 86_400_000 + ms - 62_162_035_200_000;
            let (y, m, d) = civil_from_days(t.div_euclid(86_400_000));
            let r = t.rem_euclid(86_400_000);
            let text = format!(
                "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
                r / 3_600_000, r / 60_000 % 60, r / 1_000 % 60, r % 1_000
            );
            proptest::prop_assert_eq!(timestamp_ms(&text), Some(t), "{}", text);
        }
    }

    fn civil_from_days(z: i64) -> (i64, i64, i64) {
        let z = z + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = doy - (153 * mp + 2) / 5 + 1;
        let m = if mp < 10 { mp + 3 } else { mp - 9 };
        (yoe + era * 400 + i64::from(m <= 2), m, d)
    }
}
