//! Human-readable numbers, dates, durations and relative times. Pure functions (the local
//! time-zone offset is the only thing read from the browser; calendar maths is chrono's),
//! unit-tested natively.

use chrono::{DateTime, Datelike, FixedOffset, Month, Timelike};

/// Milliseconds since the epoch, now (0 outside the browser).
pub fn now_ms() -> i64 {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Date::now() as i64
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0
    }
}

/// The browser's UTC offset in minutes at instant `ms` (east positive; 0 natively).
pub fn local_offset_min(ms: i64) -> i64 {
    #[cfg(target_arch = "wasm32")]
    {
        let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms as f64));
        -(date.get_timezone_offset() as i64)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = ms;
        0
    }
}

/// The instant `ms` as civil time at `offset_min` minutes east of UTC; `None` outside
/// chrono's range (about ±262,000 years) or for an offset of a day or more.
fn local(ms: i64, offset_min: i64) -> Option<DateTime<FixedOffset>> {
    let offset = FixedOffset::east_opt(i32::try_from(offset_min.checked_mul(60)?).ok()?)?;
    Some(DateTime::from_timestamp_millis(ms)?.with_timezone(&offset))
}

/// The fallback for an instant chrono cannot represent.
fn out_of_range(ms: i64) -> String {
    format!("{ms} ms")
}

/// `2026-11-29 14:05:09` at the given offset.
pub fn datetime_at(ms: i64, offset_min: i64) -> String {
    // Formatted by hand rather than with chrono's `format()`: its strftime machinery
    // costs more wasm than this whole module.
    local(ms, offset_min).map_or_else(
        || out_of_range(ms),
        |t| {
            format!(
                "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
                t.year(),
                t.month(),
                t.day(),
                t.hour(),
                t.minute(),
                t.second()
            )
        },
    )
}

/// `2026-11-29 14:05:09`, local time.
pub fn datetime(ms: i64) -> String {
    datetime_at(ms, local_offset_min(ms))
}

/// `14:05:09` at the given offset (the date is dropped: for axis labels).
fn time_of_day_at(ms: i64, offset_min: i64) -> String {
    local(ms, offset_min).map_or_else(
        || out_of_range(ms),
        |t| format!("{:02}:{:02}:{:02}", t.hour(), t.minute(), t.second()),
    )
}

/// `14:05:09`, local time (the date is dropped: for axis labels).
pub fn time_of_day(ms: i64) -> String {
    time_of_day_at(ms, local_offset_min(ms))
}

/// `Nov 29, 2026` at the given offset.
fn date_at(ms: i64, offset_min: i64) -> String {
    local(ms, offset_min).map_or_else(
        || out_of_range(ms),
        |t| {
            let month = Month::try_from(t.month() as u8).map_or("", |m| &m.name()[..3]);
            format!("{month} {}, {}", t.day(), t.year())
        },
    )
}

/// `Nov 29, 2026`, local time.
pub fn date(ms: i64) -> String {
    date_at(ms, local_offset_min(ms))
}

/// A duration: `850ms`, `42s`, `3m 05s`, `2h 07m`, `3d 4h`.
pub fn duration(ms: i64) -> String {
    let ms = ms.max(0);
    let s = ms / 1000;
    match s {
        _ if ms < 1000 => format!("{ms}ms"),
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m {:02}s", s / 60, s % 60),
        3600..=86_399 => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
        _ => format!("{}d {}h", s / 86_400, s % 86_400 / 3600),
    }
}

/// `just now`, `5 min ago`, `3 h ago`, `2 days ago`, else the date.
pub fn relative(ms: i64, now: i64) -> String {
    let s = (now - ms) / 1000;
    match s {
        i64::MIN..=44 => "just now".to_owned(),
        45..=3599 => format!("{} min ago", (s / 60).max(1)),
        3600..=86_399 => format!("{} h ago", s / 3600),
        86_400..=172_799 => "yesterday".to_owned(),
        172_800..=2_591_999 => format!("{} days ago", s / 86_400),
        _ => date(ms),
    }
}

/// A metric value for tables: 5 significant digits, scientific for very large or small,
/// `NaN`, `+inf`, `−inf` spelled out.
pub fn value(v: f64) -> String {
    if v.is_nan() {
        return "NaN".to_owned();
    }
    if v.is_infinite() {
        return if v > 0.0 { "+inf" } else { "−inf" }.to_owned();
    }
    let a = v.abs();
    if a != 0.0 && !(1e-4..1e7).contains(&a) {
        return scientific(v, 4);
    }
    let digits = if a == 0.0 {
        0
    } else {
        a.log10().floor() as i32
    };
    let decimals = (4 - digits).clamp(0, 8) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    }
}

