//! Axis ticks at human steps, and their labels, for every chart of the app.
//!
//! - Numbers: 1, 2 or 5 × 10^k apart.
//! - Durations (ms): 1, 2 or 5 × 10^k ms below a second; 1, 2, 5, 10, 15 or 30 s; the same
//!   in minutes; 1, 2, 3, 6 or 12 h; 1, 2 or 3 days; 1, 2, 5, 10, … weeks.
//! - Wall-clock times: the same steps up to 3 days on the local clock, then 1 or 2 weeks
//!   from a Monday, 1, 2, 3 or 6 months and 1, 2, 5, 10, … years (calendar maths is
//!   chrono's).
//! - Log axes (positions are log10 of the value): 1, 2 and 5 in each decade, else whole
//!   decades (every 1, 2, 5, … decades), else round values when the range is within a decade.
//!
//! The densest step that gives at most the asked number of ticks wins. Each tick is an
//! integer multiple of its step and is labelled from that integer, not from the float: 0
//! reads `0` however the range was computed, and a label has exactly the decimals the step
//! needs, so no two ticks of an axis read the same.

use chrono::{DateTime, Datelike, Month, NaiveDate, Timelike};

/// Most ticks an axis gets, whatever is asked (bounds the work).
const MAX_TICKS: usize = 50;

const SECOND: i64 = 1000;
const MINUTE: i64 = 60 * SECOND;
const HOUR: i64 = 60 * MINUTE;
const DAY: i64 = 24 * HOUR;
const WEEK: i64 = 7 * DAY;

/// Steps of at least a second on time axes, ms (below: 1, 2 or 5 × 10^k ms; above: weeks).
const CLOCK_STEPS: [i64; 20] = [
    SECOND,
    2 * SECOND,
    5 * SECOND,
    10 * SECOND,
    15 * SECOND,
    30 * SECOND,
    MINUTE,
    2 * MINUTE,
    5 * MINUTE,
    10 * MINUTE,
    15 * MINUTE,
    30 * MINUTE,
    HOUR,
    2 * HOUR,
    3 * HOUR,
    6 * HOUR,
    12 * HOUR,
    DAY,
    2 * DAY,
    3 * DAY,
];

/// What an axis measures: it decides the steps and the labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TickScale {
    /// Plain numbers (steps, metric values).
    Number,
    /// log10 of positive numbers: a log axis in drawing space.
    Log10,
    /// A signed duration in ms (time since a run's start).
    Duration,
    /// Wall-clock time in ms since the epoch, placed and labelled on the clock
    /// `offset_min` minutes east of UTC (one offset for the whole axis, so two ticks never
    /// read the same across a daylight-saving change).
    Wall {
        /// The UTC offset, minutes.
        offset_min: i64,
    },
}

/// The ticks of one axis: where they are and what they read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ticks {
    /// Positions in axis units, ascending, inside the range.
    pub values: Vec<f64>,
    /// The label of each position.
    pub labels: Vec<String>,
}

impl Ticks {
    /// At most `max` ticks (at least 2 are asked for) on `[lo, hi]`, at the densest human
    /// step of `scale` that fits; none for an empty or non-finite range.
    pub fn new(scale: TickScale, lo: f64, hi: f64, max: usize) -> Ticks {
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Ticks::default();
        }
        let max = max.clamp(2, MAX_TICKS);
        let ticks = match scale {
            TickScale::Number => numbers(lo, hi, max),
            TickScale::Log10 => logs(lo, hi, max),
            TickScale::Duration => durations(lo, hi, max),
            TickScale::Wall { offset_min } => walls(lo, hi, max, offset_min * MINUTE),
        };
        let (values, labels) = ticks.into_iter().unzip();
        Ticks { values, labels }
    }

    /// The label of the tick nearest `v` (plotters hands back the positions it was given).
    pub fn label(&self, v: f64) -> String {
        self.values
            .iter()
            .zip(&self.labels)
            .min_by(|a, b| (a.0 - v).abs().total_cmp(&(b.0 - v).abs()))
            .map(|(_, l)| l.clone())
            .unwrap_or_default()
    }

    /// Number of ticks.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are no ticks.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// `mantissa × 10^exp`, kept exact so that its multiples are computed from integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Step {
    mantissa: i64,
    exp: i32,
}

impl Step {
    const fn new(mantissa: i64, exp: i32) -> Self {
        Step { mantissa, exp }
    }

    fn value(self) -> f64 {
        decimal(self.mantissa, self.exp)
    }

    /// The step as an integer (for steps of 1 or more).
    fn whole(self) -> i64 {
        self.mantissa * 10i64.pow(self.exp.max(0).unsigned_abs())
    }
}

/// The f64 nearest `n × 10^exp` (parsing rounds once; multiplying would round twice).
fn decimal(n: i64, exp: i32) -> f64 {
    format!("{n}e{exp}").parse().unwrap_or(f64::NAN)
}

