//! Permission levels as the Share dialog shows and sends them.

use api_types as json;

/// Every level, lowest first.
pub const LEVELS: [json::Level; 3] = [
    json::Level::CanRead,
    json::Level::CanEdit,
    json::Level::CanManage,
];

/// The wire name, e.g. `CAN_READ` (also the `<option>` value).
pub fn value(l: json::Level) -> &'static str {
    match l {
        json::Level::CanRead => "CAN_READ",
        json::Level::CanEdit => "CAN_EDIT",
        json::Level::CanManage => "CAN_MANAGE",
    }
}

/// The label a person reads, e.g. "Can read".
pub fn label(l: json::Level) -> &'static str {
    match l {
        json::Level::CanRead => "Can read",
        json::Level::CanEdit => "Can edit",
        json::Level::CanManage => "Can manage",
    }
}

/// What the level allows, for the select's tooltip.
pub fn meaning(l: json::Level) -> &'static str {
    match l {
        json::Level::CanRead => "See runs, params, metrics, charts and artifacts",
        json::Level::CanEdit => "Also log runs and rename the experiment",
        json::Level::CanManage => "Also change who has access and delete the experiment",
    }
}

/// Parses an `<option>` value (wire name, case-insensitive).
pub fn parse(s: &str) -> Option<json::Level> {
    LEVELS
        .into_iter()
        .find(|l| value(*l).eq_ignore_ascii_case(s.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_and_match_serde() {
        for l in LEVELS {
            assert_eq!(parse(value(l)), Some(l));
            let wire = serde_json::to_string(&l).expect("serialises");
            assert_eq!(wire, format!("\"{}\"", value(l)));
        }
        assert_eq!(parse("can_edit"), Some(json::Level::CanEdit));
        assert_eq!(parse("OWNER"), None);
        assert!(LEVELS.windows(2).all(|w| w[0] < w[1]));
    }
}