/// `1.5e-6`: scientific with at most `decimals` mantissa decimals, trailing zeros dropped.
fn scientific(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$e}");
    match s.split_once('e') {
        Some((m, e)) if m.contains('.') => {
            format!("{}e{e}", m.trim_end_matches('0').trim_end_matches('.'))
        }
        _ => s,
    }
}

/// Thousands separators: `10,001`.
pub fn count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A size in bytes: `812 B`, `1.5 KiB`, `23.4 MiB`, `1.2 GiB` (1024-based).
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    let s = if v < 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    };
    format!("{s} {}", UNITS[unit])
}

/// Short axis label: 3 significant digits, `k`/`M`/`G` suffixes, scientific below 0.001.
pub fn axis(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && a < 1e-3 {
        return scientific(v, 2);
    }
    let (scaled, suffix) = match a {
        _ if a >= 1e9 => (v / 1e9, "G"),
        _ if a >= 1e6 => (v / 1e6, "M"),
        _ if a >= 1e4 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    let digits = if scaled == 0.0 {
        0
    } else {
        scaled.abs().log10().floor() as i32
    };
    let decimals = (2 - digits).clamp(0, 6) as usize;
    let s = format!("{scaled:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    };
    format!("{s}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_sizes() {
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(1023), "1023 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(200 * 1024 * 1024), "200 MiB");
        assert_eq!(bytes(5 * 1024 * 1024 * 1024), "5.0 GiB");
    }

    #[test]
    fn dates_and_times() {
        assert_eq!(datetime_at(0, 0), "1970-01-01 00:00:00");
        assert_eq!(datetime_at(1_795_000_000_000, 0), "2026-11-18 11:06:40");
        assert_eq!(datetime_at(1_795_000_000_000, 60), "2026-11-18 12:06:40");
        assert_eq!(datetime_at(951_782_400_000, 0), "2000-02-29 00:00:00");
        assert_eq!(datetime_at(-1000, 0), "1969-12-31 23:59:59");
        assert_eq!(datetime_at(1_795_000_000_000, -330), "2026-11-18 05:36:40");
        assert_eq!(datetime_at(1_795_000_000_999, 0), "2026-11-18 11:06:40");
        assert_eq!(datetime_at(i64::MAX, 0), format!("{} ms", i64::MAX));
        assert_eq!(time_of_day_at(1_795_000_000_000, 0), "11:06:40");
        assert_eq!(time_of_day_at(-1000, 0), "23:59:59");
        assert_eq!(date_at(1_795_000_000_000, 0), "Nov 18, 2026");
        assert_eq!(date_at(1_795_000_000_000, 13 * 60), "Nov 19, 2026");
        assert_eq!(date_at(0, 0), "Jan 1, 1970");
        assert_eq!(date_at(951_782_400_000, 0), "Feb 29, 2000");
        for (month, ms) in [
            ("Jan", 0),
            ("Apr", 10_000_000_000),
            ("Sep", 1_758_000_000_000),
        ] {
            assert!(date_at(ms, 0).starts_with(month), "{ms}");
        }
    }

    #[test]
    fn durations_and_relative_times() {
        assert_eq!(duration(850), "850ms");
        assert_eq!(duration(42_000), "42s");
        assert_eq!(duration(185_000), "3m 05s");
        assert_eq!(duration(7_620_000), "2h 07m");
        assert_eq!(duration(-5), "0ms");
        let now = 1_795_000_000_000;
        assert_eq!(relative(now - 10_000, now), "just now");
        assert_eq!(relative(now - 300_000, now), "5 min ago");
        assert_eq!(relative(now - 3 * 3_600_000, now), "3 h ago");
        assert_eq!(relative(now - 3 * 86_400_000, now), "3 days ago");
    }

    #[test]
    fn values() {
        assert_eq!(value(0.123456789), "0.12346");
        assert_eq!(value(1234.5678), "1234.6");
        assert_eq!(value(2.0), "2");
        assert_eq!(value(0.0), "0");
        assert_eq!(value(-0.5), "-0.5");
        assert_eq!(value(1e-9), "1e-9");
        assert_eq!(value(3.16227e-6), "3.1623e-6");
        assert_eq!(axis(3.16227e-6), "3.16e-6");
        assert_eq!(axis(0.000316), "3.16e-4");
        assert_eq!(axis(6.30957), "6.31");
        assert_eq!(axis(0.031623), "0.0316");
        assert_eq!(axis(12_000.0), "12k");
        assert_eq!(axis(2000.0), "2000");
        assert_eq!(axis(0.0), "0");
        assert_eq!(count(10_001), "10,001");
        assert_eq!(count(999), "999");
        assert_eq!(count(1_000_000), "1,000,000");
        assert_eq!(value(f64::NAN), "NaN");
        assert_eq!(value(f64::NEG_INFINITY), "−inf");
        assert_eq!(axis(2_500_000.0), "2.5M");
    }
}
