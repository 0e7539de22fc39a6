//! Unit tests of field decoding.

use serde_json::json;

use super::Fields;

fn body(v: serde_json::Value) -> Fields {
    Fields::new(v.as_object().unwrap().clone(), false)
}

#[test]
fn int64_as_number_or_string() {
    let f = body(json!({"a": 5, "b": "-7", "c": "x", "d": 1.5, "e": true, "g": 3.0}));
    assert_eq!(f.opt_i64("a").unwrap(), Some(5));
    assert_eq!(f.opt_i64("b").unwrap(), Some(-7));
    assert_eq!(f.opt_i64("g").unwrap(), Some(3));
    assert_eq!(f.opt_i64("zz").unwrap(), None);
    let e = f.opt_i64("c").unwrap_err().to_string();
    assert!(
        e.starts_with("Invalid value \"x\" for parameter 'c' supplied"),
        "{e}"
    );
    assert!(f.opt_i64("d").is_err());
    assert!(f.opt_i64("e").is_err());
}

#[test]
fn doubles_accept_non_finite_strings() {
    let f = body(
        json!({"a": "NaN", "b": "Infinity", "c": "-Infinity", "d": 0.5, "e": true, "f": "1.5"}),
    );
    assert!(f.opt_f64("a").unwrap().unwrap().is_nan());
    assert_eq!(f.opt_f64("b").unwrap(), Some(f64::INFINITY));
    assert_eq!(f.opt_f64("c").unwrap(), Some(f64::NEG_INFINITY));
    assert_eq!(f.opt_f64("d").unwrap(), Some(0.5));
    assert_eq!(f.opt_f64("f").unwrap(), Some(1.5));
    assert!(f.opt_f64("e").is_err());
}

#[test]
fn strings_are_strict_and_messages_match_mlflow() {
    let f = body(json!({"run_id": 31, "name": null}));
    let e = f.opt_str("run_id").unwrap_err().to_string();
    assert!(
        e.starts_with(
            "Invalid value 31 for parameter 'run_id' supplied:  Hint: Value was of type 'int'."
        ),
        "{e}"
    );
    assert_eq!(
        f.req_str("name").unwrap_err().to_string(),
        "Missing value for required parameter 'name'."
    );
}

#[test]
fn run_uuid_is_a_fallback_for_run_id() {
    assert_eq!(body(json!({"run_uuid": "abc"})).run_id().unwrap(), "abc");
    assert_eq!(
        body(json!({"run_id": "x", "run_uuid": "y"}))
            .run_id()
            .unwrap(),
        "x"
    );
    assert!(body(json!({})).run_id().is_err());
}

#[test]
fn nested_paths_in_messages() {
    let f = body(json!({"metrics": [{"key": "a", "value": 1}, {"key": "b"}]}));
    let items = f.msg_list("metrics").unwrap();
    assert_eq!(items[1].opt_i64("timestamp").unwrap(), None);
    assert_eq!(
        items[1].missing("timestamp").to_string(),
        "Missing value for required parameter 'metrics[1].timestamp'."
    );
    assert!(body(json!({"metrics": [1]})).msg_list("metrics").is_err());
    assert!(body(json!({"metrics": {}})).msg_list("metrics").is_err());
}

#[test]
fn query_values_and_enums() {
    let mut m = serde_json::Map::new();
    m.insert("run_ids".into(), json!(["a", "b"]));
    m.insert("view_type".into(), json!("DELETED_ONLY"));
    m.insert("max_results".into(), json!("10"));
    let f = Fields::new(m, true);
    assert_eq!(f.str_list("run_ids").unwrap(), vec!["a", "b"]);
    assert_eq!(f.opt_str("run_ids").unwrap().as_deref(), Some("a"));
    assert_eq!(f.opt_i64("max_results").unwrap(), Some(10));
    let v = f
        .opt_enum("view_type", crate::tracking::ViewType::parse)
        .unwrap();
    assert_eq!(v, Some(crate::tracking::ViewType::DeletedOnly));
    let f = body(json!({"view_type": 3, "status": "NOPE"}));
    assert_eq!(
        f.opt_enum("view_type", crate::tracking::ViewType::parse)
            .unwrap(),
        Some(crate::tracking::ViewType::All)
    );
    assert!(f
        .opt_enum("status", crate::tracking::ViewType::parse)
        .is_err());
}
