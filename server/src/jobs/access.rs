//! Who may do what to a job: a caller's effective level (admin, owner, the best of their
//! own and their groups' grants), the checks with their refusals, the managers a refusal
//! names, and writing grants.

use crate::db::{Conn, OptionalExtension};
use api_types::jobs::JobGrant;
use api_types::{JobLevel, Level, Principal, PrincipalKind};

use super::{attempt_of_run, level_from_db, level_to_db, AttemptRef};
use crate::auth::Caller;
use crate::grants::{self, principal_id, JOB};
use crate::permissions::require_run;
use crate::Error;

/// The answer of every log route for a run that no job produced.
pub const NOT_A_JOB_RUN: &str = "This run was not started by a job, so it has no logs. Start \
                                 runs with `runlens-agent run` to capture their output.";

/// The owner's user id of job `job_id` (`None` once the owner's account was deleted); 404
/// when there is no such job.
fn owner_of(conn: &Conn, job_id: i64) -> Result<Option<i64>, Error> {
    conn.prepare_cached("SELECT owner_user_id FROM jobs WHERE job_id = ?1")?
        .query_row([job_id], |r| r.get(0))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("job '{job_id}' does not exist")))
}

/// The caller's effective level on job `job_id`: `IS_OWNER` for admins and the owner, else
/// the highest grant to the caller or any of their groups, `None` without any. Unknown
/// job: 404.
pub(crate) fn job_level(
    conn: &Conn,
    caller: &Caller,
    job_id: i64,
) -> Result<Option<JobLevel>, Error> {
    let owner = owner_of(conn, job_id)?;
    if caller.is_admin || owner == Some(caller.user_id) {
        return Ok(Some(JobLevel::IsOwner));
    }
    let best = grants::held(conn, JOB, &job_id, caller)?.best;
    Ok(best.and_then(level_from_db))
}

/// Checks that the caller holds at least `need` on job `job_id`; returns their level.
/// Unknown job: 404; otherwise refused: 403 naming the job's managers as grantors.
pub(crate) fn require_job(
    conn: &Conn,
    caller: &Caller,
    job_id: i64,
    need: JobLevel,
) -> Result<JobLevel, Error> {
    let have = job_level(conn, caller, job_id)?;
    match have {
        Some(level) if level >= need => Ok(level),
        _ => {
            let message = match have {
                None => "You don't have access to this job.".to_owned(),
                Some(_) => format!("You need {} on this job to do this.", need.as_str()),
            };
            Err(Error::PermissionDenied {
                message,
                grantors: grantors(conn, job_id)?,
            })
        }
    }
}

/// Who can grant access to job `job_id`: its owner first, then the users and the groups
/// holding `CAN_MANAGE`, each by name (enabled users only).
pub(crate) fn managers(conn: &Conn, job_id: i64) -> Result<Vec<Principal>, Error> {
    let owner = owner_of(conn, job_id)?;
    let mut out = Vec::new();
    if let Some(id) = owner {
        out.extend(
            crate::auth::users::enabled_name(conn, id)?.map(|name| Principal {
                kind: PrincipalKind::User,
                name,
            }),
        );
    }
    let manage = level_to_db(JobLevel::CanManage).unwrap_or(3);
    out.extend(grants::holders(conn, JOB, &job_id, manage, owner)?);
    Ok(out)
}

/// The usernames among [`managers`] (a refusal's `grantors`).
pub(crate) fn grantors(conn: &Conn, job_id: i64) -> Result<Vec<String>, Error> {
    Ok(user_names(managers(conn, job_id)?))
}

pub(crate) use crate::grants::user_names;

/// The job behind run `run_id`, when the caller may read its logs (at least `CAN_VIEW` on
/// the job). A run no job produced: 404 [`NOT_A_JOB_RUN`]; without `CAN_VIEW`: 403 with
/// [`api_types::logs::access_denied_message`] and the managers' usernames as grantors.
/// The run's experiment is the caller's to check first (CAN_READ).
pub(crate) fn require_logs(
    conn: &Conn,
    caller: &Caller,
    run_id: &str,
) -> Result<AttemptRef, Error> {
    let attempt =
        attempt_of_run(conn, run_id)?.ok_or_else(|| Error::NotFound(NOT_A_JOB_RUN.to_owned()))?;
    match job_level(conn, caller, attempt.job_id)? {
        Some(_) => Ok(attempt),
        None => {
            let managers = managers(conn, attempt.job_id)?;
            Err(Error::PermissionDenied {
                message: api_types::logs::access_denied_message(&attempt.job_name, &managers),
                grantors: user_names(managers),
            })
        }
    }
}

/// What reading run `run_id`'s logs takes: CAN_READ on its experiment (404 naming the run
/// otherwise), then [`require_logs`]; the attempt the run is. Open log streams check it
/// again as they go.
pub fn require_run_logs(c: &Conn, who: &Caller, run_id: &str) -> Result<AttemptRef, Error> {
    require_run(c, who, run_id, Level::CanRead).map_err(|e| match e {
        Error::NotFound(_) => Error::NotFound(format!("run '{run_id}' does not exist")),
        other => other,
    })?;
    require_logs(c, who, run_id)
}

/// The explicit grants on job `job_id`: users then groups, each by name.
pub(crate) fn list_grants(conn: &Conn, job_id: i64) -> Result<Vec<JobGrant>, Error> {
    Ok(grants::list(conn, JOB, &job_id)?
        .into_iter()
        .filter_map(|(principal, level)| {
            level_from_db(level).map(|level| JobGrant { principal, level })
        })
        .collect())
}

/// Refuses to change the owner's access: it is `IS_OWNER`, which no grant gives or takes.
fn protect_owner(conn: &Conn, job_id: i64, principal: &Principal, id: i64) -> Result<(), Error> {
    if principal.kind == PrincipalKind::User && owner_of(conn, job_id)? == Some(id) {
        return Err(Error::InvalidParameter(format!(
            "{} owns this job; the owner's access cannot be changed or removed.",
            principal.name
        )));
    }
    Ok(())
}

/// Grants `principal` `level` on job `job_id`, replacing any earlier grant. `IS_OWNER` and
/// the owner themself: 400; unknown job, user or group: 404.
pub fn set_grant(
    conn: &Conn,
    job_id: i64,
    principal: &Principal,
    level: JobLevel,
) -> Result<(), Error> {
    owner_of(conn, job_id)?;
    let stored = level_to_db(level).ok_or_else(|| {
        Error::InvalidParameter(
            "IS_OWNER cannot be granted: a job has exactly one owner, its creator. Grant \
             CAN_VIEW, CAN_MANAGE_RUN or CAN_MANAGE."
                .into(),
        )
    })?;
    let id = principal_id(conn, principal)?;
    protect_owner(conn, job_id, principal, id)?;
    grants::set_by_id(conn, JOB, &job_id, principal.kind, id, stored)
}

/// Removes `principal`'s grant on job `job_id`. The owner: 400; unknown job, user or group,
/// or no such grant: 404.
pub(crate) fn revoke_grant(conn: &Conn, job_id: i64, principal: &Principal) -> Result<(), Error> {
    owner_of(conn, job_id)?;
    let id = principal_id(conn, principal)?;
    protect_owner(conn, job_id, principal, id)?;
    if !grants::revoke(conn, JOB, &job_id, principal)? {
        return Err(Error::NotFound(format!(
            "'{}' has no grant on this job.",
            principal.name
        )));
    }
    Ok(())
}
