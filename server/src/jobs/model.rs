//! Jobs themselves: the name rule, get-or-create, and reading one as its viewers see it.

use crate::db::{params, Conn, OptionalExtension};
use api_types::jobs::Job;
use api_types::JobLevel;

use super::access::{job_level, managers, user_names};
use crate::auth::Caller;
use crate::util::now_ms;
use crate::Error;

/// Longest job name, in characters.
pub(crate) const MAX_JOB_NAME: usize = 256;

/// Checks a job name: 1 to [`MAX_JOB_NAME`] characters, no control characters.
pub(crate) fn validate_job_name(name: &str) -> Result<(), Error> {
    let n = name.chars().count();
    if n == 0 || n > MAX_JOB_NAME {
        return Err(Error::InvalidParameter(format!(
            "name must have 1 to {MAX_JOB_NAME} characters, got {n}"
        )));
    }
    if name.chars().any(char::is_control) {
        return Err(Error::InvalidParameter(
            "name must not contain control characters".into(),
        ));
    }
    Ok(())
}

/// What [`get_or_create_job`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GetOrCreated {
    /// The job, as the caller sees it.
    pub job: Job,
    /// True when it was created now (owned by the caller).
    pub created: bool,
}

/// The job called `name`: created (owned by the caller) when there is none; an existing
/// one when the caller holds at least `CAN_MANAGE_RUN` on it, else 403 naming its managers.
/// Run it in a write transaction, so two callers creating one name get one job.
pub fn get_or_create_job(conn: &Conn, caller: &Caller, name: &str) -> Result<GetOrCreated, Error> {
    validate_job_name(name)?;
    let existing: Option<i64> = conn
        .prepare_cached("SELECT job_id FROM jobs WHERE name = ?1")?
        .query_row([name], |r| r.get(0))
        .optional()?;
    let Some(job_id) = existing else {
        let job_id: i64 = conn
            .prepare_cached(
                "INSERT INTO jobs (name, owner_user_id, created) VALUES (?1, ?2, ?3) \
                 RETURNING job_id",
            )?
            .query_row(params![name, caller.user_id, now_ms()], |r| r.get(0))?;
        let job = get_job(conn, caller, job_id)?;
        return Ok(GetOrCreated { job, created: true });
    };
    match job_level(conn, caller, job_id)? {
        Some(level) if level >= JobLevel::CanManageRun => Ok(GetOrCreated {
            job: get_job(conn, caller, job_id)?,
            created: false,
        }),
        _ => {
            let managers = managers(conn, job_id)?;
            let names: Vec<String> = managers
                .iter()
                .map(|p| match p.kind {
                    api_types::PrincipalKind::User => p.name.clone(),
                    api_types::PrincipalKind::Group => format!("group {}", p.name),
                })
                .collect();
            let ask = match names.is_empty() {
                true => "an administrator".to_owned(),
                false => format!(
                    "one of its managers ({}) or an administrator",
                    names.join(", ")
                ),
            };
            Err(Error::PermissionDenied {
                message: format!(
                    "Job '{name}' exists and you need Can manage run on it to submit runs. \
                     Ask {ask}, or choose another job name."
                ),
                grantors: user_names(managers),
            })
        }
    }
}

/// Job `job_id` with the caller's level on it (`CAN_VIEW` when they hold none: callers
/// check access first). Unknown job: 404.
pub(crate) fn get_job(conn: &Conn, caller: &Caller, job_id: i64) -> Result<Job, Error> {
    let (name, owner, created): (String, Option<String>, i64) = conn
        .prepare_cached(
            "SELECT j.name, u.username, j.created FROM jobs j
               LEFT JOIN users u ON u.user_id = j.owner_user_id
              WHERE j.job_id = ?1",
        )?
        .query_row([job_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("job '{job_id}' does not exist")))?;
    Ok(Job {
        job_id,
        name,
        owner: owner.unwrap_or_default(),
        created,
        your_level: job_level(conn, caller, job_id)?.unwrap_or(JobLevel::CanView),
    })
}
