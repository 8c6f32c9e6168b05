//! Today's date (UTC), for `[[ignore]]` expiry: a civil-calendar conversion, no time-zone data.

/// Today's date (UTC) as `YYYY-MM-DD`, for ignore expiry. `MCP_PIN_TODAY` overrides it (tests).
pub fn today() -> String {
    if let Some(t) = crate::env_vars::get(crate::env_vars::MCP_PIN_TODAY) {
        return t;
    }
    let secs =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0);
    civil_from_days(secs.div_euclid(86_400))
}

/// Days since 1970-01-01 as a civil date `YYYY-MM-DD` (Howard Hinnant's algorithm).
pub fn civil_from_days(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn today_matches_the_system_calendar() {
        let out = std::process::Command::new("date").args(["-u", "+%Y-%m-%d"]).output();
        if let Ok(out) = out {
            let expected = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if std::env::var_os("MCP_PIN_TODAY").is_none() && expected.len() == 10 {
                assert_eq!(super::today(), expected);
            }
        }
    }
}