/// 1, 2 and 5 × 10^e, for e from `from` on (40 decades).
fn one_two_five(from: i32) -> impl Iterator<Item = Step> {
    (from..from.saturating_add(40)).flat_map(|e| [1, 2, 5].map(|m| Step::new(m, e)))
}

/// The multiples of `step` inside `[lo, hi]`, as their integer `i × mantissa`; `None` when
/// there are more than `max`, or when the step is too fine for f64 to keep the multiples
/// apart.
fn multiples(step: Step, lo: f64, hi: f64, max: usize) -> Option<Vec<i64>> {
    let s = step.value();
    if !(s > 0.0 && s.is_finite()) || (hi - lo) / s >= (max + 1) as f64 {
        return None;
    }
    let (a, b) = ((lo / s).floor(), (hi / s).ceil());
    if a.abs().max(b.abs()) > 1e15 {
        return None;
    }
    let out: Vec<i64> = (a as i64..=b as i64)
        .filter_map(|i| i.checked_mul(step.mantissa))
        .filter(|&n| (lo..=hi).contains(&decimal(n, step.exp)))
        .collect();
    (out.len() <= max).then_some(out)
}

/// `n × 10^exp` written out in plain decimal, exactly (`8076, -2` → `80.76`).
fn plain(n: i64, exp: i32) -> String {
    let sign = if n < 0 { "-" } else { "" };
    let digits = n.unsigned_abs().to_string();
    if exp >= 0 {
        return format!("{sign}{digits}{}", "0".repeat(exp as usize));
    }
    let shift = exp.unsigned_abs() as usize;
    let digits = format!("{digits:0>width$}", width = shift + 1);
    let (int, frac) = digits.split_at(digits.len() - shift);
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

/// `n × 10^exp` in scientific notation, exactly (`10002, -8` → `1.0002e-4`).
fn scientific(n: i64, exp: i32) -> String {
    let sign = if n < 0 { "-" } else { "" };
    let digits = n.unsigned_abs().to_string();
    let e = exp + digits.len() as i32 - 1;
    let (first, rest) = digits.split_at(1);
    let rest = rest.trim_end_matches('0');
    if rest.is_empty() {
        format!("{sign}{first}e{e}")
    } else {
        format!("{sign}{first}.{rest}e{e}")
    }
}

/// Labels of the numbers `n × 10^exp`, all with one suffix picked by the largest (`k` from
/// 10^4, then `M`, `G`, `T`), or scientific below 0.001 and from 10^15.
fn number_labels(ns: &[i64], exp: i32) -> Vec<String> {
    let top = ns.iter().map(|n| n.unsigned_abs()).max().unwrap_or(0);
    if top == 0 {
        return ns.iter().map(|_| "0".to_owned()).collect();
    }
    let magnitude = exp + top.to_string().len() as i32 - 1;
    let (shift, suffix) = match magnitude {
        m if !(-3..15).contains(&m) => {
            let label = |&n: &i64| {
                if n == 0 {
                    "0".to_owned()
                } else {
                    scientific(n, exp)
                }
            };
            return ns.iter().map(label).collect();
        }
        12.. => (12, "T"),
        9.. => (9, "G"),
        6.. => (6, "M"),
        4.. => (3, "k"),
        _ => (0, ""),
    };
    ns.iter()
        .map(|&n| match n {
            0 => "0".to_owned(),
            n => format!("{}{suffix}", plain(n, exp - shift)),
        })
        .collect()
}

/// The label of one number `n × 10^exp`, as [`number_labels`] writes it.
fn number_label(n: i64, exp: i32) -> String {
    number_labels(&[n], exp).pop().unwrap_or_default()
}

/// Ticks of a linear number axis.
fn numbers(lo: f64, hi: f64, max: usize) -> Vec<(f64, String)> {
    let from = ((hi - lo) / max as f64).log10().floor() as i32 - 1;
    one_two_five(from)
        .take(12)
        .find_map(|step| Some((step, multiples(step, lo, hi, max)?)))
        .map(|(step, ns)| {
            let labels = number_labels(&ns, step.exp);
            ns.iter()
                .map(|&n| decimal(n, step.exp))
                .zip(labels)
                .collect()
        })
        .unwrap_or_default()
}

/// Ticks of a log axis; positions are log10 of the values.
fn logs(lo: f64, hi: f64, max: usize) -> Vec<(f64, String)> {
    // 1, 2 and 5 in each decade.
    if hi - lo < max as f64 {
        let fine: Vec<(f64, String)> = (lo.floor() as i32..=hi.ceil() as i32)
            .flat_map(|e| [1, 2, 5].map(|m| (m, e)))
            .map(|(m, e)| (decimal(m, e).log10(), m, e))
            .filter(|(pos, ..)| (lo..=hi).contains(pos))
            .map(|(pos, m, e)| (pos, number_label(m, e)))
            .collect();
        if (2..=max).contains(&fine.len()) {
            return fine;
        }
        if fine.len() < 2 {
            return log_linear(lo, hi, max);
        }
    }
    // Whole decades, every 1, 2, 5, 10, … of them.
    let decades = one_two_five(0)
        .take(12)
        .find_map(|step| multiples(step, lo, hi, max))
        .unwrap_or_default();
    if decades.len() < 2 {
        return log_linear(lo, hi, max);
    }
    decades
        .into_iter()
        .filter_map(|k| {
            let k = i32::try_from(k).ok()?;
            Some((f64::from(k), number_label(1, k)))
        })
        .collect()
}

/// Round values of a log axis narrower than its 1-2-5 ticks: linear ticks of the values,
/// placed at their log10.
fn log_linear(lo: f64, hi: f64, max: usize) -> Vec<(f64, String)> {
    numbers(10f64.powf(lo), 10f64.powf(hi), max)
        .into_iter()
        .filter(|(v, _)| *v > 0.0)
        .map(|(v, label)| (v.log10().clamp(lo, hi), label))
        .collect()
}

/// Candidate steps of a time axis up to `CLOCK_STEPS`' last, ascending.
fn clock_steps() -> impl Iterator<Item = Step> {
    let sub_second = one_two_five(-6).take_while(|s| s.value() < 1000.0);
    sub_second.chain(CLOCK_STEPS.map(|ms| Step::new(ms, 0)))
}

/// Ticks of a duration axis (ms).
fn durations(lo: f64, hi: f64, max: usize) -> Vec<(f64, String)> {
    let weeks = one_two_five(0)
        .take(21)
        .map(|s| Step::new(WEEK * s.whole(), 0));
    let Some((step, ns)) = clock_steps()
        .chain(weeks)
        .find_map(|step| Some((step, multiples(step, lo, hi, max)?)))
    else {
        return Vec::new();
    };
    let top = ns.iter().map(|n| n.unsigned_abs()).max().unwrap_or(0);
    let ms_only = step.value() < 1000.0 && decimal(top as i64, step.exp) < 1000.0;
    ns.iter()
        .map(|&n| {
            let label = duration_label(n, step, ms_only);
            (decimal(n, step.exp), label)
        })
        .collect()
}

/// Whole seconds (rounded down) and the fraction's digits (`""` when whole) of the
/// multiple `n × 10^exp` ms of `step`: the fraction has the decimals the step needs.
fn seconds_of(n: i64, step: Step) -> (i64, String) {
    if step.value() >= 1000.0 {
        // Steps of a second or more are whole ms (`exp` 0).
        return (n.div_euclid(SECOND), String::new());
    }
    // `n` counts 10^exp ms, i.e. 10^-(3 - exp) s.
    let decimals = (3 - step.exp) as u32;
    let per_second = 10i64.pow(decimals);
    let frac = format!("{:0w$}", n.rem_euclid(per_second), w = decimals as usize);
    (
        n.div_euclid(per_second),
        frac.trim_end_matches('0').to_owned(),
    )
}

/// A duration tick `n × 10^exp` ms: `0`, `250ms`, `45s`, `1m 40.5s`, `2h 05m`, `3d 4h`;
/// from its largest unit down to the step's unit, `−` before a time before the origin.
fn duration_label(n: i64, step: Step, ms_only: bool) -> String {
    if n == 0 {
        return "0".to_owned();
    }
    let sign = if n < 0 { "−" } else { "" };
    if ms_only {
        return format!("{sign}{}ms", plain(n.abs(), step.exp));
    }
    let (secs, frac) = seconds_of(n.abs(), step);
    let step_ms = step.value();
    let lowest = match step_ms {
        s if s < MINUTE as f64 => 1,
        s if s < HOUR as f64 => 60,
        s if s < DAY as f64 => 3600,
        _ => 86_400,
    };
    let parts = [
        (secs / 86_400, "d", 86_400),
        (secs % 86_400 / 3600, "h", 3600),
        (secs % 3600 / 60, "m", 60),
        (secs % 60, "s", 1),
    ];
    let mut out = String::from(sign);
    let mut first = true;
    for (v, unit, size) in parts {
        if size < lowest || (first && v == 0 && size > lowest) {
            continue;
        }
        let v = if first || unit == "h" {
            v.to_string()
        } else {
            format!("{v:02}")
        };
        if !first {
            out.push(' ');
        }
        out.push_str(&v);
        if unit == "s" && !frac.is_empty() {
            out.push('.');
            out.push_str(&frac);
        }
        out.push_str(unit);
        first = false;
    }
    out
}

/// A step of a wall-clock axis.
#[derive(Debug, Clone, Copy, PartialEq)]
enum WallStep {
    /// A fixed step that divides a day (or is a day or two), on the local clock.
    Fixed(Step),
    /// One or two weeks from a Monday.
    Weeks(i64),
    /// Months from January (1, 2, 3 or 6).
    Months(u32),
    /// Years (1, 2, 5, 10, …).
    Years(i32),
}

impl WallStep {
    /// About how long the step is, ms.
    fn approx_ms(self) -> f64 {
        match self {
            WallStep::Fixed(s) => s.value(),
            WallStep::Weeks(w) => (w * WEEK) as f64,
            WallStep::Months(m) => f64::from(m) * 30.44 * DAY as f64,
            WallStep::Years(y) => f64::from(y) * 365.25 * DAY as f64,
        }
    }
}

/// Candidate steps of a wall-clock axis, ascending.
fn wall_steps() -> impl Iterator<Item = WallStep> {
    let months = [1, 2, 3, 6].map(WallStep::Months);
    let years = one_two_five(0)
        .take(18)
        .filter_map(|s| Some(WallStep::Years(i32::try_from(s.whole()).ok()?)));
    clock_steps()
        .map(WallStep::Fixed)
        .chain([1, 2].map(WallStep::Weeks))
        .chain(months)
        .chain(years)
}

/// Local midnight of the first day of `month` (1-based) of `year`, as local ms.
fn month_start(year: i32, month: u32) -> Option<i64> {
    let date = NaiveDate::from_ymd_opt(year, month, 1)?;
    Some(date.and_hms_opt(0, 0, 0)?.and_utc().timestamp_millis())
}

/// The local date and time `secs` local seconds after the epoch; `None` outside chrono's
/// range.
fn civil(secs: i64) -> Option<chrono::NaiveDateTime> {
    Some(DateTime::from_timestamp(secs, 0)?.naive_utc())
}

/// [`civil`] of local ms, rounded down to the second.
fn civil_ms(ms: f64) -> Option<chrono::NaiveDateTime> {
    civil((ms.floor() as i64).div_euclid(SECOND))
}

/// The ticks of `step` inside local `[lo, hi]` as `(n, exp)` (local ms `n × 10^exp`), when
/// at most `max`.
fn wall_ticks(step: WallStep, lo: f64, hi: f64, max: usize) -> Option<Vec<(i64, i32)>> {
    if (hi - lo) / step.approx_ms() >= (max + 2) as f64 {
        return None;
    }
    let ms = |v: Vec<i64>| v.into_iter().map(|n| (n, 0)).collect::<Vec<_>>();
    let out = match step {
        WallStep::Fixed(s) => {
            let exp = s.exp;
            multiples(s, lo, hi, max)?
                .into_iter()
                .map(|n| (n, exp))
                .collect()
        }
        // 1970-01-05 was a Monday.
        WallStep::Weeks(w) => {
            let monday = (4 * DAY) as f64;
            let weeks = multiples(Step::new(w * WEEK, 0), lo - monday, hi - monday, max)?;
            ms(weeks.into_iter().map(|n| n + 4 * DAY).collect())
        }
        WallStep::Months(every) => {
            let first = civil_ms(lo)?;
            let mut out = Vec::new();
            let (mut year, mut month) = (first.year(), first.month0() / every * every);
            for _ in 0..=max + 1 {
                let at = month_start(year, month + 1)?;
                if at as f64 > hi {
                    break;
                }
                if at as f64 >= lo {
                    out.push(at);
                }
                month += every;
                if month >= 12 {
                    (year, month) = (year + 1, month - 12);
                }
            }
            ms(out)
        }
        WallStep::Years(every) => {
            let (first, last) = (civil_ms(lo)?.year(), civil_ms(hi)?.year());
            let start = first.div_euclid(every) * every;
            ms((start..=last)
                .step_by(every.unsigned_abs() as usize)
                .filter_map(|y| month_start(y, 1))
                .filter(|&at| (lo..=hi).contains(&(at as f64)))
                .collect())
        }
    };
    (out.len() <= max).then_some(out)
}

/// Ticks of a wall-clock axis (ms since the epoch), on the clock `offset` ms east of UTC.
fn walls(lo: f64, hi: f64, max: usize, offset: i64) -> Vec<(f64, String)> {
    let (llo, lhi) = (lo + offset as f64, hi + offset as f64);
    let Some((step, ticks)) = wall_steps().find_map(|s| Some((s, wall_ticks(s, llo, lhi, max)?)))
    else {
        return Vec::new();
    };
    let spans_days = match (ticks.first(), ticks.last()) {
        (Some(a), Some(b)) => decimal(b.0, b.1) - decimal(a.0, a.1) >= DAY as f64,
        _ => false,
    };
    ticks
        .iter()
        .map(|&(n, exp)| {
            let label = wall_label(n, step, spans_days).unwrap_or_else(|| plain(n, exp));
            (decimal(n, exp) - offset as f64, label)
        })
        .collect()
}

/// `Nov 18`.
fn month_day(t: &chrono::NaiveDateTime) -> String {
    format!("{} {}", month_name(t.month()), t.day())
}

/// `Nov` for 11.
fn month_name(month: u32) -> &'static str {
    u8::try_from(month)
        .ok()
        .and_then(|m| Month::try_from(m).ok())
        .map_or("", |m| &m.name()[..3])
}

