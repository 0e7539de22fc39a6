//! Identity, API tokens and sharing (`/api/v1/session`, `/api/v1/tokens`,
//! `/api/v1/experiments/{id}/access`, `/api/v1/principals`).

use serde::{Deserialize, Serialize};

/// The signed-in user, `GET /api/v1/session` (401 when signed out).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Me {
    /// Username.
    pub username: String,
    /// Whether the user is an administrator (sees and manages everything).
    pub is_admin: bool,
    /// Names of the groups the user belongs to.
    pub groups: Vec<String>,
    /// Token the app must send as `X-CSRF-Token` on every non-GET request of this session.
    pub csrf_token: String,
}

/// `POST /api/v1/session`: sign in; answers [`Me`] and sets the session cookie.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoginRequest {
    /// Username.
    pub username: String,
    /// Password.
    pub password: String,
}

/// An API token as listed (the secret itself is never shown again after creation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenInfo {
    /// Token id.
    pub id: i64,
    /// Name given at creation, e.g. `laptop` or `ci`.
    pub name: String,
    /// First characters of the token, to recognise it (e.g. `rl_3f9a`).
    pub prefix: String,
    /// Creation time, ms since the epoch.
    pub created: i64,
    /// Last use, ms since the epoch.
    pub last_used: Option<i64>,
}

/// `POST /api/v1/tokens` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewToken {
    /// Name for the token.
    pub name: String,
}

/// `POST /api/v1/tokens` answer: the only time the secret is shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreatedToken {
    /// The token as listed from now on.
    pub info: TokenInfo,
    /// The secret, for `MLFLOW_TRACKING_TOKEN` or `Authorization: Bearer`.
    pub token: String,
}

/// Experiment permission levels, ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Level {
    /// Read runs, params, metrics, charts, system metrics and artifacts.
    CanRead,
    /// Also log to it and rename it.
    CanEdit,
    /// Also change grants and delete it.
    CanManage,
}

/// Who a grant is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrincipalKind {
    /// A user, by username.
    User,
    /// A group, by name.
    Group,
}

/// A user or group, e.g. in the Share dialog's picker (`GET /api/v1/principals?q=`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Principal {
    /// User or group.
    pub kind: PrincipalKind,
    /// Username or group name.
    pub name: String,
}

/// One explicit grant on an experiment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    /// Who.
    pub principal: Principal,
    /// At which level.
    pub level: Level,
}

/// `GET /api/v1/experiments/{id}/access`: who can see it and why (readers may ask).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExperimentAccess {
    /// Experiment id.
    pub experiment_id: String,
    /// The caller's effective level.
    pub your_level: Level,
    /// Access that comes from the experiment's path rather than grants, in words, e.g.
    /// "Everyone can read and edit experiments under /Workspace/Shared/".
    pub implicit: Vec<String>,
    /// Explicit grants.
    pub grants: Vec<Grant>,
    /// The user who owns the experiment (its path is `/Users/<name>/...`): nobody can take
    /// their access away, so the Share dialog offers no revoke on their row.
    #[serde(default)]
    pub owner: Option<String>,
}

/// `PUT /api/v1/experiments/{id}/access` body (CAN_MANAGE only): grant or change a level.
/// `DELETE /api/v1/experiments/{id}/access?kind=user&name=bob` revokes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrantRequest {
    /// Who.
    pub principal: Principal,
    /// Level to grant.
    pub level: Level,
}
