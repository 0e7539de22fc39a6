//! Unit tests of the search grammar parser.

use super::*;

fn ident(kind: Option<&str>, key: &str) -> Ident {
    Ident {
        kind: kind.map(str::to_string),
        key: key.to_string(),
    }
}

#[test]
fn parses_a_conjunction_of_typed_clauses() {
    let c = parse_filter(
        "metrics.rmse < 0.8 AND params.model = 'cnn' and tags.mlflow.parentRunId = \"5f1c\"",
    )
    .unwrap();
    assert_eq!(c.len(), 3);
    assert_eq!(c[0].ident, ident(Some("metrics"), "rmse"));
    assert_eq!((c[0].op, &c[0].value), (Op::Lt, &Literal::Number(0.8)));
    assert_eq!(c[1].ident, ident(Some("params"), "model"));
    assert_eq!(c[1].value, Literal::Str("cnn".into()));
    assert_eq!(c[2].ident, ident(Some("tags"), "mlflow.parentRunId"));
    assert_eq!(c[2].value, Literal::Str("5f1c".into()));
}

#[test]
fn quoted_keys_and_aliases() {
    let c = parse_filter("tags.`my key` LIKE 'a%' AND metrics.\"my-metric\">=-1e3").unwrap();
    assert_eq!(c[0].ident, ident(Some("tags"), "my key"));
    assert_eq!(c[0].op, Op::Like);
    assert_eq!(c[1].ident, ident(Some("metrics"), "my-metric"));
    assert_eq!((c[1].op, &c[1].value), (Op::Ge, &Literal::Number(-1000.0)));
    let c = parse_filter("`Run name` ILIKE '%x%' AND run_name != 'it''s'").unwrap();
    assert_eq!(c[0].ident, ident(None, "Run name"));
    assert_eq!(c[1].value, Literal::Str("it's".into()));
}

#[test]
fn in_lists() {
    let c = parse_filter("attributes.run_id IN ('a1', \"b2\") AND run_id NOT IN ('c')").unwrap();
    assert_eq!(c[0].op, Op::In);
    assert_eq!(c[0].value, Literal::List(vec!["a1".into(), "b2".into()]));
    assert_eq!(c[1].op, Op::NotIn);
    assert_eq!(c[1].ident, ident(None, "run_id"));
}

#[test]
fn blank_filter_has_no_clause() {
    assert!(parse_filter("").unwrap().is_empty());
    assert!(parse_filter("   ").unwrap().is_empty());
}

#[test]
fn rejects_malformed_filters() {
    for bad in [
        "metrics.a < 1 OR metrics.b > 2",
        "metrics.a <",
        "metrics.a 1",
        "metrics. = 1",
        "params.a = 'unterminated",
        "metrics.a < 1 AND",
        "metrics.a < 1 metrics.b > 2",
        "(metrics.a < 1)",
        "run_id IN 'a'",
        "run_id IN ('a',)",
        "run_id IN (1, 2)",
        "metrics.a = abc",
        "metrics.a = nan",
        "params.a NOT 'x'",
        "a == 1",
    ] {
        let e = parse_filter(bad).unwrap_err();
        assert!(matches!(e, Error::InvalidParameter(_)), "{bad}");
    }
}

#[test]
fn order_by_clauses() {
    assert_eq!(
        parse_order_by("metrics.loss").unwrap(),
        (ident(Some("metrics"), "loss"), true)
    );
    assert_eq!(
        parse_order_by("start_time DESC").unwrap(),
        (ident(None, "start_time"), false)
    );
    assert_eq!(
        parse_order_by("params.`lr rate` asc").unwrap(),
        (ident(Some("params"), "lr rate"), true)
    );
    for bad in ["", "metrics.loss UP", "a b c", "metrics.loss DESC x"] {
        assert!(parse_order_by(bad).is_err(), "{bad}");
    }
}