/// A wall-clock tick at local `n` (a multiple of a fixed step, counted in the step's
/// 10^exp ms; else ms): `14:05:30.25`, `14:05:30`, `14:05` (the date instead at midnight,
/// and before the time when the ticks span a day or more), `Nov 18`, `Nov 2026`, `2026`.
fn wall_label(n: i64, step: WallStep, spans_days: bool) -> Option<String> {
    let (secs, frac) = match step {
        WallStep::Fixed(s) => seconds_of(n, s),
        _ => (n.div_euclid(SECOND), String::new()),
    };
    let t = civil(secs)?;
    let label = match step {
        WallStep::Years(_) => t.year().to_string(),
        WallStep::Months(_) => format!("{} {}", month_name(t.month()), t.year()),
        WallStep::Weeks(_) => month_day(&t),
        WallStep::Fixed(s) if s.value() >= DAY as f64 => month_day(&t),
        WallStep::Fixed(s) => {
            let midnight = secs.rem_euclid(86_400) == 0 && frac.is_empty();
            let time = if s.value() >= MINUTE as f64 {
                format!("{:02}:{:02}", t.hour(), t.minute())
            } else {
                format!("{:02}:{:02}:{:02}", t.hour(), t.minute(), t.second())
            };
            let time = if frac.is_empty() {
                time
            } else {
                format!("{time}.{frac}")
            };
            match (midnight, spans_days) {
                (true, _) => month_day(&t),
                (false, true) => format!("{} {time}", month_day(&t)),
                (false, false) => time,
            }
        }
    };
    Some(label)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-11-18 11:06:40 UTC, a Wednesday.
    const T0: f64 = 1_795_000_000_000.0;

    /// The ticks of `scale` on `[lo, hi]`, checked for what every axis must hold: at most
    /// `max` ticks (and at least 2 when 5 or more are asked for), ascending, inside the
    /// range, no label twice, no label in scientific notation for a tick that is 0.
    fn check(scale: TickScale, lo: f64, hi: f64, max: usize) -> Ticks {
        let t = Ticks::new(scale, lo, hi, max);
        let ctx = format!(
            "{scale:?} on {lo}..{hi}, at most {max}: {:?} at {:?}",
            t.labels, t.values
        );
        assert_eq!(t.values.len(), t.labels.len(), "{ctx}");
        assert!(t.len() <= max, "too many ticks: {ctx}");
        assert!(max < 5 || t.len() >= 2, "too few ticks: {ctx}");
        assert!(
            t.values.iter().all(|v| (lo..=hi).contains(v)),
            "tick outside the range: {ctx}"
        );
        assert!(
            t.values.windows(2).all(|w| w[0] < w[1]),
            "ticks not ascending: {ctx}"
        );
        let mut seen = std::collections::HashSet::new();
        for l in &t.labels {
            assert!(!l.is_empty(), "empty label: {ctx}");
            assert!(seen.insert(l), "label {l:?} repeated: {ctx}");
        }
        t
    }

    /// Whether `step` is 1, 2 or 5 × 10^k (within float rounding).
    fn one_two_five_step(step: f64) -> bool {
        let k = step.log10().floor();
        let m = step / 10f64.powf(k);
        [1.0, 2.0, 5.0, 10.0].iter().any(|r| (m - r).abs() < 1e-6)
    }

    /// The step between consecutive ticks, checked to be the same everywhere, and the ticks
    /// checked to be its multiples.
    fn even_step(values: &[f64], ctx: &str) -> f64 {
        let step = values[1] - values[0];
        for w in values.windows(2) {
            assert!(
                ((w[1] - w[0]) - step).abs() <= step * 1e-6,
                "uneven ticks: {ctx}"
            );
        }
        let k = values[0] / step;
        assert!(
            (k - k.round()).abs() < 1e-6,
            "ticks off the step's multiples: {ctx}"
        );
        step
    }

    fn number_ranges() -> Vec<(f64, f64)> {
        let mut out = Vec::new();
        for e in -9..=9 {
            let unit = 10f64.powi(e);
            for width in [1.0, 0.37, 3.3, 7.9] {
                let w = width * unit;
                for start in [
                    0.0,
                    0.13 * unit,
                    -0.5 * w,
                    -1.7 * w,
                    12.345 * unit,
                    1e3 * unit,
                ] {
                    out.push((start, start + w));
                }
            }
        }
        out
    }

    #[test]
    fn number_ticks_are_round_distinct_and_within_bounds() {
        for (lo, hi) in number_ranges() {
            for max in [3, 5, 6, 10] {
                let t = check(TickScale::Number, lo, hi, max);
                if t.len() >= 2 {
                    let ctx = format!("{lo}..{hi} max {max}: {:?}", t.labels);
                    let step = even_step(&t.values, &ctx);
                    assert!(
                        one_two_five_step(step),
                        "step {step} not 1, 2 or 5 × 10^k: {ctx}"
                    );
                    // Densest: the next finer 1-2-5 step would give more than `max`.
                    assert!(t.len() * 5 >= max * 2 || max < 5, "sparse: {ctx}");
                }
            }
        }
    }

    #[test]
    fn number_labels_have_the_precision_the_range_needs() {
        let labels = |lo, hi, max| Ticks::new(TickScale::Number, lo, hi, max).labels;
        // Around 80,800 spanning 100: `80.8k` three times before.
        assert_eq!(
            labels(80_750.0, 80_850.0, 5),
            ["80.76k", "80.78k", "80.8k", "80.82k", "80.84k"]
        );
        assert_eq!(labels(-0.05, 1.05, 5), ["0", "0.5", "1"]);
        assert_eq!(labels(0.0, 20_000.0, 5), ["0", "5k", "10k", "15k", "20k"]);
        assert_eq!(
            labels(1.0001e-4, 1.0009e-4, 5),
            ["1.0002e-4", "1.0004e-4", "1.0006e-4", "1.0008e-4"]
        );
        assert_eq!(
            labels(-1e6 - 3.0, -1e6 + 3.0, 5),
            ["-1.000002M", "-1M", "-0.999998M"]
        );
        assert_eq!(labels(1e9, 3e9, 5), ["1G", "1.5G", "2G", "2.5G", "3G"]);
        assert_eq!(
            labels(-2.5e-9, -0.5e-9, 5),
            ["-2.5e-9", "-2e-9", "-1.5e-9", "-1e-9", "-5e-10"]
        );
    }

    #[test]
    fn a_range_around_zero_with_float_noise_has_an_exact_zero() {
        // A smoothed group mean that should be 0 but is off by float error.
        for (lo, hi) in [
            (-0.05000000000000001, 1.05),
            (-1.36e-20, 1.0),
            (-0.30000000000000004, 0.1),
            (-2.7755575615628914e-17, 0.6),
            (-7.0, 7.000000000000001),
        ] {
            let t = check(TickScale::Number, lo, hi, 5);
            let zero = t.values.iter().position(|&v| v == 0.0);
            let ctx = format!("{lo}..{hi}: {:?} at {:?}", t.labels, t.values);
            let zero = zero.unwrap_or_else(|| panic!("no tick at exactly 0: {ctx}"));
            assert_eq!(t.labels[zero], "0", "{ctx}");
            assert!(t.labels.iter().all(|l| !l.contains('e')), "{ctx}");
        }
    }

    /// Whether `ms` is a step a duration axis may take.
    fn duration_step(ms: f64) -> bool {
        let exact = |v: i64| (ms - v as f64).abs() < 1e-6;
        (ms < 1000.0 && one_two_five_step(ms))
            || CLOCK_STEPS.iter().any(|&s| exact(s))
            || (ms >= WEEK as f64 && one_two_five_step(ms / WEEK as f64))
    }

    const SPANS_MS: [f64; 22] = [
        3.0,
        17.0,
        240.0,
        800.0,
        1_500.0,
        10_000.0,
        59_000.0,
        200_000.0,
        500_000.0,
        1_000_000.0,
        3_600_000.0,
        5.5 * 3_600_000.0,
        20.0 * 3_600_000.0,
        86_400_000.0,
        2.5 * 86_400_000.0,
        6.0 * 86_400_000.0,
        10.0 * 86_400_000.0,
        17.0 * 86_400_000.0,
        30.0 * 86_400_000.0,
        90.0 * 86_400_000.0,
        365.0 * 86_400_000.0,
        2_000.0 * 86_400_000.0,
    ];

    #[test]
    fn duration_ticks_are_human_steps_from_milliseconds_to_weeks() {
        for span in SPANS_MS {
            for start in [
                0.0,
                123_456.0,
                7_500_000.0,
                -30_000.0,
                3.0 * WEEK as f64 + 0.5,
                -span / 3.0,
            ] {
                for max in [4, 6, 8] {
                    let (lo, hi) = (start, start + span);
                    let t = check(TickScale::Duration, lo, hi, max);
                    if t.len() >= 2 {
                        let ctx = format!("{lo}..{hi} max {max}: {:?}", t.labels);
                        let step = even_step(&t.values, &ctx);
                        assert!(
                            duration_step(step),
                            "step {step} ms is not a human step: {ctx}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn duration_labels_read_like_durations() {
        let labels = |lo, hi, max| Ticks::new(TickScale::Duration, lo, hi, max).labels;
        // A 200 s run: `0ms · 16m 40s · 33m 20s`-style steps of 1,000 s before.
        assert_eq!(labels(0.0, 200_000.0, 6), ["0", "1m", "2m", "3m"]);
        assert_eq!(
            labels(0.0, 3_000_000.0, 6),
            ["0", "10m", "20m", "30m", "40m", "50m"]
        );
        assert_eq!(
            labels(0.0, 900.0, 5),
            ["0", "200ms", "400ms", "600ms", "800ms"]
        );
        assert_eq!(
            labels(-3_000.0, 9_000.0, 6),
            ["−2s", "0", "2s", "4s", "6s", "8s"]
        );
        // A one-minute window an hour in: `1h 00m` three times before.
        assert_eq!(
            labels(3_600_000.0, 3_660_000.0, 6),
            [
                "1h 00m 00s",
                "1h 00m 15s",
                "1h 00m 30s",
                "1h 00m 45s",
                "1h 01m 00s"
            ]
        );
        // Half a second at 1m 40s: `1m 40s` six times before.
        assert_eq!(
            labels(100_000.0, 100_500.0, 6),
            ["1m 40s", "1m 40.1s", "1m 40.2s", "1m 40.3s", "1m 40.4s", "1m 40.5s"]
        );
        assert_eq!(
            labels(0.0, 7.0 * 86_400_000.0, 8),
            ["0", "1d", "2d", "3d", "4d", "5d", "6d", "7d"]
        );
        assert_eq!(
            labels(0.0, 60.0 * 86_400_000.0, 6),
            ["0", "14d", "28d", "42d", "56d"]
        );
        assert_eq!(
            labels(0.0, 30.0 * 3_600_000.0, 6),
            ["0", "6h", "12h", "18h", "1d 0h", "1d 6h"]
        );
    }

    /// The local dates and times of wall-clock ticks.
    fn local_times(values: &[f64], off: f64) -> Vec<chrono::NaiveDateTime> {
        values.iter().map(|v| civil_ms(v + off).unwrap()).collect()
    }

    #[test]
    fn wall_ticks_fall_on_calendar_units_from_milliseconds_to_years() {
        for offset_min in [0, 60, 330, -420] {
            let scale = TickScale::Wall { offset_min };
            let off = (offset_min * MINUTE) as f64;
            for span in SPANS_MS {
                for start in [T0, T0 + 0.5, T0 - 4_321_000.0, T0 + 41.0 * DAY as f64] {
                    for max in [4, 6, 8] {
                        let (lo, hi) = (start, start + span);
                        let t = check(scale, lo, hi, max);
                        if t.len() < 2 {
                            continue;
                        }
                        let ctx =
                            format!("{offset_min} min, {lo}..{hi}, max {max}: {:?}", t.labels);
                        let local: Vec<f64> = t.values.iter().map(|v| v + off).collect();
                        let step = local[1] - local[0];
                        if step < DAY as f64 - 1.0 {
                            even_step(&local, &ctx);
                            assert!(duration_step(step), "step {step} ms: {ctx}");
                            continue;
                        }
                        let times = local_times(&t.values, off);
                        let midnight =
                            |d: &chrono::NaiveDateTime| d.time() == chrono::NaiveTime::MIN;
                        assert!(times.iter().all(midnight), "not at midnight: {ctx}");
                        let days: Vec<i64> = local
                            .windows(2)
                            .map(|w| ((w[1] - w[0]) / DAY as f64).round() as i64)
                            .collect();
                        if days.iter().all(|&d| d == days[0]) && [1, 2, 3, 7, 14].contains(&days[0])
                        {
                            if days[0] >= 7 {
                                let monday =
                                    |d: &chrono::NaiveDateTime| d.weekday() == chrono::Weekday::Mon;
                                assert!(times.iter().all(monday), "weeks not from Monday: {ctx}");
                            }
                            continue;
                        }
                        assert!(
                            times.iter().all(|d| d.day() == 1),
                            "not calendar months: {ctx}"
                        );
                        let months: Vec<i32> = times
                            .windows(2)
                            .map(|w| {
                                (w[1].year() - w[0].year()) * 12 + w[1].month() as i32
                                    - w[0].month() as i32
                            })
                            .collect();
                        let every = months[0];
                        assert!(months.iter().all(|&m| m == every), "uneven months: {ctx}");
                        let years = every % 12 == 0 && one_two_five_step(f64::from(every / 12));
                        assert!(
                            [1, 2, 3, 6].contains(&every) || years,
                            "every {every} months: {ctx}"
                        );
                        assert!(
                            times.iter().all(|d| d.month0() % every.min(12) as u32 == 0),
                            "{ctx}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn wall_labels_suit_the_step() {
        // At UTC+1, T0 is 12:06:40 on Wed Nov 18.
        let labels = |lo: f64, hi: f64, max| {
            Ticks::new(TickScale::Wall { offset_min: 60 }, lo, hi, max).labels
        };
        // 200 s and one hour: whole minutes (`12:06:40 · 12:40:00` before).
        assert_eq!(
            labels(T0, T0 + 200_000.0, 6),
            ["12:07", "12:08", "12:09", "12:10"]
        );
        assert_eq!(
            labels(T0, T0 + 3_600_000.0, 6),
            ["12:10", "12:20", "12:30", "12:40", "12:50", "13:00"]
        );
        assert_eq!(
            labels(T0, T0 + 800.0, 5),
            [
                "12:06:40",
                "12:06:40.2",
                "12:06:40.4",
                "12:06:40.6",
                "12:06:40.8"
            ]
        );
        assert_eq!(
            labels(T0, T0 + 50_000.0, 6),
            ["12:06:40", "12:06:50", "12:07:00", "12:07:10", "12:07:20", "12:07:30"]
        );
        // Three days: the date at midnight and before each time.
        assert_eq!(
            labels(T0, T0 + 3.0 * DAY as f64, 6),
            [
                "Nov 19",
                "Nov 19 12:00",
                "Nov 20",
                "Nov 20 12:00",
                "Nov 21",
                "Nov 21 12:00"
            ]
        );
        // A month: Mondays; a year: every other month.
        assert_eq!(
            labels(T0, T0 + 30.0 * DAY as f64, 6),
            ["Nov 23", "Nov 30", "Dec 7", "Dec 14"]
        );
        assert_eq!(
            labels(T0, T0 + 365.0 * DAY as f64, 6),
            ["Jan 2027", "Mar 2027", "May 2027", "Jul 2027", "Sep 2027", "Nov 2027"]
        );
        // Around midnight UTC, on UTC: the date instead of 00:00.
        let midnight = T0 + 46_400_000.0;
        let utc = Ticks::new(
            TickScale::Wall { offset_min: 0 },
            midnight - 600_000.0,
            midnight + 600_000.0,
            5,
        );
        assert_eq!(utc.labels, ["23:50", "23:55", "Nov 19", "00:05", "00:10"]);
        assert_eq!(utc.values[2], midnight);
    }

    #[test]
    fn log_ticks_are_decades_or_one_two_five_within_them() {
        let ranges = [
            (-9.0, 9.0),
            (-0.05, 1.05),
            (-0.3, 2.3),
            (0.0, 1.0),
            (2.0, 2.001),
            (-5.2, -4.9),
            (-300.0, 300.0),
            (0.301, 0.7),
            (-2.2, 2.2),
            (3.01, 3.99),
            (-12.5, -3.1),
            (8.9, 9.3),
        ];
        for (lo, hi) in ranges {
            for max in [3, 5, 6] {
                let t = check(TickScale::Log10, lo, hi, max);
                if t.len() < 2 {
                    continue;
                }
                let ctx = format!("{lo}..{hi} max {max}: {:?}", t.labels);
                let decades = t.values.iter().all(|p| p.fract() == 0.0);
                let values: Vec<f64> = t.values.iter().map(|p| 10f64.powf(*p)).collect();
                if decades {
                    let step = even_step(&t.values, &ctx);
                    assert!(one_two_five_step(step), "every {step} decades: {ctx}");
                } else if !values.iter().all(|&v| one_two_five_step(v)) {
                    // Within a decade: round values evenly spaced.
                    let step = values[1] - values[0];
                    for w in values.windows(2) {
                        assert!(((w[1] - w[0]) - step).abs() < step * 1e-6, "{ctx}");
                    }
                    assert!(one_two_five_step(step), "{ctx}");
                }
            }
        }
        let labels = |lo, hi, max| Ticks::new(TickScale::Log10, lo, hi, max).labels;
        // Values 1 to 10: `6.31 · 3.98 · 2.51` before.
        assert_eq!(labels(-0.05, 1.05, 5), ["1", "2", "5", "10"]);
        assert_eq!(labels(-0.1, 3.1, 5), ["1", "10", "100", "1000"]);
        assert_eq!(labels(-9.5, 9.5, 5), ["1e-5", "1", "100k"]);
        assert_eq!(labels(-4.2, -0.8, 5), ["1e-4", "0.001", "0.01", "0.1"]);
        assert_eq!(
            labels(2.0, 2.001, 5),
            ["100", "100.05", "100.1", "100.15", "100.2"]
        );
    }
}
