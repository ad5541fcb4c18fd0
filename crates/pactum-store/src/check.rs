//! Shape checks on values the caller passes: times and digests. They keep
//! the columns sortable and make a raw request (which could carry a key)
//! impossible to pass where a digest belongs.

/// Checks an RFC 3339 UTC time written `YYYY-MM-DDTHH:MM:SS[.fraction]Z`
/// (1 to 9 fraction digits). Returns why not.
pub(crate) fn time(s: &str) -> Result<(), String> {
    let b = s.as_bytes();
    let shape_err = || format!("{s:?} is not RFC 3339 UTC (YYYY-MM-DDTHH:MM:SS[.fraction]Z)");
    if b.len() < 20 || b.last() != Some(&b'Z') {
        return Err(shape_err());
    }
    let fixed = b.get(..19).ok_or_else(shape_err)?;
    for (i, &c) in fixed.iter().enumerate() {
        let ok = match i {
            4 | 7 => c == b'-',
            10 => c == b'T',
            13 | 16 => c == b':',
            _ => c.is_ascii_digit(),
        };
        if !ok {
            return Err(shape_err());
        }
    }
    let rest = b.get(19..b.len() - 1).ok_or_else(shape_err)?;
    if let Some((&dot, digits)) = rest.split_first() {
        if dot != b'.'
            || digits.is_empty()
            || digits.len() > 9
            || !digits.iter().all(u8::is_ascii_digit)
        {
            return Err(shape_err());
        }
    }
    let num = |from: usize, to: usize| -> u32 {
        fixed
            .get(from..to)
            .unwrap_or_default()
            .iter()
            .fold(0, |n, d| n * 10 + u32::from(d - b'0'))
    };
    let (month, day, hour, minute, second) =
        (num(5, 7), num(8, 10), num(11, 13), num(14, 16), num(17, 19));
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return Err(format!("{s:?} has a field out of range"));
    }
    Ok(())
}

/// Checks a digest written `sha256:<64 lowercase hex>`. Returns why not.
pub(crate) fn digest(s: &str) -> Result<(), String> {
    let ok = s.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64 && hex.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
    });
    if ok {
        Ok(())
    } else {
        // The value is not echoed: whatever was passed here by mistake
        // (a raw request, a header) must not reach a log through an error.
        Err(format!(
            "expected sha256:<64 lowercase hex>, got {} character(s)",
            s.chars().count()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times() {
        for ok in [
            "2026-11-30T01:02:03Z",
            "2026-11-30T01:02:03.5Z",
            "2026-11-30T01:02:03.123456789Z",
            "1999-12-31T23:59:60Z",
        ] {
            assert_eq!(time(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "2026-11-30",
            "2026-11-30T01:02:03",
            "2026-11-30T01:02:03+00:00",
            "2026-11-30 01:02:03Z",
            "2026-11-30t01:02:03z",
            "2026-11-30T01:02:03.Z",
            "2026-11-30T01:02:03.1234567890Z",
            "2026-13-30T01:02:03Z",
            "2026-00-30T01:02:03Z",
            "2026-11-00T01:02:03Z",
            "2026-11-30T24:02:03Z",
            "2026-11-30T01:60:03Z",
            "２026-11-30T01:02:03Z",
            "2026-11-30T01:02:03.1éZ",
        ] {
            assert!(time(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn digests() {
        let hex = "0123456789abcdef".repeat(4);
        assert_eq!(digest(&format!("sha256:{hex}")), Ok(()));
        for bad in [
            String::new(),
            hex.clone(),
            format!("sha256:{}", hex.to_uppercase()),
            format!("sha256:{}", &hex[1..]),
            format!("sha256:{hex}0"),
            format!("sha1:{hex}"),
            "Bearer sk-live-0123456789".to_string(),
        ] {
            assert!(digest(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_rejected_value_is_not_echoed_whole() {
        let long = format!("sk-{}", "x".repeat(100));
        let err = digest(&long).expect_err("a key is not a digest");
        assert!(!err.contains("sk-"), "{err}");
        assert!(err.contains("103 character"), "{err}");
    }
}
