//! Identity on the real router: sign-in, sessions, CSRF, tokens, Basic/Bearer, 401 bodies
//! in both dialects, rate limiting, MLflow's user endpoints, the proxy header and the
//! security headers.

#[path = "auth_api/credentials.rs"]
mod credentials;
#[path = "auth_api/headers.rs"]
mod headers;
#[path = "auth_api/mlflow_users.rs"]
mod mlflow_users;
#[path = "auth_api/session.rs"]
mod session;
#[path = "auth_api/support.rs"]
mod support;
#[path = "auth_api/tokens.rs"]
mod tokens;
