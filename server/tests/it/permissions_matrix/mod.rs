//! The route × caller permission matrix. Every route of the router (see
//! [`registered_routes`]) must have a case in `cases::all()`; each case runs for every caller on a fresh copy of
//! the fixture and checks allow/deny, and that refusals carry nothing but the error.

mod cases;
mod cases_artifacts;
mod cases_models;
mod cases_workspace;
mod fixture;
mod fixture_artifacts;
mod fixture_models;
mod renames;

use axum::http::StatusCode;
use serde_json::Value;

use cases::{Case, Rule};
use fixture::{send, Template, Who};

/// The `/api/` spelling of a path, so `/ajax-api/` twins share one case.
fn canonical(path: &str) -> String {
    path.strip_prefix("/ajax-api/")
        .map(|rest| format!("/api/{rest}"))
        .unwrap_or_else(|| path.to_string())
}

/// One route of the router: method and full path pattern, and whether it is public.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Route {
    method: String,
    path: String,
    public: bool,
}

/// Every route of the router, from its route table.
fn registered_routes() -> Vec<Route> {
    server::routes::table()
        .into_iter()
        .map(|r| Route {
            method: r.method.to_string(),
            public: r.public(),
            path: r.path,
        })
        .collect()
}

/// Whether case `c` (method `ANY` covers every method) is the matrix row of route `r`.
fn case_of(c: &Case, r: &Route) -> bool {
    (c.method == r.method || c.method == "ANY") && c.route == canonical(&r.path)
}

#[test]
fn every_route_is_covered_by_the_permission_matrix() {
    let routes = registered_routes();
    assert!(
        routes.len() > 40,
        "the route table lists only {} routes",
        routes.len()
    );
    for r in &routes {
        let cases = cases::all();
        let case = cases.iter().find(|c| case_of(c, r));
        let case = case.unwrap_or_else(|| {
            panic!(
                "route {} {} is not covered by the permission matrix",
                r.method, r.path
            )
        });
        assert_eq!(
            r.public,
            case.rule == Rule::Public,
            "route {} {}: public in the table: {}, in the matrix: {:?}",
            r.method,
            r.path,
            r.public,
            case.rule
        );
    }
    for c in cases::all() {
        let exists = routes.iter().any(|r| case_of(c, r));
        assert!(
            exists,
            "matrix case {} {} names no route of the router",
            c.method, c.route
        );
    }
}

/// What the rule allows `who` to do.
fn allowed(rule: Rule, who: Who) -> bool {
    match rule {
        Rule::Public => true,
        _ if who == Who::Anonymous => false,
        // A node credential registers its own node and calls nothing else.
        Rule::NodeAgent => matches!(who, Who::NodeAgent | Who::Admin),
        _ if who == Who::NodeAgent => false,
        Rule::SignedIn | Rule::Filtered | Rule::NotFound => true,
        Rule::Admin => who == Who::Admin,
        Rule::Level(need) => who.level() >= Some(need),
        Rule::Watch => who.watches(),
        Rule::FilteredNode => true,
        Rule::FilteredJob => true,
        Rule::Job(need) => who.job_level() >= Some(need),
        Rule::JobAnd(job, experiment) => {
            who.job_level() >= Some(job) && who.level() >= Some(experiment)
        }
    }
}

/// Asserts that a refusal is only an error body: no names, values or ids of the fixture.
fn assert_no_data(ctx: &str, body: &Value, runs: &[&str]) {
    let obj = body
        .as_object()
        .unwrap_or_else(|| panic!("{ctx}: refusal is not a JSON object: {body}"));
    for key in obj.keys() {
        let known = ["error_code", "message", "code", "grantors"];
        assert!(
            known.contains(&key.as_str()),
            "{ctx}: refusal carries {key:?}: {body}"
        );
    }
    let text = body.to_string();
    assert!(
        !text.contains("secret"),
        "{ctx}: refusal leaks fixture data: {text}"
    );
    for run in runs {
        assert!(!text.contains(run), "{ctx}: refusal leaks a run id: {text}");
    }
}

async fn check_cell(t: &Template, c: &Case, path_prefix: &str, who: Who) {
    let fill = |s: &str| {
        let s = s
            .replace("{exp}", &t.exp)
            .replace("{run}", &t.run)
            .replace("{jobrun}", &t.job_run)
            .replace("{job}", &t.job)
            .replace("{arun}", &t.attempt_run);
        t.extra.iter().fold(s, |s, (name, value)| {
            s.replace(&format!("{{{name}}}"), value)
        })
    };
    let uri = fill(c.uri);
    let uri = match path_prefix {
        "/ajax-api/" => uri.replacen("/api/", "/ajax-api/", 1),
        _ => uri,
    };
    let body = c.body.map(fill);
    // Only a write that is allowed changes the fixture: it gets a copy of its own. Reads
    // and refused writes share one copy (a refused write that changed it anyway would
    // show up in the cells after it).
    let (_dir, app) = match c.send != "GET" && allowed(c.rule, who) {
        true => {
            let (dir, app) = t.copy();
            (Some(dir), app)
        }
        false => (None, t.shared()),
    };
    let token = t.token(who);
    let (status, v) = send(&app, c.send, &uri, body, token.as_deref()).await;
    let ctx = format!("{} {uri} as {who:?} -> {status}", c.send);
    if !allowed(c.rule, who) {
        let want = match (who, c.rule) {
            (Who::Anonymous, _) => StatusCode::UNAUTHORIZED,
            (Who::NodeAgent, _) => StatusCode::FORBIDDEN,
            // A node the caller may not watch answers like one that does not exist.
            (_, Rule::Watch) => StatusCode::NOT_FOUND,
            _ => StatusCode::FORBIDDEN,
        };
        assert_eq!(status, want, "{ctx}: {v}");
        assert_no_data(&ctx, &v, &[&t.run, &t.attempt_run]);
        return;
    }
    assert!(
        c.ok.contains(&status.as_u16()),
        "{ctx}: expected one of {:?}: {v}",
        c.ok
    );
    let may = match c.rule {
        Rule::Filtered => Some(who.level().is_some()),
        Rule::FilteredJob => Some(who.job_level().is_some()),
        Rule::FilteredNode => Some(who.watches()),
        _ => None,
    };
    if let Some(may) = may {
        let sees = v.to_string().contains(c.marker);
        assert_eq!(
            sees, may,
            "{ctx}: list shows the fixture: {sees}, may read: {may}: {v}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_allows_and_denies_by_the_matrix() {
    use futures_util::stream::{self, StreamExt};
    let t = Template::build().await;
    let cases = cases::all();
    let mut cells = Vec::new();
    for c in cases.iter().copied() {
        let twins: &[&str] = if c.route.starts_with("/api/2.0/") || c.route.starts_with("/api/3.0/")
        {
            &["/api/", "/ajax-api/"]
        } else {
            &["/api/"]
        };
        for prefix in twins {
            for who in Who::MATRIX {
                cells.push((c, *prefix, who));
            }
        }
    }
    let n = cells.len();
    // Cells are independent (each write has its own copy; reads share one), so a few run
    // at once: on PostgreSQL most of a cell's time is waiting for its database copy.
    stream::iter(cells)
        .for_each_concurrent(4, |(c, prefix, who)| {
            let t = &t;
            async move { check_cell(t, c, prefix, who).await }
        })
        .await;
    assert!(n >= 7 * cases.len(), "{n} cells");
    println!("permission matrix: {} cases, {n} cells", cases.len());
}
