//! Command-line options as `--name value` or `--name=value`, shared by the simulator and the
//! receiver service (`examples/receiver-rust` includes this file with `#[path]`: one parser, no
//! crate between a receiver and the simulator it is tested with).

/// The options in order: each `--name` with its value, `None` for a flag (a `--name` followed by
/// another `--option` or by nothing).
pub fn options(args: &[String]) -> Result<Vec<(String, Option<String>)>, String> {
    let mut items = Vec::new();
    let mut it = args.iter().peekable();
    while let Some(a) = it.next() {
        let Some(name) = a.strip_prefix("--") else {
            return Err(format!("unexpected argument {a}"));
        };
        if let Some((k, v)) = name.split_once('=') {
            items.push((k.to_owned(), Some(v.to_owned())));
        } else if it.peek().is_some_and(|n| !n.starts_with("--")) {
            items.push((name.to_owned(), it.next().cloned()));
        } else {
            items.push((name.to_owned(), None));
        }
    }
    Ok(items)
}

/// The value of `--name`, an error when it was given as a flag.
pub fn value(name: &str, v: Option<String>) -> Result<String, String> {
    v.ok_or_else(|| format!("--{name} needs a value"))
}

/// The value of `--name` as a number.
pub fn number<T: std::str::FromStr>(name: &str, v: Option<String>) -> Result<T, String> {
    let v = value(name, v)?;
    v.parse()
        .map_err(|_| format!("--{name}: {v} is not a valid number"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn options_values_and_flags() {
        let a: Vec<String> = ["--url", "http://x", "--quiet", "--events=5", "--n", "x"]
            .map(String::from)
            .into();
        let o = options(&a).unwrap();
        assert_eq!(
            o[..3],
            [
                ("url".to_owned(), Some("http://x".to_owned())),
                ("quiet".to_owned(), None),
                ("events".to_owned(), Some("5".to_owned())),
            ]
        );
        assert_eq!(number::<u32>("events", o[2].1.clone()), Ok(5));
        assert!(number::<u32>("n", o[3].1.clone())
            .unwrap_err()
            .contains("not a valid number"));
        assert_eq!(value("quiet", None).unwrap_err(), "--quiet needs a value");
        assert_eq!(
            options(&["stray".to_owned()]).unwrap_err(),
            "unexpected argument stray"
        );
    }
}
