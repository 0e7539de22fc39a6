//! Identity on the real router: sign-in, sessions, CSRF, tokens, Basic/Bearer, 401 bodies
//! in both dialects, rate limiting, MLflow's user endpoints, the proxy header and the
//! security headers.

mod credentials;
mod headers;
mod mlflow_users;
mod open_streams;
mod session;
mod tokens;
